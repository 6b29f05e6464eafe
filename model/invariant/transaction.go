package invariant

import (
	"fmt"
	"slices"

	"github.com/sbsim/sbsim/model"
)

// Transaction ids and group ids are per instance, so the checker keys both by instance,
// in one word that a map hashes fast: a transaction id is its instance's count of
// transactions, below 2^48; a group id is below 2^56 (an instance issues it with its own
// number, below 255, in bits 48 to 55), and tests use small ones.
type (
	txKey    uint64
	groupKey uint64
)

func keyOfTx(instance model.InstanceID, tx model.TxID) txKey {
	return txKey(uint64(instance)<<48 | uint64(tx))
}

func (k txKey) instance() model.InstanceID { return model.InstanceID(k >> 48) }
func (k txKey) tx() model.TxID             { return model.TxID(k & (1<<48 - 1)) }

func keyOfGroup(instance model.InstanceID, g model.ConversationGroupID) groupKey {
	return groupKey(uint64(g) ^ uint64(instance)<<56)
}

// transaction is what the checker knows of a live transaction that took a lock.
type transaction struct {
	// locks holds the groups it holds, in the order it took them (INV-4).
	locks []model.ConversationGroupID
	// pending holds the rows its RECEIVEs took and no rollback returned, in the order taken.
	// They count as received only when it commits (TXN-1, INV-1); a rollback must return
	// them all (INV-10).
	pending []model.TraceRecord
	// ending is set once it released a lock: only more releases and its end may follow,
	// since locks are held to the end of the transaction (LOCK-3).
	ending  bool
	history history
}

// groupState is what the checker knows of a group that is locked or has uncommitted
// receives; the zero value is a group with neither, which the checker does not keep.
type groupState struct {
	holder model.TxID // the transaction holding the lock, zero for none (INV-4)
	// pending counts the uncommitted receives from the group, all of transaction
	// pendingTx (INV-5).
	pendingTx model.TxID
	pending   int
}

// blame says what a violation found by the transaction checks is about, beyond the
// record observed: the received row a commit or a rollback found at fault, the other
// transaction involved, or the group at fault; for the activation checks, the queue
// monitor whose records led to it.
type blame struct {
	row     *model.TraceRecord
	other   model.TxID
	group   model.ConversationGroupID
	monitor *queueMonitor
}

// spareTransactions bounds how many ended transactions a Checker keeps for reuse.
const spareTransactions = 64

// rememberInTransaction adds r to the history of its transaction and makes it the
// transaction of the record being checked. The checker follows a transaction from its first
// lock (or its first row, which needs one) to its end.
func (c *Checker) rememberInTransaction(r *model.TraceRecord) {
	c.tx = nil
	if r.Tx == 0 {
		return
	}
	key := keyOfTx(r.Instance, r.Tx)
	t := c.transactions[key]
	if t == nil {
		if r.Kind != model.TraceLockAcquired && r.Kind != model.TraceMessageReceived {
			return
		}
		if n := len(c.spare); n > 0 {
			t, c.spare = c.spare[n-1], c.spare[:n-1]
		} else {
			t = &transaction{}
		}
		c.transactions[key] = t
	}
	if c.histories {
		t.history.add(c.observed, r)
	}
	c.tx = t
}

// forget drops an ended transaction and keeps it for reuse.
func (c *Checker) forget(key txKey, t *transaction) {
	delete(c.transactions, key)
	if len(c.spare) >= spareTransactions {
		t.history.reset()
	} else {
		clear(t.pending)
		t.history.reset()
		t.locks, t.pending, t.ending = t.locks[:0], t.pending[:0], false
		c.spare = append(c.spare, t)
	}
}

func (c *Checker) setGroup(k groupKey, g groupState) {
	if g == (groupState{}) {
		delete(c.groups, k)
		return
	}
	c.groups[k] = g
}

// holding describes who holds a group's lock.
func holding(holder model.TxID) string {
	if holder == 0 {
		return "no transaction holds"
	}
	return fmt.Sprintf("transaction %d holds", holder)
}

