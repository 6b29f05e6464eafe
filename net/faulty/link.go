package faulty

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sbsim/sbsim/sim"
)

// Delivery is a packet as it reaches the far end of a link.
type Delivery[P any] struct {
	Packet P
	Size   int
	// Corrupt marks a packet damaged in transit. The link still delivers it, so that the
	// receiver's integrity check, not the link, decides what to do with it.
	Corrupt bool
}

// Counters account for every packet offered to a link. Originals and duplicate copies are
// counted apart, so that at every instant
//
//	Sent = Delivered + Lost + DroppedCapacity + DroppedPartition + InFlight.
type Counters struct {
	Sent             int64 // packets offered by Send
	Delivered        int64 // originals handed to the receiver, corrupt or not
	Lost             int64 // originals lost at random
	DroppedCapacity  int64 // originals refused because the link was full
	DroppedPartition int64 // originals sent into, or caught in flight by, a down window
	InFlight         int64 // originals accepted and not yet delivered or lost
	// Duplicated counts extra copies delivered. A copy draws its own jitter but carries its
	// original's corrupt mark, and it can arrive before a down window that then catches its
	// original: the receiver sees that packet once, counted here and in DroppedPartition.
	// Distinct packets seen by a receiver are therefore at most Delivered + Duplicated.
	Duplicated     int64
	Corrupted      int64 // deliveries, originals or copies, marked corrupt
	Bytes          int64 // bytes offered by Send
	BytesDelivered int64 // bytes delivered, copies included
}

// Check returns an error when the counters do not add up; a link's counters always do.
func (c Counters) Check() error {
	if sum := c.Delivered + c.Lost + c.DroppedCapacity + c.DroppedPartition + c.InFlight; sum != c.Sent {
		return fmt.Errorf("sent %d != delivered %d + lost %d + dropped for capacity %d + dropped by partition %d + in flight %d",
			c.Sent, c.Delivered, c.Lost, c.DroppedCapacity, c.DroppedPartition, c.InFlight)
	}
	if c.Corrupted > c.Delivered+c.Duplicated {
		return fmt.Errorf("corrupted %d > delivered %d + duplicated %d", c.Corrupted, c.Delivered, c.Duplicated)
	}
	return nil
}

// Link carries packets of type P in one direction, with the faults of its Config. It is
// driven by a sim.Engine and is not safe for concurrent use.
type Link[P any] struct {
	e       *sim.Engine
	name    string
	cfg     Config
	down    []Window // cfg.Down, sorted and merged
	deliver func(Delivery[P])
	// release, when set, gets each packet back once the link is done with every copy of it.
	release func(P)

	// One stream per kind of fault, so that enabling one leaves the others' draws alone.
	lossRng, duplicateRng, corruptRng, jitterRng *rand.Rand
	// bad is the Gilbert–Elliott state.
	bad bool
	// wireFree is when the wire finishes serialising the last packet accepted.
	// Invariant: wireFree is never before the send time of any packet in flight.
	wireFree time.Duration

	// flights holds the copies on their way; freeFlights lists unused entries. A copy's
	// arrival event carries the index of its entry.
	flights     []flight[P]
	freeFlights []uint32
	counters    Counters
	// fates, when set, decides the fate of each packet in place of the streams; record,
	// when set, sees every packet offered (SetFates, SetRecorder).
	fates  func(p P, size int) Fate
	record func(Sent[P])
}

// flight is one copy of a packet between Send and its arrival.
type flight[P any] struct {
	d         Delivery[P]
	sentAt    time.Duration
	lost      bool
	duplicate bool // an extra copy: not an original, not counted against Capacity
	// twin is 1 + the index of the other copy of the same packet while that copy is still
	// on its way, 0 otherwise: the last copy to arrive releases the packet.
	twin uint32
}

// New returns a link called name (used in errors and to name its random streams, so it must
// be unique in the engine) that hands each arriving packet to deliver.
func New[P any](e *sim.Engine, name string, cfg Config, deliver func(Delivery[P])) (*Link[P], error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("link %s: %w", name, err)
	}
	if deliver == nil {
		return nil, fmt.Errorf("link %s: no receiver to deliver to", name)
	}
	prefix := "link/" + name + "/"
	if e.HasStream(prefix + "loss") {
		return nil, fmt.Errorf("link %s: the name is already used by another link of this engine", name)
	}
	return &Link[P]{
		e:            e,
		name:         name,
		cfg:          cfg,
		down:         downWindows(cfg.Down),
		deliver:      deliver,
		lossRng:      e.Stream(prefix + "loss"),
		duplicateRng: e.Stream(prefix + "duplicate"),
		corruptRng:   e.Stream(prefix + "corrupt"),
		jitterRng:    e.Stream(prefix + "jitter"),
	}, nil
}

