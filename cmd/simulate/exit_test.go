package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// writeScenario writes text to a file of that name in a new directory and returns its path.
func writeScenario(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// unexpecting is single-conversation-activation without its expectations, stopped by an
// event limit long before it drains, with more (liveness: off, for a scenario that expects
// not to drain): nothing fails, but the run did not end.
func unexpecting(t *testing.T, name, more string) string {
	data, err := file.LibraryText("single-conversation-activation")
	require.NoError(t, err)
	text := string(data)
	return writeScenario(t, name, text[:strings.Index(text, "expect:")]+"limits: {max_events: 100}\n"+more)
}

// Every exit code but the interrupt's (TestCheckAndSweepStopCleanlyOnASignal), with where its
// message goes: results on stdout, diagnostics on stderr (docs/outputs.md#exit-codes).
func TestExitCodesAndStreams(t *testing.T) {
	foreign := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644))
	notADir := writeScenario(t, "file", "")
	bad := writeScenario(t, "bad.yaml", "name: x\ninstances: 3\n")
	limited := unexpecting(t, "limited.yaml", "liveness: off\n")
	undrained := unexpecting(t, "undrained.yaml", "")
	poison, err := file.LibraryText("poison-message")
	require.NoError(t, err)
	request := "          - {name: //sbsim/Request, messages: [{message_type: Request, sent_by: initiator}]}\n"
	unusable := writeScenario(t, "unusable.yaml", strings.ReplaceAll(string(poison), request,
		request+"          - {name: Back, messages: [{message_type: Request, sent_by: target}]}\n")) // SB101, an error
	corpus, tsqlErrors := filepath.Join(sourceDir, "../../scenarios/tsql/testdata/corpus")+"/", filepath.Join(sourceDir, "../../scenarios/tsql/testdata/errors")+"/"
	cases := []struct {
		name       string
		args       []string
		code       int
		stdout     string // a part of stdout; "" for an empty stdout
		stderr     string // a part of stderr; "" for an empty stderr
		notStarted bool   // no seed line: the run never started
	}{
		{"all held", []string{"run", "poison-message", "-seed", "1", "-q"}, results.ExitOK, "verdict: ok", "", false},
		// lossy-wan expects every dialog to end: an expectation failing beats the limit (and
		// so does INV-12, which a run stopped before it drained breaks).
		{"an expectation failed", []string{"run", "lossy-wan", "-seed", "1", "-set", "limits.max_events=100", "-q"}, results.ExitFailed,
			`dialogs.ended of workload "orders" equals 8 (got 0)`, "", false},
		{"a run stopped at a limit before it drained fails", []string{"run", undrained, "-seed", "1", "-q"}, results.ExitFailed,
			"verdict: FAILED: INV-12 violated", "", false},
		{"a check failed", []string{"check", "lossy-wan", "-seeds", "1", "-set", "limits.max_events=100", "-out", t.TempDir()},
			results.ExitFailed, "FAIL  lossy-wan (1 of 1 seeds)", "", true},
		{"bad flag", []string{"run", "poison-message", "-bogus"}, results.ExitUsage, "", "flag provided but not defined", true},
		{"validate's errors go to stderr", []string{"validate", bad}, results.ExitUsage, "", "bad.yaml:2:", true},
		{"validate's verdict goes to stdout", []string{"validate", limited}, results.ExitOK, "limited.yaml: ok", "", true},
		{"lint: a file that does not load", []string{"lint", bad}, results.ExitUsage, "", "bad.yaml:2:", true},
		{"lint: no file", []string{"lint"}, results.ExitUsage, "", "want one or more scenario files", true},
		{"lint: a diagnostic of error severity", []string{"lint", unusable}, results.ExitFailed, "unusable.yaml: 2 errors, 1 warning", "error SB101: ", true},
		{"lint: warnings only", []string{"lint", "endpoint-leak"}, results.ExitOK, "endpoint-leak: 1 warning", "warning SB111: ", true},
		{"lint: a clean design", []string{"lint", "activation-burst"}, results.ExitOK, "activation-burst: ok", "", true},
		{"lint: T-SQL scripts", []string{"lint", corpus + "cross-instance/initiator.sql"}, results.ExitOK, "initiator.sql: 1 warning",
			"warning SB104: ADDRESS \"TCP://target.example.com:4022\" is no instance", true},
		{"lint: both sides' scripts, one design", []string{"lint", corpus + "cross-instance"}, results.ExitOK, "cross-instance: 1 warning", "warning SB103", true},
		{"lint: a broken script", []string{"lint", tsqlErrors + "bad-sent-by.sql"}, results.ExitUsage, "", "bad-sent-by.sql:", true},
		{"import: to stdout, the report to stderr", []string{"import", corpus + "single-db"}, results.ExitOK, "name: request-reply",
			"read 1 scripts, 13 batches", true},
		{"import: a broken script", []string{"import", tsqlErrors + "bad-sent-by.sql"}, results.ExitUsage, "", "bad-sent-by.sql:", true},
		{"import: no script", []string{"import"}, results.ExitUsage, "", "want one or more .sql files or folders", true},
		{"-out is a file", []string{"run", "poison-message", "-seed", "1", "-out", filepath.Join(notADir, "out")}, results.ExitNotWritten,
			"", "not a directory", true},
		{"-out holds other files", []string{"run", "poison-message", "-seed", "1", "-out", foreign}, results.ExitNotWritten,
			"", "holds files that no run of simulate wrote (notes.txt...)", true},
		{"check into a file", []string{"check", "poison-message", "-seeds", "1", "-out", filepath.Join(notADir, "out")},
			results.ExitNotWritten, "", "not a directory", true},
		{"sweep into other files", []string{"sweep", "poison-message", "-set", "readers.0.rollback_rate=0,1", "-seeds", "1",
			"-out", foreign}, results.ExitNotWritten, "", "holds files that no run", true},
		{"run stopped at a limit", []string{"run", limited, "-seed", "1", "-q"}, results.ExitLimit, "verdict: ok",
			"stopped at a resource limit (event limit", false},
		{"check stopped at a limit", []string{"check", limited, "-seeds", "2", "-out", t.TempDir()}, results.ExitLimit,
			"limited.yaml seed 1: stopped at a limit (event_limit)", "2 of 2 runs stopped at a resource limit", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCommand(tc.args...)
			assert.Equal(t, tc.code, code, "args %q\nstdout: %s\nstderr: %s", tc.args, out, errOut)
			if tc.stdout == "" {
				assert.Empty(t, out, "args %q", tc.args)
			} else {
				assert.Contains(t, out, tc.stdout, "args %q", tc.args)
			}
			if tc.stderr == "" {
				assert.Empty(t, errOut, "args %q", tc.args)
			} else {
				assert.Contains(t, errOut, tc.stderr, "args %q", tc.args)
			}
			if tc.notStarted {
				assert.NotContains(t, out, "seed: ", "args %q: the run started", tc.args)
			}
		})
	}
	assert.Equal(t, []string{"notes.txt"}, namesIn(t, foreign), "a refused folder was written into")
}

