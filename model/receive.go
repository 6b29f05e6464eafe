package model

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

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
		ep := b.endpoints.get(uint64(st.handle))
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

// heldGroupReady reports whether a group on q that t already holds has ready messages: a
// RECEIVE may take them, although a held group is not among the queue's available groups.
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
