package model

import (
	"fmt"
	"slices"
	"time"
)

// outbound is an endpoint's share of its database's transmission queue: the messages it sent
// that are not yet acknowledged (TXQ-1, PROTO-9), with the transmission state of each
// fragment in flight (the transmission object's unacked set and retry timers, TXQ-6).
type outbound struct {
	// rows are in sequence order; rows[:head] are gone.
	// Invariant: rows[i].seq == rows[head].seq + (i - head) for every i >= head.
	rows []txqRow
	head int
	// unacked are the fragments sent and not yet acknowledged, with their retry state, in
	// (sequence, fragment) order, since a fragment is first sent in that order; there are
	// at most SendWindow. A fragment before a row's nextUnsent and not here is acknowledged.
	// Acknowledgements, retries and the search for a fragment to send again walk them, not
	// every fragment of every row, and a row keeps no state per fragment: what they cost,
	// in time and memory, does not grow with the fragments of a message.
	unacked []inFlight
	// sentTo is the (sequence, fragment) just after the last fragment first sent, or the
	// next message's fragment 0 after a message's last: an acknowledgement never covers
	// anything from it on.
	sentTo fragmentRef
	// resend counts fragments whose retry time-out expired and that wait to go again.
	resend int
	// retryAt is when the endpoint's pending retry timer fires, zero when none is. A timer
	// that fires at another time was superseded by an earlier one and does nothing.
	retryAt time.Duration
	// inLocalDelivery is true while a same-instance dialog's endpoint waits in the broker's
	// local delivery list.
	inLocalDelivery bool
	// held is true while a same-instance dialog's rows wait for the target queue to be ON
	// (G-18).
	held bool
	// live counts the rows queued and not yet removed; queueRow and removeRow check each
	// other through it. Invariant: live is the number of rows in rows[head:] not removed,
	// so it is zero exactly when the share is empty once trimHead has run.
	live int32
	// ackedSeq is the far side's receive_sequence as its latest acknowledgement told it:
	// every message before it arrived. A message is first sent only while it lies within
	// the far side's receive window beyond it (G-21), or one loss would let the sender run
	// ahead into fragments the receiver must drop.
	ackedSeq SequenceNumber
	// sentBeforeCrash is how far sentTo had come before the last crash (G-13): the far
	// side may acknowledge what an earlier incarnation sent, which this one has not sent
	// again yet. Only the assertion checkAckCovers reads it.
	sentBeforeCrash fragmentRef
}

// fragmentRef names fragment f of message seq.
type fragmentRef struct {
	seq SequenceNumber
	f   int32
}

// before reports whether x comes before y in (sequence, fragment) order.
func (x fragmentRef) before(y fragmentRef) bool {
	return x.seq < y.seq || (x.seq == y.seq && x.f < y.f)
}

// inFlight is the transmission state of fragment f of message seq, sent and not yet
// acknowledged.
type inFlight struct {
	fragmentRef
	sentAt  time.Duration
	retries uint8
	// resend is set when its back-off expired: it waits to go again.
	resend bool
}

// due is when the fragment's back-off expires.
func (u *inFlight) due(c *Config) time.Duration { return u.sentAt + c.retryInterval(u.retries) }

// row returns the live row of message seq, which holds a fragment in unacked.
func (o *outbound) row(seq SequenceNumber) *txqRow {
	return &o.rows[o.head+int(seq-o.rows[o.head].seq)]
}

// liveRow returns the row of message seq, nil when it is not queued.
func (o *outbound) liveRow(seq SequenceNumber) *txqRow {
	if o.empty() {
		return nil
	}
	i := int64(seq-o.rows[o.head].seq) + int64(o.head)
	if i < int64(o.head) || i >= int64(len(o.rows)) || o.rows[i].removed {
		return nil
	}
	return &o.rows[i]
}

