package model

import (
	"slices"
	"time"
)

// DefaultForwardBytes is MESSAGE_FORWARD_SIZE when the endpoint leaves it out (G-27: 10 MiB,
// assumed).
const DefaultForwardBytes = 10 << 20

// A forwarder passes on what arrives for a service msdb routes elsewhere (RTE-5): fragment
// by fragment, without reassembly and without acknowledging (the final destination does),
// held in memory only, and sent at level 5 whatever the dialog's (PRI-14). What it holds for
// one next hop waits in a forwardQueue, scheduled like a dialog of level 5, so that aging
// (G-11) and the blocks (G-10) treat it as they treat the instance's own dialogs.
type forwardQueue struct {
	held []heldFragment
	head int
}

// heldFragment is a fragment a forwarder holds, and since when.
type heldFragment struct {
	f  Fragment
	at time.Duration
}

func heldBytes(f *Fragment) int64 { return int64(fragmentHeaderBytes) + int64(f.Bytes) }

// ForwardHeldBytes is the memory the fragments held for forwarding take (RTE-5).
func (b *Broker) ForwardHeldBytes() int64 { return b.forwardHeld }

// arrivalRoute finds where a message that arrived from another instance goes, by msdb's
// routes (RTE-1, RTE-2, RTE-3): here (local), or on to next. key keeps one dialog on one of
// several equally good routes. ok is false when no route matches.
func (b *Broker) arrivalRoute(now time.Duration, name ServiceName, broker BrokerID, key uint64) (next InstanceID, local, ok bool) {
	service := b.cat.ServiceNames[name]
	r, found := b.msdb.match(now, service, b.cat.BrokerInstance(broker), key)
	if !found {
		if _, here := b.localService(service, broker, Msdb); here && broker != 0 {
			return b.id, true, true // RTE-2 step 6
		}
		return 0, false, false
	}
	next, _, ok = b.addressOf(r, service)
	return next, ok && next == b.id, ok
}

// passOn handles a fragment from another instance for a dialog this instance has no
// endpoint of: it reports false when msdb routes it here, and otherwise forwards it, or
// drops it when no route matches or forwarding is off (RTE-4). The sender keeps every
// message until the final destination acknowledges it, so nothing dropped here is lost.
func (b *Broker) passOn(now time.Duration, f *Fragment) bool {
	name, broker := f.destination()
	next, local, ok := b.arrivalRoute(now, name, broker, uint64(f.Conversation))
	switch {
	case !ok:
		b.discard(now, f, ReasonNoRoute)
	case local && broker != 0 && !b.hosts(broker):
		// msdb sends it here (AutoCreatedLocal, say), but it is for a broker instance that is
		// not one of this instance's databases: a forwarder without the route on. It is
		// dropped unacknowledged, so that its sender sends it again (RTE-5): acknowledging it
		// as a dialog this side forgot would lose it.
		b.discard(now, f, ReasonNoRoute)
	case local:
		return false
	case !b.cat.Instances[b.id].Forwarding.Enabled:
		b.discard(now, f, ReasonNotForwarded)
	default:
		b.forward(now, next, f)
	}
	return true
}

// forward holds a fragment for next, unless its dialog's lifetime is over or it has made
// its last hop (RTE-6, G-27: loops end), or holding it would pass MESSAGE_FORWARD_SIZE.
func (b *Broker) forward(now time.Duration, next InstanceID, f *Fragment) {
	limit := b.cat.Instances[b.id].Forwarding.MaxBytes
	if limit == 0 {
		limit = DefaultForwardBytes
	}
	switch {
	case f.Lifetime > 0 && now >= f.Lifetime:
		b.discard(now, f, ReasonLifetime)
		return
	case f.Hops >= HopBudget:
		b.discard(now, f, ReasonHops)
		return
	case b.forwardHeld+heldBytes(f) > limit:
		b.discard(now, f, ReasonForwardFull)
		return
	}
	g := *f
	g.Hops++
	g.Ack.Selective = slices.Clone(f.Ack.Selective)
	ep := b.forwardTo(next)
	ep.fwd.held = append(ep.fwd.held, heldFragment{g, now})
	b.forwardHeld += heldBytes(f)
	b.reschedule(ep)
}

