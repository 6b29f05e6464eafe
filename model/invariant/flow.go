package invariant

import (
	"fmt"

	"github.com/sbsim/sbsim/model"
)

// flow is what the checker knows of one direction of one dialog.
type flow struct {
	sent model.SequenceNumber // messages sent so far: the next sequence number expected
	// outstanding holds, for each message from readyNext to sent, its fragments and which
	// of them the receiver stored.
	outstanding window[message]
	readyNext   model.SequenceNumber // the next message expected to become ready
	// heldNext is past the last message held in the receiving transmission queue for an
	// OFF queue (G-18): a message is held at most once.
	heldNext model.SequenceNumber
	received model.SequenceNumber // the next message expected from RECEIVE
	// Rows removed from the transmission queue: every row below removedBelow, and those
	// whose flag is set in removedAbove (the flag of row removedBelow+i at i).
	removedBelow model.SequenceNumber
	removedAbove window[bool]
	// senderDiscards holds the rows removed by a documented discard (DLG-9/10/11, lifetime),
	// nil while there is none; firstDiscard is the lowest of them, -1 while there is none.
	// Messages from there on may be missing at the end (INV-1).
	senderDiscards map[model.SequenceNumber]bool
	firstDiscard   model.SequenceNumber
	// receiverEnded is readyNext when the receiving endpoint left the live states (DO, ER
	// or CD), -1 while it is live: from then on it discards and acks what arrives (G-16,
	// G-17), so messages from there on may be missing too.
	receiverEnded model.SequenceNumber
	// errorReceived is set once RECEIVE returned the direction's Error.
	errorReceived bool
	// reopened is set once a late arrival re-created the dialog's forgotten target
	// endpoint: from then on the dialog runs a second time, as Service Broker runs it, and
	// its messages are no longer checked against the first run (a design finding says so).
	reopened bool
	// incarnation is the number of restarts of the sending instance that firstSentTo
	// counts from: every fragment before firstSentTo was sent, not as a retry, since
	// (G-13).
	incarnation uint32
	firstSentTo fragment
}

// message is an outstanding message: its fragment count, how many of its fragments the
// receiver stored, and which (the first 64 in low, the others in high).
type message struct {
	fragments, stored int32
	low               uint64
	high              []bool
}

func (m *message) has(i int32) bool {
	if i < 64 {
		return m.low&(1<<i) != 0
	}
	return m.high != nil && m.high[i-64]
}

func (m *message) store(i int32) {
	if i < 64 {
		m.low |= 1 << i
	} else {
		if m.high == nil {
			m.high = make([]bool, m.fragments-64)
		}
		m.high[i-64] = true
	}
	m.stored++
}

// reset makes f a direction that has seen nothing, keeping its windows' memory.
func (f *flow) reset() {
	*f = flow{outstanding: f.outstanding, removedAbove: f.removedAbove, firstDiscard: -1, receiverEnded: -1}
	f.outstanding.clear()
	f.removedAbove.clear()
}

// allStored reports whether the receiver stored every fragment of message seq, or made it
// ready already.
func (f *flow) allStored(seq model.SequenceNumber) bool {
	if seq < f.readyNext {
		return true
	}
	m := f.message(seq)
	return m != nil && m.stored == m.fragments
}

// message returns outstanding message seq, or nil.
func (f *flow) message(seq model.SequenceNumber) *message {
	if seq < f.readyNext || seq >= f.readyNext+model.SequenceNumber(f.outstanding.len()) {
		return nil
	}
	return f.outstanding.at(int(seq - f.readyNext))
}

// messageSent checks a message sent: with the next sequence number (PROTO-2).
func (f *flow) messageSent(r *model.TraceRecord) (string, string) {
	if r.Sequence != f.sent {
		return fmt.Sprintf("message sent with sequence %d, expected %d", r.Sequence, f.sent), "PROTO-2"
	}
	// Messages before readyNext, skipped by an Error, are never outstanding.
	if f.sent >= f.readyNext {
		f.outstanding.push(message{fragments: r.Fragments})
	}
	f.sent++
	return "", ""
}

// fragmentStored checks a fragment stored: outstanding, and stored once (INV-2).
func (f *flow) fragmentStored(r *model.TraceRecord) (string, string) {
	m := f.message(r.Sequence)
	switch {
	case m == nil || r.Fragment < 0 || r.Fragment >= m.fragments:
		return fmt.Sprintf("fragment %d of message %d stored, but no such fragment is outstanding", r.Fragment, r.Sequence), "INV-2"
	case m.has(r.Fragment):
		return fmt.Sprintf("fragment %d of message %d stored twice", r.Fragment, r.Sequence), "INV-2"
	}
	m.store(r.Fragment)
	return "", ""
}

// ready checks a message becoming receivable: in order, exactly once, and complete (INV-1,
// INV-2). An application Error may jump ahead of missing messages, but only of messages
// its sender discarded (G-17, DLG-9).
func (f *flow) ready(r *model.TraceRecord) (string, string) {
	switch {
	case r.Sequence < f.readyNext:
		return fmt.Sprintf("message %d made ready twice", r.Sequence), "INV-2"
	case r.Sequence > f.readyNext && r.MessageType != model.ErrorMessageType:
		return fmt.Sprintf("message %d made ready before message %d", r.Sequence, f.readyNext), "INV-1"
	case r.Sequence > f.readyNext && !f.senderDiscards[f.readyNext]:
		return fmt.Sprintf("the Error %d jumped over message %d, which its sender did not discard", r.Sequence, f.readyNext), "INV-1"
	case !f.allStored(r.Sequence):
		return fmt.Sprintf("message %d made ready before all its fragments were stored", r.Sequence), "INV-2"
	}
	// Messages now ready, or skipped by an Error, will never be stored again: forget them.
	f.outstanding.drop(min(int(r.Sequence+1-f.readyNext), f.outstanding.len()))
	f.readyNext = r.Sequence + 1
	return "", ""
}

