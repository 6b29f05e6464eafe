package model

import (
	"cmp"
	"slices"
	"time"
)

// inbound is the receiving half of an endpoint's dialog protocol: messages held beyond
// receive_sequence, partial or out of order (status 2, PROTO-4, PROTO-7), and whether an
// acknowledgement is owed.
type inbound struct {
	// pending holds messages with seq >= receiveSeq, in sequence order, each missing at least
	// one fragment or waiting for an earlier message.
	pending []partialMessage
	// ackOwed is set when something arrived that the far side has not been told about.
	ackOwed bool
	// ackListed is true while the endpoint is in the broker's list of dedicated acks to send.
	ackListed bool
}

// partialMessage is one message being reassembled.
type partialMessage struct {
	seq       SequenceNumber
	msgType   MessageTypeID
	bytes     int64
	sentAt    time.Duration
	txAt      time.Duration // when its first fragment first left the sender
	errorCode int32
	count     int32
	got       int32
	// storedAt is when its first fragment was stored.
	storedAt time.Duration
	// held are the fragments held, as ranges [from, to) in order, neither overlapping nor
	// touching; nil for a one-fragment message. A gap between two is a fragment sent and not
	// acknowledged, so there are at most SendWindow of them: storing a fragment, the prefix
	// and the acknowledgement cost that much, never the message's length in fragments.
	held []fragmentSpan
}

// fragmentSpan is the fragments [from, to) of one message.
type fragmentSpan struct{ from, to int32 }

// span returns the index of the first held range that ends at or after fragment f.
func (m *partialMessage) span(f int32) int {
	i, _ := slices.BinarySearchFunc(m.held, f, func(s fragmentSpan, f int32) int { return cmp.Compare(s.to, f) })
	return i
}

func (m *partialMessage) has(f int32) bool {
	if m.count == 1 {
		return m.got > 0
	}
	i := m.span(f + 1)
	return i < len(m.held) && m.held[i].from <= f
}

// set stores fragment f, which has does not hold: it extends the range that ends at f or
// starts after it, joins two, or starts a range of its own.
func (m *partialMessage) set(f int32) {
	m.got++
	if m.count == 1 {
		return
	}
	i := m.span(f)
	switch {
	case i < len(m.held) && m.held[i].to == f:
		m.held[i].to = f + 1
		if i+1 < len(m.held) && m.held[i+1].from == f+1 {
			m.held[i].to = m.held[i+1].to
			m.held = slices.Delete(m.held, i+1, i+2)
		}
	case i < len(m.held) && m.held[i].from == f+1:
		m.held[i].from = f
	default:
		m.held = slices.Insert(m.held, i, fragmentSpan{f, f + 1})
	}
}

func (m *partialMessage) complete() bool { return m.got == m.count }

// prefix returns how many fragments from 0 are held without a gap.
func (m *partialMessage) prefix() int32 {
	switch {
	case m.count == 1:
		return m.got
	case len(m.held) > 0 && m.held[0].from == 0:
		return m.held[0].to
	}
	return 0
}

func (in *inbound) heldFragments() int {
	n := 0
	for i := range in.pending {
		n += int(in.pending[i].got)
	}
	return n
}

// find returns the pending message seq, creating it from the fragment when absent.
func (in *inbound) find(now time.Duration, f *Fragment, p *slabs[partialMessage]) *partialMessage {
	if n := len(in.pending); n > 0 && in.pending[n-1].seq == f.Sequence {
		return &in.pending[n-1] // the common case: the message being reassembled
	}
	i, found := slices.BinarySearchFunc(in.pending, f.Sequence, func(m partialMessage, s SequenceNumber) int {
		return int(m.seq - s)
	})
	if !found {
		m := partialMessage{seq: f.Sequence, msgType: f.MessageType, bytes: f.MessageBytes, sentAt: f.SentAt, txAt: f.TransmittedAt,
			errorCode: f.ErrorCode, count: f.Count, storedAt: now}
		in.pending = slices.Insert(p.grow(in.pending), i, m)
	}
	return &in.pending[i]
}