// txqRow is one message in the transmission queue (ENT-7).
type txqRow struct {
	seq       SequenceNumber
	msgType   MessageTypeID
	bytes     int64
	enqueued  time.Duration
	errorCode int32
	// transmitted is when the message's first fragment first left; zero until then.
	transmitted time.Duration
	count       int32 // fragments
	acked       int32 // fragments acknowledged
	// nextUnsent is the first fragment never sent; fragments before it went at least once.
	nextUnsent int32
	removed    bool
	// throughTXQ is set on a same-instance dialog's row that waited in the transmission
	// queue for the target queue to be ON (G-18): it is delivered through a transmission
	// object, on both sides (TXQ-6).
	throughTXQ bool
}

// TransmissionStatus explains why a row is still in the transmission queue (TXQ-5).
func (r *txqRow) status(held bool) string {
	switch {
	case held && r.nextUnsent == 0:
		return TargetQueueDisabled
	case r.nextUnsent == 0:
		return ""
	case r.acked == 0:
		return "sent, waiting for acknowledgement"
	default:
		return fmt.Sprintf("%d of %d fragments acknowledged", r.acked, r.count)
	}
}

func (o *outbound) liveRows() int {
	n := 0
	for i := o.head; i < len(o.rows); i++ {
		if !o.rows[i].removed {
			n++
		}
	}
	return n
}

// empty reports whether no live row is left.
func (o *outbound) empty() bool { return o.head == len(o.rows) }

// trimHead drops removed rows from the front, and compacts the slice when most of it is gone.
// An emptied slice goes back to the free list p: an idle endpoint keeps no room.
func (o *outbound) trimHead(p *slabs[txqRow]) {
	for o.head < len(o.rows) && o.rows[o.head].removed {
		o.rows[o.head] = txqRow{}
		o.head++
	}
	if o.head == len(o.rows) {
		o.rows = o.rows[:0]
		o.head = 0
		p.put(o.rows)
		o.rows = nil
	} else if o.head > 32 && o.head > len(o.rows)/2 {
		n := copy(o.rows, o.rows[o.head:])
		clear(o.rows[n:])
		o.rows = o.rows[:n]
		o.head = 0
	}
}

// TransmissionQueueRow is a row of sys.transmission_queue (ENT-7).
type TransmissionQueueRow struct {
	ConversationHandle ConversationHandle
	ToService          ServiceName
	ToBrokerInstance   BrokerID
	// FromService is the sending service, on this instance; FromFarService for a message
	// that arrived from another instance and waits here for an OFF queue (TXQ-4).
	FromService           ServiceID
	Contract              ContractID
	EnqueueTime           time.Duration
	MessageSequenceNumber SequenceNumber
	MessageType           MessageTypeID
	IsConversationError   bool
	IsEndOfDialog         bool
	Bytes                 int64
	TransmissionStatus    string
	Priority              PriorityLevel
	FragmentsAcked        int32
	Fragments             int32
}

// queueRow sends a sequenced message on the endpoint: it takes the next sequence number and
// puts the message in the transmission queue, from where the transmitter sends it.
func (b *Broker) queueRow(now time.Duration, ep *endpoint, mt MessageTypeID, bytes int64, errorCode int32) SequenceNumber {
	if ep.out == nil {
		ep.out = &outbound{}
	}
	if ep.out.empty() {
		ep.txLevel = b.transmitLevel(ep)
	}
	b.useTransmissionObject(ep)
	seq := ep.sendSeq
	ep.sendSeq++
	o := ep.out
	checkRowQueued(now, ep, seq)
	r := txqRow{seq: seq, msgType: mt, bytes: bytes, enqueued: now, errorCode: errorCode,
		count: fragmentCount(bytes, b.cfg.FragmentSize)}
	if len(o.rows) == cap(o.rows) && o.head > 0 {
		// Reuse the room the acknowledged rows left rather than growing the slice.
		n := copy(o.rows, o.rows[o.head:])
		clear(o.rows[n:])
		o.rows, o.head = o.rows[:n], 0
	}
	if o.held {
		r.throughTXQ = true // the target queue is OFF: the row waits (G-18)
		b.rowsThroughTXQ++
	}
	o.rows = b.buf.rows.push(o.rows, r)
	o.live++
	b.dbs[b.cat.Services[ep.service].Database].txqRows++
	b.counters.MessagesSent++
	b.trace(TraceRecord{At: now, Kind: TraceMessageSent, Conversation: ep.conv, FromInitiator: ep.isInitiator,
		Sequence: seq, Fragments: r.count, MessageType: mt, Bytes: bytes})
	b.makeReady(ep)
	return seq
}

