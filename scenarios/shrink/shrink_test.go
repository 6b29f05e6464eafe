package shrink

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// brokenCase is a failing run of about 10,000 events or more, on a broker with a
// deliberate defect.
type brokenCase struct {
	name   string
	rule   string
	seed   uint64
	config func(t testing.TB) scenarios.Config
}

func library(name string, swarmSeed uint64, d model.Defects) func(t testing.TB) scenarios.Config {
	return func(t testing.TB) scenarios.Config {
		s, err := file.Library(name)
		require.NoError(t, err)
		cfg := s.Config
		if swarmSeed != 0 {
			cfg = scenarios.DrawFaultMix(&cfg, swarmSeed, true).Apply(cfg)
		}
		cfg.Broker.Defects = d
		return cfg
	}
}

// brokenCases are the three deliberately broken versions of the acceptance figure: EOIO
// (a duplicate delivered again), locks (a deadlock that shares a lock), activation (a task
// beyond MAX_QUEUE_READERS), each in a world found to fail late.
var brokenCases = []brokenCase{
	{"eoio", "INV-2", 10, library("reused-dialogs", 10, model.DefectRedeliverDuplicates)},
	{"locks", "INV-4", 260, func(t testing.TB) scenarios.Config {
		cfg := gen.Draw[gen.LockWorld](gen.LockWorlds(), 260).Config()
		cfg.Broker.Defects = model.DefectShareHeldLock
		return cfg
	}},
	{"activation", "INV-8", 1, library("how-many-readers", 0, model.DefectActivateBeyondMax)},
}

// Each deliberately broken version fails a run of about 10,000 events or more, and the
// shrunk case replays from its fault plan, fails the same rule and takes at most 20 steps:
// issue 16's acceptance figure (the time it takes is BenchmarkShrink's).
func TestABrokenModelsFailureShrinksToAtMostTwentySteps(t *testing.T) {
	for _, c := range brokenCases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Shrink(c.config(t), c.seed, Options{})
			require.NoError(t, err)
			require.Equal(t, c.rule, out.Failure.Rule)
			require.GreaterOrEqual(t, out.Before.Events, uint64(10000), "the failing run is about 10,000 events or more")
			t.Logf("%s: %v -> %v in %d runs (%d kept)", c.name, out.Before, out.After, out.Runs, out.Accepted)
			require.True(t, out.Replayable, "the case replays from its fault plan")
			require.NotNil(t, out.Config.FaultPlan)
			require.Less(t, out.After.Steps(), out.Before.Steps())
			require.Less(t, out.After.Events, out.Before.Events)
			g, _ := FailureOf(out.Result, nil)
			require.Equal(t, c.rule, g.Rule, "the shrunk case's traced run fails the same rule")
			require.NotEmpty(t, out.Result.Trace)
			require.LessOrEqual(t, out.After.Steps(), 20, "the shrunk case: %v", out.After)
			again, err := scenarios.Run(out.Config, out.Seed) // the case replays on its own
			require.NoError(t, err)
			require.NotNil(t, again.Violation)
			require.Equal(t, c.rule, again.Violation.Rule)
		})
	}
}

// BenchmarkShrink measures a shrink of each broken version, on one core: the time per
// shrink, with the steps and events before and after.
func BenchmarkShrink(b *testing.B) {
	for _, c := range brokenCases {
		b.Run(c.name, func(b *testing.B) {
			var out *Outcome
			for b.Loop() {
				var err error
				out, err = Shrink(c.config(b), c.seed, Options{})
				require.NoError(b, err)
			}
			b.ReportMetric(float64(out.Before.Events), "events-before")
			b.ReportMetric(float64(out.After.Steps()), "steps-after")
			b.ReportMetric(float64(out.After.Events), "events-after")
			b.ReportMetric(float64(out.Runs), "runs")
		})
	}
}

// A card names the rule, the seed, the replay command, the plan and the ledger, ends the
// ledger with the violation, and its scenario file replays the case: loaded back and run
// on the card's seed, it fails the same rule.
func TestACardExplainsAndItsFileReplaysTheCase(t *testing.T) {
	c := brokenCases[1] // locks: the quickest to shrink
	out, err := Shrink(c.config(t), c.seed, Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	card, err := out.WriteCard(dir)
	require.NoError(t, err)
	t.Log("\n" + card)
	for _, want := range []string{"COUNTEREXAMPLE  INV-4", "replay: sh path/to/this/folder/replay.sh", "go run ./cmd/simulate run counterexample.yaml -seed", "fault plan", "ledger", "INV-4 violated", "sequence chart", "lock-acquired"} {
		assert.Contains(t, card, want)
	}
	assert.NotContains(t, card, dir, "the card holds no path of the machine")
	script, err := os.ReadFile(filepath.Join(dir, ReplayFile))
	require.NoError(t, err)
	assert.Contains(t, string(script), fmt.Sprintf(`go run ./cmd/simulate run "$here"/counterexample.yaml -seed %d`, out.Seed))
	svg, err := os.ReadFile(filepath.Join(dir, ChartFile))
	require.NoError(t, err)
	assert.Contains(t, string(svg), "<svg")
	assert.Contains(t, string(svg), html.EscapeString("✗ "+out.Failure.String()), "the chart marks where and when it broke")
	s, err := file.LoadFile(filepath.Join(dir, CaseFile))
	require.NoError(t, err)
	res, err := scenarios.Run(s.Config, out.Seed)
	require.NoError(t, err)
	require.NotNil(t, res.Violation, "the card's file replays the failure")
	assert.Equal(t, "INV-4", res.Violation.Rule)
}

// A run that ends in an error (here a program's panic, after two seconds) shrinks as a
// failure of rule "error", and its card, with no scenario file for a Go hook, says how to
// replay it from Go and leaves no file of an earlier card (review).
func TestARunThatPanicsShrinksAndItsCardSaysHowToReplayIt(t *testing.T) {
	cfg := library("lossy-wan", 0, 0)(t)
	cfg.Readers = append([]scenarios.Reader(nil), cfg.Readers...)
	for i := range cfg.Readers {
		cfg.Readers[i].Hook = func(ctx *scenarios.HookContext) ([]scenarios.Statement, bool) {
			if ctx.Now > 2*time.Second {
				panic("a program's bug")
			}
			return nil, false
		}
	}
	require.NotEmpty(t, cfg.Readers)
	out, err := Shrink(cfg, 1, Options{MaxRuns: 40})
	require.NoError(t, err)
	assert.Equal(t, "error", out.Failure.Rule)
	assert.Contains(t, out.Failure.What, "a program's bug")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ReplayFile), []byte("stale"), 0o644))
	card, err := out.WriteCard(dir)
	require.NoError(t, err)
	assert.Contains(t, card, "no scenario file")
	assert.Contains(t, card, "shrink.Shrink(cfg, 1, shrink.Options{})")
	assert.NoFileExists(t, filepath.Join(dir, ReplayFile), "no replay.sh of an earlier card stays")
}
