package faulty

import (
	"testing"
	"time"

	"github.com/sbsim/sbsim/sim"
)

// lossyWAN is a link with every fault on, as the benchmarks and the allocation test use it.
var lossyWAN = Config{
	LatencyFixed:         20 * time.Millisecond,
	LatencyJitter:        sim.ExponentialMean(5 * time.Millisecond),
	Bandwidth:            10 << 20,
	LossBurst:            GilbertElliott{GoodToBad: 0.01, BadToGood: 0.3, LossBad: 0.5},
	DuplicateProbability: 0.01,
	CorruptProbability:   0.01,
	Capacity:             10000,
}

// pump keeps one packet sent per 100 µs, forever.
type pump struct {
	e    *sim.Engine
	link *Link[packet]
}

func (p *pump) HandleEvent(i uint64) {
	p.link.Send(packet{id: int(i), sentAt: p.e.Now()}, 1024)
	p.e.After(100*time.Microsecond, p, i+1)
}

func newPump(b testing.TB) *sim.Engine {
	e := sim.New(1)
	link, err := New(e, "A->B", lossyWAN, func(Delivery[packet]) {})
	if err != nil {
		b.Fatal(err)
	}
	e.Schedule(0, &pump{e: e, link: link}, 0)
	e.Run(sim.Limits{MaxEvents: 100000}) // grow the pool of packets in flight
	return e
}

// BenchmarkLink measures a lossy, jittery, duplicating link carrying steady traffic. One op
// is one engine event: a send or an arrival.
//
//	go test ./net/faulty -run '^$' -bench BenchmarkLink -benchmem
func BenchmarkLink(b *testing.B) {
	e := newPump(b)
	b.ReportAllocs()
	b.ResetTimer()
	e.Run(sim.Limits{MaxEvents: e.Fired() + uint64(b.N)})
}

func TestLinkAllocatesNothingPerPacketInSteadyState(t *testing.T) {
	e := newPump(t)
	allocs := testing.AllocsPerRun(10, func() { e.Run(sim.Limits{MaxEvents: e.Fired() + 10000}) })
	if allocs != 0 {
		t.Errorf("%v allocations per 10,000 events, want 0", allocs)
	}
}
