package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

func TestListShowsEveryLibraryScenarioWithItsQuestion(t *testing.T) {
	code, out, _ := runCommand("list")
	require.Equal(t, 0, code)
	for _, name := range file.LibraryNames() {
		assert.Contains(t, out, name+"\n    ")
	}
}

func TestValidateReportsLineAndColumnAndExits2(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: x\ninstances:\n  - name: A\n    databases: [{name: d, queues: [{name: q, bogus: 1}]}]\n"), 0o644))
	code, out, errOut := runCommand("validate", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "diagnostics go to stderr")
	assert.Contains(t, errOut, "bad.yaml:4:")
	assert.Contains(t, errOut, `unknown key "bogus"`)
}

func TestRunWritesTheSameFilesForTheSameSeed(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		code, out, errOut := runCommand("run", "single-conversation-activation", "-seed", "4", "-out", d, "-trace")
		require.Equal(t, 0, code, "%s%s", out, errOut)
	}
	for _, name := range []string{"summary.json", "series.csv", "trace.jsonl", "latency-cdf.svg"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		require.NoError(t, err)
		assert.Equal(t, a, b, "%s differs between two runs of seed 4", name)
	}
}

func TestRunFailsWithTheReplayLineWhenAnExpectationDoesNotHold(t *testing.T) {
	data, err := file.LibraryText("single-conversation-activation")
	require.NoError(t, err)
	text := strings.Replace(string(data), "activated_tasks.peak, queue: WorkQueue, equals: 2", "activated_tasks.peak, queue: WorkQueue, equals: 3", 1)
	path := filepath.Join(t.TempDir(), "changed.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	code, out, _ := runCommand("run", path, "-seed", "1")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAILED: activated_tasks.peak")
	assert.Contains(t, out, "replay: go run ./cmd/simulate run "+path+" -seed 1")
}

func TestCheckPassesTheLibraryAndNamesFailingSeeds(t *testing.T) {
	code, out, _ := runCommand("check", "poison-message", "single-conversation-activation", "-seeds", "2")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "PASS  poison-message (2 seeds)")
	assert.Contains(t, out, "PASS  single-conversation-activation (2 seeds)")

	data, err := file.LibraryText("single-conversation-activation")
	require.NoError(t, err)
	text := strings.Replace(string(data), "activated_tasks.peak, queue: WorkQueue, equals: 2", "activated_tasks.peak, queue: WorkQueue, equals: 3", 1)
	path := filepath.Join(t.TempDir(), "changed.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	dir := t.TempDir()
	code, out, _ = runCommand("check", path, "-seeds", "2", "-out", dir)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  "+path+" (2 of 2 seeds)")
	assert.Contains(t, out, "seed 1: FAILED: activated_tasks.peak")
	assert.Contains(t, out, "replay one: go run ./cmd/simulate run "+path+" -seed 1")
	// The first failing seed keeps its results and trace, for simulate recheck.
	kept := filepath.Join(dir, "changed-seed-1")
	assert.Contains(t, out, path+" seed 1: its results and trace are in "+kept)
	for _, f := range []string{"summary.json", "trace.jsonl", "replay.sh", "changed.yaml"} {
		assert.FileExists(t, filepath.Join(kept, f))
	}
}

// An expectation over the seeds that fails, though no seed fails on its own, fails the
// check (exit 1), shows what the seeds gave, and replays a seed that missed.
func TestCheckFailsAnExpectationOverTheSeeds(t *testing.T) {
	data, err := file.LibraryText("lossy-wan")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "strict.yaml")
	require.NoError(t, os.WriteFile(path, append(data, "  - {metric: latency.p99, below: 10s, in: 95%}\n"...), 0o644))

	code, out, _ := runCommand("check", path, "-seeds", "20")

	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  "+path+" (0 of 20 seeds)\n      ok: latency.p99 below 15s in at least 90% of seeds (got ")
	m := regexp.MustCompile(`\n      FAILED: latency.p99 below 10s in at least 95% of seeds \(got \d+ of 20 seeds .*first miss: seed (\d+) .*\n      replay one: go run ./cmd/simulate run \S+ -seed (\d+)  # code `).FindStringSubmatch(out)
	require.Len(t, m, 3, out)
	assert.Equal(t, m[1], m[2], "the replay line replays the first seed that missed")
}

// A check prints, under each scenario's verdict, the marks its seeds never reached
// (docs/marks.md); a mark the file requires that no seed reached fails the check (exit 1)
// and is named, and a run of one seed that misses it fails too.
func TestCheckPrintsTheMarksNeverReachedAndFailsARequiredOne(t *testing.T) {
	code, out, _ := runCommand("check", "poison-message", "-seeds", "2")
	assert.Equal(t, 0, code, out)
	assert.Regexp(t, `PASS  poison-message \(2 seeds\)\n      marks never reached: \d+ of \d+: fragment.retransmitted, .*lock.deadlock-victim`, out)

	data, err := file.LibraryText("poison-message")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "marks.yaml")
	require.NoError(t, os.WriteFile(path, append(data, "require_marks: [queue.poison-disabled, lock.deadlock-victim]\n"...), 0o644))
	code, out, _ = runCommand("check", path, "-seeds", "2")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  "+path+" (0 of 2 seeds)\n")
	assert.Contains(t, out, "      FAILED: require_marks: never reached on any of 2 seeds: lock.deadlock-victim\n")

	code, out, _ = runCommand("run", path, "-seed", "1")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAILED: every mark of require_marks reached (got never reached: lock.deadlock-victim)")

	path = filepath.Join(t.TempDir(), "unknown.yaml")
	require.NoError(t, os.WriteFile(path, append(data, "require_marks: [lock.deadlocked]\n"...), 0o644))
	code, _, stderr := runCommand("check", path, "-seeds", "1")
	assert.Equal(t, 2, code)
	assert.Regexp(t, `unknown.yaml:\d+:\d+: require_marks\[0\]: unknown mark "lock.deadlocked" \(did you mean "lock.deadlock-victim"\?\)`, stderr)
}