// dropRows removes every live row of the endpoint, for a documented reason (DLG-9, DLG-10,
// lifetime), and forgets its transmission state.
func (b *Broker) dropRows(now time.Duration, ep *endpoint, reason Reason) {
	o := ep.out
	if o == nil {
		return
	}
	for i := o.head; i < len(o.rows); i++ {
		if !o.rows[i].removed {
			b.removeRow(now, ep, &o.rows[i], reason)
		}
	}
	o.trimHead(&b.buf.rows)
	checkShare(now, ep)
	b.buf.unacked.put(o.unacked)
	o.unacked, o.resend = nil, 0
	b.makeReady(ep) // nothing is left to send: out of the scheduler
}

// removeRow deletes one row from the transmission queue and traces why (INV-3).
func (b *Broker) removeRow(now time.Duration, ep *endpoint, r *txqRow, reason Reason) {
	db := b.dbs[b.cat.Services[ep.service].Database]
	checkRowRemoved(now, ep, r, reason, db.txqRows)
	r.removed = true
	if r.throughTXQ {
		b.rowsThroughTXQ--
	}
	ep.out.live--
	db.txqRows--
	b.trace(TraceRecord{At: now, Kind: TraceRowRemoved, Conversation: ep.conv, FromInitiator: ep.isInitiator,
		Sequence: r.seq, MessageType: r.msgType, Reason: reason})
}

// checkRowQueued, checkRowRemoved and checkShare are the halves of one assertion about a
// transmission queue row: it is queued once, in sequence order after the endpoint's last
// row; it is removed once, while counted by its endpoint and its database, and for an
// acknowledgement only when every fragment is acknowledged (PROTO-9); and the endpoint's
// count of live rows agrees with its rows.
func checkRowQueued(now time.Duration, ep *endpoint, seq SequenceNumber) {
	if o := ep.out; !o.empty() && o.rows[len(o.rows)-1].seq != seq-1 {
		bug("endpoint %v: row %d queued after row %d at t=%v", ep.handle, seq, o.rows[len(o.rows)-1].seq, now)
	}
}

func checkRowRemoved(now time.Duration, ep *endpoint, r *txqRow, reason Reason, dbRows int) {
	switch {
	case r.removed:
		bug("endpoint %v: row %d removed twice (%v) at t=%v", ep.handle, r.seq, reason, now)
	case ep.out.live <= 0 || dbRows <= 0:
		bug("endpoint %v: row %d removed (%v) while the endpoint counts %d live rows and its database %d at t=%v",
			ep.handle, r.seq, reason, ep.out.live, dbRows, now)
	case reason == ReasonAcked && r.acked != r.count:
		bug("endpoint %v: row %d removed as acknowledged with %d of %d fragments acknowledged at t=%v",
			ep.handle, r.seq, r.acked, r.count, now)
	}
}

// checkAckCovers is the other half of sending fragments in order: an acknowledgement covers
// no fragment of a row still queued that was never sent (PROTO-9). The fragments first sent
// are those before sentTo.
func checkAckCovers(now time.Duration, ep *endpoint, a *Ack) {
	o := ep.out
	if o.sentBeforeCrash != (fragmentRef{}) {
		checkAckCoversAfterCrash(now, ep, a)
		return
	}
	if r := o.liveRow(o.sentTo.seq); r != nil && o.sentTo.before(fragmentRef{a.Sequence, a.Fragment}) {
		bug("endpoint %v: ack up to fragment %d of message %d, but fragment %d of message %d was never sent, at t=%v",
			ep.handle, a.Fragment, a.Sequence, o.sentTo.f, o.sentTo.seq, now)
	}
	for _, s := range a.Selective {
		if r := o.liveRow(s.Sequence); r != nil && s.To > r.nextUnsent {
			bug("endpoint %v: ack for fragments %d..%d of message %d, but fragment %d was never sent, at t=%v",
				ep.handle, s.From, s.To-1, s.Sequence, r.nextUnsent, now)
		}
	}
}

