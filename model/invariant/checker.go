// Package invariant checks the broker's invariants online, from the trace records the
// brokers emit: INV-1 (exactly once, in order), INV-2 (no duplicate enqueue, no incomplete
// message made receivable), INV-3 (a transmission queue row leaves only when its fragments
// were stored by the receiver, or by a documented discard), INV-7 (an endpoint keeps its
// level), PRI-15 (no fragment leaves below the best effective level waiting for the same
// destination) and, at the end of a run whose faults healed, INV-12 (everything sent was
// delivered and the transmission queues are empty).
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
	states map[direction]model.EndpointState
	// levels holds each endpoint's level as created (INV-7).
	levels        map[direction]model.PriorityLevel
	conversations map[model.ConversationID]*history
	violation     *Violation
}

type direction struct {
	conv          model.ConversationID
	fromInitiator bool
}

// flow is what the checker knows of one direction of one dialog.
type flow struct {
	sent model.SequenceNumber // messages sent so far: the next sequence number expected
	// fragments and stored hold, for each message sent and not yet ready, its fragment
	// count and which fragments the receiver stored.
	fragments map[model.SequenceNumber]int32
	stored    map[model.SequenceNumber][]bool
	readyNext model.SequenceNumber // the next message expected to become ready
	received  model.SequenceNumber // the next message expected from RECEIVE
	// Rows removed from the transmission queue: every row below removedBelow, and the rows
	// in removedAbove.
	removedBelow model.SequenceNumber
	removedAbove map[model.SequenceNumber]bool
	// senderDiscards holds the rows removed by a documented discard (DLG-9/10/11, lifetime);
	// firstDiscard is the lowest of them, -1 while there is none. Messages from there on
	// may be missing at the end (INV-1).
	senderDiscards map[model.SequenceNumber]bool
	firstDiscard   model.SequenceNumber
	// receiverEnded is readyNext when the receiving endpoint left the live states (DO, ER
	// or CD), -1 while it is live: from then on it discards and acks what arrives (G-16,
	// G-17), so messages from there on may be missing too.
	receiverEnded model.SequenceNumber
	// errorReceived is set once RECEIVE returned the direction's Error.
	errorReceived bool
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
		levels:        map[direction]model.PriorityLevel{},
		conversations: map[model.ConversationID]*history{}}
}

// Violation returns the first violation seen, or nil.
func (c *Checker) Violation() *Violation { return c.violation }

func (c *Checker) flow(conv model.ConversationID, fromInitiator bool) *flow {
	d := direction{conv, fromInitiator}
	f := c.directions[d]
	if f == nil {
		f = &flow{fragments: map[model.SequenceNumber]int32{}, stored: map[model.SequenceNumber][]bool{},
			removedAbove: map[model.SequenceNumber]bool{}, senderDiscards: map[model.SequenceNumber]bool{},
			firstDiscard: -1, receiverEnded: -1}
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
		c.stateChanged(r)
		return c.level(r)
	case model.TraceScheduled:
		if msg, rule := c.level(r); msg != "" {
			return msg, rule
		}
		// PRI-15(a) and G-11: nothing leaves while a dialog of a higher effective level
		// waits for the same destination (blocks are filled decision by decision).
		if r.Effective < r.BestWaiting {
			return fmt.Sprintf("a fragment left at effective level %d towards instance %d while one at level %d waited",
				r.Effective, r.Peer, r.BestWaiting), "PRI-15"
		}
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
		f.stored[r.Sequence] = make([]bool, r.Fragments)
	case model.TraceFragmentStored:
		have, ok := f.stored[r.Sequence]
		switch {
		case !ok || r.Fragment < 0 || int(r.Fragment) >= len(have):
			return fmt.Sprintf("fragment %d of message %d stored, but no such fragment is outstanding", r.Fragment, r.Sequence), "INV-2"
		case have[r.Fragment]:
			return fmt.Sprintf("fragment %d of message %d stored twice", r.Fragment, r.Sequence), "INV-2"
		}
		have[r.Fragment] = true
	case model.TraceMessageReady:
		return c.ready(f, r)
	case model.TraceMessageReceived:
		return c.received(f, r)
	case model.TraceRowRemoved:
		return c.removed(f, r)
	case model.TraceFragmentDiscarded:
		if r.Reason == model.ReasonClosedEndpoint || r.Reason == model.ReasonUnknownDialog {
			// Discarding and acking is allowed only once the receiving endpoint has ended,
			// failed or closed (G-16, G-17); otherwise the ack would lose the message.
			if s := c.states[direction{r.Conversation, !r.FromInitiator}]; !ended(s) {
				return fmt.Sprintf("fragment %d of message %d discarded as %v by an endpoint in state %v",
					r.Fragment, r.Sequence, r.Reason, s), "INV-3"
			}
		}
	}
	return "", ""
}

