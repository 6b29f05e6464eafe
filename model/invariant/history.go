package invariant

import (
	"cmp"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
)

// historyLength is how many records of each conversation, of each live transaction and of
// each queue monitor a Checker keeps.
const historyLength = 24

// history keeps the last historyLength records of a conversation, a transaction or a queue
// monitor, each with its number among all the records observed. Its ring grows with the
// records it holds, so that a short dialog pays for the few it has, and its memory is kept
// when the checker reuses it.
type history struct {
	records []numbered
	n       uint32 // the records added since the last reset
}

type numbered struct {
	n uint64
	r model.TraceRecord
}

// add adds record r, number n, and lets the oldest go when full.
func (h *history) add(n uint64, r *model.TraceRecord) {
	h.records = lengthen(h.records)
	e := &h.records[h.n%historyLength]
	e.n, e.r = n, *r
	h.n++
}

// lengthen adds a slot to a ring of records not yet historyLength long, growing its memory
// by steps.
func lengthen[T any](records []T) []T {
	if len(records) == historyLength {
		return records
	}
	if len(records) == cap(records) {
		records = slices.Grow(records, min(max(2*cap(records), 4), historyLength)-len(records))
	}
	return records[:len(records)+1]
}

// reset empties the history, keeping its memory.
func (h *history) reset() {
	clear(h.records)
	h.records, h.n = h.records[:0], 0
}

// entries returns the records kept, in no particular order.
func (h *history) entries() []numbered { return h.records }

// merge returns the records of the lists, oldest first, each once.
func merge(lists ...[]numbered) []model.TraceRecord {
	var all []numbered
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.SortFunc(all, func(a, b numbered) int { return cmp.Compare(a.n, b.n) })
	all = slices.CompactFunc(all, func(a, b numbered) bool { return a.n == b.n })
	out := make([]model.TraceRecord, len(all))
	for i, e := range all {
		out[i] = e.r
	}
	return out
}

// dialogHistory keeps the last historyLength records of one conversation, in a compact
// form: the conversation is the dialog's, and the fields that only queue monitors, lock
// waits and tasks fill are left out. A record that fills any of them is kept whole, in
// whole.
type dialogHistory struct {
	records []compactRecord
	n       uint32 // the records added since the last reset
	whole   []numbered
}

// compactRecord is a model.TraceRecord of a known conversation without its activation
// fields; whole is 1 + the index of the record in dialogHistory.whole when it has some.
type compactRecord struct {
	n, event               uint64
	at, sentAt             time.Duration
	sequence               model.SequenceNumber
	bytes                  int64
	tx                     model.TxID
	statement              uint64
	group                  model.ConversationGroupID
	fragment, fragments    int32
	messageType            model.MessageTypeID
	whole                  int32
	instance, peer         model.InstanceID
	kind                   model.TraceKind
	reason                 model.Reason
	from, to               model.EndpointState
	priority               model.PriorityLevel
	effective, bestWaiting uint8
	fromInitiator, retry   bool
}

// compactable reports whether r has none of the fields a compactRecord leaves out.
func compactable(r *model.TraceRecord) bool {
	return r.HolderTx == 0 && r.Queue == 0 && r.Task == 0 && r.Running == 0 && r.MaxReaders == 0 && r.Ready == 0 &&
		r.Waiting == 0 && r.SinceEmpty == 0 && r.Cause == 0
}

// add adds record r, number n, of the history's conversation, and lets the oldest go when
// full.
func (h *dialogHistory) add(n uint64, r *model.TraceRecord) {
	h.records = lengthen(h.records)
	e := &h.records[h.n%historyLength]
	if e.whole > 0 {
		h.whole[e.whole-1] = numbered{} // free
	}
	h.n++
	if !compactable(r) {
		i := slices.IndexFunc(h.whole, func(w numbered) bool { return w.n == 0 })
		if i < 0 {
			i = len(h.whole)
			h.whole = append(h.whole, numbered{})
		}
		h.whole[i] = numbered{n, *r}
		*e = compactRecord{n: n, whole: int32(i + 1)}
		return
	}
	*e = compactRecord{n: n, event: r.Event, at: r.At, sentAt: r.SentAt, sequence: r.Sequence, bytes: r.Bytes, tx: r.Tx,
		statement: r.Statement, group: r.Group, fragment: r.Fragment, fragments: r.Fragments, messageType: r.MessageType,
		instance: r.Instance, peer: r.Peer, kind: r.Kind, reason: r.Reason, from: r.From, to: r.To, priority: r.Priority,
		effective: r.Effective, bestWaiting: r.BestWaiting, fromInitiator: r.FromInitiator, retry: r.Retry}
}

// entries returns the records kept, of conversation conv, in no particular order.
func (h *dialogHistory) entries(conv model.ConversationID) []numbered {
	out := make([]numbered, 0, len(h.records))
	for i := range h.records {
		e := &h.records[i]
		if e.whole > 0 {
			out = append(out, h.whole[e.whole-1])
			continue
		}
		out = append(out, numbered{e.n, model.TraceRecord{At: e.at, Event: e.event, Kind: e.kind, Instance: e.instance,
			Peer: e.peer, Conversation: conv, FromInitiator: e.fromInitiator, Sequence: e.sequence, Fragment: e.fragment,
			Fragments: e.fragments, MessageType: e.messageType, Bytes: e.bytes, Retry: e.retry, Reason: e.reason,
			From: e.from, To: e.to, SentAt: e.sentAt, Priority: e.priority, Effective: e.effective,
			BestWaiting: e.bestWaiting, Tx: e.tx, Statement: e.statement, Group: e.group}})
	}
	return out
}

// reset empties the history, keeping its memory.
func (h *dialogHistory) reset() {
	clear(h.records)
	h.records, h.n, h.whole = h.records[:0], 0, h.whole[:0]
}
