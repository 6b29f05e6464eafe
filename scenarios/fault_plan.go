package scenarios

import (
	"fmt"
	"github.com/sbsim/sbsim/sim"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
)

// FaultPlan is what the links did to packets in a run, one entry per packet they did
// something to: lost, corrupted, duplicated or delayed (jitter). With Config.FaultPlan set,
// the links draw nothing from their random streams: each packet gets the fate its entry
// gives, and a packet with no entry arrives intact after the link's fixed latency and
// wire time. Partitions, crashes, queue outages and slow links are the configuration's own
// (link down windows, the timeline), so a plan and its configuration replay a run's faults
// without the links' random streams, and can be shrunk entry by entry (docs/counterexamples.md).
type FaultPlan struct {
	Packets []PacketFault
}

// PacketFault is the fate of one packet: the Copy-th packet with Key that instance From
// sent to instance To (Copy 1 the first, 2 its first retransmission, ...). At is when the
// recorded run sent it, for the reader: replay matches by link, key and copy.
type PacketFault struct {
	From, To string
	Key      string
	Copy     int
	At       time.Duration
	faulty.Fate
}

// PacketKey names a packet for a fault plan by what it carries: its first fragment's
// conversation, direction, message and fragment, or, for a packet of dedicated
// acknowledgements, its first acknowledgement.
func PacketKey(p *model.Packet) string {
	if len(p.Fragments) > 0 {
		f := &p.Fragments[0]
		return fmt.Sprintf("%v %s seq=%d frag=%d", f.Conversation, Arrow(f.FromInitiator), f.Sequence, f.Index)
	}
	if len(p.Acks) > 0 {
		a := &p.Acks[0]
		return fmt.Sprintf("ack %v %s seq=%d frag=%d", a.Conversation, Arrow(a.FromInitiator), a.Sequence, a.Fragment)
	}
	return "empty"
}

// Arrow names a direction of a dialog: I→T from the initiator, T→I from the target.
func Arrow(fromInitiator bool) string {
	if fromInitiator {
		return "I→T"
	}
	return "T→I"
}

// SentPacket is one packet a link was offered, as Result.Packets keeps it when
// Config.RecordFaults is on: its key and copy, when it left and was due, its fate or why
// the link dropped it. Fragments and Acks say what it carried.
type SentPacket struct {
	From, To         string
	Key              string
	Copy             int
	At, Arrival      time.Duration
	DuplicateArrival time.Duration
	Fate             faulty.Fate
	Dropped          faulty.Dropped
	Crossed          bool // a down window known at the send cut it in flight
	Fragments, Acks  int
	Conversation     model.ConversationID // of the first fragment or acknowledgement
	FromInitiator    bool
	Sequence         model.SequenceNumber
	Fragment         int32
}

// Faulted reports whether the fate did something to the packet.
func faulted(f faulty.Fate) bool {
	return f.Lost || f.Corrupt || f.Duplicate || f.Jitter != 0 || f.DuplicateJitter != 0
}

// planKey finds a packet's entry in a plan.
type planKey struct {
	from, to model.InstanceID
	key      string
	copy     int
}

// packetPlan is the world's side of fault plans: the plan it replays, the copies of each
// key each link has sent, and what it records.
type packetPlan struct {
	fates    map[planKey]faulty.Fate
	copies   map[planKey]int // copy 0: the count of packets sent with the key
	record   bool
	sink     PacketSink
	recorded FaultPlan
	packets  []SentPacket
}

// newPacketPlan returns the plan state of a world, nil when it neither replays nor records.
func newPacketPlan(cfg *Config, cat *model.Catalog) (*packetPlan, error) {
	if cfg.FaultPlan == nil && !cfg.RecordFaults && cfg.PacketSink == nil {
		return nil, nil
	}
	p := &packetPlan{copies: map[planKey]int{}, record: cfg.RecordFaults, sink: cfg.PacketSink}
	if cfg.FaultPlan != nil {
		p.fates = make(map[planKey]faulty.Fate, len(cfg.FaultPlan.Packets))
		for i, f := range cfg.FaultPlan.Packets {
			from, okF := cat.Instance(f.From)
			to, okT := cat.Instance(f.To)
			switch {
			case !okF || !okT:
				return nil, fmt.Errorf("fault plan %d: instance %q or %q does not exist", i, f.From, f.To)
			case f.Copy < 1:
				return nil, fmt.Errorf("fault plan %d (%s): copy %d is not positive", i, f.Key, f.Copy)
			case f.Jitter < 0 || f.DuplicateJitter < 0:
				return nil, fmt.Errorf("fault plan %d (%s): a negative delay", i, f.Key)
			}
			k := planKey{from, to, f.Key, f.Copy}
			if _, dup := p.fates[k]; dup {
				return nil, fmt.Errorf("fault plan %d: %s->%s %s copy %d is listed twice", i, f.From, f.To, f.Key, f.Copy)
			}
			p.fates[k] = f.Fate
		}
	}
	return p, nil
}