// namesIn lists the names in dir.
func namesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// -q prints the replay line and the verdict, nothing else.
func TestQuietPrintsTheReplayLineAndTheVerdictOnly(t *testing.T) {
	code, out, errOut := runCommand("run", "lossy-wan", "-seed", "2", "-q", "-out", t.TempDir())

	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2, "stdout:\n%s", out)
	assert.Regexp(t, `^replay: go run \./cmd/simulate run lossy-wan -seed 2 -out \S+  # code devel, scenario [0-9a-f]{16}$`, lines[0])
	assert.Equal(t, "verdict: ok", lines[1])

	// A failed run's verdict is one line too, without the violation's records (review).
	code, out, errOut = runCommand("run", "lossy-wan", "-seed", "1", "-set", "limits.max_events=100", "-q")
	require.Equal(t, 1, code, errOut)
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2, "stdout:\n%s", out)
	assert.Contains(t, lines[1], "verdict: FAILED: INV-12 violated at")
	assert.Contains(t, lines[1], "invariants hold (got violated)")
}

// A long table shows its top rows and a count, and -v lists every row.
func TestLongTablesShowTheirTopRowsUnlessVerbose(t *testing.T) {
	many := []string{"run", "lossy-wan", "-seed", "1", "-set", "workloads.audit.dialogs=200", "-out", t.TempDir()}
	code, out, errOut := runCommand(many...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "the 20 slowest of 208 by their longest latency")
	assert.Contains(t, out, "-v lists all")
	short := strings.Count(out, "\n")

	code, out, errOut = runCommand(append(many[:len(many)-2], "-out", t.TempDir(), "-v")...)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "slowest of")
	assert.Equal(t, short+208-20-1, strings.Count(out, "\n"), "-v lists every conversation")
}