// ackFor builds the acknowledgement of everything the endpoint holds (G-20): the cumulative
// point (receive_sequence, receive_sequence_frag) and the fragments held beyond it.
// Its ranges come from the free list p: the packet that carries the acknowledgement owns them.
func (ep *endpoint) ackFor(p *slabs[FragmentRange]) Ack {
	a := Ack{Valid: true, Conversation: ep.conv, FromInitiator: !ep.isInitiator,
		Sequence: ep.receiveSeq, Fragment: ep.receiveFrag}
	if ep.in == nil {
		return a
	}
	for i := range ep.in.pending {
		m := &ep.in.pending[i]
		start := int32(0)
		if m.seq == ep.receiveSeq {
			start = ep.receiveFrag
		}
		if m.count == 1 {
			if m.got > 0 && start == 0 {
				a.Selective = p.push(a.Selective, FragmentRange{Sequence: m.seq, From: 0, To: 1})
			}
			continue
		}
		for _, s := range m.held {
			if s.to > start {
				a.Selective = p.push(a.Selective, FragmentRange{Sequence: m.seq, From: max(s.from, start), To: s.to})
			}
		}
	}
	return a
}

// receiveFragment handles one sequenced fragment for an existing endpoint: duplicate
// detection (PROTO-5), the out-of-order window (G-21), storing it (status 2), acknowledging
// it only after storing (PROTO-9), and making complete in-order messages ready (PROTO-4).
func (b *Broker) receiveFragment(now time.Duration, ep *endpoint, f *Fragment) {
	seq := f.Sequence
	if seq < ep.receiveSeq || (seq == ep.receiveSeq && f.Index < ep.receiveFrag) {
		if b.redeliver(now, ep, f) {
			b.owe(now, ep)
			return
		}
		b.duplicate(now, ep, f)
		return
	}
	if seq > ep.receiveSeq+SequenceNumber(b.cfg.ReceiveWindow) && f.MessageType != ErrorMessageType {
		// Beyond the window: dropped unacked, the sender's retry brings it back (G-21). An
		// Error is exempt: it is the last message of its direction and is delivered even
		// with earlier ones missing (G-17), so refusing it could never end.
		b.discard(now, f, ReasonWindow)
		return
	}
	if ep.in == nil {
		ep.in = &inbound{}
	}
	m := ep.in.find(now, f, &b.buf.pending)
	if m.has(f.Index) {
		b.duplicate(now, ep, f)
		return
	}
	m.set(f.Index)
	b.useTransmissionObject(ep)
	if ep.local && !ep.hasTO && b.rowsThroughTXQ > 0 {
		b.receiveThroughTXQ(ep, f)
	}
	b.trace(TraceRecord{At: now, Kind: TraceFragmentStored, Peer: ep.farInstance, Conversation: ep.conv,
		FromInitiator: f.FromInitiator, Sequence: seq, Fragment: f.Index})
	b.owe(now, ep)
	if seq > ep.receiveSeq || f.Index > ep.receiveFrag {
		b.marks[MarkFragmentOutOfOrder]++
	}
	if f.MessageType == ErrorMessageType && m.complete() && seq != ep.receiveSeq {
		b.marks[MarkErrorOvertook]++
		// G-17: an application Error is delivered at once, even with earlier messages
		// missing (END WITH ERROR dropped them at the sender, DLG-9); what is held before it
		// is discarded.
		i := slices.IndexFunc(ep.in.pending, func(p partialMessage) bool { return p.seq == seq })
		ep.in.pending = slices.Delete(ep.in.pending, 0, i)
		ep.receiveSeq, ep.receiveFrag = seq, 0
	}
	b.advance(now, ep)
}