// transactionStep checks a record of a transaction: its locks (INV-4), the rows it
// receives (INV-5, INV-6), returns (INV-10) and commits (INV-1, INV-2).
func (c *Checker) transactionStep(r *model.TraceRecord) (string, string) {
	t := c.tx
	if t != nil && t.ending && r.Kind != model.TraceLockReleased && r.Kind != model.TraceTxCommitted &&
		r.Kind != model.TraceTxRolledBack {
		return fmt.Sprintf("transaction %d went on (%v) after it released a lock, which it should hold to its end (LOCK-3)",
			r.Tx, r.Kind), "INV-4"
	}
	switch r.Kind {
	case model.TraceLockAcquired:
		return c.lockAcquired(t, r)
	case model.TraceLockReleased:
		return c.lockReleased(t, r)
	case model.TraceLockWait:
		return c.lockWait(r)
	case model.TraceMessageReceived:
		return c.rowTaken(t, r)
	case model.TraceMessageReturned:
		return c.rowReturned(t, r)
	case model.TraceTxCommitted, model.TraceTxRolledBack:
		return c.transactionEnded(t, r)
	}
	return "", "" // a deadlock victim is rolled back next; a savepoint rollback keeps the locks (TXN-3)
}

// lockAcquired checks that a lock taken had no holder (INV-4, LOCK-6).
func (c *Checker) lockAcquired(t *transaction, r *model.TraceRecord) (string, string) {
	k := keyOfGroup(r.Instance, r.Group)
	g := c.groups[k]
	switch {
	case g.holder == r.Tx:
		return fmt.Sprintf("transaction %d took the lock of group %v, which it already holds", r.Tx, r.Group), "INV-4"
	case g.holder != 0:
		c.blame.other = g.holder
		return fmt.Sprintf("transaction %d took the lock of group %v, which transaction %d holds", r.Tx, r.Group, g.holder), "INV-4"
	}
	g.holder = r.Tx
	c.setGroup(k, g)
	t.locks = append(t.locks, r.Group)
	return "", ""
}

// lockReleased checks that only the holder releases a lock (INV-4).
func (c *Checker) lockReleased(t *transaction, r *model.TraceRecord) (string, string) {
	k := keyOfGroup(r.Instance, r.Group)
	g := c.groups[k]
	if g.holder != r.Tx || t == nil {
		c.blame.other = g.holder
		return fmt.Sprintf("transaction %d released the lock of group %v, which %s", r.Tx, r.Group, holding(g.holder)), "INV-4"
	}
	g.holder = 0
	c.setGroup(k, g)
	if i := slices.Index(t.locks, r.Group); i >= 0 {
		t.locks = slices.Delete(t.locks, i, i+1)
	}
	t.ending = true
	return "", ""
}

// lockWait checks that a transaction waits for a lock that another transaction holds,
// the one the record names (INV-4).
func (c *Checker) lockWait(r *model.TraceRecord) (string, string) {
	g := c.groups[keyOfGroup(r.Instance, r.Group)]
	switch {
	case r.HolderTx == r.Tx:
		return fmt.Sprintf("transaction %d waits for group %v, which it holds itself", r.Tx, r.Group), "INV-4"
	case g.holder != r.HolderTx:
		c.blame.other = g.holder
		return fmt.Sprintf("transaction %d waits for group %v as held by transaction %d, but %s it",
			r.Tx, r.Group, r.HolderTx, holding(g.holder)), "INV-4"
	}
	return "", ""
}