// checkAckCoversAfterCrash is checkAckCovers once the instance has crashed: the fragments
// ever sent are those before the later of sentTo and sentBeforeCrash, since first sends go
// in (sequence, fragment) order in every incarnation.
func checkAckCoversAfterCrash(now time.Duration, ep *endpoint, a *Ack) {
	o := ep.out
	limit := o.sentTo
	if limit.before(o.sentBeforeCrash) {
		limit = o.sentBeforeCrash
	}
	if r := o.liveRow(limit.seq); r != nil && limit.before(fragmentRef{a.Sequence, a.Fragment}) {
		bug("endpoint %v: ack up to fragment %d of message %d, but no incarnation sent beyond fragment %d of message %d, at t=%v",
			ep.handle, a.Fragment, a.Sequence, limit.f, limit.seq, now)
	}
	for _, s := range a.Selective {
		if o.liveRow(s.Sequence) != nil && !(fragmentRef{s.Sequence, s.To - 1}).before(limit) {
			bug("endpoint %v: ack for fragments %d..%d of message %d, but no incarnation sent beyond fragment %d of message %d, at t=%v",
				ep.handle, s.From, s.To-1, s.Sequence, limit.f, limit.seq, now)
		}
	}
}

func checkShare(now time.Duration, ep *endpoint) {
	if o := ep.out; o.empty() != (o.live == 0) {
		bug("endpoint %v counts %d live rows and holds %d rows from its head at t=%v", ep.handle, o.live, len(o.rows)-o.head, now)
	}
}

// transmitEndpoint sends every fragment of a same-instance dialog that is due: direct
// delivery ignores levels (PRI-13). A same-instance SEND to an OFF queue waits in the
// transmission queue until ALTER QUEUE sets it ON (TXQ-2, G-18), and is then sent through
// a transmission object (TXQ-6).
func (b *Broker) transmitEndpoint(now time.Duration, ep *endpoint) {
	o := ep.out
	if q := b.queues[b.cat.Services[ep.farLocal].Queue]; q.status == QueueOff {
		if !o.held {
			o.held = true
			q.heldSenders = append(q.heldSenders, ep)
			b.holdLocalRows(ep)
		}
		return
	}
	o.held = false
	for b.sendNext(now, ep) {
	}
}

// nextFragment finds the endpoint's next fragment to send, strictly in (sequence, fragment)
// order among those due: retransmissions whose back-off expired, and the first fragment
// never sent while the send and receive windows allow it (G-11, G-21). It also returns
// when the endpoint's oldest due fragment became due, for the scheduler's aging.
func (b *Broker) nextFragment(ep *endpoint) (r *txqRow, f int32, since time.Duration, ok bool) {
	if ep.fwd != nil {
		since, ok = ep.fwd.next()
		return nil, 0, since, ok
	}
	o := ep.out
	if o == nil {
		return nil, 0, 0, false
	}
	if o.resend > 0 {
		for i := range o.unacked {
			if u := &o.unacked[i]; u.resend {
				due := u.due(&b.cfg)
				if !ok {
					r, f, since, ok = o.row(u.seq), u.f, due, true
				} else {
					since = min(since, due)
				}
			}
		}
	}
	for i := o.head; i < len(o.rows); i++ {
		row := &o.rows[i]
		if row.removed || row.nextUnsent == row.count {
			continue
		}
		if len(o.unacked) < b.cfg.SendWindow && !b.beyondReceiveWindow(o, row) {
			if !ok {
				r, f, since, ok = row, row.nextUnsent, row.enqueued, true
			} else {
				since = min(since, row.enqueued)
			}
		}
		break // later rows are younger and wait behind this one
	}
	return r, f, since, ok
}

