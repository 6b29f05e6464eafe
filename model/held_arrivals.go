package model

import (
	"slices"
	"time"
)

// The receiving side of a queue that is OFF (TXQ-4, G-18). A message that arrives complete
// and in order for a queue that is OFF does not enter the queue: it waits in the receiving
// database's transmission queue, acknowledged (the row is stored, which is what an
// acknowledgement needs, PROTO-9), and moves into the queue, in the order it arrived, when
// ALTER QUEUE sets the queue ON. A message still being reassembled, or held out of order
// (status 2), is likewise shown in the transmission queue while its queue is OFF, as the
// seed on message fragmentation says: "if the target queue is not available, it is stored
// in the transmission queue".

// TargetQueueDisabled is the transmission_status of a row that waits because the queue of
// the service it is for is OFF (TXQ-5): SQL Server's wording, from the Service Broker
// troubleshooting page ("Target queue is disabled.": the queue that the destination service
// uses has the STATUS option set to OFF).
const TargetQueueDisabled = "Target queue is disabled."

// FromFarService is the FromService of a transmission queue row that arrived from another
// instance and waits for an OFF queue here (TXQ-4): its sending service is not on this
// instance; the endpoint's FarService names it.
const FromFarService ServiceID = -1

// heldArrival is a message held in the receiving database's transmission queue for a queue
// that is OFF; m.enqueuedAt is when it was held.
type heldArrival struct {
	ep            *endpoint
	m             queuedMessage
	fromInitiator bool
	fragments     int32
}

// arrive puts a message that arrived from the far side on the endpoint's queue, or holds it
// in the receiving database's transmission queue while the queue is OFF (TXQ-4, G-18). The
// dialog carrying an event notification is not held: its messages never reach a queue.
func (b *Broker) arrive(now time.Duration, ep *endpoint, m queuedMessage, fromInitiator bool, fragments int32) {
	if ep.grp == nil || ep.notification != nil || ep.grp.queue.status == QueueOn {
		if ep.heldRows > 0 {
			bug("endpoint %v: message %d enqueued while %d earlier ones are held for its queue at t=%v", ep.handle, m.seq, ep.heldRows, now)
		}
		b.enqueue(now, ep, m, fromInitiator)
		return
	}
	q := ep.grp.queue
	m.enqueuedAt = now
	q.arrivalsHeld = append(q.arrivalsHeld, heldArrival{ep: ep, m: m, fromInitiator: fromInitiator, fragments: fragments})
	ep.heldRows++
	b.dbs[b.cat.Services[ep.service].Database].txqRows++
	b.marks[MarkArrivalHeldQueueOff]++
	b.trace(TraceRecord{At: now, Kind: TraceMessageHeld, Peer: ep.farInstance, Conversation: ep.conv,
		FromInitiator: fromInitiator, Sequence: m.seq, MessageType: m.msgType, Bytes: m.bytes, SentAt: m.sentAt, Group: ep.group})
}

// releaseArrivals moves the messages held for q, which ALTER QUEUE has just set ON, into the
// queue in the order they arrived, and so each dialog's in sequence order (G-18). They
// become ready now, with their queuing order and enqueue time of now; the caller signals
// the queue.
func (b *Broker) releaseArrivals(now time.Duration, q *serviceQueue) {
	if q.status != QueueOn {
		bug("queue %d: held arrivals released while it is OFF at t=%v", q.id, now)
	}
	held := q.arrivalsHeld
	q.arrivalsHeld = nil
	for i := range held {
		h := &held[i]
		db := b.dbs[b.cat.Services[h.ep.service].Database]
		if h.ep.heldRows <= 0 || db.txqRows <= 0 {
			bug("endpoint %v: message %d released while the endpoint counts %d held rows and its database %d at t=%v",
				h.ep.handle, h.m.seq, h.ep.heldRows, db.txqRows, now)
		}
		h.ep.heldRows--
		db.txqRows--
		b.enqueue(now, h.ep, h.m, h.fromInitiator)
	}
}

// dropHeldArrivals deletes the endpoint's held messages with the conversation leaving its
// group (END CONVERSATION, with or without CLEANUP, or closing): they go as its queue's
// rows go (DLG-7, DLG-10).
func (b *Broker) dropHeldArrivals(ep *endpoint) {
	q := ep.grp.queue
	q.arrivalsHeld = slices.DeleteFunc(q.arrivalsHeld, func(h heldArrival) bool { return h.ep == ep })
	b.dbs[b.cat.Services[ep.service].Database].txqRows -= int(ep.heldRows)
	ep.heldRows = 0
}

