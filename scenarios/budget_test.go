package scenarios

import (
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// partitioned is a link down from time 0 until the end of any run.
func partitioned() faulty.PairConfig {
	return faulty.PairConfig{AToB: faulty.Config{LatencyFixed: 20 * time.Millisecond},
		BToA:       faulty.Config{LatencyFixed: 20 * time.Millisecond},
		Partitions: []faulty.Partition{{Window: faulty.Window{From: 0, Until: math.MaxInt64}}}}
}

// liveHeap returns the bytes live on the heap after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The memory estimate that stops a run (limits.max_memory) follows what the run holds:
// for worlds that hold many of one kind of object, the estimate is within a factor of two
// of the live heap the world adds.
func TestMemoryEstimateFollowsTheHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worlds of 20,000 dialogs")
	}
	for _, tc := range []struct {
		name  string
		cfg   Config
		grown string
	}{
		{"dialogs stuck behind a partition, checked", twoInstances(partitioned(), Workload{Name: "w", Dialogs: 20000,
			Interarrival: sim.Fixed(time.Millisecond), Messages: 2, Size: FixedSize(100)}), ""},
		{"dialogs stuck behind a partition, unchecked", func() Config {
			c := twoInstances(partitioned(), Workload{Name: "w", Dialogs: 20000,
				Interarrival: sim.Fixed(time.Millisecond), Messages: 2, Size: FixedSize(100)})
			c.CheckInvariants = false
			return c
		}(), ""},
		{"dialogs stuck behind a partition, traced", func() Config {
			c := twoInstances(partitioned(), Workload{Name: "w", Dialogs: 20000,
				Interarrival: sim.Fixed(time.Millisecond), Messages: 2, Size: FixedSize(100)})
			c.Trace = true
			return c
		}(), ""},
		{"dialogs delivered and closed, checked", twoInstances(lossy(0, 0), Workload{Name: "w", Dialogs: 20000,
			Interarrival: sim.Fixed(time.Millisecond), Messages: 2, Size: FixedSize(100)}), ""},
		{"dialogs of ten messages delivered and closed, checked", twoInstances(lossy(0, 0), Workload{Name: "w", Dialogs: 20000,
			Interarrival: sim.Fixed(time.Millisecond), Messages: 10, Size: FixedSize(100)}), ""},
		{"dialogs delivered and closed, unchecked", func() Config {
			c := twoInstances(lossy(0, 0), Workload{Name: "w", Dialogs: 20000,
				Interarrival: sim.Fixed(time.Millisecond), Messages: 2, Size: FixedSize(100)})
			c.CheckInvariants = false
			return c
		}(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.MaxTime = 25 * time.Second
			cat, err := model.Compile(cfg.Instances)
			require.NoError(t, err)
			before := liveHeap()
			w, err := build(&cfg, cat, 1)
			require.NoError(t, err)
			w.run()
			uses, estimate := w.memoryEstimate()
			grown := liveHeap() - before
			runtime.KeepAlive(w)
			t.Logf("live heap grown %s, estimate %s: %v", FormatBytes(grown), FormatBytes(estimate), fmt.Sprint(uses))
			assert.InDelta(t, 1, float64(estimate)/float64(grown), 0.5, "estimate over the heap grown")
		})
	}
}
