package scenarios

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// runAdjusted is Run with adjust applied to the world once it is built.
func runAdjusted(t *testing.T, cfg Config, seed uint64, adjust func(w *world)) *Result {
	t.Helper()
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate(cat))
	w, err := build(&cfg, cat, seed)
	require.NoError(t, err)
	adjust(w)
	reason := w.run()
	w.finish(reason)
	return w.result(reason, seed)
}

// runKeepingPackets is Run with recycling off, in the links and in the brokers: every packet
// and every buffer of an endpoint keeps its own memory for ever, as before the brokers had
// free lists.
func runKeepingPackets(t *testing.T, cfg Config, seed uint64) *Result {
	return runAdjusted(t, cfg, seed, func(w *world) {
		for _, p := range w.pairs {
			p.pair.AToB.SetRelease(nil)
			p.pair.BToA.SetRelease(nil)
		}
		for _, b := range w.brokers {
			b.SetRecycling(false)
		}
	})
}

// TestRecycledPacketsChangeNothing runs worlds whose brokers recycle their buffers (blocks
// of fragments, packets of acknowledgements, selective ranges, and each endpoint's
// transmission queue rows, fragments in flight, partial and ready messages) and the same
// worlds with every buffer kept, and wants the same results and traces. The links duplicate, lose and reorder
// packets, and messages span several fragments, so that a buffer recycled while a copy of
// its packet is still on a link, or while a forwarder or an endpoint still reads it, would
// be zeroed or overwritten under that copy and change what arrives.
func TestRecycledPacketsChangeNothing(t *testing.T) {
	link := faulty.Config{LatencyFixed: 5 * time.Millisecond, LatencyJitter: sim.ExponentialMean(5 * time.Millisecond),
		Bandwidth: 1 << 24, LossProbability: 0.1, DuplicateProbability: 0.5}
	direct := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "bulk", Dialogs: 40,
		Interarrival: sim.ExponentialMean(time.Millisecond), Messages: 20,
		MessageGap: sim.ExponentialMean(time.Millisecond), Size: FixedSize(20000)})
	direct.Broker.FragmentSize = 4096
	direct.Broker.BlockFragmentsMax = 8
	direct.CheckInvariants, direct.Trace = true, true
	// Bursts that fill an endpoint's buffers beyond idleCapacity and then let them empty,
	// so that they go back to the free lists and other endpoints take them.
	bursty := direct
	bursty.Workloads = slices.Clone(direct.Workloads)
	bursty.Workloads[0].Dialogs, bursty.Workloads[0].MessageGap = 100, sim.ExponentialMean(20*time.Millisecond)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{{"direct", direct}, {"bursty", bursty}, {"through a forwarder", throughThroughGateway(direct)}} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 3; seed++ {
				recycled, err := Run(tc.cfg, seed)
				require.NoError(t, err)
				if v := recycled.Violation; v != nil {
					t.Fatalf("seed %d: %s at t=%v: %s", seed, v.Rule, v.At, v.Message)
				}
				require.Positive(t, recycled.Latency.Count, "seed %d", seed)
				kept := runKeepingPackets(t, tc.cfg, seed)
				assert.Equal(t, kept.Events, recycled.Events, "seed %d: events", seed)
				assert.Equal(t, kept.Trace, recycled.Trace, "seed %d: trace", seed)
				assert.Equal(t, kept, recycled, "seed %d: result", seed)
			}
		})
	}
}

// throughThroughGateway is cfg with a forwarding gateway between its two instances, as
// throughputThroughGateway builds it.
func throughThroughGateway(cfg Config) Config {
	g := throughputThroughGateway(1, 1)
	g.Workloads, g.Broker = cfg.Workloads, cfg.Broker
	g.CheckInvariants, g.Trace = cfg.CheckInvariants, cfg.Trace
	for i := range g.Links {
		g.Links[i].PairConfig = cfg.Links[0].PairConfig
	}
	return g
}
