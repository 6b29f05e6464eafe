package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The hold model: holdPending events are always pending; each, when it fires, schedules
// itself again after an exponential delay. It is the classic benchmark for event queues
// (Vaucher and Duval, 1975) and the steady state of a busy simulation.
const (
	holdPending = 10000
	holdMean    = float64(time.Millisecond)
)

// holder is the engine's side of the hold model.
type holder struct {
	e *Engine
	r *rand.Rand
}

func (h *holder) HandleEvent(arg uint64) {
	h.e.After(time.Duration(h.r.ExpFloat64()*holdMean), h, arg)
}

func newHoldEngine() *Engine {
	e := New(1)
	h := &holder{e: e, r: newStream(1, "hold")}
	for i := range holdPending {
		e.After(time.Duration(h.r.ExpFloat64()*holdMean), h, uint64(i))
	}
	// Reach the steady state (queue and slot pool at their high-water mark) before timing.
	e.Run(Limits{MaxEvents: 4 * holdPending})
	return e
}

// runEvents fires n more events on an engine built by newHoldEngine.
func runEvents(e *Engine, n int) {
	e.Run(Limits{MaxEvents: e.Fired() + uint64(n)})
}

// baselineEvent and baselineHeap are the minimal hand-written alternative the engine is
// measured against: a slice-based binary heap of plain structs, with a switch on the
// event's kind in place of a handler, and no cancellation.
type baselineEvent struct {
	at   time.Duration
	seq  uint64
	kind int
	arg  uint64
}

type baselineHeap struct {
	now time.Duration
	seq uint64
	h   []baselineEvent
	r   *rand.Rand
}

func (q *baselineHeap) less(i, j int) bool {
	return q.h[i].at < q.h[j].at || (q.h[i].at == q.h[j].at && q.h[i].seq < q.h[j].seq)
}

func (q *baselineHeap) push(ev baselineEvent) {
	q.seq++
	ev.seq = q.seq
	q.h = append(q.h, ev)
	for i := len(q.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *baselineHeap) pop() baselineEvent {
	top := q.h[0]
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h = q.h[:n]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && q.less(l, m) {
			m = l
		}
		if r < n && q.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
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

func newHoldBaseline() *baselineHeap {
	q := &baselineHeap{r: newStream(1, "hold"), h: make([]baselineEvent, 0, holdPending+1)}
	for i := range holdPending {
		q.push(baselineEvent{at: time.Duration(q.r.ExpFloat64() * holdMean), kind: holdKind, arg: uint64(i)})
	}
	for range 4 * holdPending {
		q.step()
	}
	return q
}

// BenchmarkEngine measures the hold model with 10,000 pending events. One op is one event.
// The "ratio" sub-benchmark alternates the engine and the baseline in chunks, in the same
// run, and reports engine time over baseline time, so that a noisy machine affects both
// alike. Target: ratio at most 1.5 and 0 allocs/op for the engine.
//
//	go test ./sim -run '^$' -bench BenchmarkEngine -benchmem
func BenchmarkEngine(b *testing.B) {
	b.Run("engine", func(b *testing.B) {
		e := newHoldEngine()
		b.ReportAllocs()
		b.ResetTimer()
		runEvents(e, b.N)
	})
	b.Run("baseline", func(b *testing.B) {
		q := newHoldBaseline()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			q.step()
		}
	})
	b.Run("ratio", func(b *testing.B) {
		const chunk = 5000
		e, q := newHoldEngine(), newHoldBaseline()
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
	e := newHoldEngine()
	if allocs := testing.AllocsPerRun(10, func() { runEvents(e, 1000) }); allocs != 0 {
		t.Errorf("hold model: %v allocations per 1000 events, want 0", allocs)
	}
}