func TestRunSaysWhenNoInvariantWasChecked(t *testing.T) {
	data, err := file.LibraryText("poison-message")
	require.NoError(t, err)
	text := strings.Replace(string(data), "check_invariants: on", "check_invariants: off", 1)
	text = strings.Replace(text, "  - {invariants: hold}\n", "", 1)
	path := filepath.Join(t.TempDir(), "unchecked.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	code, out, errOut := runCommand("run", path, "-seed", "1")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, "verdict: no invariant was checked")
	assert.NotContains(t, out, "every invariant held")
}

func TestSweepOutputDoesNotDependOnTheNumberOfWorkers(t *testing.T) {
	var csvs [][]byte
	for _, w := range []string{"1", "2"} {
		dir := t.TempDir()
		code, out, errOut := runCommand("sweep", "poison-message", "-set", "readers.0.rollback_rate=0,1", "-seeds", "2",
			"-workers", w, "-out", dir)
		require.Equal(t, 0, code, "%s%s", out, errOut)
		assert.Contains(t, out, "expectations or invariants failed with readers.0.rollback_rate=0 on 2 of 2 seeds; seed 1: FAILED: ")
		assert.NotContains(t, out, "readers.0.rollback_rate=1 on", "rollbacks make the poison the expectations describe")
		b, err := os.ReadFile(filepath.Join(dir, "sweep.csv"))
		require.NoError(t, err)
		csvs = append(csvs, b)
	}
	assert.Equal(t, csvs[0], csvs[1])
	assert.Contains(t, string(csvs[0]), "readers.0.rollback_rate,seed,subject,metric,unit,value")
}

func TestSubcommandHelpHasExamples(t *testing.T) {
	for _, c := range subcommands() {
		code, out, _ := runCommand(c.name, "-h")
		assert.Equal(t, 0, code, c.name)
		assert.Contains(t, out, "Examples:", c.name)
	}
}

// TestRunKeepsNoTraceInMemoryForAFileWithTraceOn: a scenario file's `trace: on` keeps every
// record in the Result for a Go caller of scenarios.Run, which the command never reads; so
// `simulate run` counts the conversations table instead and keeps none, and a run whose
// records alone would exceed its memory budget drains as `check` runs it. Before, this run
// stopped at its budget (the trace records 1,089K, 183 MiB) and failed INV-12 there.
func TestRunKeepsNoTraceInMemoryForAFileWithTraceOn(t *testing.T) {
	code, stdout, stderr := runCommand("run", "lossy-wan", "-seed", "1", "-q",
		"-set", "workloads.orders.dialogs=3000", "-set", "workloads.orders.interarrival.exponential=100ms",
		"-set", "limits.max_memory=200MiB")
	if strings.Contains(stdout+stderr, "INV-12") || strings.Contains(stdout+stderr, "memory budget") {
		t.Fatalf("the run stopped at its memory budget (exit %d):\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `dialogs.ended of workload "orders" equals 8 (got 3000)`) {
		t.Errorf("exit %d: want every one of the 3,000 dialogs ended (the file's expectation of 8 fails):\n%s%s", code, stdout, stderr)
	}
}

// check -check-determinism runs every seed twice more and says so; run does it for its seed.
func TestCheckDeterminismPassesADeterministicScenario(t *testing.T) {
	code, out, errOut := runCommand("check", "poison-message", "-seeds", "2", "-check-determinism", "-out", t.TempDir())
	require.Equal(t, results.ExitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "PASS  poison-message (2 seeds)\n")
	assert.Regexp(t, `(?m)^determinism: ok, 2 seeds, each run twice more \(with GOMAXPROCS `, out, "after the verdict and its marks")

	code, out, errOut = runCommand("run", "poison-message", "-seed", "2", "-q", "-check-determinism")
	require.Equal(t, results.ExitOK, code, "%s%s", out, errOut)
	assert.Contains(t, out, "run poison-message -seed 2 -check-determinism")
	assert.Contains(t, out, "determinism: ok, 1 seed, each run twice more")
}

// simulate report writes report.html again, byte for byte what the run wrote; without a
// run folder it is bad input.
func TestReportRebuildsTheRunsReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCommand("run", "poison-message", "-seed", "1", "-out", dir, "-q")
	require.Equal(t, 0, code, stderr)
	want, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, "report.html")))
	code, out, stderr := runCommand("report", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "report.html")
	got, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	code, _, stderr = runCommand("report", t.TempDir())
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "summary.json")
}
