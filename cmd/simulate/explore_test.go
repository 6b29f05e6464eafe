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
)

// explore runs a scenario over seeds, a fault mix drawn for each, and writes one line per
// seed, with its faults, to seeds.jsonl; the same bytes with one worker or two.
func TestExplorePassesALibraryScenarioAndWritesEachSeed(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	code, out, errOut := runCommand("explore", "lossy-wan", "-seeds", "6", "-swarm", "-out", one, "-workers", "1")
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "PASS  lossy-wan: every invariant held on 6 seeds")
	code, _, _ = runCommand("explore", "lossy-wan", "-seeds", "6", "-swarm", "-out", two, "-workers", "2")
	require.Equal(t, 0, code)

	a, err := os.ReadFile(filepath.Join(one, "seeds.jsonl"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(two, "seeds.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b), "the output does not depend on the workers")
	lines := strings.Split(strings.TrimSpace(string(a)), "\n")
	require.Len(t, lines, 6)
	for _, l := range lines {
		assert.Contains(t, l, `"faults":["faults until `)
		assert.Contains(t, l, `"replay":"go run ./cmd/simulate explore lossy-wan -seed `)
	}
}

// A broker that retries once in a thousand hours fails the liveness phase after the faults
// heal: explore fails (exit 1), prints the faults under each failing seed and the command
// that replays it, and that command gives the same verdict.
func TestExploreFailsABrokenBrokerAndItsReplayAgrees(t *testing.T) {
	broken := []string{"-set", "broker.retry_interval_min=1000h", "-set", "broker.retry_interval_max=1000h",
		"-set", "broker.closed_target_retention=2001h", "-set", "liveness={within: 10m}"}
	dir := t.TempDir()
	code, out, errOut := runCommand(append([]string{"explore", "lossy-wan", "-seeds", "3", "-out", dir, "-shrink-runs", "40"}, broken...)...)
	require.Equal(t, 1, code, out+errOut)
	assert.Regexp(t, `FAIL  lossy-wan: \d of 3 seeds failed \(INV-12 on \d\)`, out)
	m := regexp.MustCompile(`lossy-wan seed (\d+): INV-12 violated at t=(\S+) on conversation`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	assert.Contains(t, out, "faults until ")
	assert.Contains(t, out, "replay: go run ./cmd/simulate explore lossy-wan -set")

	kept := filepath.Join(dir, "seed-"+m[1])
	assert.Contains(t, out, "seed "+m[1]+": its results and trace are in "+kept, "a failing seed keeps its results")
	card := filepath.Join(kept, "card", "card.txt")
	assert.Contains(t, out, "seed "+m[1]+": its counterexample card is "+card, "a failing seed keeps its counterexample card")
	text, err := os.ReadFile(card)
	require.NoError(t, err)
	assert.Contains(t, string(text), "COUNTEREXAMPLE  INV-12")
	assert.FileExists(t, filepath.Join(kept, "card", "counterexample.yaml"))
	code, rechecked, _ := runCommand("recheck", kept)
	assert.Equal(t, 0, code, "the trace says what the run said, a failure included: %s", rechecked)
	assert.Contains(t, rechecked, "verdict: FAILED: INV-12")
	assert.Contains(t, rechecked, "the run's summary.json gives the same verdict")

	// A passing exploration into the same folder leaves no kept seed of the failing one.
	code, out, errOut = runCommand("explore", "lossy-wan", "-seeds", "2", "-out", dir)
	require.Equal(t, 0, code, out+errOut)
	assert.NoDirExists(t, kept, "an earlier batch's kept seed would be read as this one's")

	code, replay, _ := runCommand(append([]string{"explore", "lossy-wan", "-seed", m[1], "-q"}, broken...)...)
	assert.Equal(t, 1, code, replay)
	assert.Contains(t, replay, "faults until ")
	assert.Contains(t, replay, "verdict: FAILED: INV-12 violated at "+m[2]+"\n", "the replay breaks the same rule at the same time")
}

// A scenario's require_marks hold over the seeds of an exploration as over a check's: a
// mark no seed reached fails it, and the marks never reached are listed.
func TestExploreFailsAMarkItRequiresThatNoSeedReached(t *testing.T) {
	text, err := file.LibraryText("lossy-wan")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "marked.yaml")
	require.NoError(t, os.WriteFile(path, append([]byte("require_marks: [lock.deadlock-victim]\n"), text...), 0o644))

	code, out, errOut := runCommand("explore", path, "-seeds", "3", "-out", t.TempDir())

	assert.Equal(t, 1, code, out+errOut)
	assert.Contains(t, out, "FAIL  "+path+": every invariant held on 3 seeds, but not every mark it requires was reached")
	assert.Contains(t, out, "FAILED: require_marks: never reached on any of 3 seeds: lock.deadlock-victim")
	assert.Contains(t, out, "marks never reached: ")
}

// An exploration's seed written to a folder replays from the folder, with its fault mix:
// replay.sh runs explore -seed on the folder's copy of the scenario, and gives the same
// summary.json and trace.jsonl; simulate recheck of the folder finds the run's verdict.
func TestAnExploredSeedsFolderReplaysItsMix(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCommand("explore", "lossy-wan", "-seed", "4", "-swarm", "-out", dir, "-trace", "-q")
	require.Equal(t, 0, code, out+errOut)
	script, err := os.ReadFile(filepath.Join(dir, "replay.sh"))
	require.NoError(t, err)
	m := regexp.MustCompile(`exec go run ./cmd/simulate (explore) "\$here"/(\S+) (-seed 4 -trace -swarm) -out "\$here"`).FindStringSubmatch(string(script))
	require.NotNil(t, m, "replay.sh replays the seed with its mix:\n%s", script)

	again := t.TempDir()
	args := append([]string{m[1], filepath.Join(dir, m[2])}, strings.Fields(m[3])...)
	code, out, errOut = runCommand(append(args, "-out", again, "-q")...)
	require.Equal(t, 0, code, out+errOut)
	for _, f := range []string{"summary.json", "trace.jsonl"} {
		a, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(again, f))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), "%s replayed from the folder", f)
	}
	code, out, _ = runCommand("recheck", dir)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "the run's summary.json gives the same verdict")
}
