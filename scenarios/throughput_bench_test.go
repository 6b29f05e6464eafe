package scenarios

import (
	"runtime"
	"testing"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// throughputConfig is the benchmark world: two instances, conversations x messages
// of 1 KiB, 1 % loss and 1 % duplication each way.
func throughputConfig(conversations, messages int) Config {
	link := faulty.Config{LatencyFixed: 10 * time.Millisecond, LatencyJitter: sim.ExponentialMean(2 * time.Millisecond),
		Bandwidth: 1 << 30, LossProbability: 0.01, DuplicateProbability: 0.01}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "bulk", Dialogs: conversations,
		Interarrival: sim.ExponentialMean(time.Millisecond), Messages: messages,
		MessageGap: sim.ExponentialMean(10 * time.Millisecond), Size: FixedSize(1024)})
	cfg.CheckInvariants = false
	return cfg
}

// BenchmarkDialogThroughput runs 10,000 conversations of 100 messages of 1 KiB between two
// instances over a link with 1 % loss and 1 % duplication. It reports simulated messages
// delivered per wall second (target: at least 300,000 on one core). One op is one run.
//
//	go test ./scenarios -run '^$' -bench DialogThroughput -benchmem -benchtime 3x
func BenchmarkDialogThroughput(b *testing.B) {
	benchmarkThroughput(b, throughputConfig(10000, 100))
}

// BenchmarkDialogThroughputChecked is the same world with tracing on and the invariant
// checkers watching every record, as property tests and the command line run it.
func BenchmarkDialogThroughputChecked(b *testing.B) {
	cfg := throughputConfig(10000, 100)
	cfg.CheckInvariants = true
	benchmarkThroughput(b, cfg)
}

func benchmarkThroughput(b *testing.B, cfg Config) {
	var delivered int64
	b.ReportAllocs()
	start := time.Now()
	for i := range b.N {
		res, err := Run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		if res.Violation != nil {
			b.Fatal(res.Violation)
		}
		if res.Latency.Count != 1_000_000 {
			b.Fatalf("seed %d: %d messages delivered, want 1,000,000", i+1, res.Latency.Count)
		}
		delivered += res.Latency.Count
	}
	b.ReportMetric(float64(delivered)/time.Since(start).Seconds(), "msgs/s")
}

// BenchmarkIdleEndpointMemory measures the heap held per idle conversation endpoint: both
// endpoints of 10,000 dialogs that exchanged a message and are left open, idle (target: at
// most 1 KiB each; Service Broker's own transmission object is about 1 KB).
//
//	go test ./scenarios -run '^$' -bench IdleEndpointMemory -benchtime 1x
func BenchmarkIdleEndpointMemory(b *testing.B) {
	for range b.N {
		perEndpoint := idleEndpointBytes(b, 10000)
		b.ReportMetric(perEndpoint, "B/endpoint")
	}
}

// idleEndpointBytes builds a world whose dialogs each delivered one message and stay open,
// runs it until idle, and returns the heap growth per endpoint.
func idleEndpointBytes(tb testing.TB, dialogs int) float64 {
	cfg := throughputConfig(dialogs, 1)
	cfg.Links = nil
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		tb.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w, err := build(&cfg, cat, 1)
	if err != nil {
		tb.Fatal(err)
	}
	// Keep the dialogs open: the workload would end them after its one message.
	for _, wl := range w.workloads {
		wl.keepOpen = true
	}
	w.e.Run(sim.Limits{MaxTime: time.Hour})
	runtime.GC()
	runtime.ReadMemStats(&after)
	endpoints := 0
	for _, b := range w.brokers {
		endpoints += len(b.Endpoints())
	}
	if endpoints != 2*dialogs {
		tb.Fatalf("%d endpoints open, want %d", endpoints, 2*dialogs)
	}
	runtime.KeepAlive(w)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(endpoints)
}
