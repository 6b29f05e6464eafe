package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model/invariant"
)

// TestMain runs the tests in a directory of their own: simulate with no argument writes its
// results under the working directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "simulate-test-")
	if err != nil {
		panic(err)
	}
	if err := os.Chdir(dir); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runCommand calls run with args and returns its exit code, stdout and stderr.
func runCommand(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// afterLine returns the part of out from the first line starting with prefix.
func afterLine(out, prefix string) string {
	if i := strings.Index(out, "\n"+prefix); i >= 0 {
		return out[i+1:]
	}
	return ""
}

// Every way in prints the seed first and, second, the one command that replays the run:
// simulate -seed N is simulate run lossy-wan -seed N.
func TestEveryRunPrintsItsSeedThenTheCommandThatReplaysIt(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		wantFirst string // the first line, exactly; empty to check its form only
		wantPlay  string
	}{
		{"flags only", []string{"-seed", "42"}, "seed: 42", "replay: go run ./cmd/simulate run lossy-wan -seed 42"},
		{"run", []string{"run", "lossy-wan", "-seed", "42"}, "seed: 42", "replay: go run ./cmd/simulate run lossy-wan -seed 42"},
		{"seed zero is a seed", []string{"run", "partition-heals", "-seed", "0"}, "seed: 0", "replay: go run ./cmd/simulate run partition-heals -seed 0"},
		{"overrides", []string{"run", "lossy-wan", "-set", "workloads.audit.dialogs=1", "-seed", "5"}, "seed: 5",
			"replay: go run ./cmd/simulate run lossy-wan -set workloads.audit.dialogs=1 -seed 5"},
		{"seed from the wall clock", []string{"run", "single-conversation-activation"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(tc.args...)
			require.Equal(t, 0, code, "args %q: %s", tc.args, errOut)
			lines := strings.SplitN(out, "\n", 3)
			require.Len(t, lines, 3, "args %q printed too little", tc.args)
			// The replay line ends with a comment that pins it to the code and the scenario.
			command, pin, _ := strings.Cut(lines[1], "  # ")
			assert.Regexp(t, `^code devel, scenario [0-9a-f]{16}$`, pin, "args %q", tc.args)
			if tc.wantFirst == "" {
				assert.Regexp(t, `^seed: \d+$`, lines[0], "args %q", tc.args)
				assert.Regexp(t, `^replay: go run \./cmd/simulate run single-conversation-activation -seed \d+$`, command, "args %q", tc.args)
				return
			}
			assert.Equal(t, tc.wantFirst, lines[0], "args %q", tc.args)
			assert.Equal(t, tc.wantPlay, command, "args %q", tc.args)
		})
	}
}

func TestReplayLineRepeatsTheRunByteForByte(t *testing.T) {
	for _, args := range [][]string{{"-seed", "11"}, {"run", "poison-message"}, {"run", "lossy-wan", "-set", "broker.retry_interval_min=1s"}} {
		_, first, _ := runCommand(args...)
		replay, _, _ := strings.Cut(strings.SplitN(first, "\n", 3)[1], "  # ")
		replayArgs := strings.Fields(strings.TrimPrefix(replay, "replay: go run ./cmd/simulate"))

		code, second, _ := runCommand(replayArgs...)

		require.Equal(t, 0, code, "replay args %q", replayArgs)
		assert.Equal(t, first, second, "the replay line %q did not repeat the run", replay)
	}
}

func TestDifferentSeedsGiveDifferentRuns(t *testing.T) {
	_, seven, _ := runCommand("-seed", "7")
	_, eight, _ := runCommand("-seed", "8")

	assert.NotEqual(t, afterLine(seven, "links"), afterLine(eight, "links"), "seeds 7 and 8 gave the same results")
}

