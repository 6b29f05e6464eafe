package model

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// TxID identifies a transaction on one instance; later transactions have larger ids.
type TxID uint64

// Transaction errors, as a session sees them. ErrWaiting is not a failure: the statement
// waits for a lock (G-24) or for messages (WAITFOR), and the broker finishes it later,
// listing the transaction in Effects.Completed.
var (
	ErrWaiting             = errors.New("the statement waits")
	ErrTransactionEnded    = errors.New("the transaction has ended")
	ErrStatementPending    = errors.New("the transaction's previous statement is still waiting")
	ErrLockTimeout         = errors.New("lock request time out period exceeded (error 1222)")
	ErrDeadlockVictim      = errors.New("the transaction was chosen as the deadlock victim and rolled back (error 1205)")
	ErrGroupNotFound       = errors.New("the conversation group is not found on this queue")
	ErrSavepointNotFound   = errors.New("no savepoint of that name in the transaction")
	ErrRelatedConversation = errors.New("the related conversation is not found")
	ErrGroupOfOtherService = errors.New("the conversation group belongs to another service")
	ErrMoveAcrossQueues    = errors.New("MOVE CONVERSATION moves only between groups of the same queue")
)

// Tx is a transaction of a simulated session (TXN-1, G-31). Its statements take the
// conversation group locks they need and keep them to the end (LOCK-2, LOCK-3); SEND, END
// CONVERSATION and BEGIN CONVERSATION TIMER take effect at commit, in statement order;
// RECEIVE takes rows off the queue at once, for good at commit, and a rollback puts them
// back exactly where they were (INV-10). A session runs one statement at a time: while one
// waits, the others fail with ErrStatementPending.
type Tx struct {
	id         TxID
	b          *Broker
	began      time.Duration
	done       bool
	autocommit bool
	// lockTimeout is SET LOCK_TIMEOUT; negative waits for ever (G-24's default).
	lockTimeout time.Duration
	locks       []*group
	undo        []undoEntry
	deferred    []deferredEffect
	saves       []savepoint
	ended       []ConversationHandle // ended in this transaction: later statements on them fail
	wait        *wait                // nil, or &waitStore while a statement waits
	waitStore   wait
	// task is the activated task whose session runs the transaction, zero for none.
	task TaskID
	// incarnation is the broker's when the transaction began: a crash ends it (G-13).
	incarnation uint32
	// cur is the statement running or waiting; completed points to it once it finished
	// after waiting, for Result.
	cur       statement
	completed *statement
}

// undoEntry is what a rollback reverses: a received row, a dialog begun, a conversation
// moved.
type undoEntry struct {
	kind undoKind
	ep   *endpoint
	msg  queuedMessage
	from *group // undoMove: the group it came from
}

type undoKind uint8

const (
	undoReceive undoKind = iota + 1
	undoBegin
	undoMove
)

// deferredEffect is a statement whose effect waits for commit (G-31).
type deferredEffect struct {
	kind    deferredKind
	ep      *endpoint
	msgType MessageTypeID
	bytes   int64
	end     EndOptions
	timeout time.Duration
}

type deferredKind uint8

const (
	deferredSend deferredKind = iota + 1
	deferredEnd
	deferredTimer
)

// savepoint marks how far a rollback to it undoes.
type savepoint struct {
	name                  string
	undo, deferred, ended int
}

// Begin starts a transaction (BEGIN TRANSACTION).
func (b *Broker) Begin(now time.Duration) *Tx {
	b.checkUp("BEGIN TRANSACTION", now)
	b.now = now
	b.txCounter++
	n := len(b.txPool)
	if n == 0 {
		return &Tx{id: TxID(b.txCounter), b: b, began: now, lockTimeout: -1, incarnation: b.incarnation}
	}
	t := b.txPool[n-1]
	b.txPool = b.txPool[:n-1]
	locks, undo, deferred := t.locks[:0], t.undo[:0], t.deferred[:0]
	*t = Tx{id: TxID(b.txCounter), b: b, began: now, lockTimeout: -1, locks: locks, undo: undo, deferred: deferred,
		incarnation: b.incarnation}
	return t
}

// autocommit starts the transaction of one statement outside BEGIN TRANSACTION.
func (b *Broker) autocommit(now time.Duration) *Tx {
	t := b.Begin(now)
	t.autocommit = true
	return t
}

// Recycle hands an ended transaction back to the broker, which may reuse it for a later
// Begin: the caller must not use t again. A session that begins many transactions recycles
// each one after its end, so that running them allocates nothing.
func (b *Broker) Recycle(t *Tx) {
	if t.done && t.wait == nil && len(b.txPool) < 64 {
		b.txPool = append(b.txPool, t)
	}
}

