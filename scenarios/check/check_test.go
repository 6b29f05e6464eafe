package check_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/check"
	"github.com/sbsim/sbsim/scenarios/file"
)

// recorder is a testing.TB that keeps what a check logs and why it fails, and stops the
// check's goroutine at a Fatal as testing does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	fatal  string
	failed bool
	logs   []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestMyDesign/lossy" }
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.fatal, r.failed = fmt.Sprintf(format, args...), true
	r.mu.Unlock()
	panic(stop{})
}

type stop struct{}

// checked runs f on a recorder and returns it once f returned or failed.
func checked(t *testing.T, f func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stop); !ok {
					panic(p)
				}
			}
		}()
		f(r)
	}()
	return r
}

func lossyWAN(t *testing.T) scenarios.Config {
	s, err := file.Library("lossy-wan")
	require.NoError(t, err)
	return s.Config
}

// A healthy design passes on its seeds, fixed or swarmed, and says how many ran.
func TestSeedsPassesAHealthyDesign(t *testing.T) {
	for name, opts := range map[string]check.Options{
		"seeds 1 to 4":   {N: 4, Workers: 2},
		"a list":         {Seeds: []uint64{7, 99}},
		"a swarm of 4":   {N: 4, Swarm: true, Workers: 2},
		"the default 10": {Workers: 2},
	} {
		if testing.Short() && name == "the default 10" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			r := checked(t, func(tb testing.TB) { check.Seeds(tb, lossyWAN(t), opts) })
			require.False(t, r.failed, r.fatal)
			require.Len(t, r.logs, 1)
			assert.Contains(t, r.logs[0], "seeds passed", name)
		})
	}
}

// brokenRetries is lossy-wan with a broker that retries once in a thousand hours: the
// fragments the link loses are never sent again, and the liveness phase (INV-12) fails.
func brokenRetries(cfg scenarios.Config) scenarios.Config {
	cfg.Broker.RetryIntervalMin, cfg.Broker.RetryIntervalMax = 1000*time.Hour, 1000*time.Hour
	cfg.Broker.ClosedTargetRetention = 2001 * time.Hour
	cfg.MaxTime = 10 * time.Hour
	cfg.Liveness.Within = 10 * time.Minute // the healthy broker's bound, not the broken one's
	return cfg
}

// A design that breaks a rule fails on its first failing seed with the rule, the
// checker's message, the records that led to it, and the lines that replay the seed.
func TestSeedsFailsOnTheFirstFailingSeedWithTheRuleRecordsAndReplay(t *testing.T) {
	r := checked(t, func(tb testing.TB) {
		check.Seeds(tb, brokenRetries(lossyWAN(t)), check.Options{ShrinkRuns: -1, N: 3, Workers: 2})
	})
	require.True(t, r.failed)
	for _, want := range []string{`"lossy-wan", seed 1: INV-12 failed`, "INV-12 violated at t=", "messages undelivered",
		"records that led to it, oldest first:", "replay: SBSIM_SEEDS=1 go test -run '^TestMyDesign$/^lossy$' .",
		"in Go: cfg.CheckInvariants = true; scenarios.Run(cfg, 1)"} {
		assert.Contains(t, r.fatal, want)
	}
	assert.Greater(t, strings.Count(r.fatal, "\n  t="), 2, "the records: %s", r.fatal)
}

// SBSIM_SEEDS replaces the check's seeds: the replay line runs the failing seed alone.
func TestSeedsVariableReplacesTheSeeds(t *testing.T) {
	t.Setenv(check.SeedsVariable, "5, 6")
	r := checked(t, func(tb testing.TB) {
		check.Seeds(tb, brokenRetries(lossyWAN(t)), check.Options{ShrinkRuns: -1, N: 100})
	})
	require.True(t, r.failed)
	assert.Contains(t, r.fatal, "seed 5: INV-12 failed")
	t.Setenv(check.SeedsVariable, "x")
	r = checked(t, func(tb testing.TB) { check.Seeds(tb, lossyWAN(t), check.Options{ShrinkRuns: -1}) })
	assert.Contains(t, r.fatal, `SBSIM_SEEDS="x"`)
}

