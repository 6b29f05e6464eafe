package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// drainAllowance is how long after the traffic stops the run may go on, delivering what is
// still in flight, before the engine's time limit stops it.
const drainAllowance = time.Minute

// maxEvents bounds the events of one run: far above what an hour of the demonstration's
// traffic fires (about 1,500 events per virtual second).
const maxEvents = 50_000_000

// packet is what the demonstration's links carry: enough for the receiver to measure the
// latency and to notice reordering.
type packet struct {
	seq    uint64        // 1, 2, ... in send order on its link
	sentAt time.Duration // the virtual time of Send
}

// pairSpec describes two instances, the character of the links between them, and the
// traffic that each direction carries.
type pairSpec struct {
	a, b      string
	character string // the pair in a few words: "a clean LAN"
	cfg       faulty.PairConfig
	gapMean   time.Duration // mean time between two packets, each direction
}

// sizeMix draws packet sizes: a share of small acknowledgements, the rest dialog fragments.
// Each range is [min, max) bytes.
type sizeMix struct {
	ackShare                 float64
	ackMin, ackMax           int
	fragmentMin, fragmentMax int
}

// demoSizes is the size mix of every direction.
var demoSizes = sizeMix{ackShare: 0.3, ackMin: 64, ackMax: 128, fragmentMin: 512, fragmentMax: 4096}

// sample draws one size from r.
func (m sizeMix) sample(r *rand.Rand) int {
	if sim.Bernoulli(r, m.ackShare) {
		return m.ackMin + r.IntN(m.ackMax-m.ackMin)
	}
	return m.fragmentMin + r.IntN(m.fragmentMax-m.fragmentMin)
}

// demoPairs returns the three pairs of the demonstration. The partitions of the third pair
// are placed at fixed fractions of the duration, so that every run, short or long, has them.
func demoPairs(duration time.Duration) []pairSpec {
	lan := faulty.Config{
		LatencyFixed:  500 * time.Microsecond,
		LatencyJitter: sim.UniformBetween(0, 100*time.Microsecond),
		Bandwidth:     125_000_000, // 1 Gbit/s
	}
	wan := faulty.Config{
		LatencyFixed:         100 * time.Millisecond,
		LatencyJitter:        sim.LogNormalMean(8*time.Millisecond, 6*time.Millisecond),
		Bandwidth:            250_000, // 2 Mbit/s
		LossProbability:      0.02,
		DuplicateProbability: 0.01,
		CorruptProbability:   0.005,
		Capacity:             24,
	}
	bursty := faulty.Config{
		LatencyFixed:  120 * time.Millisecond,
		LatencyJitter: sim.NormalMean(3*time.Millisecond, time.Millisecond),
		Bandwidth:     2_500_000, // 20 Mbit/s
		LossBurst:     faulty.GilbertElliott{GoodToBad: 0.02, BadToGood: 0.3, LossGood: 0.001, LossBad: 0.6},
	}
	partitions := []faulty.Partition{
		{Window: faulty.Window{From: duration / 3, Until: duration/3 + duration/12}, Direction: faulty.Both},
		{Window: faulty.Window{From: 2 * duration / 3, Until: 3 * duration / 4}, Direction: faulty.BToA},
	}
	return []pairSpec{
		{a: "Lisbon", b: "Paris", character: "a clean LAN", gapMean: 5 * time.Millisecond,
			cfg: faulty.PairConfig{AToB: lan, BToA: lan}},
		{a: "Paris", b: "Tokyo", character: "a lossy, congested WAN", gapMean: 8 * time.Millisecond,
			cfg: faulty.PairConfig{AToB: wan, BToA: wan}},
		{a: "Lisbon", b: "Tokyo", character: "a WAN with bursty loss and partitions", gapMean: 20 * time.Millisecond,
			cfg: faulty.PairConfig{AToB: bursty, BToA: bursty, Partitions: partitions}},
	}
}

// traffic sends Poisson traffic on one link: packets at exponential intervals, with sizes
// from a sizeMix, until a virtual instant. It is the sim.Handler of its own sends.
type traffic struct {
	e     *sim.Engine
	link  *faulty.Link[packet]
	rng   *rand.Rand
	gap   sim.Distribution
	sizes sizeMix
	until time.Duration
	// sent is the sequence number of the last packet sent, and so their count.
	sent uint64
}

// scheduleNext arranges the next send, unless it would fall at or after until.
func (t *traffic) scheduleNext() {
	if at := t.e.Now() + t.gap.Sample(t.rng); at < t.until {
		t.e.Schedule(at, t, 0)
	}
}

