package scenarios

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// fragmentedConfig is one dialog that sends one message of size bytes cut into fragments
// of one byte each, over a 10 ms link: the worst case of fragments per message.
func fragmentedConfig(size int64) Config {
	link := faulty.Config{LatencyFixed: 10 * time.Millisecond}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link},
		Workload{Name: "one message", Dialogs: 1, Messages: 1, Size: FixedSize(size)})
	cfg.Broker = model.Config{FragmentSize: 1}
	cfg.CheckInvariants = false
	return cfg
}

// BenchmarkFragmentsPerMessage runs one message of 16, 32 and 64 KiB in fragments of one
// byte. Sending, acknowledging and reassembling cost a constant per fragment, so ns/op
// doubles with the size, and ns/fragment stays flat; a loop over the fragments in each
// acknowledgement made it quadruple.
//
//	go test ./scenarios -run '^$' -bench FragmentsPerMessage -benchtime 3x
func BenchmarkFragmentsPerMessage(b *testing.B) {
	for _, kib := range []int64{16, 32, 64} {
		b.Run(fmt.Sprintf("%dKiB", kib), func(b *testing.B) {
			cfg := fragmentedConfig(kib << 10)
			for range b.N {
				res, err := Run(cfg, 1)
				if err != nil {
					b.Fatal(err)
				}
				if res.Latency.Count != 1 {
					b.Fatalf("%d messages delivered, want 1", res.Latency.Count)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(kib<<10), "ns/fragment")
		})
	}
}

// The event limit bounds a run's work because no event's work grows with the fragments of
// a message: the largest message in one-byte fragments, stopped after 1,000 events,
// allocates a few megabytes. A row kept a state per fragment (256 MB for this message, in
// the one event of its SEND) and each acknowledgement walked them all, so that the limit
// stopped nothing for minutes.
func TestTheEventLimitBoundsTheWorkOfAHugelyFragmentedMessage(t *testing.T) {
	cfg := fragmentedConfig(model.MaxMessageBytes)
	cfg.MaxEvents = 1000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Run(cfg, 1)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, sim.EventLimit, res.StopReason)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20), "bytes allocated by 1,000 events")
}
