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
// monitor, so that a violation can show what led to it. Once both endpoints of a
// conversation have closed, it forgets the conversation but for a tombstone that lets it
// check the duplicates that still arrive and report a target re-created after it was
// forgotten (G-16): its memory follows the live conversations, not all of a run's. It
// imports only the model.
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

// Checker checks the invariants over a stream of records. The zero value is not usable;
// use New.
type Checker struct {
	// dialogs holds what the checker knows of each conversation with a live endpoint, by
	// conversation id; none holds the history of the records that name none, and last is
	// the dialog looked up last. A conversation whose two endpoints have closed is
	// released: released keeps, by conversation, only when its target was forgotten
	// (G-16), -1 while it is not, and spareDialogs keeps released dialogs for reuse.
	dialogs      map[model.ConversationID]*dialog
	none, last   *dialog
	released     map[model.ConversationID]time.Duration
	spareDialogs []*dialog
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
	// findings holds the first design findings, findingCount them all.
	findings     []Finding
	findingCount int
	// incarnations holds, by instance, what the checker knows of its crashes (G-13); it
	// stays empty while no instance has crashed.
	incarnations []incarnation
	// histories says whether the checker keeps the recent records of each conversation,
	// transaction and queue monitor (KeepHistories); only, when not nil, names the only
	// conversations whose records it keeps (KeepHistoriesOf).
	histories bool
	only      map[model.ConversationID]bool
}

type direction struct {
	conv          model.ConversationID
	fromInitiator bool
}

// New returns a checker that has seen nothing.
func New() *Checker {
	c := &Checker{
		none:         &dialog{},
		dialogs:      map[model.ConversationID]*dialog{},
		released:     map[model.ConversationID]time.Duration{},
		transactions: map[txKey]*transaction{},
		groups:       map[groupKey]groupState{},
		monitors:     map[monitorKey]*queueMonitor{},
		histories:    true,
	}
	for i := range c.none.flows {
		c.none.flows[i].reset()
	}
	return c
}

// KeepHistories says whether the checker keeps the recent records of each conversation, of
// each live transaction and of each queue monitor, to show in a violation what led to it
// (Violation.Records) and in a finding the conversation's last records (Finding.Records).
// A checker from New keeps them. One that does not checks the same rules and stops at the
// same record with the same violation and findings, but a violation's records are only the
// record at fault and a finding's are none; it costs less time and memory. A run is
// deterministic, so the same run again with histories kept gives the records (scenarios.Run
// does so, with KeepHistoriesOf). Call it before the first record.
func (c *Checker) KeepHistories(keep bool) { c.histories, c.only = keep, nil }

// KeepHistoriesOf makes the checker keep the recent records of the conversations given,
// of the records that name none, of each live transaction and of each queue monitor, and
// no other conversation's: what a violation or finding about those conversations shows,
// in the memory of a checker that keeps no histories but for a few. Call it before the
// first record.
func (c *Checker) KeepHistoriesOf(convs []model.ConversationID) {
	c.histories, c.only = true, make(map[model.ConversationID]bool, len(convs))
	for _, conv := range convs {
		c.only[conv] = true
	}
}

// Violation returns the first violation seen, or nil.
func (c *Checker) Violation() *Violation { return c.violation }

// Conversations returns how many conversations the checker keeps the state and history
// of: those with a live endpoint, and those it cannot release yet (a memory budget counts
// them).
func (c *Checker) Conversations() int { return len(c.dialogs) }

// Released returns how many conversations the checker released, keeping only when their
// target was forgotten (a memory budget counts them).
func (c *Checker) Released() int { return len(c.released) }

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
func (c *Checker) Observe(r model.TraceRecord) *Violation { return c.ObserveRecord(&r) }

// ObserveRecord is Observe without a copy of the record, which it does not keep.
func (c *Checker) ObserveRecord(r *model.TraceRecord) *Violation {
	if c.violation != nil {
		return c.violation
	}
	c.observed++
	d := c.dialog(r.Conversation)
	if c.histories && (c.only == nil || d == c.none || c.only[d.conv]) {
		d.history.add(c.observed, r)
	}
	c.rememberInTransaction(r)
	c.blame = blame{}
	if msg, rule := c.check(d, r); msg != "" {
		c.violation = c.violationAt(r, rule, msg)
		return c.violation
	}
	if d.gone {
		c.release(d)
	}
	return nil
}

// historyOf returns the records the checker keeps of a conversation, in no particular order.
func (c *Checker) historyOf(conv model.ConversationID) []numbered {
	if conv == 0 {
		return c.none.history.entries(0)
	}
	if d := c.dialogs[conv]; d != nil {
		return d.history.entries(conv)
	}
	return nil
}

// violationAt describes the violation that record r revealed. Its records are those of
// the conversation at fault and of the transactions involved.
func (c *Checker) violationAt(r *model.TraceRecord, rule, msg string) *Violation {
	about := r
	if c.blame.row != nil {
		about = c.blame.row
	}
	v := &Violation{Rule: rule, At: r.At, Conversation: about.Conversation, Instance: r.Instance, Tx: r.Tx,
		Group: cmp.Or(about.Group, c.blame.group), Message: msg}
	hs := [][]numbered{{{c.observed, *r}}} // r itself, in any case
	switch {
	case c.blame.monitor != nil:
		hs = append(hs, c.blame.monitor.history.entries())
	case about.Conversation != 0 || r.Tx == 0:
		hs = append(hs, c.historyOf(about.Conversation))
	}
	for _, tx := range []model.TxID{r.Tx, c.blame.other} {
		if t := c.transactions[keyOfTx(r.Instance, tx)]; tx != 0 && t != nil {
			hs = append(hs, t.history.entries())
		}
	}
	v.Records = merge(hs...)
	return v
}