// held checks a message held in the receiving transmission queue while its queue is OFF
// (G-18): it is acknowledged there, so it must be complete, not yet ready and held once
// (INV-2); that it becomes ready in order is ready's check when the queue is ON again.
func (f *flow) held(r *model.TraceRecord) (string, string) {
	switch {
	case r.Sequence < f.readyNext || r.Sequence < f.heldNext:
		return fmt.Sprintf("message %d held for an OFF queue after it was made ready or held", r.Sequence), "INV-2"
	case !f.allStored(r.Sequence):
		return fmt.Sprintf("message %d held for an OFF queue before all its fragments were stored", r.Sequence), "INV-2"
	}
	f.heldNext = r.Sequence + 1
	return "", ""
}

// receivable checks a row RECEIVE takes: only a ready message (INV-2).
func (f *flow) receivable(r *model.TraceRecord) (string, string) {
	if r.Sequence >= f.readyNext {
		return fmt.Sprintf("RECEIVE returned message %d, which never became ready (status 1)", r.Sequence), "INV-2"
	}
	return "", ""
}

// committed checks a row whose RECEIVE committed: only ready messages, in order, each once
// (INV-1, INV-2). An Error is received before the dialog's other messages (DLG-13).
func (f *flow) committed(r *model.TraceRecord) (string, string) {
	if msg, rule := f.receivable(r); msg != "" {
		return msg, rule
	}
	switch {
	case r.MessageType == model.ErrorMessageType:
		if f.errorReceived {
			return fmt.Sprintf("RECEIVE returned the Error %d twice", r.Sequence), "INV-2"
		}
		f.errorReceived = true
	case r.Sequence != f.received:
		return fmt.Sprintf("RECEIVE returned message %d, expected %d", r.Sequence, f.received), "INV-1"
	default:
		f.received = r.Sequence + 1
	}
	return "", ""
}

// removed checks a transmission queue row leaving, once: as acknowledged only when the
// receiver stored all its fragments, or discards what arrives (receiverEnded says whether
// it does); otherwise for a documented discard (INV-3).
func (f *flow) removed(r *model.TraceRecord, receiverEnded bool) (string, string) {
	above := int(r.Sequence - f.removedBelow)
	switch {
	case r.Sequence < 0 || r.Sequence >= f.sent:
		return fmt.Sprintf("row %d removed, but no such message was sent", r.Sequence), "INV-3"
	case above < 0 || (above < f.removedAbove.len() && *f.removedAbove.at(above)):
		return fmt.Sprintf("row %d removed twice", r.Sequence), "INV-3"
	case r.Reason.IsDiscard():
		if f.senderDiscards == nil {
			f.senderDiscards = map[model.SequenceNumber]bool{}
		}
		f.senderDiscards[r.Sequence] = true
		if f.firstDiscard < 0 || r.Sequence < f.firstDiscard {
			f.firstDiscard = r.Sequence
		}
	case !f.allStored(r.Sequence) && !receiverEnded:
		return fmt.Sprintf("row %d removed as acknowledged before the receiver stored all its fragments", r.Sequence), "INV-3"
	}
	for f.removedAbove.len() <= above {
		f.removedAbove.push(false)
	}
	*f.removedAbove.at(above) = true
	n := 0
	for n < f.removedAbove.len() && *f.removedAbove.at(n) {
		n++
	}
	f.removedAbove.drop(n)
	f.removedBelow += model.SequenceNumber(n)
	return "", ""
}

// unfinished describes what INV-12 finds wrong with the direction at the end of a run
// whose faults healed: a row left in the transmission queue, or a message sent and not
// made ready with nothing documented to explain it; "" when nothing.
func (f *flow) unfinished() string {
	// Messages may be missing only from the first documented discard on, or from where the
	// receiving endpoint ended (INV-1).
	limit := f.sent
	for _, from := range []model.SequenceNumber{f.firstDiscard, f.receiverEnded} {
		if from >= 0 {
			limit = min(limit, from)
		}
	}
	switch {
	case f.removedBelow != f.sent:
		return fmt.Sprintf("message %d of %d still in the transmission queue", f.removedBelow, f.sent)
	case f.readyNext < limit:
		return fmt.Sprintf("%d messages sent, %d delivered, with nothing documented to explain message %d missing",
			f.sent, f.readyNext, f.readyNext)
	}
	return ""
}

// window is a queue of values numbered from its front: push adds at the back, drop takes
// from the front, and its memory is reused.
type window[T any] struct {
	items []T
	head  int
}

func (w *window[T]) len() int    { return len(w.items) - w.head }
func (w *window[T]) at(i int) *T { return &w.items[w.head+i] }
func (w *window[T]) push(v T)    { w.compact(); w.items = append(w.items, v) }
func (w *window[T]) clear()      { clear(w.items); w.items, w.head = w.items[:0], 0 }
func (w *window[T]) drop(n int)  { clear(w.items[w.head : w.head+n]); w.head += n }
func (w *window[T]) compact() {
	switch {
	case w.head == len(w.items):
		w.items, w.head = w.items[:0], 0
	case w.head > 0 && len(w.items) == cap(w.items):
		n := copy(w.items, w.items[w.head:])
		clear(w.items[n:])
		w.items, w.head = w.items[:n], 0
	}
}