// simulateBinary builds the command once, for the tests that run it as a process.
var simulateBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "simulate-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "simulate")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = sourceDir
	if out, err := build.CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// SIGINT or SIGTERM stops a check or a sweep cleanly: it exits ExitInterrupted, says how
// many runs finished, and seeds.jsonl holds exactly those, every line whole; a sweep
// renames its sweep.csv into place with their rows; no temporary file is left.
func TestCheckAndSweepStopCleanlyOnASignal(t *testing.T) {
	bin, err := simulateBinary()
	require.NoError(t, err)
	cases := []struct {
		name  string
		sig   syscall.Signal
		args  []string
		files []string
	}{
		{"check SIGINT", syscall.SIGINT, []string{"check", "lossy-wan", "-seeds", "10000"}, []string{results.ManifestFile, results.SeedsFile}},
		{"check SIGTERM", syscall.SIGTERM, []string{"check", "lossy-wan", "-seeds", "10000"}, []string{results.ManifestFile, results.SeedsFile}},
		// a shard of 10,000 runs: its records kept as far as its seeds, and no shard.json,
		// which would let a merge take the shard for whole
		{"check shard SIGINT", syscall.SIGINT, []string{"check", "lossy-wan", "-seeds", "20000", "-shard", "0/2"},
			[]string{results.ManifestFile, results.SeedsFile, results.RecordsFile}},
		{"sweep SIGINT", syscall.SIGINT, []string{"sweep", "lossy-wan", "-set", "broker.retry_interval_min=1s", "-seeds", "10000"},
			[]string{results.ManifestFile, results.SeedsFile, results.SweepFile, "sweep-latency-p99.png", "sweep-latency-p99.svg",
				"sweep-readers-peak.png", "sweep-readers-peak.svg",
				// and the metrics lossy-wan's expectations name
				"sweep-dialogs-ended.png", "sweep-dialogs-ended.svg", "sweep-round_trip-p50.png", "sweep-round_trip-p50.svg",
				"sweep-round_trip-p99.png", "sweep-round_trip-p99.svg", "sweep-transmission_queue-rows.png", "sweep-transmission_queue-rows.svg",
				// and the sweep's record and its report, which says it was interrupted
				results.SweepRecordFile, results.ReportFile}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, append(tc.args, "-workers", "1", "-out", dir)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			seeds := filepath.Join(dir, results.SeedsFile)
			deadline := time.Now().Add(60 * time.Second)
			for countLines(t, seeds) < 3 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(tc.sig))
			err := cmd.Wait()

			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
			assert.Equal(t, results.ExitInterrupted, exit.ExitCode(), "stderr: %s", stderr.String())
			f, err := os.Open(seeds)
			require.NoError(t, err)
			defer f.Close()
			n := 0
			for sc := bufio.NewScanner(f); sc.Scan(); n++ {
				var l results.SeedLine
				require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %d: %s", n+1, sc.Text())
				assert.Equal(t, uint64(n+1), l.Seed, "line %d", n+1)
				assert.True(t, l.OK, "line %d", n+1)
			}
			assert.GreaterOrEqual(t, n, 3)
			assert.Less(t, n, 10000, "the command was not interrupted")
			assert.Contains(t, stderr.String(), "interrupted: "+strconv.Itoa(n)+" of 10000 runs finished (0 failed); each one's result is in "+seeds)
			assert.ElementsMatch(t, tc.files, namesIn(t, dir), "a temporary file was left, or a file is missing")
			if tc.args[0] == "sweep" {
				data, err := os.ReadFile(filepath.Join(dir, results.SweepFile))
				require.NoError(t, err)
				assert.Contains(t, string(data), "\n1s,"+strconv.Itoa(n)+",all,", "the last finished run's rows")
				assert.NotContains(t, string(data), "\n1s,"+strconv.Itoa(n+1)+",", "a run that did not finish")
				page, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
				require.NoError(t, err)
				assert.Contains(t, string(page), "Verdict: interrupted: "+strconv.Itoa(n)+" of 10000 runs finished; ok: ")
			}
		})
	}
}

