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

// wait is a statement waiting: for a group's lock, or for messages on a queue.
type wait struct {
	lock  *group        // waiting for this group's lock
	queue *serviceQueue // waiting for messages (RECEIVE or GET CONVERSATION GROUP WAITFOR)
	stmt  *statement
	since time.Duration
}

// LockWait is one wait for a conversation group's lock that has ended (G-24): granted, or
// given up on a time-out, a deadlock or a rollback.
type LockWait struct {
	Tx      TxID
	Group   ConversationGroupID
	Queue   QueueID
	Waited  time.Duration
	Granted bool
}

// lockWaitEnded reports the end of t's wait for g's lock in the effects.
func (b *Broker) lockWaitEnded(t *Tx, g *group, granted bool) {
	b.effects.LockWaits = append(b.effects.LockWaits, LockWait{Tx: t.id, Group: g.id, Queue: g.queue.id,
		Waited: b.now - t.wait.since, Granted: granted})
}

// statement is one statement of a transaction, kept while it waits.
type statement struct {
	kind        statementKind
	number      uint64
	queue       QueueID
	handle      ConversationHandle
	group       ConversationGroupID
	top         int
	waitFor     bool
	deadline    time.Duration // WAITFOR TIMEOUT; negative: none
	lockExpires time.Duration // SET LOCK_TIMEOUT; negative: none
	armedAt     time.Duration // the time-out timer asked for, negative for none
	// BEGIN DIALOG
	from, to ServiceID
	contract ContractID
	opts     BeginDialogOptions
	// SEND, END, TIMER
	msgType MessageTypeID
	bytes   int64
	end     EndOptions
	timeout time.Duration
	// results
	rows   []ReceivedMessage
	result ConversationGroupID
	err    error
}

type statementKind uint8

const (
	stmtBeginDialog statementKind = iota + 1
	stmtSend
	stmtEnd
	stmtTimer
	stmtMove
	stmtReceive
	stmtGetGroup
)

// Completion says that a statement that waited has finished: Err is its outcome, and
// Tx.Result gives its rows or group.
type Completion struct {
	Tx  TxID
	Err error
}