// heldRow is a held message as a row of sys.transmission_queue: it goes from the far service
// to the endpoint's, and all its fragments are acknowledged.
func (b *Broker) heldRow(h *heldArrival) TransmissionQueueRow {
	ep, m := h.ep, &h.m
	return TransmissionQueueRow{ConversationHandle: ep.handle, ToService: b.cat.NameOf(ep.service),
		ToBrokerInstance: b.brokerOf(ep.service), FromService: FromFarService,
		Contract: ep.contract, EnqueueTime: m.enqueuedAt, MessageSequenceNumber: m.seq, MessageType: m.msgType,
		IsConversationError: m.msgType == ErrorMessageType, IsEndOfDialog: m.msgType == EndDialogMessageType,
		Bytes: m.bytes, TransmissionStatus: TargetQueueDisabled, Priority: ep.priority, FragmentsAcked: h.fragments, Fragments: h.fragments}
}

// partialRows appends the endpoint's messages being reassembled or held out of order
// (status 2) as rows of sys.transmission_queue while its queue is OFF.
func (b *Broker) partialRows(rows []TransmissionQueueRow, ep *endpoint) []TransmissionQueueRow {
	if !partialsInTransmissionQueue(ep) {
		return rows
	}
	for i := range ep.in.pending {
		m := &ep.in.pending[i]
		rows = append(rows, TransmissionQueueRow{ConversationHandle: ep.handle, ToService: b.cat.NameOf(ep.service),
			ToBrokerInstance: b.brokerOf(ep.service), FromService: FromFarService,
			Contract: ep.contract, EnqueueTime: m.storedAt, MessageSequenceNumber: m.seq, MessageType: m.msgType,
			IsConversationError: m.msgType == ErrorMessageType, IsEndOfDialog: m.msgType == EndDialogMessageType,
			Bytes: m.bytes, TransmissionStatus: TargetQueueDisabled, Priority: ep.priority, FragmentsAcked: m.got, Fragments: m.count})
	}
	return rows
}

// partialsInTransmissionQueue reports whether the endpoint's status-2 messages count as rows
// of its database's transmission queue: its queue is OFF.
func partialsInTransmissionQueue(ep *endpoint) bool {
	return ep.grp != nil && ep.grp.queue.status == QueueOff && ep.in != nil && len(ep.in.pending) > 0
}

// heldTransmissionRows counts the endpoint's rows in the receiving transmission queue.
func (ep *endpoint) heldTransmissionRows() int {
	n := int(ep.heldRows)
	if partialsInTransmissionQueue(ep) {
		n += len(ep.in.pending)
	}
	return n
}

// partialRowsOfOffQueues counts the status-2 messages of database db's queues that are OFF:
// rows of its transmission queue (the seed on fragmentation). It walks the endpoints only
// while one of the database's queues is OFF.
func (b *Broker) partialRowsOfOffQueues(db DatabaseID) int {
	off := false
	for _, q := range b.queues {
		if q != nil && q.status == QueueOff && b.cat.Queues[q.id].Database == db {
			off = true
			break
		}
	}
	if !off {
		return 0
	}
	n := 0
	for ep := range b.endpoints.all {
		if partialsInTransmissionQueue(ep) && b.cat.Services[ep.service].Database == db {
			n += len(ep.in.pending)
		}
	}
	return n
}

// holdLocalRows marks the rows of a same-instance dialog that start waiting in the
// transmission queue for its OFF target queue, and gives its endpoint a transmission
// object: a dialog that sends through a transmission queue uses one, even to a service of
// its own instance (TXQ-6). Rows queued while it waits are marked by queueRow.
func (b *Broker) holdLocalRows(ep *endpoint) {
	o := ep.out
	for i := o.head; i < len(o.rows); i++ {
		if r := &o.rows[i]; !r.removed && !r.throughTXQ {
			r.throughTXQ = true
			b.rowsThroughTXQ++
		}
	}
	b.takeTransmissionObject(ep)
}

// receiveThroughTXQ gives a same-instance endpoint its transmission object when fragment f
// comes from a row that waited in the transmission queue: receiving a message that comes
// through a transmission queue uses one (TXQ-6). The row is still live: its
// acknowledgement has not been processed yet.
func (b *Broker) receiveThroughTXQ(ep *endpoint, f *Fragment) {
	s := b.dialogs[side(f.FromInitiator)].get(uint64(f.Conversation))
	if s == nil || s.out == nil {
		return
	}
	if r := s.out.liveRow(f.Sequence); r != nil && r.throughTXQ {
		b.takeTransmissionObject(ep)
	}
}
