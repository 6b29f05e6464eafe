package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// QUE-8 and G-14 in a whole world: a reader that rolls back every transaction turns its
// queue OFF after five, its sessions stop on the OFF queue, and the messages stay on the
// queue; ALTER QUEUE ... STATUS = ON lets the sessions start again (and fail five more
// times). With POISON_MESSAGE_HANDLING OFF the queue stays ON and the reader rolls back
// for as long as the run lasts.
func TestQUE8_ReaderThatAlwaysRollsBackDisablesItsQueue(t *testing.T) {
	for _, c := range []struct {
		name      string
		poisonOff bool
		reEnable  bool
		disables  int64
	}{
		{"poison handling on", false, false, 1},
		{"re-enabled queue is disabled again", false, true, 2},
		{"poison handling off", true, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := twoInstances(lossy(0, 0), Workload{Name: "orders", Dialogs: 3,
				Interarrival: sim.Fixed(10 * time.Millisecond), Messages: 2, Size: FixedSize(100)})
			cfg.Instances[1].Databases[0].Queues[0].PoisonMessageHandlingOff = c.poisonOff
			cfg.Readers = []Reader{{Queue: "TargetQueue", RollbackRate: 1, // one session: no rollback after the fifth
				ProcessingTime: sim.Fixed(time.Millisecond)}}
			cfg.MaxTime = time.Minute
			if c.reEnable {
				cfg.Timeline = []Change{{At: 30 * time.Second, Queue: "TargetQueue", Status: model.QueueOn}}
			}

			res, err := Run(cfg, 1)

			require.NoError(t, err)
			require.Nil(t, res.Violation)
			r := res.Readers[1]
			require.Equal(t, "TargetQueue", r.Queue)
			require.Equal(t, "TargetQueue", res.Queues[1].Queue)
			assert.Equal(t, c.disables, res.Queues[1].PoisonDisables)
			assert.Zero(t, r.Commits, "no transaction that received commits")
			if c.poisonOff {
				assert.Greater(t, r.Rollbacks, int64(1000), "the reader keeps rolling back")
			} else {
				assert.Equal(t, 5*c.disables, r.Rollbacks, "five rollbacks per disable")
			}
			assert.Zero(t, res.Latency.Count, "no message was received for good")
		})
	}
}