// Begin starts a transaction (BEGIN TRANSACTION).
func (b *Broker) Begin(now time.Duration) *Tx {
	b.now = now
	b.txCounter++
	n := len(b.txPool)
	if n == 0 {
		return &Tx{id: TxID(b.txCounter), b: b, began: now, lockTimeout: -1}
	}
	t := b.txPool[n-1]
	b.txPool = b.txPool[:n-1]
	locks, undo, deferred := t.locks[:0], t.undo[:0], t.deferred[:0]
	*t = Tx{id: TxID(b.txCounter), b: b, began: now, lockTimeout: -1, locks: locks, undo: undo, deferred: deferred}
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

// start checks that the transaction can run a statement, numbers it, and makes it the
// transaction's current statement.
func (t *Tx) start(now time.Duration, st statement) (*statement, error) {
	switch {
	case t.done:
		return nil, ErrTransactionEnded
	case t.wait != nil:
		return nil, ErrStatementPending
	}
	t.b.now = now
	t.b.statements++
	st.number = t.b.statements
	st.deadline, st.lockExpires, st.armedAt = -1, -1, -1
	if t.lockTimeout >= 0 {
		st.lockExpires = now + t.lockTimeout
	}
	t.cur = st
	return &t.cur, nil
}

// run executes a started statement; a statement that waits returns ErrWaiting.
func (t *Tx) run(now time.Duration, st *statement) error {
	if !t.exec(now, st) {
		return ErrWaiting
	}
	return st.err
}

// exec executes st and reports whether it finished; when it did not, t waits.
func (t *Tx) exec(now time.Duration, st *statement) bool {
	b := t.b
	switch st.kind {
	case stmtReceive, stmtGetGroup:
		return b.execReceive(now, t, st)
	case stmtBeginDialog:
		return b.execBeginDialog(now, t, st)
	case stmtMove:
		return b.execMove(now, t, st)
	}
	// SEND, END CONVERSATION, BEGIN CONVERSATION TIMER: lock the conversation's group,
	// then defer the effect to commit.
	ep, err := t.liveEndpoint(st.handle, st.kind, st.kind == stmtEnd && st.end.WithCleanup)
	if err != nil {
		st.err = err
		return true
	}
	if st.kind == stmtSend {
		if err := b.checkSend(ep, st.msgType, st.bytes); err != nil {
			st.err = err
			return true
		}
	}
	if st.kind == stmtEnd && st.end.WithError && st.end.ErrorCode <= 0 {
		st.err = fmt.Errorf("END CONVERSATION %v WITH ERROR = %d: the code must be positive", st.handle, st.end.ErrorCode)
		return true
	}
	if ep.grp != nil && !t.lock(now, ep.grp, st) { // an endpoint stuck in DO has left its group
		return false
	}
	switch st.kind {
	case stmtSend:
		t.deferred = append(t.deferred, deferredEffect{kind: deferredSend, ep: ep, msgType: st.msgType, bytes: st.bytes})
	case stmtEnd:
		t.deferred = append(t.deferred, deferredEffect{kind: deferredEnd, ep: ep, end: st.end})
		t.ended = append(t.ended, ep.handle)
	case stmtTimer:
		t.deferred = append(t.deferred, deferredEffect{kind: deferredTimer, ep: ep, timeout: st.timeout})
	}
	return true
}

var statementNames = [...]string{"", "BEGIN DIALOG", "SEND", "END CONVERSATION", "BEGIN CONVERSATION TIMER",
	"MOVE CONVERSATION", "RECEIVE", "GET CONVERSATION GROUP"}

// liveEndpoint finds the endpoint a statement names: live (DLG-11) and not ended earlier in
// this transaction. END CONVERSATION WITH CLEANUP also reaches an endpoint stuck in DO.
func (t *Tx) liveEndpoint(h ConversationHandle, kind statementKind, cleanup bool) (*endpoint, error) {
	name := statementNames[kind]
	if slices.Contains(t.ended, h) {
		return nil, fmt.Errorf("%s on %v: %w", name, h, ErrHandleNotFound)
	}
	ep, err := t.b.liveEndpoint(h, name, cleanup)
	if err != nil {
		return nil, err
	}
	return ep, nil
}

// lock takes g's lock for t, or makes t wait for it (G-24) and reports false.
func (t *Tx) lock(now time.Duration, g *group, st *statement) bool {
	switch {
	case g.holder == t:
		return true
	case g.holder == nil:
		t.b.acquire(now, t, g)
		return true
	}
	b := t.b
	t.waitStore = wait{lock: g, stmt: st, since: now}
	t.wait = &t.waitStore
	g.waiters = append(g.waiters, t)
	b.trace(TraceRecord{At: now, Kind: TraceLockWait, Tx: t.id, Group: g.id, Statement: st.number, HolderTx: g.holder.id})
	b.armDeadline(t, st)
	b.resolveDeadlock(now, t)
	return false
}

// acquire gives g's lock to t (LOCK-6): the group leaves its queue's heap of available
// groups.
func (b *Broker) acquire(now time.Duration, t *Tx, g *group) {
	g.holder = t
	t.locks = append(t.locks, g)
	b.trace(TraceRecord{At: now, Kind: TraceLockAcquired, Tx: t.id, Group: g.id})
	b.groupChanged(g)
}

// armDeadline asks for a timer at the earlier of the statement's WAITFOR time-out and its
// lock time-out, once per statement.
func (b *Broker) armDeadline(t *Tx, st *statement) {
	b.waiting[t.id] = t
	at := st.deadline
	if t.wait.lock != nil && st.lockExpires >= 0 && (at < 0 || st.lockExpires < at) {
		at = st.lockExpires
	}
	if at >= 0 && at != st.armedAt {
		st.armedAt = at
		b.timer(at, TimerStatement, uint64(t.id))
	}
}

// statementTimedOut ends the wait of t's statement whose time-out came: a RECEIVE or GET
// CONVERSATION GROUP returns nothing (QUE-4, QUE-5), a lock wait fails with ErrLockTimeout.
func (b *Broker) statementTimedOut(now time.Duration, id TxID) {
	t := b.waiting[id]
	if t == nil || t.wait == nil {
		return
	}
	st := t.wait.stmt
	expired := (st.deadline >= 0 && now >= st.deadline) || (t.wait.lock != nil && st.lockExpires >= 0 && now >= st.lockExpires)
	if !expired {
		return
	}
	q := t.wait.queue
	b.stopWaiting(t)
	if t.wait = nil; st.deadline >= 0 && now >= st.deadline {
		st.err = nil // WAITFOR ran out: an empty result
		if q != nil {
			b.monitorReceived(now, t, q, st, true, false)
		}
	} else {
		st.err = fmt.Errorf("%s in transaction %d: %w", statementNames[st.kind], t.id, ErrLockTimeout)
	}
	b.complete(now, t, st)
}

// stopWaiting takes t out of the list it waits in.
func (b *Broker) stopWaiting(t *Tx) {
	w := t.wait
	switch {
	case w == nil:
	case w.lock != nil:
		b.lockWaitEnded(t, w.lock, false)
		w.lock.waiters = slices.DeleteFunc(w.lock.waiters, func(x *Tx) bool { return x == t })
		b.maybeForget(w.lock)
	case w.queue != nil:
		w.queue.waiters = slices.DeleteFunc(w.queue.waiters, func(x *Tx) bool { return x == t })
	}
	delete(b.waiting, t.id)
}

// complete reports a statement that waited and has now finished; an autocommit statement's
// transaction ends with it.
func (b *Broker) complete(now time.Duration, t *Tx, st *statement) {
	delete(b.waiting, t.id)
	t.completed = st
	b.effects.Completed = append(b.effects.Completed, Completion{Tx: t.id, Err: st.err})
	if t.autocommit && !t.done {
		if st.err != nil {
			b.rollback(now, t, nil)
		} else {
			b.commit(now, t)
		}
	}
}

// resume runs again the statement of t, which was waiting and may now go on.
func (b *Broker) resume(now time.Duration, t *Tx) {
	st := t.wait.stmt
	t.wait = nil
	if t.exec(now, st) {
		b.complete(now, t, st)
	}
}

// resolveDeadlock follows the wait-for graph from t, which has just started waiting for a
// lock; on a cycle it rolls back the youngest transaction in it with ErrDeadlockVictim
// (G-24). Each transaction waits for at most one lock, so the walk is a path.
func (b *Broker) resolveDeadlock(now time.Duration, t *Tx) {
	cycle := []*Tx{t}
	for h := t.wait.lock.holder; h != t; h = h.wait.lock.holder {
		if h.wait == nil || h.wait.lock == nil || len(cycle) > len(b.waiting)+1 {
			return
		}
		cycle = append(cycle, h)
	}
	victim := cycle[0]
	for _, x := range cycle[1:] {
		if x.began > victim.began || (x.began == victim.began && x.id > victim.id) {
			victim = x
		}
	}
	b.counters.Deadlocks++
	b.trace(TraceRecord{At: now, Kind: TraceDeadlock, Tx: victim.id, Group: victim.wait.lock.id, Statement: victim.wait.stmt.number})
	st := victim.wait.stmt
	b.stopWaiting(victim)
	victim.wait = nil
	st.err = fmt.Errorf("%s in transaction %d: %w", statementNames[st.kind], victim.id, ErrDeadlockVictim)
	victim.autocommit = false // the rollback below ends it
	b.rollback(now, victim, nil)
	b.complete(now, victim, st)
	b.pump(now) // the rows the victim returns wake the sessions waiting in RECEIVE
}

// Commit is COMMIT TRANSACTION: the deferred statements take effect in order, the
// received rows are gone for good, and every lock is released (LOCK-3).
func (t *Tx) Commit(now time.Duration) error {
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
			b.trace(TraceRecord{At: now, Kind: TraceMessageReturned, Tx: t.id, Conversation: ep.conv, FromInitiator: !ep.isInitiator,
				Sequence: u.msg.seq, MessageType: u.msg.msgType, Group: ep.group})
			if ep.deleted || ep.grp == nil {
				continue // the conversation ended meanwhile: its messages are gone with it
			}
			ep.ready = insertReady(ep.ready, u.msg)
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
	for _, q := range poisoned {
		q.rollbacks++
		if q.rollbacks >= poisonRollbacks && !b.cat.Queues[q.id].PoisonMessageHandlingOff && q.status == QueueOn {
			b.counters.PoisonDisables++
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
		g.holder = nil
		b.trace(TraceRecord{At: now, Kind: TraceLockReleased, Tx: t.id, Group: g.id})
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

// handOff gives a released group's lock to its first waiter, or puts it back among its
// queue's available groups.
func (b *Broker) handOff(now time.Duration, g *group) {
	for g.holder == nil && len(g.waiters) > 0 {
		w := g.waiters[0]
		g.waiters = slices.Delete(g.waiters, 0, 1)
		if w.done || w.wait == nil || w.wait.lock != g {
			continue
		}
		b.lockWaitEnded(w, g, true)
		b.acquire(now, w, g)
		b.resume(now, w)
	}
	b.groupChanged(g)
	b.maybeForget(g)
}

// Save is SAVE TRANSACTION name.
func (t *Tx) Save(now time.Duration, name string) error {
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

// BeginDialog is BEGIN DIALOG in the transaction (DLG-1, DLG-2): the new endpoint joins a
// new group, the related conversation's group, or the named group (created when it does
// not exist), and the transaction locks that group (LOCK-10).
func (t *Tx) BeginDialog(now time.Duration, from, to ServiceID, contract ContractID, opts BeginDialogOptions) (ConversationHandle, error) {
	st, err := t.start(now, statement{kind: stmtBeginDialog, from: from, to: to, contract: contract, opts: opts})
	if err != nil {
		return 0, err
	}
	err = t.run(now, st)
	return st.handle, err
}

// Send is SEND ON CONVERSATION in the transaction: it locks the conversation's group
// (LOCK-9); the message gets its sequence number and leaves at commit (TXN-1, G-31).
func (t *Tx) Send(now time.Duration, h ConversationHandle, mt MessageTypeID, bytes int64) error {
	st, err := t.start(now, statement{kind: stmtSend, handle: h, msgType: mt, bytes: bytes})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// EndConversation is END CONVERSATION in the transaction: it locks the group (LOCK-10) and
// takes effect at commit.
func (t *Tx) EndConversation(now time.Duration, h ConversationHandle, opts EndOptions) error {
	st, err := t.start(now, statement{kind: stmtEnd, handle: h, end: opts})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// BeginConversationTimer is BEGIN CONVERSATION TIMER (h) TIMEOUT = timeout: it locks the
// group; at commit it (re)sets the endpoint's one timer, whose expiry puts a DialogTimer
// message on this side's queue (DLG-14).
func (t *Tx) BeginConversationTimer(now time.Duration, h ConversationHandle, timeout time.Duration) error {
	if timeout < 0 {
		return fmt.Errorf("BEGIN CONVERSATION TIMER on %v: time-out %v is negative", h, timeout)
	}
	st, err := t.start(now, statement{kind: stmtTimer, handle: h, timeout: timeout})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// MoveConversation is MOVE CONVERSATION h TO group: it locks the source group, then the
// destination (LOCK-11); both must belong to the same queue. The conversation moves at
// once, with its ready messages; a rollback moves it back.
func (t *Tx) MoveConversation(now time.Duration, h ConversationHandle, to ConversationGroupID) error {
	st, err := t.start(now, statement{kind: stmtMove, handle: h, group: to})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// ReceiveOptions are RECEIVE's clauses (QUE-4).
type ReceiveOptions struct {
	// Top is TOP(n); zero or less means no TOP.
	Top int
	// Handle and Group are WHERE conversation_handle = / conversation_group_id =; at most
	// one is set.
	Handle ConversationHandle
	Group  ConversationGroupID
	// WaitFor waits for messages, at most Timeout when it is not negative.
	WaitFor bool
	Timeout time.Duration
}

// Receive is RECEIVE in the transaction (QUE-4, PRI-9, LOCK-7, LOCK-8): the messages of one
// group, the highest-priority group not locked by another transaction (one this one holds
// counts), conversations by level inside it, each conversation's messages in order; the
// group stays locked to the end of the transaction. With WHERE, the named group waits for
// its lock (G-24). With WAITFOR and nothing to receive, it waits (ErrWaiting).
func (t *Tx) Receive(now time.Duration, queue QueueID, opts ReceiveOptions, buf []ReceivedMessage) ([]ReceivedMessage, error) {
	if opts.Handle != 0 && opts.Group != 0 {
		return buf, errors.New("RECEIVE: WHERE names a conversation handle or a group, not both")
	}
	st, err := t.start(now, statement{kind: stmtReceive, queue: queue, handle: opts.Handle, group: opts.Group, top: opts.Top, waitFor: opts.WaitFor})
	if err != nil {
		return buf, err
	}
	st.rows = buf
	if opts.WaitFor && opts.Timeout >= 0 {
		st.deadline = now + opts.Timeout
	}
	err = t.run(now, st)
	if err == ErrWaiting {
		st.rows = st.rows[len(buf):len(buf)] // the rows come with the completion
		return buf, err
	}
	return st.rows, err
}

// GetConversationGroup is GET CONVERSATION GROUP FROM queue (QUE-5): the next group that
// can be locked, has ready messages and has the highest priority, locked to the end of the
// transaction (LOCK-8); zero when there is none, or when WAITFOR ran out.
func (t *Tx) GetConversationGroup(now time.Duration, queue QueueID, waitFor bool, timeout time.Duration) (ConversationGroupID, error) {
	st, err := t.start(now, statement{kind: stmtGetGroup, queue: queue, waitFor: waitFor})
	if err != nil {
		return 0, err
	}
	if waitFor && timeout >= 0 {
		st.deadline = now + timeout
	}
	err = t.run(now, st)
	return st.result, err
}

// execBeginDialog runs BEGIN DIALOG.
func (b *Broker) execBeginDialog(now time.Duration, t *Tx, st *statement) bool {
	from, to, contract, opts := st.from, st.to, st.contract, st.opts
	if err := b.checkBeginDialog(from, to, contract, opts); err != nil {
		st.err = err
		return true
	}
	var g *group
	switch {
	case opts.RelatedConversation != 0:
		rel := b.endpoints[opts.RelatedConversation]
		if rel == nil || rel.deleted || rel.grp == nil {
			st.err = fmt.Errorf("BEGIN DIALOG WITH RELATED_CONVERSATION = %v: %w", opts.RelatedConversation, ErrRelatedConversation)
			return true
		}
		g = rel.grp
	case opts.RelatedConversationGroup != 0:
		g = b.groups[opts.RelatedConversationGroup]
		if g == nil {
			g = b.newGroup(opts.RelatedConversationGroup, from) // DLG-2: a new group with that id
		}
	}
	if g != nil && g.service != from {
		st.err = fmt.Errorf("BEGIN DIALOG FROM SERVICE %q in group %v: %w", b.cat.Services[from].Name, g.id, ErrGroupOfOtherService)
		b.maybeForget(g)
		return true
	}
	if g != nil && !t.lock(now, g, st) {
		return false
	}
	ep := b.beginDialog(now, from, to, contract, opts, g)
	if g == nil {
		b.acquire(now, t, ep.grp)
	}
	t.undo = append(t.undo, undoEntry{kind: undoBegin, ep: ep})
	st.handle = ep.handle
	return true
}

// execMove runs MOVE CONVERSATION.
func (b *Broker) execMove(now time.Duration, t *Tx, st *statement) bool {
	ep, err := t.liveEndpoint(st.handle, stmtMove, false)
	if err != nil {
		st.err = err
		return true
	}
	dst := b.groups[st.group]
	if dst == nil {
		st.err = fmt.Errorf("MOVE CONVERSATION %v TO %v: %w", st.handle, st.group, ErrGroupNotFound)
		return true
	}
	if dst.queue != ep.grp.queue {
		st.err = fmt.Errorf("MOVE CONVERSATION %v TO %v: %w", st.handle, st.group, ErrMoveAcrossQueues)
		return true
	}
	src := ep.grp
	if !t.lock(now, src, st) || !t.lock(now, dst, st) {
		return false
	}
	if src == dst {
		return true
	}
	b.move(ep, dst)
	t.undo = append(t.undo, undoEntry{kind: undoMove, ep: ep, from: src})
	return true
}

// move puts ep, with its ready messages, in group dst.
func (b *Broker) move(ep *endpoint, dst *group) {
	src := ep.grp
	rows := ep.ready
	ep.ready = nil
	b.readyChanged(ep) // out of src's heaps
	src.members--
	b.join(ep, dst)
	if ep.ready = rows; len(rows) > 0 {
		b.readyChanged(ep)
	}
	b.maybeForget(src)
}

// execReceive runs RECEIVE and GET CONVERSATION GROUP.
func (b *Broker) execReceive(now time.Duration, t *Tx, st *statement) bool {
	name := statementNames[st.kind]
	q, err := b.localQueue(st.queue)
	if err != nil {
		st.err = fmt.Errorf("%s: %w", name, err)
		return true
	}
	if q.status == QueueOff {
		st.err = fmt.Errorf("%s FROM queue %q: %w", name, b.cat.Queues[q.id].Name, ErrQueueDisabled)
		return true
	}
	var g *group
	var only *endpoint
	where := st.handle != 0 || st.group != 0
	switch {
	case st.handle != 0:
		ep := b.endpoints[st.handle]
		if ep == nil || ep.deleted || ep.grp == nil || ep.grp.queue != q || slices.Contains(t.ended, st.handle) {
			st.err = fmt.Errorf("%s WHERE conversation_handle = %v: %w", name, st.handle, ErrHandleNotFound)
			return true
		}
		g, only = ep.grp, ep
	case st.group != 0:
		g = b.groups[st.group]
		if g == nil || g.queue != q {
			st.err = fmt.Errorf("%s WHERE conversation_group_id = %v: %w", name, st.group, ErrGroupNotFound)
			return true
		}
	default:
		g = b.bestGroup(t, q, st.kind == stmtReceive) // never a group another transaction holds (LOCK-7)
	}
	if where && !t.lock(now, g, st) {
		return false
	}
	hasRows := g != nil && g.hasReady() && (only == nil || len(only.ready) > 0)
	if !hasRows {
		if st.waitFor && (st.deadline < 0 || now < st.deadline) {
			t.waitStore = wait{queue: q, stmt: st, since: now}
			t.wait = &t.waitStore
			q.waiters = append(q.waiters, t)
			b.armDeadline(t, st)
			b.monitorReceived(now, t, q, st, false, false) // it runs, and waits (ACT-4b)
			return false
		}
		b.monitorReceived(now, t, q, st, true, false) // nothing, or WAITFOR ran out: an empty result
		return true
	}
	if g.holder == nil {
		b.acquire(now, t, g)
	}
	if st.kind == stmtGetGroup {
		st.result = g.id
	} else {
		b.take(now, t, st, g, only)
	}
	b.monitorReceived(now, t, q, st, true, true)
	return true
}

// take moves the rows of one RECEIVE from group g (or from conversation only) into the
// result: conversations by level, each one's rows in receive order, up to TOP (PRI-9).
func (b *Broker) take(now time.Duration, t *Tx, st *statement, g *group, only *endpoint) {
	n := st.top
	if n <= 0 {
		n = int(^uint(0) >> 1)
	}
	retention := b.cat.Queues[g.queue.id].Retention
	for n > 0 {
		ep := only
		if ep == nil {
			if !g.hasReady() {
				break
			}
			ep = g.byLevel.top()
		}
		k := min(n, len(ep.ready))
		for _, m := range ep.ready[:k] {
			row := b.received(ep, m)
			if retention {
				row.Status = 0 // QUE-3: kept, and shown as received
			}
			st.rows = append(st.rows, row)
			t.undo = append(t.undo, undoEntry{kind: undoReceive, ep: ep, msg: m})
			b.trace(TraceRecord{At: now, Kind: TraceMessageReceived, Tx: t.id, Statement: st.number, Group: g.id,
				Conversation: ep.conv, FromInitiator: !ep.isInitiator, Priority: ep.priority, Sequence: m.seq,
				MessageType: m.msgType, Bytes: m.bytes, SentAt: m.sentAt})
		}
		ep.ready = slices.Delete(ep.ready, 0, k)
		b.readyChanged(ep)
		n -= k
		if only != nil {
			break
		}
	}
}

// wakeReceivers runs again the RECEIVE and GET CONVERSATION GROUP statements waiting on
// the queues where messages may have become receivable, first come first served.
// A statement resumed here may end its transaction, which may list queues again: they are
// served by the loop that is running, not by a nested one.
func (b *Broker) wakeReceivers(now time.Duration) {
	if b.waking {
		return
	}
	b.waking = true
	for len(b.wake) > 0 {
		q := b.wake[0]
		b.wake = slices.Delete(b.wake, 0, 1)
		q.wakeListed = false
		waiters := q.waiters
		q.waiters = q.spareWaiters[:0] // the two lists take turns, so waking allocates nothing
		for _, t := range waiters {
			switch {
			case t.done || t.wait == nil || t.wait.queue != q:
			case q.status == QueueOn && q.groups.empty() && !(t.wait.stmt.kind == stmtReceive && heldGroupReady(t, q)):
				q.waiters = append(q.waiters, t) // still nothing for it: it keeps its place
			default:
				b.resume(now, t)
			}
		}
		clear(waiters)
		q.spareWaiters = waiters[:0]
	}
	b.waking = false
}

func heldGroupReady(t *Tx, q *serviceQueue) bool {
	for _, g := range t.locks {
		if g.queue == q && g.hasReady() {
			return true
		}
	}
	return false
}

// wakeQueue notes that q's waiting receivers may go on.
func (b *Broker) wakeQueue(q *serviceQueue) {
	if len(q.waiters) > 0 && !q.wakeListed {
		q.wakeListed = true
		b.wake = append(b.wake, q)
	}
}
