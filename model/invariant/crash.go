package invariant

import (
	"fmt"
	"slices"

	"github.com/sbsim/sbsim/model"
)

// incarnation is what the checker knows of one instance's crashes (G-13).
type incarnation struct {
	// down is set from the instance's TraceInstanceCrashed to its TraceInstanceRestarted:
	// it records nothing meanwhile.
	down bool
	// lastTx and lastTask are the last transaction and task ids of the incarnation before
	// the last crash: none of them may act after the restart.
	lastTx   model.TxID
	lastTask model.TaskID
	// restarts counts the restarts; a flow sent from the instance follows its first sends
	// since the last one (flow.incarnation).
	restarts uint32
}

func (c *Checker) incarnation(i model.InstanceID) *incarnation {
	for int(i) >= len(c.incarnations) {
		c.incarnations = append(c.incarnations, incarnation{})
	}
	return &c.incarnations[i]
}

// crashStep checks a record against the crashes of its instance (G-13): nothing is
// recorded while an instance is down; at the crash no lock is held and no task runs (the
// open transactions rolled back and the tasks ended just before); after the restart no
// transaction or task of the incarnation before acts, and no fragment goes as a retry that
// the new incarnation has not sent first (the retry state of the transmission objects is
// lost).
func (c *Checker) crashStep(r *model.TraceRecord) (string, string) {
	if r.Kind != model.TraceInstanceCrashed && r.Kind != model.TraceInstanceRestarted && len(c.incarnations) == 0 {
		return "", "" // no instance ever crashed: nothing to check, and nothing to allocate
	}
	in := c.incarnation(r.Instance)
	switch {
	case r.Kind == model.TraceInstanceCrashed:
		if in.down {
			return fmt.Sprintf("instance %d crashed again while down", r.Instance), "G-13"
		}
		if msg := c.survivors(r.Instance); msg != "" {
			return msg, "G-13"
		}
		in.down, in.lastTx, in.lastTask = true, r.Tx, r.Task
		return "", ""
	case in.down && r.Kind != model.TraceInstanceRestarted:
		return fmt.Sprintf("instance %d recorded %v while down", r.Instance, r.Kind), "G-13"
	case r.Kind == model.TraceInstanceRestarted:
		if !in.down {
			return fmt.Sprintf("instance %d restarted, but it had not crashed", r.Instance), "G-13"
		}
		in.down = false
		in.restarts++
		return "", ""
	case in.restarts == 0:
		return "", ""
	case r.Tx != 0 && r.Tx <= in.lastTx:
		return fmt.Sprintf("transaction %d of instance %d began before its crash, and acted (%v) after the restart",
			r.Tx, r.Instance, r.Kind), "G-13"
	case r.Task != 0 && r.Task <= in.lastTask:
		return fmt.Sprintf("task %d of instance %d started before its crash, and acted (%v) after the restart",
			r.Task, r.Instance, r.Kind), "G-13"
	case r.Kind == model.TraceFragmentSent && r.Sequence != model.Unsequenced:
		return c.sentSinceRestart(in, r)
	}
	return "", ""
}

// survivors describes what a crash left that it must not: a transaction of the instance
// still holding a lock (INV-4 across a crash), a task still running; "" when nothing.
func (c *Checker) survivors(i model.InstanceID) string {
	var held []model.TxID
	for k, t := range c.transactions {
		if k.instance() == i && len(t.locks) > 0 {
			held = append(held, k.tx())
		}
	}
	if len(held) > 0 {
		return fmt.Sprintf("instance %d crashed with transaction %d holding locks: a crash rolls back every open transaction",
			i, slices.Min(held))
	}
	var queues []model.QueueID
	for k, m := range c.monitors {
		if k.instance != uint32(i) {
			continue
		}
		if len(m.running) > 0 {
			queues = append(queues, k.queue)
		}
		// The monitor's state is lost: it is INACTIVE at the restart (G-13).
		m.started, m.notified = false, false
	}
	if len(queues) > 0 {
		return fmt.Sprintf("instance %d crashed with tasks running on queue %d: a crash ends every activated task", i, slices.Min(queues))
	}
	return ""
}

// sentSinceRestart checks a fragment sent by an instance that restarted: a retry only of a
// fragment sent first since the restart, which sends every row again from its first
// fragment, in (sequence, fragment) order.
func (c *Checker) sentSinceRestart(in *incarnation, r *model.TraceRecord) (string, string) {
	f := c.flow(r.Conversation, r.FromInitiator)
	if f.incarnation != in.restarts {
		f.incarnation, f.firstSentTo = in.restarts, fragment{}
	}
	at := fragment{r.Sequence, r.Fragment}
	if !r.Retry {
		if f.firstSentTo.before(fragment{at.seq, at.f + 1}) {
			f.firstSentTo = fragment{at.seq, at.f + 1}
		}
		return "", ""
	}
	if !at.before(f.firstSentTo) {
		return fmt.Sprintf("fragment %d of message %d went as a retry after instance %d restarted, but was not sent since: the retry state of the transmission object survived the crash",
			r.Fragment, r.Sequence, r.Instance), "G-13"
	}
	return "", ""
}

// fragment names fragment f of message seq, ordered by (sequence, fragment).
type fragment struct {
	seq model.SequenceNumber
	f   int32
}

func (x fragment) before(y fragment) bool { return x.seq < y.seq || (x.seq == y.seq && x.f < y.f) }