// level checks that an endpoint keeps the level it was created with (INV-7, PRI-3).
func (c *Checker) level(r model.TraceRecord) (string, string) {
	side := direction{r.Conversation, r.FromInitiator}
	first, ok := c.levels[side]
	switch {
	case !ok:
		c.levels[side] = r.Priority
	case first != r.Priority:
		return fmt.Sprintf("the endpoint's level changed from %d to %d", first.Level(), r.Priority.Level()), "INV-7"
	}
	return "", ""
}

// ended reports whether an endpoint in state s discards and acks what arrives.
func ended(s model.EndpointState) bool {
	return s == model.DisconnectedOutbound || s == model.Error || s == model.Closed
}

// stateChanged notes an endpoint's new state; the first time it ends, the flow into it
// remembers how far delivery had got.
func (c *Checker) stateChanged(r model.TraceRecord) {
	side := direction{r.Conversation, r.FromInitiator}
	c.states[side] = r.To
	if ended(r.To) {
		if f := c.flow(r.Conversation, !r.FromInitiator); f.receiverEnded < 0 {
			f.receiverEnded = f.readyNext
		}
	}
}

// allStored reports whether the receiver stored every fragment of message seq, or made it
// ready already.
func (f *flow) allStored(seq model.SequenceNumber) bool {
	if seq < f.readyNext {
		return true
	}
	have, ok := f.stored[seq]
	return ok && !slices.Contains(have, false)
}

// ready checks a message becoming receivable: in order, exactly once, and complete (INV-1,
// INV-2). An application Error may jump ahead of missing messages, but only of messages
// its sender discarded (G-17, DLG-9).
func (c *Checker) ready(f *flow, r model.TraceRecord) (string, string) {
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
	for s := f.readyNext; s <= r.Sequence; s++ {
		delete(f.fragments, s)
		delete(f.stored, s)
	}
	f.readyNext = r.Sequence + 1
	return "", ""
}

// received checks RECEIVE: only ready messages, in order, each once (INV-1, INV-2). An
// Error is received before the dialog's other messages (DLG-13).
func (c *Checker) received(f *flow, r model.TraceRecord) (string, string) {
	switch {
	case r.Sequence >= f.readyNext:
		return fmt.Sprintf("RECEIVE returned message %d, which never became ready (status 1)", r.Sequence), "INV-2"
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
// receiver stored all its fragments, or discards what arrives; otherwise for a documented
// discard (INV-3).
func (c *Checker) removed(f *flow, r model.TraceRecord) (string, string) {
	switch {
	case r.Sequence < 0 || r.Sequence >= f.sent:
		return fmt.Sprintf("row %d removed, but no such message was sent", r.Sequence), "INV-3"
	case r.Sequence < f.removedBelow || f.removedAbove[r.Sequence]:
		return fmt.Sprintf("row %d removed twice", r.Sequence), "INV-3"
	case r.Reason.IsDiscard():
		f.senderDiscards[r.Sequence] = true
		if f.firstDiscard < 0 || r.Sequence < f.firstDiscard {
			f.firstDiscard = r.Sequence
		}
	case !f.allStored(r.Sequence) && !ended(c.states[direction{r.Conversation, !r.FromInitiator}]):
		return fmt.Sprintf("row %d removed as acknowledged before the receiver stored all its fragments", r.Sequence), "INV-3"
	}
	f.removedAbove[r.Sequence] = true
	for f.removedAbove[f.removedBelow] {
		delete(f.removedAbove, f.removedBelow)
		f.removedBelow++
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
		// Messages may be missing only from the first documented discard on, or from where
		// the receiving endpoint ended (INV-1).
		limit := f.sent
		for _, from := range []model.SequenceNumber{f.firstDiscard, f.receiverEnded} {
			if from >= 0 {
				limit = min(limit, from)
			}
		}
		msg := ""
		switch {
		case f.removedBelow != f.sent:
			msg = fmt.Sprintf("message %d of %d still in the transmission queue", f.removedBelow, f.sent)
		case f.readyNext < limit:
			msg = fmt.Sprintf("%d messages sent, %d delivered, with nothing documented to explain message %d missing",
				f.sent, f.readyNext, f.readyNext)
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