// forwardTo returns the queue, scheduled as a dialog of level 5, of what is forwarded to
// peer.
func (b *Broker) forwardTo(peer InstanceID) *endpoint {
	if b.forwards == nil {
		b.forwards = make([]*endpoint, len(b.cat.Instances))
	}
	ep := b.forwards[peer]
	if ep == nil {
		ep = &endpoint{farInstance: peer, farLocal: -1, routed: true, priority: DefaultPriority, txLevel: DefaultPriority,
			fwd: &forwardQueue{}}
		b.forwards[peer] = ep
	}
	return ep
}

// nextForwarded reports whether the queue holds a fragment, and since when the oldest waits.
func (q *forwardQueue) next() (since time.Duration, ok bool) {
	if q.head == len(q.held) {
		return 0, false
	}
	return q.held[q.head].at, true
}

// sendForwarded puts the oldest fragment held for ep's peer into the block (RTE-5).
func (b *Broker) sendForwarded(now time.Duration, ep *endpoint) {
	q := ep.fwd
	h := q.held[q.head]
	q.held[q.head] = heldFragment{}
	q.head++
	if q.head == len(q.held) {
		q.held, q.head = q.held[:0], 0
	} else if q.head > 32 && q.head > len(q.held)/2 {
		n := copy(q.held, q.held[q.head:])
		clear(q.held[n:])
		q.held, q.head = q.held[:n], 0
	}
	b.forwardHeld -= heldBytes(&h.f)
	b.counters.FragmentsForwarded++
	b.marks[MarkFragmentForwarded]++
	b.addToBlock(ep.farInstance, h.f)
}

// traceForwarded records a forwarding decision for the checkers: level 5 (PRI-14), its
// effective level and the best waiting, as traceDecision does for a dialog.
func (b *Broker) traceForwarded(now time.Duration, s *scheduler, ep *endpoint) {
	f := &ep.fwd.held[ep.fwd.head].f
	b.trace(TraceRecord{At: now, Kind: TraceForwarded, Peer: ep.farInstance, Conversation: f.Conversation,
		FromInitiator: f.FromInitiator, Sequence: f.Sequence, Fragment: f.Index, Fragments: int32(f.Hops), Priority: ep.txLevel,
		Effective:   uint8(effectiveLevel(&b.cfg, ep.txLevel.Level(), ep.readySince, now)),
		BestWaiting: uint8(s.bestWaiting(&b.cfg, now))})
}

// hosts reports whether a broker instance is one of this instance's databases.
func (b *Broker) hosts(broker BrokerID) bool {
	db := DatabaseID(broker - 1)
	return broker > 0 && int(db) < len(b.cat.Databases) && b.cat.Databases[db].Instance == b.id
}

// passOnAck forwards a dedicated acknowledgement for a dialog this instance has no endpoint
// of, the way msdb routes the service it goes to; one that cannot go is dropped, and the
// data it acknowledges is sent again.
func (b *Broker) passOnAck(now time.Duration, a *Ack) {
	next, local, ok := b.arrivalRoute(now, a.ToService, a.ToBroker, uint64(a.Conversation))
	if !ok || local || !b.cat.Instances[b.id].Forwarding.Enabled || a.Hops >= HopBudget {
		return
	}
	g := *a
	g.Hops++
	g.Selective = slices.Clone(a.Selective)
	c := b.conns[next]
	c.orphanAcks = append(c.orphanAcks, g)
	b.counters.AcksForwarded++
	b.armAckFlush(now, c)
}

// dropForwarded forgets everything held for forwarding: it is in memory only (RTE-5, G-27),
// and an instance that crashes loses it.
func (b *Broker) dropForwarded() {
	for _, ep := range b.forwards {
		if ep == nil {
			continue
		}
		if ep.scheduled {
			b.sched[ep.farInstance].remove(ep)
		}
		clear(ep.fwd.held)
		ep.fwd.held, ep.fwd.head = ep.fwd.held[:0], 0
	}
	b.forwardHeld = 0
}