// Name returns the link's name.
func (l *Link[P]) Name() string { return l.name }

// Reconfigure replaces the link's configuration from now on: packets sent from now on see
// the new latency, bandwidth, faults and down windows; packets already on their way arrive
// as they were sent. The random streams and the counters go on.
func (l *Link[P]) Reconfigure(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("link %s: %w", l.name, err)
	}
	l.cfg = cfg
	l.down = downWindows(cfg.Down)
	if !cfg.LossBurst.Enabled() {
		l.bad = false
	}
	return nil
}

// SetRelease makes the link hand every packet offered to Send to release once it is done
// with it: after the last copy's deliver returned, or when the last copy was lost or
// dropped. A sender that recycles a packet's memory there must know that the receiver
// keeps nothing of it past deliver.
func (l *Link[P]) SetRelease(release func(P)) { l.release = release }

// done releases a packet the link no longer holds.
func (l *Link[P]) done(p P) {
	if l.release != nil {
		l.release(p)
	}
}

// Config returns the link's configuration.
func (l *Link[P]) Config() Config { return l.cfg }

// Counters returns the link's counters now.
func (l *Link[P]) Counters() Counters { return l.counters }

// WireFreeAt returns when the wire will have serialised every packet accepted so far: the
// earliest time a sender that waits for the wire (one block in flight at a time) may send
// again without queueing behind its own packets. It is never before the current time.
func (l *Link[P]) WireFreeAt() time.Duration { return max(l.wireFree, l.e.Now()) }

// Send offers a packet of size bytes to the link at the engine's current time. Whether it
// arrives, when, how often and whether intact is decided here, from the link's streams in
// the order packets are sent, or by the link's fates when it has them (SetFates).
func (l *Link[P]) Send(p P, size int) {
	if size < 0 {
		panic(fmt.Sprintf("faulty: link %s: packet of negative size %d at %v", l.name, size, l.e.Now()))
	}
	now := l.e.Now()
	l.counters.Sent++
	l.counters.Bytes += int64(size)
	if l.isDown(now, now) {
		l.counters.DroppedPartition++
		l.sent(p, size, Fate{}, DroppedPartition, 0, 0)
		l.done(p)
		return
	}
	if l.cfg.Capacity > 0 && l.counters.InFlight >= int64(l.cfg.Capacity) {
		l.counters.DroppedCapacity++
		l.sent(p, size, Fate{}, DroppedCapacity, 0, 0)
		l.done(p)
		return
	}
	l.wireFree = max(l.wireFree, now) + l.serialisation(size)
	var fate Fate
	if l.fates != nil {
		fate = l.fates(p, size)
		fate.Duplicate = fate.Duplicate && !fate.Lost
	} else { // the draws in this order, one stream per kind of fault
		fate.Lost = l.drawLoss()
		fate.Corrupt = l.cfg.CorruptProbability > 0 && sim.Bernoulli(l.corruptRng, l.cfg.CorruptProbability)
		fate.Jitter = l.cfg.LatencyJitter.Sample(l.jitterRng)
		if !fate.Lost && l.cfg.DuplicateProbability > 0 && sim.Bernoulli(l.duplicateRng, l.cfg.DuplicateProbability) {
			fate.Duplicate = true
			fate.DuplicateJitter = l.cfg.LatencyJitter.Sample(l.jitterRng)
		}
	}
	d := Delivery[P]{Packet: p, Size: size, Corrupt: fate.Corrupt}
	l.counters.InFlight++
	arrival := l.wireFree + l.cfg.LatencyFixed + fate.Jitter
	i := l.launch(flight[P]{d: d, sentAt: now, lost: fate.Lost}, arrival)
	var dupArrival time.Duration
	if fate.Duplicate {
		dupArrival = l.wireFree + l.cfg.LatencyFixed + fate.DuplicateJitter
		j := l.launch(flight[P]{d: d, sentAt: now, duplicate: true, twin: i + 1}, dupArrival)
		l.flights[i].twin = j + 1
	}
	l.sent(p, size, fate, NotDropped, arrival, dupArrival)
}

// Fate is what a link does with one packet it accepted: what its random streams drew, or
// what its fates say (SetFates). Jitter is the packet's extra delay, DuplicateJitter its
// copy's; a lost packet has no copy.
type Fate struct {
	Lost, Corrupt, Duplicate bool
	Jitter, DuplicateJitter  time.Duration
}

// Dropped says why a link refused a packet at Send.
type Dropped uint8