// countLines counts the whole lines of the file at path, 0 when it is not there yet.
func countLines(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(data), "\n")
}

// The folder of a run replays by itself: its replay.sh runs the folder's copy of the
// scenario (with the -set values and -trace of the run) and writes the same bytes again,
// wherever the folder was moved. The `go` that replay.sh calls is stood in for by the
// built command.
func TestTheFolderOfARunReplaysByItself(t *testing.T) {
	bin, err := simulateBinary()
	require.NoError(t, err)
	tools := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tools, "go"), []byte("#!/bin/sh\nshift 2 # run ./cmd/simulate\nexec "+bin+" \"$@\"\n"), 0o755))
	first := filepath.Join(t.TempDir(), "first")
	code, out, errOut := runCommand("run", "poison-message", "-seed", "3", "-set", "broker.retry_interval_min=1s", "-trace", "-out", first)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	moved := filepath.Join(t.TempDir(), "moved")
	require.NoError(t, os.Rename(first, moved))
	before := readAll(t, moved)
	require.Contains(t, before, "poison-message.yaml")
	require.Contains(t, before, results.TraceFile)

	sh := exec.Command("sh", filepath.Join(moved, results.ReplayScriptFile))
	sh.Env = append(os.Environ(), "PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	replayed, err := sh.CombinedOutput()
	require.NoError(t, err, "%s", replayed)

	assert.Equal(t, before, readAll(t, moved), "the replay did not write the same files")
	assert.Contains(t, string(replayed), "-set broker.retry_interval_min=1s -seed 3 -out "+moved+" -trace")
}

// readAll reads every file in dir, by name.
func readAll(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range namesIn(t, dir) {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		files[name] = string(data)
	}
	return files
}

// A second run into the -out of a first leaves nothing of the first: not its scenario,
// not a plot the second does not draw.
func TestASecondRunIntoTheSameOutLeavesNothingOfTheFirst(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runCommand("run", "lossy-wan", "-seed", "1", "-out", dir)
	require.Equal(t, 0, code, errOut)
	require.FileExists(t, filepath.Join(dir, "queue-Tokyo-StockQueue.png"))

	code, out, errOut := runCommand("run", "poison-message", "-seed", "1", "-out", dir)
	require.Equal(t, 0, code, errOut)

	names := namesIn(t, dir)
	assert.NotContains(t, names, "lossy-wan.yaml")
	assert.NotContains(t, names, "queue-Tokyo-StockQueue.png")
	assert.Contains(t, names, "poison-message.yaml")
	assert.Contains(t, out, "wrote "+strconv.Itoa(len(names)-1)+" files to "+dir, "every file but the manifest is named")
}

// A single run stopped by SIGINT before it ended writes nothing, says so and exits
// ExitInterrupted.
func TestARunStoppedBeforeItEndedWritesNothing(t *testing.T) {
	bin, err := simulateBinary()
	require.NoError(t, err)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "lossy-wan", "-seed", "1", "-set", "workloads.audit.dialogs=100000", "-out", dir)
	stdout, err := os.Create(filepath.Join(t.TempDir(), "stdout")) // a file: read while the command writes it
	require.NoError(t, err)
	defer stdout.Close()
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if out, _ := os.ReadFile(stdout.Name()); strings.Contains(string(out), "replay: ") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err = cmd.Wait()

	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "stderr: %s", stderr.String())
	assert.Equal(t, results.ExitInterrupted, exit.ExitCode())
	assert.Contains(t, stderr.String(), "interrupted before the run ended: nothing written")
	assert.Empty(t, namesIn(t, dir), "the folder is left as it was found: empty, without a manifest")
}