// A swarm prints the fault mix of the failing seed, which gen.Swarm draws again from the
// seed alone, and the explore command that replays it.
func TestSwarmFailurePrintsTheSeedsFaultMix(t *testing.T) {
	r := checked(t, func(tb testing.TB) {
		check.Seeds(tb, brokenRetries(lossyWAN(t)), check.Options{ShrinkRuns: -1, Seeds: []uint64{3}, Swarm: true})
	})
	require.True(t, r.failed)
	assert.Contains(t, r.fatal, "fault mix of the seed: faults until ")
	assert.Contains(t, r.fatal, "then the liveness phase (swarm)")
	assert.Contains(t, r.fatal, "in Go: world, _ := gen.Swarm(cfg, 3); scenarios.Run(world, 3)")
}

// File checks a scenario file's per-seed expectations too: the library's lossy-wan passes,
// and a copy with fewer dialogs than it expects to end fails with the expectation, and the
// command line that replays it.
func TestFileJudgesTheFilesExpectations(t *testing.T) {
	text, err := file.LibraryText("lossy-wan")
	require.NoError(t, err)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(good, text, 0o644))
	broken := strings.Replace(string(text), "dialogs: 8", "dialogs: 3", 1)
	require.NotEqual(t, string(text), broken)
	require.NoError(t, os.WriteFile(bad, []byte(broken), 0o644))

	r := checked(t, func(tb testing.TB) { check.File(tb, good, check.Options{ShrinkRuns: -1, N: 3}) })
	require.False(t, r.failed, r.fatal)
	r = checked(t, func(tb testing.TB) { check.File(tb, bad, check.Options{ShrinkRuns: -1, N: 3}) })
	require.True(t, r.failed)
	assert.Contains(t, r.fatal, "seed 1: expectations failed")
	assert.Contains(t, r.fatal, "FAILED: dialogs.ended")
	assert.Contains(t, r.fatal, "go run ./cmd/simulate run "+bad+" -seed 1")

	// A statistical expectation is judged over the seeds, once every seed passed.
	strict := strings.Replace(string(text), "{metric: latency.p99, below: 15s, in: 90%}", "{metric: latency.p99, below: 1ms, in: 90%}", 1)
	require.NotEqual(t, string(text), strict)
	over := filepath.Join(dir, "over.yaml")
	require.NoError(t, os.WriteFile(over, []byte(strict), 0o644))
	r = checked(t, func(tb testing.TB) { check.File(tb, over, check.Options{ShrinkRuns: -1, N: 3}) })
	require.True(t, r.failed)
	assert.Contains(t, r.fatal, "seed 1: expectations over the seeds failed")
	assert.Contains(t, r.fatal, "FAILED: latency.p99 below 1ms in at least 90% of seeds (got 0 of 3 seeds")
	// A swarm judges the invariants alone: the file's figures describe its own faults.
	r = checked(t, func(tb testing.TB) { check.File(tb, over, check.Options{ShrinkRuns: -1, N: 3, Swarm: true}) })
	require.False(t, r.failed, r.fatal)

	r = checked(t, func(tb testing.TB) { check.File(tb, filepath.Join(dir, "none.yaml"), check.Options{ShrinkRuns: -1}) })
	assert.Contains(t, r.fatal, "none.yaml")
}

// A seed that breaks an invariant fails the test with its counterexample card, and the
// card's files are in CardDir (issue 16 item 3).
func TestAFailingSeedFailsWithItsCounterexampleCard(t *testing.T) {
	cfg := lossyWAN(t)
	cfg.Broker.Defects = model.DefectRedeliverDuplicates
	dir := t.TempDir()
	r := checked(t, func(tb testing.TB) { check.Seeds(tb, cfg, check.Options{N: 3, Workers: 2, CardDir: dir}) })
	require.True(t, r.failed)
	for _, want := range []string{"COUNTEREXAMPLE  INV-2", "shrunk from", "fault plan", "ledger of conversation", "sequence chart", "card, chart.svg, counterexample.yaml and replay.sh in " + dir} {
		assert.Contains(t, r.fatal, want)
	}
	cards, err := filepath.Glob(filepath.Join(dir, "*", "card.txt"))
	require.NoError(t, err)
	assert.Len(t, cards, 1)
}