const (
	NotDropped Dropped = iota
	// DroppedPartition: the packet was sent into a down window.
	DroppedPartition
	// DroppedCapacity: the link was full (Config.Capacity).
	DroppedCapacity
)

// Sent is what a link's recorder (SetRecorder) sees of one packet offered to Send: when,
// its fate, or why it was dropped, and when it and its copy are due (zero when none). A
// packet due after a down window began is dropped then (Crossed says whether the down
// windows known at Send cut it).
type Sent[P any] struct {
	Packet                    P
	Size                      int
	At                        time.Duration
	Fate                      Fate
	Dropped                   Dropped
	Arrival, DuplicateArrival time.Duration
	Crossed                   bool
}

// SetFates makes the link take each accepted packet's fate from fates instead of its
// random streams, which it then leaves alone: a fault plan replays this way. Partitions
// and capacity still drop as the configuration says. Nil goes back to the streams.
func (l *Link[P]) SetFates(fates func(p P, size int) Fate) { l.fates = fates }

// SetRecorder makes the link hand record every packet offered to Send, once its fate is
// decided. Nil records nothing.
func (l *Link[P]) SetRecorder(record func(Sent[P])) { l.record = record }

// sent hands a packet's outcome to the recorder.
func (l *Link[P]) sent(p P, size int, fate Fate, dropped Dropped, arrival, dupArrival time.Duration) {
	if l.record == nil {
		return
	}
	now := l.e.Now()
	s := Sent[P]{Packet: p, Size: size, At: now, Fate: fate, Dropped: dropped, Arrival: arrival, DuplicateArrival: dupArrival}
	s.Crossed = dropped == NotDropped && l.isDown(now, arrival)
	l.record(s)
}

// launch schedules the arrival of one copy at at, and returns the index of its entry.
func (l *Link[P]) launch(f flight[P], at time.Duration) uint32 {
	var i uint32
	if n := len(l.freeFlights); n > 0 {
		i = l.freeFlights[n-1]
		l.freeFlights = l.freeFlights[:n-1]
	} else {
		i = uint32(len(l.flights))
		l.flights = append(l.flights, flight[P]{})
	}
	l.flights[i] = f
	l.e.Schedule(at, l, uint64(i))
	return i
}

// HandleEvent is the arrival of the copy in flight at index i. It is the link's sim.Handler.
func (l *Link[P]) HandleEvent(i uint64) {
	f := l.flights[i]
	l.flights[i] = flight[P]{}
	l.freeFlights = append(l.freeFlights, uint32(i))
	last := f.twin == 0
	if !last {
		l.flights[f.twin-1].twin = 0 // the other copy is the last one now
	}
	if !f.duplicate {
		l.counters.InFlight--
	}
	switch {
	case l.isDown(f.sentAt, l.e.Now()):
		if !f.duplicate {
			l.counters.DroppedPartition++
		}
	case f.lost:
		l.counters.Lost++
	default:
		if f.duplicate {
			l.counters.Duplicated++
		} else {
			l.counters.Delivered++
		}
		if f.d.Corrupt {
			l.counters.Corrupted++
		}
		l.counters.BytesDelivered += int64(f.d.Size)
		l.deliver(f.d)
	}
	if last {
		l.done(f.d.Packet)
	}
}

// serialisation returns the time the wire takes to carry size bytes.
func (l *Link[P]) serialisation(size int) time.Duration {
	if l.cfg.Bandwidth == 0 {
		return 0
	}
	return time.Duration(int64(size) * int64(time.Second) / l.cfg.Bandwidth)
}

// drawLoss decides whether the next packet is lost, stepping the Gilbert–Elliott chain
// when bursty loss is on.
func (l *Link[P]) drawLoss() bool {
	if g := l.cfg.LossBurst; g.Enabled() {
		if l.bad {
			l.bad = !sim.Bernoulli(l.lossRng, g.BadToGood)
		} else {
			l.bad = sim.Bernoulli(l.lossRng, g.GoodToBad)
		}
		if l.bad {
			return sim.Bernoulli(l.lossRng, g.LossBad)
		}
		return sim.Bernoulli(l.lossRng, g.LossGood)
	}
	return l.cfg.LossProbability > 0 && sim.Bernoulli(l.lossRng, l.cfg.LossProbability)
}

// isDown reports whether a down window overlaps [from, to]: a packet sent at from and
// arriving at to has crossed a cut.
func (l *Link[P]) isDown(from, to time.Duration) bool {
	for _, w := range l.down {
		if w.From > to {
			return false
		}
		if w.Until > from {
			return true
		}
	}
	return false
}
