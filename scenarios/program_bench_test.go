package scenarios

import (
	"testing"
	"time"
)

// BenchmarkRequestReplyPrograms runs the throughput world as request and reply: 2,000
// conversations of 50 requests of 1 KiB, each answered by the target's program (a handler
// that sends a 1 KiB reply), over the same lossy link. It reports simulated messages
// delivered, requests and replies, per wall second. One op is one run.
//
//	go test ./scenarios -run '^$' -bench RequestReplyPrograms -benchmem -benchtime 3x
func BenchmarkRequestReplyPrograms(b *testing.B) {
	cfg := throughputConfig(2000, 50)
	cfg.Workloads[0].Replies = true
	cfg.Readers = []Reader{{Queue: "TargetQueue", On: []Handler{{MessageType: "Request",
		Do: []Statement{{Kind: StatementSend, MessageType: "Reply", Size: FixedSize(1024)}}}}}}
	benchmarkRequestReply(b, cfg)
}

// BenchmarkRequestReplyWorkload is the same world answered by the workload's automatic
// reply (no program): the program's own cost is the difference.
func BenchmarkRequestReplyWorkload(b *testing.B) {
	cfg := throughputConfig(2000, 50)
	cfg.Workloads[0].Replies, cfg.Workloads[0].ReplySize = true, FixedSize(1024)
	benchmarkRequestReply(b, cfg)
}

func benchmarkRequestReply(b *testing.B, cfg Config) {
	var delivered int64
	b.ReportAllocs()
	start := time.Now()
	for i := range b.N {
		res, err := Run(cfg, uint64(i+1))
		if err != nil {
			b.Fatal(err)
		}
		if want := int64(2 * 2000 * 50); res.Latency.Count != want || res.Workloads[0].RepliesReceived != want/2 {
			b.Fatalf("seed %d: %d messages delivered, %d replies, want %d and %d", i+1, res.Latency.Count,
				res.Workloads[0].RepliesReceived, want, want/2)
		}
		delivered += res.Latency.Count
	}
	b.ReportMetric(float64(delivered)/time.Since(start).Seconds(), "msgs/s")
}
