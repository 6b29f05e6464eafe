package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// TestRetentionLanesChangeNothing (G-16): closed target endpoints' retention timers, kept
// in one lane per instance with only the first in the engine, fire the same events at the
// same times in the same order as a timer each: the results, event counts and traces are
// the same. The worlds retain thousands of closed targets, extend retentions with late
// arrivals under heavy loss, and crash and restart instances, which arms retention timers
// again out of their lane's order.
func TestRetentionLanesChangeNothing(t *testing.T) {
	busy := twoInstances(lossy(0.3, 0.2), Workload{Name: "orders", Dialogs: 400, Interarrival: sim.ExponentialMean(5 * time.Millisecond),
		Messages: 3, Size: FixedSize(5000), Replies: true, ReplySize: FixedSize(200)})
	crashing := twoInstances(lossy(0.05, 0), Workload{Name: "orders", Dialogs: 50, Interarrival: sim.ExponentialMean(time.Second),
		Messages: 3, Size: FixedSize(5000), Replies: true, ReplySize: FixedSize(200)})
	crashing.Crashes = RandomCrashes{Instances: []string{"A", "B"}, Start: time.Second, Until: 40 * time.Second,
		Interval: sim.ExponentialMean(8 * time.Second), Downtime: sim.UniformBetween(time.Second, 10*time.Second)}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{{"lossy", busy}, {"crashing", crashing}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Trace = true
			for seed := uint64(1); seed <= 2; seed++ {
				laned := runAdjusted(t, cfg, seed, func(*world) {})
				direct := runAdjusted(t, cfg, seed, func(w *world) { w.timers.direct = true })
				if v := laned.Violation; v != nil {
					t.Fatalf("seed %d: %s at t=%v: %s", seed, v.Rule, v.At, v.Message)
				}
				forgotten := 0
				for _, r := range laned.Trace {
					if r.Kind == model.TraceEndpointForgotten {
						forgotten++
					}
				}
				require.Positive(t, forgotten, "seed %d: closed targets forgotten", seed)
				assert.Equal(t, direct.Events, laned.Events, "seed %d: events", seed)
				assert.Equal(t, direct.Trace, laned.Trace, "seed %d: trace", seed)
				assert.Equal(t, direct, laned, "seed %d: result", seed)
			}
		})
	}
}

// TestRetainedEndpointsHoldNoEngineEvents (G-16): while thousands of closed target
// endpoints wait for their retention to end, the engine holds one event per instance for
// them, not one each; the memory budget still counts one pending timer each.
func TestRetainedEndpointsHoldNoEngineEvents(t *testing.T) {
	const dialogs = 2000
	cfg := throughputConfig(dialogs, 1)
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	w, err := build(&cfg, cat, 1)
	require.NoError(t, err)
	w.e.Run(sim.Limits{MaxTime: 10 * time.Minute}) // long after the dialogs, before their retention ends
	retained := 0
	for _, b := range w.brokers {
		for _, ep := range b.Endpoints() {
			if ep.State == model.Closed {
				retained++
			}
		}
	}
	require.Equal(t, dialogs, retained, "every target closed and retained")
	assert.Less(t, w.e.Pending(), 20, "events in the engine")
	assert.GreaterOrEqual(t, w.timers.pendingEvents(), dialogs, "timers pending, as the memory budget counts them")
}