// advance makes every complete message at receive_sequence ready, in order, and updates
// receive_sequence_frag.
func (b *Broker) advance(now time.Duration, ep *endpoint) {
	in := ep.in
	for len(in.pending) > 0 && in.pending[0].seq == ep.receiveSeq && in.pending[0].complete() {
		m := in.pending[0]
		in.pending = slices.Delete(in.pending, 0, 1)
		ep.receiveSeq++
		ep.receiveFrag = 0
		b.messageArrived(now, ep, &m)
		if ep.discardArrivals || ep.deleted {
			return
		}
	}
	if len(in.pending) > 0 && in.pending[0].seq == ep.receiveSeq {
		ep.receiveFrag = in.pending[0].prefix()
	} else if len(in.pending) == 0 {
		b.buf.pending.put(in.pending)
		in.pending = nil
	}
}

// messageArrived makes a complete message ready on the endpoint's queue and applies what it
// means for the dialog: the first message establishes the target (SI→CO), EndDialog
// disconnects inbound (DI), an Error puts the endpoint in ER (G-16, G-17).
func (b *Broker) messageArrived(now time.Duration, ep *endpoint, m *partialMessage) {
	if ep.state == StartedInbound {
		b.setState(now, ep, Conversing)
	}
	if m.count > 1 {
		b.marks[MarkMessageReassembled]++
	}
	b.arrive(now, ep, queuedMessage{seq: m.seq, msgType: m.msgType, bytes: m.bytes, sentAt: m.sentAt, txAt: m.txAt,
		errorCode: m.errorCode}, !ep.isInitiator, m.count)
	switch m.msgType {
	case EndDialogMessageType:
		if ep.state == Conversing {
			b.setState(now, ep, DisconnectedInbound)
		}
		b.dropRows(now, ep, ReasonRemoteEnded)
	case ErrorMessageType:
		b.marks[MarkErrorDelivered]++
		b.errorArrived(now, ep)
	}
}

// errorArrived puts the endpoint in ER after an Error reached its queue: held fragments are
// discarded, later arrivals are discarded and acked, and this side's unsent messages are
// dropped (DLG-11, DLG-12, G-17).
func (b *Broker) errorArrived(now time.Duration, ep *endpoint) {
	if ep.state != DisconnectedOutbound && ep.state != Closed {
		b.setState(now, ep, Error)
	}
	ep.discardArrivals = true
	if ep.in != nil {
		b.buf.pending.put(ep.in.pending)
		ep.in.pending = nil
	}
	b.dropRows(now, ep, ReasonErrorReceived)
}

// duplicate acknowledges a copy of a fragment already stored, without storing it (PROTO-5).
func (b *Broker) duplicate(now time.Duration, ep *endpoint, f *Fragment) {
	b.counters.DuplicatesDiscarded++
	b.marks[MarkFragmentDuplicate]++
	b.trace(TraceRecord{At: now, Kind: TraceFragmentDuplicate, Peer: ep.farInstance, Conversation: ep.conv,
		FromInitiator: f.FromInitiator, Sequence: f.Sequence, Fragment: f.Index})
	if ep.in == nil {
		ep.in = &inbound{}
	}
	b.owe(now, ep)
}

// owe records that the endpoint owes its far side an acknowledgement: it rides on the next
// fragment going back, or leaves on its own after AckDelay (G-20).
func (b *Broker) owe(now time.Duration, ep *endpoint) {
	in := ep.in
	in.ackOwed = true
	if in.ackListed {
		return
	}
	if !ep.routed {
		return // listed once a route back is found (ensureRouted)
	}
	in.ackListed = true
	c := b.connection(ep.farInstance)
	c.acksOwed = append(c.acksOwed, ep)
	b.armAckFlush(now, c)
}

// discard drops an arriving fragment on purpose and counts it.
func (b *Broker) discard(now time.Duration, f *Fragment, reason Reason) {
	b.counters.FragmentsDiscarded++
	if m := discardMarks[reason]; m != noMark {
		b.marks[m]++
	}
	b.trace(TraceRecord{At: now, Kind: TraceFragmentDiscarded, Conversation: f.Conversation,
		FromInitiator: f.FromInitiator, Sequence: f.Sequence, Fragment: f.Index, Reason: reason})
}