// HandleEvent sends one packet and arranges the next.
func (t *traffic) HandleEvent(uint64) {
	t.sent++
	t.link.Send(packet{seq: t.sent, sentAt: t.e.Now()}, t.sizes.sample(t.rng))
	t.scheduleNext()
}

// receiver is the far end of one link: it records what arrives.
type receiver struct {
	e *sim.Engine
	// arrivals counts every copy that arrived, corrupt ones included; corrupt counts those.
	arrivals, corrupt int64
	// reordered counts arrivals overtaken by a packet sent after them.
	reordered int64
	// highest is the largest sequence number arrived so far.
	highest uint64
	// latencies holds, in nanoseconds, the time from Send to arrival of every copy.
	latencies []float64
}

// deliver is the link's receiving function.
func (r *receiver) deliver(d faulty.Delivery[packet]) {
	r.arrivals++
	if d.Corrupt {
		r.corrupt++
	}
	if d.Packet.seq < r.highest {
		r.reordered++
	} else {
		r.highest = d.Packet.seq
	}
	r.latencies = append(r.latencies, float64(r.e.Now()-d.Packet.sentAt))
}

// directedLink is one direction between two instances, with its traffic and its receiver.
type directedLink struct {
	link *faulty.Link[packet]
	tx   *traffic
	rx   *receiver
}

// check returns an error when the link's counters do not add up, or disagree with what its
// traffic sent and its receiver saw. After a drained run nothing may be left in flight.
func (dl *directedLink) check(drained bool) error {
	c := dl.link.Counters()
	if err := c.Check(); err != nil {
		return err
	}
	if c.Sent != int64(dl.tx.sent) {
		return fmt.Errorf("link counted %d sent, its traffic sent %d", c.Sent, dl.tx.sent)
	}
	if want := c.Delivered + c.Duplicated; dl.rx.arrivals != want {
		return fmt.Errorf("receiver saw %d arrivals, link counted %d delivered + %d duplicated",
			dl.rx.arrivals, c.Delivered, c.Duplicated)
	}
	if dl.rx.corrupt != c.Corrupted {
		return fmt.Errorf("receiver saw %d corrupt arrivals, link counted %d corrupted", dl.rx.corrupt, c.Corrupted)
	}
	if drained && c.InFlight != 0 {
		return fmt.Errorf("%d packets in flight after the run drained", c.InFlight)
	}
	return nil
}

// world is the demonstration, wired: an engine, the pairs and their links in a fixed order.
type world struct {
	engine   *sim.Engine
	duration time.Duration
	limits   sim.Limits
	pairs    []pairSpec
	// links holds, pair by pair, the direction a->b then b->a.
	links []*directedLink
}

// newWorld wires the demonstration for a seed: the engine, the three pairs of links, and the
// first send of every direction's traffic.
func newWorld(seed uint64, duration time.Duration) (*world, error) {
	w := &world{
		engine:   sim.New(seed),
		duration: duration,
		limits:   sim.Limits{MaxTime: duration + drainAllowance, MaxEvents: maxEvents},
		pairs:    demoPairs(duration),
	}
	for _, p := range w.pairs {
		if err := w.join(p); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// join builds the two links of a pair, a receiver at each end and traffic on each.
func (w *world) join(p pairSpec) error {
	atB, atA := &receiver{e: w.engine}, &receiver{e: w.engine}
	pair, err := faulty.NewPair(w.engine, p.a, p.b, p.cfg, atB.deliver, atA.deliver)
	if err != nil {
		return err
	}
	w.addLink(pair.AToB, atB, p.gapMean)
	w.addLink(pair.BToA, atA, p.gapMean)
	return nil
}

// addLink starts Poisson traffic on link, drawn from the stream "traffic/<link>".
func (w *world) addLink(link *faulty.Link[packet], rx *receiver, gapMean time.Duration) {
	tx := &traffic{
		e:     w.engine,
		link:  link,
		rng:   w.engine.Stream("traffic/" + link.Name()),
		gap:   sim.ExponentialMean(gapMean),
		sizes: demoSizes,
		until: w.duration,
	}
	tx.scheduleNext()
	w.links = append(w.links, &directedLink{link: link, tx: tx, rx: rx})
}

// instances returns the instances' names in the order the pairs first mention them.
func (w *world) instances() []string {
	var names []string
	for _, p := range w.pairs {
		for _, n := range []string{p.a, p.b} {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}
