// Package invariant checks the broker's invariants online, from the trace records the
// brokers emit: INV-1 (exactly once, in order, counting a received message only when its
// transaction commits), INV-2 (no duplicate enqueue, no incomplete message made receivable),
// INV-3 (a transmission queue row leaves only when its fragments were stored by the receiver,
// or by a documented discard), INV-4 (a conversation group lock has at most one holder, and
// nothing is held after the transaction ends), INV-5 (a RECEIVE result comes from one group,
// locked by the receiving transaction, and no two live transactions hold uncommitted
// receives from one group), INV-6 (the order of the rows inside a RECEIVE result), INV-7 (an
// endpoint keeps its level), INV-8 (a queue monitor starts a task only while fewer than
// MAX_QUEUE_READERS run), INV-9 (at most one QUEUE_ACTIVATION per notification time-out),
// ACT-4 (a task starts, or a notification goes, only when activation is necessary), G-4 (no
// second start while the monitor is NOTIFIED), G-32 (the monitor's count of running tasks),
// INV-10 (a rollback returns every row it received), PRI-15 (no fragment leaves below the
// best effective level waiting for the same destination), PRI-14 (a forwarder passes
// fragments on at level 5), RTE-5 (a forwarder never stores what it forwards), PROTO-2 (each
// message sent gets the next sequence number of its dialog direction), G-13 (nothing
// volatile survives a crash: nothing is recorded while an instance is down, no lock is held
// and no task runs past its crash, and after the restart no transaction or task of the
// incarnation before acts and no retry goes of a fragment not sent since) and, at the end
// of a run whose faults healed, INV-12 (everything sent was delivered and the transmission
// queues are empty).
// "Stored by the receiver" is what an acknowledgement needs (PROTO-9, G-20's "ack only
// after the enqueue commits"): a fragment is stored in the target queue, or, while that
// queue is OFF, in the receiving database's transmission queue, which G-18 acknowledges
// too; a message held there is checked as complete and held once, and becomes ready, in
// order, only when the queue is ON again (TXQ-4).
// Rules lists them, with what each asserts: the text report and summary.json print that
// list. Beside violations, the checker reports design findings (Finding): what Service
// Broker itself does wrong with a design, such as a dialog run twice because its closed
// target was forgotten (G-16); they do not stop the run.
//
// A Checker sees the records of every broker of a world in the order they happened. It
// keeps the recent records of each conversation, of each live transaction and of each queue
// monitor, so that a violation can show what led to it. It imports only the model.
package invariant

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
)

// Violation is a broken invariant: which rule, when, on which conversation (zero when the
// record at fault has none, as a lock's has not), in which transaction and group of which
// instance (zero outside transactions), and the records that led to it, oldest first: the
// conversation's, and those of the transactions involved.
type Violation struct {
	Rule         string
	At           time.Duration
	Conversation model.ConversationID
	Instance     model.InstanceID
	Tx           model.TxID
	Group        model.ConversationGroupID
	Message      string
	Records      []model.TraceRecord
}

func (v *Violation) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s violated at t=%v", v.Rule, v.At)
	if v.Conversation != 0 {
		fmt.Fprintf(&b, " on conversation %v", v.Conversation)
	}
	if v.Tx != 0 {
		fmt.Fprintf(&b, " in transaction %d of instance %d", v.Tx, v.Instance)
	}
	if v.Group != 0 {
		fmt.Fprintf(&b, " on group %v", v.Group)
	}
	fmt.Fprintf(&b, ": %s", v.Message)
	if len(v.Records) > 0 {
		b.WriteString("\nrecords that led to it, oldest first:")
		for _, r := range v.Records {
			b.WriteString("\n  " + r.String())
		}
	}
	return b.String()
}

// historyLength is how many records of each conversation, and of each live transaction, a
// Checker keeps.
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
	// transactions holds the live transactions that took a lock, and groups the groups
	// that are locked or have uncommitted receives (INV-4, INV-5, INV-10); spare keeps
	// ended transactions for reuse, so that a transaction costs no allocation.
	transactions map[txKey]*transaction
	groups       map[groupKey]groupState
	spare        []*transaction
	// tx is the transaction of the record being checked, nil when it has none or the
	// checker does not follow it.
	tx *transaction
	// result is the RECEIVE result being returned (INV-5, INV-6).
	result receiveResult
	// monitors holds what the checker knows of each queue monitor that left a record
	// (INV-8, INV-9, ACT-4, G-4, G-32).
	monitors map[monitorKey]*queueMonitor
	// observed counts the records seen; it orders the records of several histories.
	observed uint64
	// blame says what a violation found by the transaction checks is about, beyond the
	// record observed; Observe clears it.
	blame     blame
	violation *Violation
	// forgotten holds when each dialog's closed target endpoint was forgotten (G-16), until
	// an arrival re-creates it; findings holds the first design findings, findingCount
	// them all.
	forgotten    map[model.ConversationID]time.Duration
	findings     []Finding
	findingCount int
	// forwarders lists, per direction of a dialog, the instances that forwarded its
	// fragments: none of them may store one (RTE-5).
	forwarders map[direction][]model.InstanceID
	// incarnations holds, by instance, what the checker knows of its crashes (G-13); it
	// stays empty while no instance has crashed.
	incarnations []incarnation
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
	// heldNext is past the last message held in the receiving transmission queue for an
	// OFF queue (G-18): a message is held at most once.
	heldNext model.SequenceNumber
	received model.SequenceNumber // the next message expected from RECEIVE
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

