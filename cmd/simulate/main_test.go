package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// shortRun keeps the tests fast: two virtual seconds of traffic.
const shortRun = "2s"

// runCommand calls run with args and returns its exit code, stdout and stderr.
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

func runCommand(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSameSeedGivesByteIdenticalOutput(t *testing.T) {
	code1, first, _ := runCommand("-scenario", "links", "-seed", "7", "-duration", shortRun)
	code2, second, _ := runCommand("-scenario", "links", "-seed", "7", "-duration", shortRun)

	require.Equal(t, 0, code1, "first run of seed 7")
	require.Equal(t, 0, code2, "second run of seed 7")
	assert.Equal(t, first, second, "two runs of seed 7 must print the same bytes")
}

func TestDifferentSeedGivesDifferentOutput(t *testing.T) {
	_, seven, _ := runCommand("-scenario", "links", "-seed", "7", "-duration", shortRun)
	_, eight, _ := runCommand("-scenario", "links", "-seed", "8", "-duration", shortRun)

	// Past the seed and replay lines, the traffic itself must differ.
	assert.NotEqual(t, afterLine(seven, "results"), afterLine(eight, "results"),
		"seeds 7 and 8 gave the same results")
}

// afterLine returns the part of out from the first line starting with prefix.
func afterLine(out, prefix string) string {
	if i := strings.Index(out, "\n"+prefix); i >= 0 {
		return out[i+1:]
	}
	return ""
}

func TestSummaryStartsWithTheSeedAndHowToReplayIt(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		wantFirst string // the first line, exactly; empty to check its prefix only
		wantPlay  string
	}{
		{"given seed, default duration", []string{"-seed", "42"}, "seed: 42", "replay: go run ./cmd/simulate -seed 42"},
		{"links, given seed, other duration", []string{"-scenario", "links", "-seed", "42", "-duration", shortRun}, "seed: 42",
			"replay: go run ./cmd/simulate -seed 42 -scenario links -duration 2s"},
		{"seed zero is a seed", []string{"-scenario", "links", "-seed", "0", "-duration", shortRun}, "seed: 0",
			"replay: go run ./cmd/simulate -seed 0 -scenario links -duration 2s"},
		{"seed from the wall clock", []string{"-scenario", "links", "-duration", shortRun}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, _ := runCommand(tc.args...)
			require.Equal(t, 0, code, "args %q", tc.args)
			lines := strings.SplitN(out, "\n", 3)
			require.Len(t, lines, 3, "args %q printed too little", tc.args)
			if tc.wantFirst == "" {
				assert.Regexp(t, `^seed: \d+$`, lines[0], "args %q", tc.args)
				assert.Regexp(t, `^replay: go run \./cmd/simulate -seed \d+ -scenario links -duration 2s$`, lines[1], "args %q", tc.args)
				return
			}
			assert.Equal(t, tc.wantFirst, lines[0], "args %q", tc.args)
			assert.Equal(t, tc.wantPlay, lines[1], "args %q", tc.args)
		})
	}
}

func TestReplayLineRepeatsTheRun(t *testing.T) {
	for _, args := range [][]string{{"-scenario", "links", "-duration", shortRun}, {}} {
		_, first, _ := runCommand(args...)
		replay := strings.SplitN(first, "\n", 3)[1]
		replayArgs := strings.Fields(strings.TrimPrefix(replay, "replay: go run ./cmd/simulate"))

		code, second, _ := runCommand(replayArgs...)

		require.Equal(t, 0, code, "replay args %q", replayArgs)
		assert.Equal(t, first, second, "the replay line %q did not repeat the run", replay)
	}
}

func TestHelpExitsZeroAndExplainsEveryFlag(t *testing.T) {
	code, out, _ := runCommand("-h")

	assert.Equal(t, 0, code)
	var o options
	newFlagSet(&o, io.Discard).VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		assert.Contains(t, out, "-"+f.Name+" ", "help does not mention -%s", f.Name)
		assert.Contains(t, out, usage[:40], "help does not explain -%s", f.Name)
	})
	assert.Contains(t, out, "-h\n", "help does not mention -h")
	assert.Contains(t, out, "go run ./cmd/simulate -seed 1", "help has no example")
}

func TestBadFlagsExitTwo(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown flag", []string{"-bogus"}, "flag provided but not defined: -bogus"},
		{"seed not a number", []string{"-seed", "lisbon"}, `invalid value "lisbon" for flag -seed`},
		{"negative seed", []string{"-seed", "-1"}, `invalid value "-1" for flag -seed`},
		{"duration without a unit", []string{"-duration", "60"}, `invalid value "60" for flag -duration`},
		{"duration zero", []string{"-duration", "0s"}, "invalid value 0s for flag -duration"},
		{"duration too long", []string{"-duration", "2h"}, "invalid value 2h0m0s for flag -duration"},
		{"positional argument", []string{"-seed", "1", "extra"}, `unexpected argument "extra"`},
		{"unknown scenario", []string{"-scenario", "nope"}, `invalid value "nope" for flag -scenario`},
		{"duration for a dialog scenario", []string{"-duration", "5s"}, "flag -duration applies to -scenario links only"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(tc.args...)
			assert.Equal(t, 2, code, "args %q", tc.args)
			assert.Empty(t, out, "args %q: a bad flag must not start a run", tc.args)
			assert.Contains(t, errOut, tc.wantErr, "args %q", tc.args)
		})
	}
}

