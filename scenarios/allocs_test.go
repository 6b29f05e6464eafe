package scenarios

import (
	"runtime"
	"testing"
)

// TestDialogProtocolAllocatesLittlePerMessage (issue 15): in the benchmark world, made
// smaller, each message delivered costs under 0.25 allocations, its dialog's share of
// creating endpoints and groups included: the hot path's slices (blocks,
// acknowledgements, rows, fragments in flight, partial and ready messages) come from the
// brokers' free lists. Before them a message cost about 1.9. The figure is the slope
// between two runs of 200 and 400 dialogs, so that the world's start-up does not count.
func TestDialogProtocolAllocatesLittlePerMessage(t *testing.T) {
	mallocs := func(dialogs int) (allocs uint64, delivered int64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(throughputConfig(dialogs, 100), 1)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(dialogs) * 100; res.Latency.Count != want {
			t.Fatalf("%d dialogs: %d messages delivered, want %d", dialogs, res.Latency.Count, want)
		}
		return after.Mallocs - before.Mallocs, res.Latency.Count
	}
	smallAllocs, small := mallocs(200)
	largeAllocs, large := mallocs(400)
	perMessage := float64(int64(largeAllocs)-int64(smallAllocs)) / float64(large-small)
	t.Logf("%.3f allocations per message", perMessage)
	if perMessage >= 0.25 {
		t.Errorf("%.3f allocations per message, want under 0.25", perMessage)
	}
}