// wire makes the link from→to take its fates from the plan and record what it does.
func (p *packetPlan) wire(w *world, from, to model.InstanceID, link *faulty.Link[model.Packet]) {
	if p == nil {
		return
	}
	fromName, toName := w.cat.Instances[from].Name, w.cat.Instances[to].Name
	next := func(pk *model.Packet) (string, int) {
		key := PacketKey(pk)
		c := planKey{from, to, key, 0}
		p.copies[c]++
		return key, p.copies[c]
	}
	// The copy count is taken once per packet: by the fates when the link asks them, else by
	// the recorder.
	var lastKey string
	var lastCopy int
	if p.fates != nil {
		link.SetFates(func(pk model.Packet, _ int) faulty.Fate {
			lastKey, lastCopy = next(&pk)
			return p.fates[planKey{from, to, lastKey, lastCopy}]
		})
	}
	// The recorder counts the copies of the packets the link drops, which ask no fate.
	link.SetRecorder(func(s faulty.Sent[model.Packet]) {
		key, copy := lastKey, lastCopy
		if p.fates == nil || s.Dropped != faulty.NotDropped {
			key, copy = next(&s.Packet)
		}
		lastKey = ""
		if !p.record && p.sink == nil {
			return
		}
		sp := SentPacket{From: fromName, To: toName, Key: key, Copy: copy, At: s.At, Arrival: s.Arrival,
			DuplicateArrival: s.DuplicateArrival, Fate: s.Fate, Dropped: s.Dropped, Crossed: s.Crossed,
			Fragments: len(s.Packet.Fragments), Acks: len(s.Packet.Acks)}
		if len(s.Packet.Fragments) > 0 {
			f := &s.Packet.Fragments[0]
			sp.Conversation, sp.FromInitiator, sp.Sequence, sp.Fragment = f.Conversation, f.FromInitiator, f.Sequence, f.Index
		} else if len(s.Packet.Acks) > 0 {
			a := &s.Packet.Acks[0]
			sp.Conversation, sp.FromInitiator, sp.Sequence, sp.Fragment = a.Conversation, a.FromInitiator, a.Sequence, a.Fragment
		}
		if p.sink != nil {
			p.sink.Packet(&sp, &s.Packet)
		}
		if !p.record {
			return
		}
		p.packets = append(p.packets, sp)
		if s.Dropped == faulty.NotDropped && faulted(s.Fate) {
			p.recorded.Packets = append(p.recorded.Packets, PacketFault{From: fromName, To: toName, Key: key, Copy: copy, At: s.At, Fate: s.Fate})
		}
	})
}

// Planned returns c replaying plan: its links, and the timeline's changes of them, keep
// their latency, bandwidth, capacity and down windows but lose the random faults and the
// jitter that the plan replaces.
func (c Config) Planned(plan *FaultPlan) Config {
	clean := func(l faulty.Config) faulty.Config {
		l.LossProbability, l.LossBurst, l.DuplicateProbability, l.CorruptProbability = 0, faulty.GilbertElliott{}, 0, 0
		l.LatencyJitter = sim.Distribution{}
		return l
	}
	c.Links = slices.Clone(c.Links)
	for i := range c.Links {
		c.Links[i].AToB, c.Links[i].BToA = clean(c.Links[i].AToB), clean(c.Links[i].BToA)
	}
	c.Timeline = slices.Clone(c.Timeline)
	for i, ch := range c.Timeline {
		if ch.Link == nil {
			continue
		}
		lc := *ch.Link
		for _, d := range []**faulty.Config{&lc.AToB, &lc.BToA} {
			if *d != nil {
				cl := clean(**d)
				*d = &cl
			}
		}
		c.Timeline[i].Link = &lc
	}
	c.FaultPlan = plan
	return c
}