// rowTaken checks a row a RECEIVE took: from a group its transaction holds and no other
// transaction has uncommitted receives from (INV-5), in the order of a RECEIVE result
// (INV-5, INV-6), and ready (INV-2). The row stays pending until the transaction ends.
func (c *Checker) rowTaken(t *transaction, r *model.TraceRecord) (string, string) {
	k := keyOfGroup(r.Instance, r.Group)
	g := c.groups[k]
	switch {
	case r.Tx == 0 || g.holder != r.Tx:
		c.blame.other = g.holder
		return fmt.Sprintf("RECEIVE in transaction %d took %s from group %v, which %s",
			r.Tx, rowName(r), r.Group, holding(g.holder)), "INV-5"
	case g.pending > 0 && g.pendingTx != r.Tx:
		c.blame.other = g.pendingTx
		return fmt.Sprintf("transactions %d and %d both have uncommitted receives from group %v",
			g.pendingTx, r.Tx, r.Group), "INV-5"
	}
	if msg, rule := c.resultRow(r); msg != "" {
		return msg, rule
	}
	if r.Sequence != model.Unsequenced {
		if f := c.checkedFlow(r.Conversation, r.FromInitiator); f != nil {
			if msg, rule := f.receivable(r); msg != "" {
				return msg, rule
			}
		}
	}
	g.pendingTx = r.Tx
	g.pending++
	c.setGroup(k, g)
	c.dialog(r.Conversation).pending++
	t.pending = append(t.pending, *r)
	return "", ""
}

// rowReturned checks that a rollback returns only a row its transaction took and still
// holds uncommitted (INV-10); the message is receivable again.
func (c *Checker) rowReturned(t *transaction, r *model.TraceRecord) (string, string) {
	i := -1
	if t != nil {
		i = slices.IndexFunc(t.pending, func(p model.TraceRecord) bool {
			return p.Conversation == r.Conversation && p.FromInitiator == r.FromInitiator &&
				p.Sequence == r.Sequence && p.MessageType == r.MessageType
		})
	}
	if i < 0 {
		return fmt.Sprintf("a rollback of transaction %d returned %s, which the transaction did not hold uncommitted",
			r.Tx, rowName(r)), "INV-10"
	}
	c.settle(r.Instance, &t.pending[i])
	t.pending = slices.Delete(t.pending, i, i+1)
	return "", ""
}

// settle takes row p, received on instance, off its group's and its dialog's uncommitted
// receives; the dialog may go then.
func (c *Checker) settle(instance model.InstanceID, p *model.TraceRecord) {
	k := keyOfGroup(instance, p.Group)
	g := c.groups[k]
	if g.pending--; g.pending <= 0 {
		g.pending, g.pendingTx = 0, 0
	}
	c.setGroup(k, g)
	d := c.dialog(p.Conversation)
	if d.pending--; d.pending <= 0 {
		d.pending = 0
		c.release(d)
	}
}

// transactionEnded checks a commit or a rollback: the transaction released every lock
// first (INV-4, LOCK-3); a rollback returned every row it took (INV-10, TXN-1); a commit
// makes its rows received, in the order taken (INV-1, INV-2).
func (c *Checker) transactionEnded(t *transaction, r *model.TraceRecord) (string, string) {
	if t == nil {
		return "", "" // it took no lock (the model traces no end for such a transaction)
	}
	if len(t.locks) > 0 {
		c.blame.group = t.locks[0]
		return fmt.Sprintf("transaction %d ended (%v) still holding the lock of group %v", r.Tx, r.Kind, t.locks[0]), "INV-4"
	}
	// A transaction with a violation is not forgotten, so blame may point into it.
	if r.Kind == model.TraceTxRolledBack && len(t.pending) > 0 {
		c.blame.row = &t.pending[0]
		return fmt.Sprintf("transaction %d rolled back without returning %s, which it received",
			r.Tx, rowName(&t.pending[0])), "INV-10"
	}
	for i := range t.pending {
		p := &t.pending[i]
		// Broker-generated messages are not sequenced (PROTO-3).
		if f := c.checkedFlow(p.Conversation, p.FromInitiator); f != nil && p.Sequence != model.Unsequenced {
			if msg, rule := f.committed(p); msg != "" {
				c.blame.row = p
				return fmt.Sprintf("at the commit of transaction %d: %s", r.Tx, msg), rule
			}
		}
		c.settle(r.Instance, p)
	}
	c.forget(keyOfTx(r.Instance, r.Tx), t)
	return "", ""
}
