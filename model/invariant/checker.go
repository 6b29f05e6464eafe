// Package invariant checks the dialog protocol's invariants online, from the trace records
// the brokers emit: INV-1 (exactly once, in order), INV-2 (no duplicate enqueue, no
// incomplete message made receivable), INV-3 (a transmission queue row leaves only when its
// fragments were stored by the receiver, or by a documented discard) and, at the end of a
// run whose faults healed, INV-12 (everything sent was delivered and the transmission
// queues are empty).
//
// A Checker sees the records of every broker of a world in the order they happened. It
// keeps the recent records of each conversation, so that a violation can show what led to
// it. It imports only the model.
package invariant

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
)

// Violation is a broken invariant: which rule, when, on which conversation, and the
// conversation's records that led to it, oldest first.
type Violation struct {
	Rule         string
	At           time.Duration
	Conversation model.ConversationID
	Message      string
	Records      []model.TraceRecord
}

func (v *Violation) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s violated at t=%v on conversation %v: %s", v.Rule, v.At, v.Conversation, v.Message)
	if len(v.Records) > 0 {
		b.WriteString("\nrecords of that conversation, oldest first:")
		for _, r := range v.Records {
			b.WriteString("\n  " + r.String())
		}
	}
	return b.String()
}

// historyLength is how many records of each conversation a Checker keeps.
const historyLength = 24

// Checker checks the invariants over a stream of records. The zero value is not usable;
// use New.
type Checker struct {
	directions map[direction]*flow
	// states holds each endpoint's last state, by dialog and side (fromInitiator: the
	// initiator's endpoint).
	states        map[direction]model.EndpointState
	conversations map[model.ConversationID]*history
	violation     *Violation
}

type direction struct {
	conv          model.ConversationID
	fromInitiator bool
}

// flow is what the checker knows of one direction of one dialog.
type flow struct {
	sent      model.SequenceNumber // messages sent so far: the next sequence number expected
	fragments map[model.SequenceNumber]int32
	stored    map[model.SequenceNumber]int32
	readyNext model.SequenceNumber // the next message expected to become ready
	received  model.SequenceNumber // the next message expected from RECEIVE
	removed   int64                // transmission queue rows removed
	// discarded is set once a documented discard happened on the sending side (DLG-9/10/11,
	// lifetime): messages may then be missing at the end (INV-1).
	discarded bool
	// receiverDiscards is set once the receiving side discards arrivals by G-16 or G-17
	// (closed endpoint, unknown dialog, error received): it acks what it does not store.
	receiverDiscards bool
}

type history struct {
	records [historyLength]model.TraceRecord
	n       int
}

func (h *history) add(r model.TraceRecord) {
	h.records[h.n%historyLength] = r
	h.n++
}

func (h *history) list() []model.TraceRecord {
	if h.n <= historyLength {
		return slices.Clone(h.records[:h.n])
	}
	i := h.n % historyLength
	return append(slices.Clone(h.records[i:]), h.records[:i]...)
}

// New returns a checker that has seen nothing.
func New() *Checker {
	return &Checker{directions: map[direction]*flow{}, states: map[direction]model.EndpointState{},
		conversations: map[model.ConversationID]*history{}}
}

// Violation returns the first violation seen, or nil.
func (c *Checker) Violation() *Violation { return c.violation }

func (c *Checker) flow(conv model.ConversationID, fromInitiator bool) *flow {
	d := direction{conv, fromInitiator}
	f := c.directions[d]
	if f == nil {
		f = &flow{fragments: map[model.SequenceNumber]int32{}, stored: map[model.SequenceNumber]int32{}}
		c.directions[d] = f
	}
	return f
}

// Observe checks one record and returns the first violation seen so far, or nil. Once a
// violation is found, later records are ignored.
func (c *Checker) Observe(r model.TraceRecord) *Violation {
	if c.violation != nil {
		return c.violation
	}
	h := c.conversations[r.Conversation]
	if h == nil {
		h = &history{}
		c.conversations[r.Conversation] = h
	}
	h.add(r)
	if msg, rule := c.check(r); msg != "" {
		c.violation = &Violation{Rule: rule, At: r.At, Conversation: r.Conversation, Message: msg, Records: h.list()}
	}
	return c.violation
}