// history keeps the last historyLength records of a conversation or a transaction, each
// with its number among all the records observed.
type history struct {
	records [historyLength]numbered
	n       int
}

type numbered struct {
	n uint64
	r model.TraceRecord
}

func (h *history) add(n uint64, r model.TraceRecord) {
	h.records[h.n%historyLength] = numbered{n, r}
	h.n++
}

// entries returns the records kept, oldest first.
func (h *history) entries() []numbered {
	if h.n <= historyLength {
		return slices.Clone(h.records[:h.n])
	}
	i := h.n % historyLength
	return append(slices.Clone(h.records[i:]), h.records[:i]...)
}

func (h *history) list() []model.TraceRecord { return merge(h) }

// merge returns the records of the histories, oldest first, each once; nil histories are
// skipped.
func merge(hs ...*history) []model.TraceRecord {
	var all []numbered
	for _, h := range hs {
		if h != nil {
			all = append(all, h.entries()...)
		}
	}
	slices.SortFunc(all, func(a, b numbered) int { return cmp.Compare(a.n, b.n) })
	all = slices.CompactFunc(all, func(a, b numbered) bool { return a.n == b.n })
	out := make([]model.TraceRecord, len(all))
	for i, e := range all {
		out[i] = e.r
	}
	return out
}

// New returns a checker that has seen nothing.
func New() *Checker {
	return &Checker{
		directions:    map[direction]*flow{},
		states:        map[direction]model.EndpointState{},
		levels:        map[direction]model.PriorityLevel{},
		conversations: map[model.ConversationID]*history{},
		transactions:  map[txKey]*transaction{},
		groups:        map[groupKey]groupState{},
		monitors:      map[monitorKey]*queueMonitor{},
		forgotten:     map[model.ConversationID]time.Duration{},
		forwarders:    map[direction][]model.InstanceID{},
	}
}

// Violation returns the first violation seen, or nil.
func (c *Checker) Violation() *Violation { return c.violation }

// Conversations returns how many conversations the checker keeps a history of: every one
// it has seen a record of, for the whole run (a memory budget counts them).
func (c *Checker) Conversations() int { return len(c.conversations) }

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

// checkedFlow returns the direction's flow, or nil when a design finding reports the
// dialog instead: its target was re-created after it had been forgotten.
func (c *Checker) checkedFlow(conv model.ConversationID, fromInitiator bool) *flow {
	if f := c.flow(conv, fromInitiator); !f.reopened {
		return f
	}
	return nil
}

// Observe checks one record and returns the first violation seen so far, or nil. Once a
// violation is found, later records are ignored.
func (c *Checker) Observe(r model.TraceRecord) *Violation {
	if c.violation != nil {
		return c.violation
	}
	c.observed++
	h := c.conversations[r.Conversation]
	if h == nil {
		h = &history{}
		c.conversations[r.Conversation] = h
	}
	h.add(c.observed, r)
	c.rememberInTransaction(r)
	c.blame = blame{}
	if msg, rule := c.check(r); msg != "" {
		c.violation = c.violationAt(r, rule, msg)
	}
	return c.violation
}

// violationAt describes the violation that record r revealed. Its records are those of
// the conversation at fault and of the transactions involved.
func (c *Checker) violationAt(r model.TraceRecord, rule, msg string) *Violation {
	about := r
	if c.blame.row != nil {
		about = *c.blame.row
	}
	v := &Violation{Rule: rule, At: r.At, Conversation: about.Conversation, Instance: r.Instance, Tx: r.Tx,
		Group: cmp.Or(about.Group, c.blame.group), Message: msg}
	hs := []*history{{records: [historyLength]numbered{{c.observed, r}}, n: 1}} // r itself, in any case
	switch {
	case c.blame.monitor != nil:
		hs = append(hs, &c.blame.monitor.history)
	case about.Conversation != 0 || r.Tx == 0:
		hs = append(hs, c.conversations[about.Conversation])
	}
	for _, tx := range []model.TxID{r.Tx, c.blame.other} {
		if t := c.transactions[keyOfTx(r.Instance, tx)]; tx != 0 && t != nil {
			hs = append(hs, &t.history)
		}
	}
	v.Records = merge(hs...)
	return v
}

