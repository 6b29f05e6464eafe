package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The hold model: pending events are always pending; each, when it fires, schedules
// itself again after an exponential delay. It is the classic benchmark for event queues
// (Vaucher and Duval, 1975) and the steady state of a busy simulation.
const holdMean = float64(time.Millisecond)

// holdSizes are the numbers of pending events the benchmarks measure.
var holdSizes = []int{10_000, 100_000, 1_000_000}

// holder is the engine's side of the hold model.
type holder struct {
	e *Engine
	r *rand.Rand
}

func (h *holder) HandleEvent(arg uint64) {
	h.e.After(time.Duration(h.r.ExpFloat64()*holdMean), h, arg)
}

func newHoldEngine(pending int) *Engine {
	e := New(1)
	h := &holder{e: e, r: newStream(1, "hold")}
	for i := range pending {
		e.After(time.Duration(h.r.ExpFloat64()*holdMean), h, uint64(i))
	}
	// Reach the steady state (queue and slot pool at their high-water mark, every event
	// re-scheduled a few times) before timing.
	e.Run(Limits{MaxEvents: 4 * uint64(pending)})
	return e
}

// runEvents fires n more events on an engine built by newHoldEngine.
func runEvents(e *Engine, n int) {
	e.Run(Limits{MaxEvents: e.Fired() + uint64(n)})
}

// baselineEvent and baselineHeap are the hand-written alternative the engine is measured
// against, as fast as a general event queue gets without the engine's features: a binary
// heap of plain structs in one slice that sifts a hole (each level moves one entry, no
// swaps), a switch on the event's kind in place of a handler, and no cancellation.
type baselineEvent struct {
	at   time.Duration
	seq  uint64
	kind int
	arg  uint64
}

func (a *baselineEvent) before(b *baselineEvent) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

type baselineHeap struct {
	now time.Duration
	seq uint64
	h   []baselineEvent
	r   *rand.Rand
}

func (q *baselineHeap) push(ev baselineEvent) {
	q.seq++
	ev.seq = q.seq
	q.h = append(q.h, ev)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !ev.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = ev
}

func (q *baselineHeap) pop() baselineEvent {
	h := q.h
	top := h[0]
	n := len(h) - 1
	last := h[n]
	q.h = h[:n]
	h = h[:n]
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&last) {
			break
		}
		h[i] = h[c]
		i = c
	}
	if n > 0 {
		h[i] = last
	}
	return top
}

const holdKind = 1

func (q *baselineHeap) step() {
	ev := q.pop()
	q.now = ev.at
	switch ev.kind {
	case holdKind:
		q.push(baselineEvent{at: q.now + time.Duration(q.r.ExpFloat64()*holdMean), kind: holdKind, arg: ev.arg})
	}
}

func newHoldBaseline(pending int) *baselineHeap {
	q := &baselineHeap{r: newStream(1, "hold"), h: make([]baselineEvent, 0, pending+1)}
	for i := range pending {
		q.push(baselineEvent{at: time.Duration(q.r.ExpFloat64() * holdMean), kind: holdKind, arg: uint64(i)})
	}
	for range 4 * pending {
		q.step()
	}
	return q
}

// BenchmarkEngine measures the hold model with 10,000, 100,000 and 1,000,000 pending
// events. One op is one event. For each size, "ratio" alternates the engine and the
// baseline in chunks, in the same run, and reports engine time over baseline time, so
// that a noisy machine affects both alike. Target: ratio at most 1.5 at every size, and
// 0 allocs/op for the engine.
//
//	go test ./sim -run '^$' -bench BenchmarkEngine -benchmem
func BenchmarkEngine(b *testing.B) {
	for _, pending := range holdSizes {
		b.Run(fmt.Sprintf("pending=%d/engine", pending), func(b *testing.B) {
			e := newHoldEngine(pending)
			b.ReportAllocs()
			b.ResetTimer()
			runEvents(e, b.N)
		})
		b.Run(fmt.Sprintf("pending=%d/baseline", pending), func(b *testing.B) {
			q := newHoldBaseline(pending)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				q.step()
			}
		})
		b.Run(fmt.Sprintf("pending=%d/ratio", pending), func(b *testing.B) {
			const chunk = 5000
			e, q := newHoldEngine(pending), newHoldBaseline(pending)
			var engineTime, baselineTime time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; done += chunk {
				n := min(chunk, b.N-done)
				start := time.Now()
				runEvents(e, n)
				mid := time.Now()
				for range n {
					q.step()
				}
				engineTime += mid.Sub(start)
				baselineTime += time.Since(mid)
			}
			b.ReportMetric(float64(engineTime)/float64(b.N), "engine-ns/event")
			b.ReportMetric(float64(baselineTime)/float64(b.N), "baseline-ns/event")
			b.ReportMetric(float64(engineTime)/float64(baselineTime), "engine/baseline")
		})
	}
}

// TestHoldBaselineIsAHeap checks the baseline against a sort: a benchmark's baseline that
// got the order wrong would be fast for nothing.
func TestHoldBaselineIsAHeap(t *testing.T) {
	q := &baselineHeap{r: newStream(2, "hold")}
	var want []time.Duration
	for range 5000 {
		at := time.Duration(q.r.Int64N(1000))
		q.push(baselineEvent{at: at})
		want = append(want, at)
	}
	slices.Sort(want)
	for i, at := range want {
		if got := q.pop(); got.at != at {
			t.Fatalf("pop %d: %v, want %v", i, got.at, at)
		}
	}
}

// BenchmarkSample measures drawing a delay through the gonum-backed distributions.
func BenchmarkSample(b *testing.B) {
	for _, d := range []Distribution{ExponentialMean(time.Millisecond), LogNormalMean(time.Millisecond, time.Millisecond)} {
		b.Run(d.Kind.String(), func(b *testing.B) {
			r := newStream(1, "sample")
			b.ReportAllocs()
			for range b.N {
				d.Sample(r)
			}
		})
	}
}

// TestEngineAllocatesNothingPerEventInSteadyState checks the benchmark's allocation target
// as a test, so that CI catches a regression without running benchmarks.
func TestEngineAllocatesNothingPerEventInSteadyState(t *testing.T) {
	e := newHoldEngine(10_000)
	if allocs := testing.AllocsPerRun(10, func() { runEvents(e, 1000) }); allocs != 0 {
		t.Errorf("hold model: %v allocations per 1000 events, want 0", allocs)
	}
}