// recycle keeps an autocommit transaction that ended without ever waiting, so nothing
// refers to it any more, for the next statement.
func (b *Broker) recycle(t *Tx) {
	if t.autocommit && t.completed == nil {
		b.Recycle(t)
	}
}

// ID returns the transaction's id.
func (t *Tx) ID() TxID { return t.id }

// Done reports whether the transaction has committed or rolled back.
func (t *Tx) Done() bool { return t.done }

// Waiting reports whether a statement of the transaction waits.
func (t *Tx) Waiting() bool { return t.wait != nil }

// SetLockTimeout is SET LOCK_TIMEOUT: how long a statement waits for a group locked by
// another transaction before it fails with ErrLockTimeout; negative waits for ever (G-24).
func (t *Tx) SetLockTimeout(d time.Duration) { t.lockTimeout = d }

// Locks returns the groups whose locks the transaction holds, in the order taken.
func (t *Tx) Locks() []ConversationGroupID {
	ids := make([]ConversationGroupID, len(t.locks))
	for i, g := range t.locks {
		ids[i] = g.id
	}
	return ids
}

// Result returns what the statement that last completed after waiting returned: the rows of
// a RECEIVE (appended to buf), the group of a GET CONVERSATION GROUP, the handle of a BEGIN
// DIALOG.
func (t *Tx) Result(buf []ReceivedMessage) ([]ReceivedMessage, ConversationGroupID, ConversationHandle) {
	st := t.completed
	if st == nil {
		return buf, 0, 0
	}
	return append(buf, st.rows...), st.result, st.handle
}

// Commit is COMMIT TRANSACTION: the deferred statements take effect in order, the
// received rows are gone for good, and every lock is released (LOCK-3).
func (t *Tx) Commit(now time.Duration) error {
	t.checkIncarnation("COMMIT", now)
	switch {
	case t.done:
		return ErrTransactionEnded
	case t.wait != nil:
		return ErrStatementPending
	}
	t.b.now = now
	t.b.commit(now, t)
	return nil
}

func (b *Broker) commit(now time.Duration, t *Tx) {
	for _, d := range t.deferred {
		ep := d.ep
		switch d.kind {
		case deferredSend:
			if ep.deleted || !ep.state.canSend() {
				// An Error or the lifetime's end came after the statement: like a row in the
				// transmission queue, the message is dropped with the dialog's others.
				b.counters.SendsDropped++
				b.marks[MarkSendDropped]++
				continue
			}
			if ep.state == StartedOutbound {
				b.setState(now, ep, Conversing)
			}
			b.queueRow(now, ep, d.msgType, d.bytes, 0)
		case deferredEnd:
			if !ep.deleted && ep.state != Closed && (ep.state != DisconnectedOutbound || d.end.WithCleanup) {
				b.endConversation(now, ep, d.end)
			}
		case deferredTimer:
			if !ep.deleted && ep.grp != nil {
				ep.timerAt = now + d.timeout
				b.timer(ep.timerAt, TimerDialog, uint64(ep.handle))
			}
		}
	}
	received := 0
	for i := range t.undo {
		if u := &t.undo[i]; u.kind == undoReceive {
			received++
			b.queueOf(u.ep).rollbacks = 0 // G-14: a commit ends the run of rollbacks
		}
	}
	b.counters.MessagesReceived += int64(received)
	b.counters.Commits++
	b.finish(now, t, TraceTxCommitted)
	b.pump(now)
}

// Rollback is ROLLBACK TRANSACTION: every received row goes back where it was, dialogs
// begun in the transaction are gone, moved conversations go back, deferred statements are
// dropped, and every lock is released (TXN-1, LOCK-3, INV-10). A transaction that had
// received from a queue counts against it for poison detection (QUE-8, G-14).
func (t *Tx) Rollback(now time.Duration) error {
	t.checkIncarnation("ROLLBACK", now)
	if t.done {
		return ErrTransactionEnded
	}
	t.b.now = now
	if t.wait != nil {
		st := t.wait.stmt
		t.b.stopWaiting(t)
		t.wait = nil
		st.err = ErrTransactionEnded
	}
	t.b.rollback(now, t, nil)
	t.b.pump(now)
	return nil
}

