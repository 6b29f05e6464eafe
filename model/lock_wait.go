package model

import (
	"fmt"
	"slices"
	"time"
)

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

// Completion says that a statement that waited has finished: Err is its outcome, and
// Tx.Result gives its rows or group.
type Completion struct {
	Tx  TxID
	Err error
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
	if b.shareHeld(now, t, g) {
		return true
	}
	t.waitStore = wait{lock: g, stmt: st, since: now}
	t.wait = &t.waitStore
	g.waiters = append(g.waiters, t)
	b.marks[MarkLockWait]++
	b.trace(TraceRecord{At: now, Kind: TraceLockWait, Tx: t.id, Group: g.id, Statement: st.number, HolderTx: g.holder.id})
	b.armDeadline(t, st)
	b.resolveDeadlock(now, t)
	return false
}

// acquire gives g's lock to t (LOCK-6): the group leaves its queue's heap of available
// groups.
func (b *Broker) acquire(now time.Duration, t *Tx, g *group) {
	checkAcquire(now, t, g)
	g.holder = t
	t.locks = append(t.locks, g)
	b.trace(TraceRecord{At: now, Kind: TraceLockAcquired, Tx: t.id, Group: g.id})
	b.groupChanged(g)
}

// release gives up t's lock on g as t ends (LOCK-3). The caller hands the lock on.
func (b *Broker) release(now time.Duration, t *Tx, g *group) {
	checkRelease(now, t, g)
	g.holder = nil
	b.trace(TraceRecord{At: now, Kind: TraceLockReleased, Tx: t.id, Group: g.id})
}

// checkAcquire and checkRelease are the two halves of one assertion: a group lock has at
// most one holder (LOCK-6), it is taken only while free by a transaction that runs, and it
// is released only by its holder.
func checkAcquire(now time.Duration, t *Tx, g *group) {
	switch {
	case g.holder == t:
		bug("conversation group %v locked twice by transaction %d at t=%v", g.id, t.id, now)
	case g.holder != nil:
		bug("conversation group %v locked by transaction %d, taken by transaction %d at t=%v", g.id, g.holder.id, t.id, now)
	case t.done:
		bug("conversation group %v taken by transaction %d, which has ended, at t=%v", g.id, t.id, now)
	}
}

func checkRelease(now time.Duration, t *Tx, g *group) {
	switch {
	case g.holder == nil:
		bug("conversation group %v released by transaction %d, but it is not locked, at t=%v", g.id, t.id, now)
	case g.holder != t:
		bug("conversation group %v locked by transaction %d, released by transaction %d at t=%v", g.id, g.holder.id, t.id, now)
	}
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
		b.marks[MarkWaitforExpired]++
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
	b.marks[MarkDeadlockVictim]++
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
