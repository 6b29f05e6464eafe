package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// A run's recorded fault plan, replayed on links that have no random fault left, gives the
// same run, record for record: the plan replays without the links' random streams. Without
// the plan the same links give another run, so the plan is what made it.
func TestARecordedFaultPlanReplaysTheRunWithoutTheLinksStreams(t *testing.T) {
	for _, c := range []struct {
		name  string
		seed  uint64
		swarm bool
	}{{"lossy-wan", 1, false}, {"partition-heals", 2, true}, {"three-sites", 3, true}, {"branch-gateway", 4, true}} {
		t.Run(c.name, func(t *testing.T) {
			s, err := file.Library(c.name)
			require.NoError(t, err)
			cfg := s.Config
			if c.swarm {
				cfg = scenarios.DrawFaultMix(&cfg, c.seed, true).Apply(cfg)
			}
			cfg.Trace, cfg.CheckInvariants = true, true
			rec := cfg
			rec.RecordFaults = true
			recorded, err := scenarios.Run(rec, c.seed)
			require.NoError(t, err)
			require.NotNil(t, recorded.FaultPlan)
			require.NotEmpty(t, recorded.FaultPlan.Packets, "the run's links did something to packets")
			require.NotEmpty(t, recorded.Packets)

			replay := cfg.Planned(recorded.FaultPlan)
			got, err := scenarios.Run(replay, c.seed)
			require.NoError(t, err)
			assert.Equal(t, recorded.Events, got.Events)
			require.Equal(t, len(recorded.Trace), len(got.Trace))
			for i := range recorded.Trace {
				require.Equal(t, recorded.Trace[i], got.Trace[i], "record %d", i)
			}

			control, err := scenarios.Run(cfg.Planned(nil), c.seed)
			require.NoError(t, err)
			assert.NotEqual(t, len(recorded.Trace), len(control.Trace), "without the plan, the clean links give another run")
		})
	}
}