// check returns a description of the violation r causes, and the rule, or "".
func (c *Checker) check(r model.TraceRecord) (string, string) {
	if r.Kind != model.TraceMessageReceived {
		c.result.open = false // the rows of one RECEIVE are consecutive records
	}
	if msg, rule := c.crashStep(r); msg != "" {
		return msg, rule
	}
	switch r.Kind {
	case model.TraceInstanceCrashed, model.TraceInstanceRestarted:
		return "", ""
	case model.TraceStateChanged:
		c.stateChanged(r)
		return c.level(r)
	case model.TraceEndpointForgotten:
		c.forgotten[r.Conversation] = r.At
		return "", ""
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
	case model.TraceForwarded:
		return c.forwarded(r)
	case model.TracePacketCorrupt, model.TraceAckSent, model.TraceQueueDisabled, model.TraceDelayed, model.TraceRouted:
		return "", ""
	case model.TraceLockAcquired, model.TraceLockReleased, model.TraceLockWait, model.TraceDeadlock,
		model.TraceMessageReceived, model.TraceMessageReturned, model.TraceSavepointRolledBack,
		model.TraceTxCommitted, model.TraceTxRolledBack:
		return c.transactionStep(r)
	case model.TraceTaskStarted, model.TraceTaskExited, model.TraceActivationFailed, model.TraceMonitorReceive,
		model.TraceNotificationSent, model.TraceNotificationDropped, model.TraceActivationAltered:
		return c.activationStep(r)
	}
	if r.Sequence == model.Unsequenced {
		return "", "" // broker-generated errors are not sequenced (PROTO-3)
	}
	f := c.checkedFlow(r.Conversation, r.FromInitiator)
	if f == nil {
		return "", ""
	}
	switch r.Kind {
	case model.TraceMessageSent:
		if r.Sequence != f.sent {
			return fmt.Sprintf("message sent with sequence %d, expected %d", r.Sequence, f.sent), "PROTO-2"
		}
		f.sent++
		f.fragments[r.Sequence] = r.Fragments
		f.stored[r.Sequence] = make([]bool, r.Fragments)
	case model.TraceFragmentStored:
		if slices.Contains(c.forwarders[direction{r.Conversation, r.FromInitiator}], r.Instance) {
			return fmt.Sprintf("instance %d stored fragment %d of message %d, which it forwards", r.Instance, r.Fragment, r.Sequence), "RTE-5"
		}
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
	case model.TraceMessageHeld:
		return f.held(r)
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

// forwarded checks a forwarder's decision: at level 5 (PRI-14), never while something of a
// higher effective level waits for the same next hop (PRI-15), and by an instance that
// then never stores what it forwards (RTE-5).
func (c *Checker) forwarded(r model.TraceRecord) (string, string) {
	if r.Priority.Level() != int(model.DefaultPriority) {
		return fmt.Sprintf("a forwarded fragment left at level %d", r.Priority.Level()), "PRI-14"
	}
	if r.Effective < r.BestWaiting {
		return fmt.Sprintf("a forwarded fragment left at effective level %d towards instance %d while one at level %d waited",
			r.Effective, r.Peer, r.BestWaiting), "PRI-15"
	}
	side := direction{r.Conversation, r.FromInitiator}
	if !slices.Contains(c.forwarders[side], r.Instance) {
		c.forwarders[side] = append(c.forwarders[side], r.Instance)
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
	if r.From == 0 && !r.FromInitiator {
		if at, ok := c.forgotten[r.Conversation]; ok {
			c.reopen(r, at)
		}
	}
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

// held checks a message held in the receiving transmission queue while its queue is OFF
// (G-18): it is acknowledged there, so it must be complete, not yet ready and held once
// (INV-2); that it becomes ready in order is ready's check when the queue is ON again.
func (f *flow) held(r model.TraceRecord) (string, string) {
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
func (f *flow) receivable(r model.TraceRecord) (string, string) {
	if r.Sequence >= f.readyNext {
		return fmt.Sprintf("RECEIVE returned message %d, which never became ready (status 1)", r.Sequence), "INV-2"
	}
	return "", ""
}

// received checks a row whose RECEIVE committed: only ready messages, in order, each once
// (INV-1, INV-2). An Error is received before the dialog's other messages (DLG-13).
func (c *Checker) received(f *flow, r model.TraceRecord) (string, string) {
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
		if f.reopened {
			continue // a design finding reports it
		}
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