// sendNext sends the endpoint's next due fragment, if any, and reports whether it did.
func (b *Broker) sendNext(now time.Duration, ep *endpoint) bool {
	r, f, _, ok := b.nextFragment(ep)
	if ok {
		b.sendFragment(now, ep, r, f)
	}
	return ok
}

// sendFragment sends fragment f of row r, which nextFragment chose.
func (b *Broker) sendFragment(now time.Duration, ep *endpoint, r *txqRow, f int32) {
	o := ep.out
	var u *inFlight
	if f < r.nextUnsent {
		u = o.sentAgain(fragmentRef{r.seq, f})
		u.resend = false
		o.resend--
		if u.retries < maxRetries {
			u.retries++
		}
		b.counters.FragmentsRetransmitted++
		b.marks[MarkFragmentRetransmitted]++
	} else {
		r.nextUnsent = f + 1
		o.unacked = b.buf.unacked.push(o.unacked, inFlight{fragmentRef: fragmentRef{r.seq, f}})
		u = &o.unacked[len(o.unacked)-1]
		o.sentTo = fragmentRef{r.seq, f + 1}
		if f+1 == r.count {
			o.sentTo = fragmentRef{r.seq + 1, 0}
		}
	}
	u.sentAt = now
	b.emitFragment(now, ep, r, f, u.retries)
}

// sentAgain returns the fragment in flight that nextFragment chose to send again.
func (o *outbound) sentAgain(x fragmentRef) *inFlight {
	i, found := slices.BinarySearchFunc(o.unacked, x, func(u inFlight, x fragmentRef) int {
		if u.before(x) {
			return -1
		}
		if x.before(u.fragmentRef) {
			return 1
		}
		return 0
	})
	if !found || !o.unacked[i].resend {
		panic(fmt.Sprintf("model: fragment %d of message %d sent again, but it does not wait to go again", x.f, x.seq))
	}
	return &o.unacked[i]
}

// idleCapacity is the most room a buffer without a free list (a group's heaps) keeps once
// empty; an endpoint's buffers keep none, they go back to the broker's free lists.
const idleCapacity = 8

// maxRetries caps a fragment's retry count, which only sets its back-off (already at
// RetryIntervalMax long before): a fragment is retried for as long as it takes.
const maxRetries = 255

// beyondReceiveWindow reports whether row r lies beyond the window the far side holds out
// of order (G-21). An Error is exempt, as at the receiver: END WITH ERROR dropped the rows
// before it, so the far side's receive_sequence may never reach it.
func (b *Broker) beyondReceiveWindow(o *outbound, r *txqRow) bool {
	return r.seq > o.ackedSeq+SequenceNumber(b.cfg.ReceiveWindow) && r.msgType != ErrorMessageType
}

// emitFragment adds fragment f of row r to the open block towards the far instance, with an
// acknowledgement riding on it when the endpoint owes one.
func (b *Broker) emitFragment(now time.Duration, ep *endpoint, r *txqRow, f int32, retries uint8) {
	if r.transmitted == 0 {
		r.transmitted = max(now, 1) // zero means not yet
	}
	frag := Fragment{
		Conversation: ep.conv, FromInitiator: ep.isInitiator, Sequence: r.seq, Index: f, Count: r.count,
		Bytes: fragmentBytes(r.bytes, b.cfg.FragmentSize, f), MessageBytes: r.bytes, MessageType: r.msgType,
		ErrorCode: r.errorCode, SentAt: r.enqueued, TransmittedAt: r.transmitted, Contract: ep.contract, Lifetime: ep.lifetime,
	}
	if ep.isInitiator {
		frag.FromService, frag.ToService = b.cat.NameOf(ep.service), ep.farName
		frag.FromBroker, frag.ToBroker = b.brokerOf(ep.service), ep.farBroker
	} else {
		frag.FromService, frag.ToService = ep.farName, b.cat.NameOf(ep.service)
		frag.FromBroker, frag.ToBroker = ep.farBroker, b.brokerOf(ep.service)
	}
	if ep.in != nil && ep.in.ackOwed {
		frag.Ack = ep.ackFor(&b.buf.ranges)
		frag.Ack.Broker = b.brokerOf(ep.service)
		ep.in.ackOwed = false
		b.counters.AcksPiggybacked++
	}
	b.counters.FragmentsSent++
	b.trace(TraceRecord{At: now, Kind: TraceFragmentSent, Peer: ep.farInstance, Conversation: ep.conv,
		FromInitiator: ep.isInitiator, Sequence: r.seq, Fragment: f, Retry: retries > 0})
	b.addToBlock(ep.farInstance, frag)
	b.armRetry(ep, now+b.cfg.retryInterval(retries))
}