// check returns a description of the violation r causes, and the rule, or "".
func (c *Checker) check(r model.TraceRecord) (string, string) {
	switch r.Kind {
	case model.TraceStateChanged:
		c.states[direction{r.Conversation, r.FromInitiator}] = r.To
		return "", ""
	case model.TracePacketCorrupt, model.TraceAckSent:
		return "", ""
	}
	if r.Sequence == model.Unsequenced {
		return "", "" // broker-generated errors are not sequenced (PROTO-3)
	}
	f := c.flow(r.Conversation, r.FromInitiator)
	switch r.Kind {
	case model.TraceMessageSent:
		if r.Sequence != f.sent {
			return fmt.Sprintf("message sent with sequence %d, expected %d", r.Sequence, f.sent), "PROTO-2"
		}
		f.sent++
		f.fragments[r.Sequence] = r.Fragments
	case model.TraceFragmentStored:
		n, ok := f.fragments[r.Sequence]
		if !ok || r.Fragment < 0 || r.Fragment >= n {
			return fmt.Sprintf("fragment %d of message %d stored, but no such fragment was sent", r.Fragment, r.Sequence), "INV-2"
		}
		f.stored[r.Sequence]++
		if f.stored[r.Sequence] > n {
			return fmt.Sprintf("message %d: %d fragments stored, it has %d", r.Sequence, f.stored[r.Sequence], n), "INV-2"
		}
	case model.TraceMessageReady:
		return c.ready(f, r)
	case model.TraceMessageReceived:
		if r.Sequence >= f.readyNext {
			return fmt.Sprintf("RECEIVE returned message %d, which never became ready (status 1)", r.Sequence), "INV-2"
		}
		if r.MessageType == model.ErrorMessageType {
			break // an Error is received before the dialog's other messages (DLG-13)
		}
		if r.Sequence != f.received {
			return fmt.Sprintf("RECEIVE returned message %d, expected %d", r.Sequence, f.received), "INV-1"
		}
		f.received = r.Sequence + 1
	case model.TraceRowRemoved:
		return c.removed(f, r)
	case model.TraceFragmentDiscarded:
		if r.Reason == model.ReasonClosedEndpoint || r.Reason == model.ReasonUnknownDialog {
			// Discarding and acking is allowed only once the receiving endpoint has ended,
			// failed or closed (G-16, G-17); otherwise the ack would lose the message.
			switch s := c.states[direction{r.Conversation, !r.FromInitiator}]; s {
			case model.DisconnectedOutbound, model.Error, model.Closed:
				f.receiverDiscards = true
			default:
				return fmt.Sprintf("fragment %d of message %d discarded as %v by an endpoint in state %v",
					r.Fragment, r.Sequence, r.Reason, s), "INV-3"
			}
		}
	}
	return "", ""
}

// ready checks a message becoming receivable: in order, exactly once, and complete (INV-1,
// INV-2). An application Error may jump ahead of missing messages (G-17).
func (c *Checker) ready(f *flow, r model.TraceRecord) (string, string) {
	switch {
	case r.Sequence < f.readyNext:
		return fmt.Sprintf("message %d made ready twice", r.Sequence), "INV-2"
	case r.Sequence > f.readyNext && r.MessageType != model.ErrorMessageType:
		return fmt.Sprintf("message %d made ready before message %d", r.Sequence, f.readyNext), "INV-1"
	case f.stored[r.Sequence] != f.fragments[r.Sequence]:
		return fmt.Sprintf("message %d made ready with %d of its %d fragments stored",
			r.Sequence, f.stored[r.Sequence], f.fragments[r.Sequence]), "INV-2"
	}
	if r.Sequence > f.readyNext || r.MessageType == model.ErrorMessageType {
		f.receiverDiscards = true // G-17: the receiver now discards later arrivals
	}
	f.readyNext = r.Sequence + 1
	// A ready message is complete and will never be stored again: forget its counts. A row
	// removed later finds them both zero, which is right, since all were stored.
	delete(f.fragments, r.Sequence)
	delete(f.stored, r.Sequence)
	return "", ""
}

// removed checks a transmission queue row leaving: only once all its fragments are stored
// at the receiver, unless a documented discard explains it (INV-3).
func (c *Checker) removed(f *flow, r model.TraceRecord) (string, string) {
	f.removed++
	if r.Reason.IsDiscard() {
		f.discarded = true
	} else if !f.receiverDiscards && f.stored[r.Sequence] != f.fragments[r.Sequence] {
		return fmt.Sprintf("row %d removed as acknowledged with %d of its %d fragments stored by the receiver",
			r.Sequence, f.stored[r.Sequence], f.fragments[r.Sequence]), "INV-3"
	}
	return "", ""
}

// Finish checks INV-12 at the end of a run whose faults healed long enough for the
// protocol to finish: every message sent was made ready at its target, unless a documented
// discard explains its absence, and no transmission queue row is left. It returns the
// first problem, checking directions in a fixed order.
func (c *Checker) Finish(at time.Duration) *Violation {
	if c.violation != nil {
		return c.violation
	}
	dirs := make([]direction, 0, len(c.directions))
	for d := range c.directions {
		dirs = append(dirs, d)
	}
	slices.SortFunc(dirs, func(a, b direction) int {
		return cmp.Or(cmp.Compare(a.conv, b.conv), cmpBool(a.fromInitiator)-cmpBool(b.fromInitiator))
	})
	for _, d := range dirs {
		f := c.directions[d]
		msg := ""
		switch {
		case f.removed != int64(f.sent):
			msg = fmt.Sprintf("%d of %d messages still in the transmission queue", int64(f.sent)-f.removed, f.sent)
		case !f.discarded && !f.receiverDiscards && f.readyNext != f.sent:
			msg = fmt.Sprintf("%d messages sent, %d delivered, with no documented discard", f.sent, f.readyNext)
		}
		if msg != "" {
			var records []model.TraceRecord
			if h := c.conversations[d.conv]; h != nil {
				records = h.list()
			}
			c.violation = &Violation{Rule: "INV-12", At: at, Conversation: d.conv, Message: msg, Records: records}
			return c.violation
		}
	}
	return nil
}

func cmpBool(b bool) int {
	if b {
		return 1
	}
	return 0
}