func TestVerdictOfTheCountersCheckIsPrinted(t *testing.T) {
	code, out, _ := runCommand("-scenario", "links", "-seed", "1", "-duration", shortRun)

	require.Equal(t, 0, code)
	assert.Contains(t, out, "Sent = Delivered + Lost + DroppedCapacity + DroppedPartition + InFlight")
	for _, link := range []string{"Lisbon->Paris", "Paris->Lisbon", "Paris->Tokyo", "Tokyo->Paris", "Lisbon->Tokyo", "Tokyo->Lisbon"} {
		assert.Contains(t, out, "  "+link+": ok\n", "no verdict for link %s", link)
	}
	assert.Contains(t, out, "verdict: ok, the counters of all 6 links add up\n")
	assert.Contains(t, out, "engine: drained (no event left)")
}

func TestEveryFaultShowsInTheDefaultRun(t *testing.T) {
	w, err := newWorld(1, defaultDuration)
	require.NoError(t, err)
	w.engine.Run(w.limits)

	var lost, duplicated, corrupted, full, partitioned, reordered int64
	for _, dl := range w.links {
		c := dl.link.Counters()
		require.NoError(t, dl.check(true), "link %s", dl.link.Name())
		lost += c.Lost
		duplicated += c.Duplicated
		corrupted += c.Corrupted
		full += c.DroppedCapacity
		partitioned += c.DroppedPartition
		reordered += dl.rx.reordered
	}
	shown := []struct {
		what  string
		count int64
	}{
		{"lost", lost}, {"duplicated", duplicated}, {"corrupted", corrupted},
		{"dropped for capacity", full}, {"dropped by partition", partitioned}, {"reordered", reordered},
	}
	for _, s := range shown {
		assert.Positive(t, s.count, "the demonstration shows no packet %s", s.what)
	}
}

func TestLatencyQuantiles(t *testing.T) {
	ms := float64(time.Millisecond)
	cases := []struct {
		name                      string
		samples                   []float64
		wantP50, wantP99, wantMax string
	}{
		{"none", nil, "-", "-", "-"},
		{"one", []float64{2 * ms}, "2ms", "2ms", "2ms"},
		{"unsorted", []float64{3 * ms, 1 * ms, 2 * ms}, "2ms", "3ms", "3ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p50, p99, most := latencyQuantiles(tc.samples)
			assert.Equal(t, []string{tc.wantP50, tc.wantP99, tc.wantMax}, []string{p50, p99, most}, "samples %v", tc.samples)
		})
	}
}

func TestDefaultScenarioPrintsFiguresAndInvariantVerdicts(t *testing.T) {
	code, out, errOut := runCommand("-seed", "3")

	require.Equal(t, 0, code, "stderr: %s", errOut)
	for _, want := range []string{
		"scenario: lossy-wan", "links, one row per direction:", "Lisbon->Tokyo", "Tokyo->Lisbon",
		"instances:", "retransmitted", "dup-discarded", "corrupt-discarded",
		"conversations (both directions", "p50", "p99", "max",
		"INV-1  ok", "INV-2  ok", "INV-3  ok", "INV-12 ok", "verdict: ok, every invariant held",
		"engine: drained (no event left)", "priority levels", "txq-mean",
	} {
		assert.Contains(t, out, want)
	}
}

func TestDefaultScenarioSameSeedSameBytes(t *testing.T) {
	_, first, _ := runCommand("-seed", "11")
	_, second, _ := runCommand("-seed", "11")
	_, other, _ := runCommand("-seed", "12")

	assert.Equal(t, first, second)
	assert.NotEqual(t, afterLine(first, "links"), afterLine(other, "links"))
}

func TestAViolationIsPrintedWithTheReplayLine(t *testing.T) {
	res := &scenarios.Result{StopReason: sim.Drained, InvariantsChecked: true, Violation: &invariant.Violation{Rule: "INV-1", At: time.Second,
		Conversation: 7, Message: "RECEIVE returned message 3, expected 2"}}
	var out bytes.Buffer

	ok := printInvariantVerdicts(&out, res, "go run ./cmd/simulate -seed 5")

	assert.False(t, ok)
	assert.Contains(t, out.String(), "INV-1  VIOLATED")
	assert.Contains(t, out.String(), "INV-2  ok")
	assert.Contains(t, out.String(), "RECEIVE returned message 3, expected 2")
	assert.Contains(t, out.String(), "replay: go run ./cmd/simulate -seed 5")
	assert.Contains(t, out.String(), "verdict: FAILED")
}