// armRetry makes sure the endpoint's retry timer fires by due: a fragment just sent must not
// wait for a timer armed later for a fragment further into its back-off.
func (b *Broker) armRetry(ep *endpoint, due time.Duration) {
	if o := ep.out; o.retryAt == 0 || due < o.retryAt {
		o.retryAt = due
		b.timer(due, TimerRetry, uint64(ep.handle))
	}
}

// retry handles the endpoint's retry timer: every fragment whose back-off expired is marked
// for retransmission (PROTO-10, G-8), and the timer is armed again for the next one due.
func (b *Broker) retry(now time.Duration, ep *endpoint) {
	o := ep.out
	if o == nil || o.retryAt != now {
		return // superseded by an earlier timer, or nothing left to retry
	}
	o.retryAt = 0
	next := time.Duration(-1)
	for i := range o.unacked {
		u := &o.unacked[i]
		if u.resend {
			continue
		}
		due := u.due(&b.cfg)
		if due <= now {
			u.resend = true
			o.resend++
		} else if next < 0 || due < next {
			next = due
		}
	}
	if o.resend > 0 {
		b.makeReady(ep)
	}
	if next >= 0 {
		b.armRetry(ep, next)
	}
}

// applyAck marks the fragments an acknowledgement covers, removes the rows it completes,
// and lets the window open (PROTO-9: a row leaves only when all its fragments are acked).
func (b *Broker) applyAck(now time.Duration, ep *endpoint, a *Ack) {
	o := ep.out
	if o == nil {
		return
	}
	o.ackedSeq = max(o.ackedSeq, a.Sequence)
	checkAckCovers(now, ep, a)
	// One walk of the unacked fragments beside the selective ranges, both in (sequence,
	// fragment) order: the cost is theirs, not that of the fragments acknowledged before.
	cumulative, ranges := fragmentRef{a.Sequence, a.Fragment}, a.Selective
	kept := o.unacked[:0]
	for _, u := range o.unacked {
		for len(ranges) > 0 && (ranges[0].Sequence < u.seq || (ranges[0].Sequence == u.seq && ranges[0].To <= u.f)) {
			ranges = ranges[1:]
		}
		if !u.before(cumulative) && (len(ranges) == 0 || ranges[0].Sequence != u.seq || ranges[0].From > u.f) {
			kept = append(kept, u)
			continue
		}
		r := o.row(u.seq)
		r.acked++
		if u.retries > 0 {
			b.marks[MarkFragmentAckedAfterRetry]++
		}
		if u.resend {
			o.resend--
		}
		if r.acked == r.count {
			b.removeRow(now, ep, r, ReasonAcked)
		}
	}
	clear(o.unacked[len(kept):])
	o.unacked = kept
	if len(o.unacked) == 0 {
		b.buf.unacked.put(o.unacked)
		o.unacked = nil // an idle endpoint does not keep the room of its last window
	}
	o.trimHead(&b.buf.rows)
	checkShare(now, ep)
	if ep.state == DisconnectedOutbound && o.empty() {
		// DO + the far side's ack of our EndDialog or Error, and of everything before it,
		// ⇒ CD (G-16). The EndDialog can be acked out of order, before earlier messages.
		b.closeEndpoint(now, ep)
		return
	}
	b.makeReady(ep) // the window may have opened, or a fragment waiting to go again was acked
}
