package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

func TestEveryBuiltinRunsCleanlyOnSeveralSeeds(t *testing.T) {
	for _, name := range BuiltinNames() {
		b, err := LookupBuiltin(name)
		require.NoError(t, err)
		for seed := uint64(1); seed <= 3; seed++ {
			res, err := Run(b.Config, seed)
			require.NoError(t, err, "%s seed %d", name, seed)
			assert.Nil(t, res.Violation, "%s seed %d", name, seed)
			assert.Equal(t, sim.Drained, res.StopReason, "%s seed %d", name, seed)
			assert.Zero(t, res.StatementErrors, "%s seed %d", name, seed)
			for i, w := range res.Workloads {
				assert.Equal(t, w.DialogsBegun, w.DialogsEnded, "%s seed %d workload %s", name, seed, w.Name)
				if b.Config.Workloads[i].Replies {
					assert.Equal(t, w.MessagesSent, w.RepliesReceived, "%s seed %d workload %s", name, seed, w.Name)
				}
			}
		}
	}
	assert.Contains(t, BuiltinNames(), DefaultScenario)
}

func TestLookupBuiltinRejectsAnUnknownName(t *testing.T) {
	_, err := LookupBuiltin("nope")
	assert.ErrorIs(t, err, ErrUnknownScenario)
}