// rollback undoes t back to sp (the whole transaction when sp is nil).
func (b *Broker) rollback(now time.Duration, t *Tx, sp *savepoint) {
	undoFrom, deferredFrom, endedFrom := 0, 0, 0
	if sp != nil {
		undoFrom, deferredFrom, endedFrom = sp.undo, sp.deferred, sp.ended
	}
	var poisoned []*serviceQueue
	for i := len(t.undo) - 1; i >= undoFrom; i-- {
		u := &t.undo[i]
		switch u.kind {
		case undoReceive:
			ep := u.ep
			q := b.queueOf(ep)
			if sp == nil && !slices.Contains(poisoned, q) {
				poisoned = append(poisoned, q)
			}
			b.marks[MarkMessageReturned]++
			b.trace(TraceRecord{At: now, Kind: TraceMessageReturned, Tx: t.id, Conversation: ep.conv, FromInitiator: !ep.isInitiator,
				Sequence: u.msg.seq, MessageType: u.msg.msgType, Group: ep.group})
			if ep.deleted || ep.grp == nil {
				continue // the conversation ended meanwhile: its messages are gone with it
			}
			ep.ready = insertReady(b.buf.ready.grow(ep.ready), u.msg)
			b.readyChanged(ep)
		case undoBegin:
			b.leave(u.ep)
			b.delete(u.ep)
		case undoMove:
			b.move(u.ep, u.from)
		}
		t.undo[i] = undoEntry{}
	}
	t.undo = t.undo[:undoFrom]
	clear(t.deferred[deferredFrom:])
	t.deferred = t.deferred[:deferredFrom]
	t.ended = t.ended[:endedFrom]
	if sp != nil {
		return
	}
	if b.crashing {
		poisoned = nil // a crash's rollback is no application's, and the poison counters are lost with it (G-13)
	}
	for _, q := range poisoned {
		q.rollbacks++
		if q.rollbacks >= poisonRollbacks && !b.cat.Queues[q.id].PoisonMessageHandlingOff && q.status == QueueOn {
			b.counters.PoisonDisables++
			b.marks[MarkPoisonDisabled]++
			q.rollbacks = 0 // set ON again, the queue takes five more rollbacks to turn OFF
			b.trace(TraceRecord{At: now, Kind: TraceQueueDisabled, Tx: t.id, Queue: q.id})
			b.effects.QueueDisabled = append(b.effects.QueueDisabled, q.id)
			b.setQueueStatus(now, q, QueueOff)
		}
	}
	b.counters.Rollbacks++
	b.finish(now, t, TraceTxRolledBack)
	for _, q := range poisoned { // ACT-3: a rollback of a transaction that received
		if q.monitor != nil {
			b.monitorEvent(now, q.monitor, false)
		}
	}
}

// poisonRollbacks is how many consecutive rollbacks of receiving transactions turn a queue
// OFF (QUE-8, G-14).
const poisonRollbacks = 5

// finish releases t's locks, first come first served to the transactions waiting for
// them (G-24), and ends it.
func (b *Broker) finish(now time.Duration, t *Tx, kind TraceKind) {
	t.done = true
	locks := t.locks
	t.locks = nil
	for _, g := range locks {
		b.release(now, t, g)
	}
	if len(locks) > 0 { // a transaction that took no lock did nothing to trace
		b.trace(TraceRecord{At: now, Kind: kind, Tx: t.id})
	}
	clear(t.undo)
	clear(t.deferred)
	t.undo, t.deferred, t.saves, t.ended = t.undo[:0], t.deferred[:0], nil, nil
	for _, g := range locks {
		if g.holder == nil {
			b.handOff(now, g)
		}
	}
	clear(locks)
	t.locks = locks[:0]
}

// Save is SAVE TRANSACTION name.
func (t *Tx) Save(now time.Duration, name string) error {
	t.checkIncarnation("SAVE TRANSACTION", now)
	switch {
	case t.done:
		return ErrTransactionEnded
	case t.wait != nil:
		return ErrStatementPending
	}
	t.saves = append(t.saves, savepoint{name: name, undo: len(t.undo), deferred: len(t.deferred), ended: len(t.ended)})
	return nil
}

// RollbackTo is ROLLBACK TRANSACTION savepoint: what the transaction did since the
// savepoint is undone, received rows go back to the queue, and every lock stays held
// (TXN-3, LOCK-3). It does not count for poison detection (G-14).
func (t *Tx) RollbackTo(now time.Duration, name string) error {
	t.checkIncarnation("ROLLBACK TRANSACTION savepoint", now)
	switch {
	case t.done:
		return ErrTransactionEnded
	case t.wait != nil:
		return ErrStatementPending
	}
	i := len(t.saves) - 1
	for i >= 0 && t.saves[i].name != name {
		i--
	}
	if i < 0 {
		return fmt.Errorf("ROLLBACK TRANSACTION %q: %w", name, ErrSavepointNotFound)
	}
	t.b.now = now
	sp := t.saves[i]
	t.saves = t.saves[:i+1] // the savepoint stays; later ones go
	t.b.rollback(now, t, &sp)
	t.b.trace(TraceRecord{At: now, Kind: TraceSavepointRolledBack, Tx: t.id})
	t.b.pump(now)
	return nil
}
