package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scaleScenario is issue 15's world at scale: two instances, dialogs of one 100-byte
// message each (the initiator ends them, the default life cycle), 1 % loss each way, the
// invariant checkers on. A dialog begins every millisecond on average.
const scaleScenario = `name: scale
instances:
  - name: A
    databases:
      - name: A
        message_types: [Event]
        contracts:
          - {name: //sbsim/Event, messages: [{message_type: Event, sent_by: initiator}]}
        queues: [{name: AQueue}]
        services: [{name: AService, queue: AQueue}]
  - name: B
    databases:
      - name: B
        message_types: [Event]
        contracts:
          - {name: //sbsim/Event, messages: [{message_type: Event, sent_by: initiator}]}
        queues: [{name: BQueue}]
        services: [{name: BService, queue: BQueue, contracts: [//sbsim/Event]}]
links:
  - between: [A, B]
    both: {latency: 10ms, jitter: {exponential: 2ms}, loss: 0.01}
workloads:
  - name: events
    from_service: AService
    to_service: BService
    contract: //sbsim/Event
    message_type: Event
    dialogs: %d
    interarrival: {exponential: 1ms}
    messages: 1
    size: 100
readers:
  - {queue: BQueue, top: 10}
check_invariants: on
limits: {max_time: 1000h, max_events: 2_000_000_000, max_memory: 64GiB}
`

// scaleDialogs is how many dialogs BenchmarkRunOutAtScale runs: 1,000,000, or
// SBSIM_SCALE_DIALOGS (10,000,000 for the second figure).
func scaleDialogs(tb testing.TB) int {
	v := os.Getenv("SBSIM_SCALE_DIALOGS")
	if v == "" {
		return 1_000_000
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "SBSIM_SCALE_DIALOGS")
	return n
}

// peakMemory runs work while it samples, every 20 ms, the memory the Go runtime holds from
// the system (all its classes: heap, stacks, metadata, free pages not yet returned) and
// the heap's live and dead objects, and returns their peaks in bytes. With
// SBSIM_PEAK_HEAP_PROFILE=FILE it writes a heap profile to FILE whenever the heap grew by a
// tenth, so that FILE ends up with the allocations live near the peak.
func peakMemory(work func()) (total, heap uint64) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	profile, profiled := os.Getenv("SBSIM_PEAK_HEAP_PROFILE"), uint64(0)
	read := func() {
		metrics.Read(samples)
		total, heap = max(total, samples[0].Value.Uint64()), max(heap, samples[1].Value.Uint64())
		if profile != "" && heap > profiled+profiled/10 { // a heap profile near the peak, for pprof
			profiled = heap
			if f, err := os.Create(profile); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				read()
			}
		}
	}()
	work()
	close(stop)
	<-done
	read()
	return total, heap
}

// BenchmarkRunOutAtScale is issue 15's goal for outputs at scale: simulate run -out of
// 1,000,000 one-message dialogs between two instances with 1 % loss and the checkers on,
// writing every output of the run folder, without the trace and (as a second case) with
// -trace. It reports the wall seconds of the run and the peak memory the runtime held
// (goal: under 60 s and 2 GiB without -trace). One op is one run.
//
//	go test ./cmd/simulate -run '^$' -bench RunOutAtScale -benchtime 1x -benchmem
//	SBSIM_SCALE_DIALOGS=10000000 go test ./cmd/simulate -run '^$' -bench 'RunOutAtScale/out$' -benchtime 1x -benchmem -timeout 2h
func BenchmarkRunOutAtScale(b *testing.B) {
	dialogs := scaleDialogs(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "scale.yaml")
	require.NoError(b, os.WriteFile(path, []byte(fmt.Sprintf(scaleScenario, dialogs)), 0o644))
	for _, c := range []struct {
		name  string
		extra []string
	}{{"out", nil}, {"out+trace", []string{"-trace"}}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				out := filepath.Join(dir, c.name)
				args := append([]string{"run", path, "-seed", "1", "-q", "-out", out}, c.extra...)
				runtime.GC()
				start := time.Now()
				var code int
				var stdout, stderr string
				total, heap := peakMemory(func() { code, stdout, stderr = runCommand(args...) })
				wall := time.Since(start)
				require.Equal(b, 0, code, "simulate %v:\n%s\n%s", args, stdout, stderr)
				b.ReportMetric(wall.Seconds(), "s/run")
				b.ReportMetric(float64(total)/(1<<20), "MiB-peak-total")
				b.ReportMetric(float64(heap)/(1<<20), "MiB-peak-heap")
				require.NoError(b, os.RemoveAll(out))
			}
		})
	}
}