func TestHelpExitsZeroAndNamesEverySubcommand(t *testing.T) {
	for _, h := range []string{"-h", "help"} {
		code, out, _ := runCommand(h)

		assert.Equal(t, 0, code)
		for _, c := range subcommands() {
			assert.Contains(t, out, "  "+c.name+" ", "help does not name %s", c.name)
		}
		assert.Contains(t, out, "go run ./cmd/simulate -seed 1", "help has no example")
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown flag", []string{"-bogus"}, "flag provided but not defined: -bogus"},
		{"seed not a number", []string{"-seed", "lisbon"}, `invalid value "lisbon" for flag -seed`},
		{"negative seed", []string{"-seed", "-1"}, `invalid value "-1" for flag -seed`},
		{"unknown subcommand", []string{"bogus"}, `unknown subcommand "bogus"`},
		{"unknown scenario", []string{"run", "nope"}, `scenario "nope": unknown scenario`},
		{"two scenarios", []string{"run", "lossy-wan", "poison-message"}, "want one scenario"},
		{"-set without a value", []string{"run", "lossy-wan", "-set", "broker"}, `want key=value, got "broker"`},
		{"-set of an unknown key", []string{"run", "lossy-wan", "-set", "broker.nope=1"}, `unknown key "nope"`},
		{"-trace without -out", []string{"run", "lossy-wan", "-trace"}, "give -out too"},
		{"-shard not i/n", []string{"explore", "lossy-wan", "-shard", "3"}, `invalid value "3" for flag -shard: want i/n`},
		{"-shard past the shards", []string{"explore", "lossy-wan", "-shard", "3/3"}, `the shard's index "3": want a whole number from 0 to 2`},
		{"-shard auto without its index", []string{"explore", "lossy-wan", "-shard", "auto/4"}, "JOB_COMPLETION_INDEX is not set"},
		{"-shard with -seed", []string{"explore", "lossy-wan", "-seed", "1", "-shard", "0/2"}, "not with -seed"},
		{"check -shard with -check-determinism", []string{"check", "lossy-wan", "-shard", "0/2", "-check-determinism"}, "not with -shard"},
		{"merge without -out", []string{"merge", "shard-0"}, "want -out DIR"},
	}
	t.Setenv("JOB_COMPLETION_INDEX", "") // as outside a Kubernetes Indexed Job
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(tc.args...)
			assert.Equal(t, 2, code, "args %q", tc.args)
			assert.Empty(t, out, "args %q: bad input must not start a run", tc.args)
			assert.Contains(t, errOut, tc.wantErr, "args %q", tc.args)
		})
	}
}

// The report of the showcase names every figure: links, instances, conversations, the
// figures of the metric table, and the verdict of every rule the checker knows.
func TestShowcaseReportPrintsFiguresAndEveryInvariant(t *testing.T) {
	code, out, errOut := runCommand("-seed", "3")

	require.Equal(t, 0, code, "stderr: %s", errOut)
	for _, want := range []string{
		"scenario: lossy-wan", "links, one row per direction:", "Lisbon->Tokyo", "Tokyo->Lisbon",
		"instances:", "retransmitted", "dup-discarded", "corrupt-discarded", "figures (", "latency.p99",
		"transmission_queue_wait.mean", "verdict: ok, every invariant held", "engine: drained (no event left)",
		"expectations:",
	} {
		assert.Contains(t, out, want)
	}
	for _, r := range invariant.Rules() {
		assert.Regexp(t, `\n  `+r.ID+` +ok `, out, "no verdict for %s", r.ID)
	}
}

// simulate with no argument writes the showcase's results and says what to open.
func TestNoArgumentWritesTheShowcaseAndSaysWhatToOpen(t *testing.T) {
	code, out, errOut := runCommand()

	require.Equal(t, 0, code, "stderr: %s", errOut)
	assert.Regexp(t, `replay: go run \./cmd/simulate run lossy-wan -seed \d+ -out sbsim-results/lossy-wan-seed-\d+  # code devel, scenario [0-9a-f]+\n`, out)
	assert.Contains(t, out, "open sbsim-results/lossy-wan-seed-")
	assert.Contains(t, out, "summary.json")
}