// check returns a description of the violation r, a record of dialog d, causes, and the
// rule, or "".
func (c *Checker) check(d *dialog, r *model.TraceRecord) (string, string) {
	if r.Kind != model.TraceMessageReceived {
		c.result.open = false // the rows of one RECEIVE are consecutive records
	}
	if msg, rule := c.crashStep(r); msg != "" {
		return msg, rule
	}
	if d.gone {
		if msg, rule := goneRecord(r); msg != "" {
			return msg, rule
		}
	}
	switch r.Kind {
	case model.TraceInstanceCrashed, model.TraceInstanceRestarted:
		return "", ""
	case model.TraceStateChanged:
		c.stateChanged(d, r)
		if msg, rule := d.level(r); msg != "" {
			return msg, rule
		}
		if r.To == model.Closed {
			c.release(d) // the second endpoint to close lets the dialog go
		}
		return "", ""
	case model.TraceEndpointForgotten:
		d.forgotten, d.forgottenAt = true, r.At
		c.release(d)
		return "", ""
	case model.TraceScheduled:
		if msg, rule := d.level(r); msg != "" {
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
		return d.forwarded(r)
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
	f := &d.flows[side(r.FromInitiator)]
	if f.reopened {
		return "", ""
	}
	switch r.Kind {
	case model.TraceMessageSent:
		return f.messageSent(r)
	case model.TraceFragmentStored:
		if d.forwarders != nil && slices.Contains(d.forwarders[side(r.FromInitiator)], r.Instance) {
			return fmt.Sprintf("instance %d stored fragment %d of message %d, which it forwards", r.Instance, r.Fragment, r.Sequence), "RTE-5"
		}
		return f.fragmentStored(r)
	case model.TraceMessageReady:
		return f.ready(r)
	case model.TraceMessageHeld:
		return f.held(r)
	case model.TraceRowRemoved:
		return f.removed(r, ended(d.states[side(!r.FromInitiator)]))
	case model.TraceFragmentDiscarded:
		if r.Reason == model.ReasonClosedEndpoint || r.Reason == model.ReasonUnknownDialog {
			// Discarding and acking is allowed only once the receiving endpoint has ended,
			// failed or closed (G-16, G-17); otherwise the ack would lose the message.
			if s := d.states[side(!r.FromInitiator)]; !ended(s) {
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
func (d *dialog) forwarded(r *model.TraceRecord) (string, string) {
	if r.Priority.Level() != int(model.DefaultPriority) {
		return fmt.Sprintf("a forwarded fragment left at level %d", r.Priority.Level()), "PRI-14"
	}
	if r.Effective < r.BestWaiting {
		return fmt.Sprintf("a forwarded fragment left at effective level %d towards instance %d while one at level %d waited",
			r.Effective, r.Peer, r.BestWaiting), "PRI-15"
	}
	if d.forwarders == nil {
		d.forwarders = &[2][]model.InstanceID{}
	}
	fw := &d.forwarders[side(r.FromInitiator)]
	if !slices.Contains(*fw, r.Instance) {
		*fw = append(*fw, r.Instance)
	}
	return "", ""
}

// level checks that an endpoint keeps the level it was created with (INV-7, PRI-3).
func (d *dialog) level(r *model.TraceRecord) (string, string) {
	i := side(r.FromInitiator)
	switch {
	case !d.hasLevel[i]:
		d.levels[i], d.hasLevel[i] = r.Priority, true
	case d.levels[i] != r.Priority:
		return fmt.Sprintf("the endpoint's level changed from %d to %d", d.levels[i].Level(), r.Priority.Level()), "INV-7"
	}
	return "", ""
}

// ended reports whether an endpoint in state s discards and acks what arrives.
func ended(s model.EndpointState) bool {
	return s == model.DisconnectedOutbound || s == model.Error || s == model.Closed
}

// stateChanged notes an endpoint's new state; the first time it ends, the flow into it
// remembers how far delivery had got.
func (c *Checker) stateChanged(d *dialog, r *model.TraceRecord) {
	if r.From == 0 && !r.FromInitiator && d.forgotten {
		c.reopen(d, r)
	}
	d.states[side(r.FromInitiator)] = r.To
	if ended(r.To) {
		if f := &d.flows[side(!r.FromInitiator)]; f.receiverEnded < 0 {
			f.receiverEnded = f.readyNext
		}
	}
}

// Finish checks INV-12 at the end of a run whose faults healed long enough for the
// protocol to finish: every message sent was made ready at its target, unless a documented
// discard explains its absence, and no transmission queue row is left. It returns the
// first problem, checking directions in a fixed order. The conversations released passed
// this check when they were released, and nothing they saw since changed that.
func (c *Checker) Finish(at time.Duration) *Violation {
	if c.violation != nil {
		return c.violation
	}
	convs := make([]model.ConversationID, 0, len(c.dialogs))
	for conv := range c.dialogs {
		convs = append(convs, conv)
	}
	slices.Sort(convs)
	for _, conv := range convs {
		d := c.dialogs[conv]
		for i := range d.flows {
			f := &d.flows[i]
			if f.reopened {
				continue // a design finding reports it
			}
			if msg := f.unfinished(); msg != "" {
				c.violation = &Violation{Rule: "INV-12", At: at, Conversation: conv, Message: msg,
					Records: merge(d.history.entries(conv))}
				return c.violation
			}
		}
	}
	return nil
}
