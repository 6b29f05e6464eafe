package scenarios

import (
	"testing"
	"time"

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

// Reference: spec PRI-11 and PRI-16 on the built-in priority flood: latency and time in
// the transmission queue are ordered by level, and the transmission queue's wait is part of
// the latency.
func TestPriorityFloodOrdersLatencyByLevel(t *testing.T) {
	b, err := LookupBuiltin("priority-flood")
	require.NoError(t, err)
	for seed := uint64(1); seed <= 2; seed++ {
		res, err := Run(b.Config, seed)
		require.NoError(t, err)
		require.Nil(t, res.Violation)
		require.Len(t, res.Levels, 3)
		ten, five, one := res.Levels[0], res.Levels[1], res.Levels[2]
		require.Equal(t, []int{10, 5, 1}, []int{ten.Level, five.Level, one.Level})
		assert.Less(t, ten.Latency.P50, five.Latency.P50, "seed %d", seed)
		assert.Less(t, five.Latency.P50, one.Latency.P50, "seed %d", seed)
		assert.Less(t, ten.TransmissionQueueWait.Mean, five.TransmissionQueueWait.Mean, "seed %d", seed)
		assert.Less(t, five.TransmissionQueueWait.Mean, one.TransmissionQueueWait.Mean, "seed %d", seed)
		for _, l := range res.Levels {
			assert.LessOrEqual(t, l.TransmissionQueueWait.Mean, l.Latency.Mean, "level %d seed %d", l.Level, seed)
			assert.Equal(t, int64(1460), l.Messages, "every message arrives, level %d seed %d", l.Level, seed)
			// G-11's starvation bound: a message waits in the transmission queue at most the
			// aging it needs to reach level 10, plus what level 10 itself waits at most
			// (once raised, it takes its turn with level 10), plus one retry back-off for a
			// message whose block was lost and had to age again from its retry.
			bound := time.Duration(10-l.Level)*10*time.Second + ten.TransmissionQueueWait.Max + 4*time.Second
			assert.LessOrEqual(t, l.TransmissionQueueWait.Max, bound, "level %d seed %d", l.Level, seed)
		}
	}
}
