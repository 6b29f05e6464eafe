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

// BenchmarkDialogThroughputCheckedRatio runs the benchmark world unchecked and checked, one
// after the other in each op, and reports both rates and the ratio of their times (goal:
// checked at most 1.3 times the unchecked time).
//
//	go test ./scenarios -run '^$' -bench DialogThroughputCheckedRatio -benchmem -benchtime 3x
func BenchmarkDialogThroughputCheckedRatio(b *testing.B) {
	unchecked, checked := throughputConfig(10000, 100), throughputConfig(10000, 100)
	checked.CheckInvariants = true
	took := runInTurn(b, unchecked, checked)
	msgs := float64(b.N) * 1_000_000
	b.ReportMetric(msgs/took[0].Seconds(), "unchecked-msgs/s")
	b.ReportMetric(msgs/took[1].Seconds(), "checked-msgs/s")
	b.ReportMetric(took[1].Seconds()/took[0].Seconds(), "checked/unchecked")
}

// benchmarkThroughput runs cfg b.N times and reports messages delivered per wall second,
// and the heap allocations and bytes allocated per message delivered (goal: under 0.2
// allocations per message, issue 15).
func benchmarkThroughput(b *testing.B, cfg Config) {
	var delivered int64
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
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
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(delivered)/took.Seconds(), "msgs/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(delivered), "allocs/msg")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(delivered), "B/msg")
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

// BenchmarkIdleEndpointMemoryChecked measures the same world unchecked and with the
// invariant checkers on, in each op, and reports both and their ratio (goal: checked within
// 10 % of unchecked, and at most 512 B).
//
//	go test ./scenarios -run '^$' -bench IdleEndpointMemoryChecked -benchtime 1x
func BenchmarkIdleEndpointMemoryChecked(b *testing.B) {
	for range b.N {
		unchecked, checked := idleEndpointBytes(b, 10000), idleEndpointBytesChecked(b, 10000, true)
		b.ReportMetric(unchecked, "unchecked-B/endpoint")
		b.ReportMetric(checked, "checked-B/endpoint")
		b.ReportMetric(checked/unchecked, "checked/unchecked")
	}
}

// idleEndpointBytes builds a world whose dialogs each delivered one message and stay open,
// runs it until idle, and returns the heap growth per endpoint.
func idleEndpointBytes(tb testing.TB, dialogs int) float64 {
	return idleEndpointBytesChecked(tb, dialogs, false)
}

// idleEndpointBytesChecked is idleEndpointBytes with the invariant checkers on or off.
func idleEndpointBytesChecked(tb testing.TB, dialogs int, checked bool) float64 {
	cfg := throughputConfig(dialogs, 1)
	cfg.CheckInvariants = checked
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

// throughputThroughGateway is the benchmark world with a forwarding gateway G between A and
// B (RTE-5): A's dialogs route to G, G's msdb passes them on to B, and B routes its
// acknowledgements back through G. Each of the two links has the direct link's latency,
// loss and duplication, so a message crosses twice the faults.
func throughputThroughGateway(conversations, messages int) Config {
	cfg := throughputConfig(conversations, messages)
	cfg.Instances[0].Databases[0].Routes = []model.Route{{Name: "to-target", ServiceName: "Target", Address: "G"}}
	cfg.Instances[1].Databases[0].Routes = []model.Route{{Name: "to-initiator", ServiceName: "Initiator", Address: "G"}}
	cfg.Instances = append(cfg.Instances, model.Instance{Name: "G", Forwarding: model.Forwarding{Enabled: true, MaxBytes: 1 << 30},
		Routes: []model.Route{{Name: "to-target", ServiceName: "Target", Address: "B"}, {Name: "to-initiator", ServiceName: "Initiator", Address: "A"}}})
	link := cfg.Links[0]
	cfg.Links = []Link{{A: "A", B: "G", PairConfig: link.PairConfig}, {A: "G", B: "B", PairConfig: link.PairConfig}}
	return cfg
}

// BenchmarkDialogThroughputForwarded runs the benchmark world directly and through a
// forwarding gateway, one after the other in each op, and reports both rates and their
// ratio (goal: forwarded at least half the direct rate). Checkers on, as users run.
//
//	go test ./scenarios -run '^$' -bench DialogThroughputForwarded -benchmem -benchtime 3x
func BenchmarkDialogThroughputForwarded(b *testing.B) {
	direct, forwarded := throughputConfig(10000, 100), throughputThroughGateway(10000, 100)
	direct.CheckInvariants, forwarded.CheckInvariants = true, true
	took := runInTurn(b, direct, forwarded)
	msgs := float64(b.N) * 1_000_000
	b.ReportMetric(msgs/took[0].Seconds(), "direct-msgs/s")
	b.ReportMetric(msgs/took[1].Seconds(), "forwarded-msgs/s")
	b.ReportMetric(took[0].Seconds()/took[1].Seconds(), "forwarded/direct")
}

// runInTurn runs each config of the benchmark world once per op, one after the other, and
// returns the time each took in all; every run must deliver its 1,000,000 messages.
func runInTurn(b *testing.B, cfgs ...Config) []time.Duration {
	took := make([]time.Duration, len(cfgs))
	b.ReportAllocs()
	for i := range b.N {
		for k, cfg := range cfgs {
			start := time.Now()
			res, err := Run(cfg, uint64(i+1))
			took[k] += time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if res.Violation != nil {
				b.Fatal(res.Violation)
			}
			if res.Latency.Count != 1_000_000 {
				b.Fatalf("config %d (%s), seed %d: %d messages delivered, want 1,000,000", k, cfg.Name, i+1, res.Latency.Count)
			}
		}
	}
	return took
}
