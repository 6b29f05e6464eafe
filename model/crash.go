package model

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Crash and restart of an instance (G-13, TXQ-6, PROTO-5).
//
// What is durable survives a crash, because SQL Server keeps it in database tables: the
// committed rows of the service queues (status-2 rows of partial and out-of-order messages
// included, G-21), the rows of the transmission queues, the conversation endpoints with
// their sequence numbers and receive state (closed targets under retention too), the
// conversation groups, the catalog, each queue's STATUS and ACTIVATION, the broker
// priorities, and the durable timers (a dialog's LIFETIME, BEGIN CONVERSATION TIMER, the
// retention of closed targets).
//
// What is volatile is lost: the transmission objects (TXQ-6) with their retry timers and
// their unacknowledged fragments, the acknowledgements not yet sent, open blocks, the
// fragments a forwarder holds (RTE-5), the adjacent-broker connections (CLOSED after the
// restart), activated tasks and their
// sessions, the queue monitors' state, the poison counters, lock waits and waiting
// statements, and the open transactions, which roll back: the rows they RECEIVEd return
// to the queue and their SENDs never happened (sequence numbers are taken at commit, G-31).
//
// On restart every transmission queue row is sent again from its first fragment, as if
// never sent: the far side discards the copies it holds by sequence number and
// acknowledges them (PROTO-5). The durable timers are armed again, and the queue monitors
// evaluate again, which starts activation. Timers armed before the crash carry the
// incarnation they were armed in and do nothing when they fire after the restart.
//
// The far side is not told of the crash: its connection stays up until it idles out, and
// it goes on retrying what the crashed instance had not acknowledged, which the world
// drops while the instance is down.

// Down reports whether the instance has crashed and not restarted. While it is down the
// broker takes no input: every input method panics. The views (Endpoints,
// TransmissionQueue, Counters, ...) show the durable state.
func (b *Broker) Down() bool { return b.down }

// Incarnation counts the instance's crashes: the timers and transactions of an earlier
// incarnation do nothing in this one.
func (b *Broker) Incarnation() uint32 { return b.incarnation }

// LastTransaction returns the id of the transaction begun last: after a statement run in
// a transaction of its own (Send, EndConversation, ...) returned ErrWaiting, the one whose
// completion will report it, so that the caller can tell which of its statements a crash
// rolled back.
func (b *Broker) LastTransaction() TxID { return TxID(b.txCounter) }

// checkUp panics when an input reaches a crashed instance: the world must give a down
// instance none (G-13).
func (b *Broker) checkUp(input string, now time.Duration) {
	if b.down {
		panic(fmt.Sprintf("model: instance %d is down (crashed at t=%v), and was given %s at t=%v",
			b.id, b.crashedAt, input, now))
	}
}

// checkIncarnation panics when a transaction of an earlier incarnation is used after a
// restart: the session that ran it died with the crash.
func (t *Tx) checkIncarnation(statement string, now time.Duration) {
	t.b.checkUp(statement, now)
	if t.incarnation != t.b.incarnation {
		panic(fmt.Sprintf("model: instance %d: transaction %d began before the crash at t=%v, and was given %s at t=%v",
			t.b.id, t.id, t.b.crashedAt, statement, now))
	}
}

// Crash is the input that crashes the instance at now (G-13): the open transactions roll
// back, the activated tasks end, and every volatile state is lost. The trace shows the
// rollbacks and the tasks ended, then TraceInstanceCrashed. The effects hold nothing else
// for the world to do: the timers, packets, completions and activations the crash itself
// would produce are dropped. Until Restart the broker takes no input.
func (b *Broker) Crash(now time.Duration) {
	b.checkUp("Crash", now)
	b.now = now
	b.crashing = true
	b.rollBackOpenTransactions(now)
	b.endTasks(now)
	b.crashing = false
	b.loseTransmissionState(now)
	b.loseSessionState()
	b.down, b.crashedAt = true, now
	b.incarnation++
	b.counters.Crashes++
	trace := b.effects.Trace
	b.effects = Effects{Trace: trace}
	b.trace(TraceRecord{At: now, Kind: TraceInstanceCrashed, Tx: TxID(b.txCounter), Task: TaskID(b.taskCounter)})
}

// Restart is the input that brings a crashed instance back at now (G-13): every
// transmission queue row is sent again from scratch, the durable timers are armed again,
// the queue monitors evaluate and activation starts again. It traces
// TraceInstanceRestarted first.
func (b *Broker) Restart(now time.Duration) {
	if !b.down {
		panic(fmt.Sprintf("model: instance %d restarted at t=%v, but it is not down", b.id, now))
	}
	b.down = false
	b.now = now
	b.counters.Restarts++
	b.trace(TraceRecord{At: now, Kind: TraceInstanceRestarted, Tx: TxID(b.txCounter), Task: TaskID(b.taskCounter)})
	for _, ep := range b.liveEndpoints() {
		b.recover(now, ep)
	}
	for _, q := range b.queues {
		if q != nil && q.ready > 0 {
			b.signal(q)
		}
	}
	for _, m := range b.monitors {
		b.monitorEvent(now, m, false) // the monitors start again (ACT-1)
	}
	b.armTick(now)
	b.pump(now)
}

// liveEndpoints returns every endpoint the broker keeps, closed targets under retention
// included (END CONVERSATION WITH CLEANUP leaves those out of sys.conversation_endpoints),
// ordered by handle.
func (b *Broker) liveEndpoints() []*endpoint {
	eps := slices.Collect(b.allDialogs)
	slices.SortFunc(eps, func(x, y *endpoint) int { return cmp.Compare(x.handle, y.handle) })
	return eps
}

// recover brings one endpoint's durable state back to work after a restart: its timers
// are armed again, and its transmission queue rows wait to be sent from their first
// fragment.
func (b *Broker) recover(now time.Duration, ep *endpoint) {
	if ep.lifetime > 0 {
		b.timer(max(ep.lifetime, now), TimerLifetime, uint64(ep.handle))
	}
	if ep.timerAt > 0 {
		ep.timerAt = max(ep.timerAt, now) // an expiry missed while down fires at once
		b.timer(ep.timerAt, TimerDialog, uint64(ep.handle))
	}
	if b.retained[ep.handle] == ep {
		b.timer(max(ep.retainUntil, now), TimerRetention, uint64(ep.handle))
	}
	if !ep.routed {
		b.ensureRouted(now, ep) // a delayed conversation tries again at once (G-28)
	}
	if ep.out == nil || ep.out.empty() {
		return
	}
	b.marks[MarkCrashResent]++
	ep.txLevel = b.transmitLevel(ep) // the backlog is new to the new transmission object (G-26)
	b.useTransmissionObject(ep)
	b.makeReady(ep)
}

// rollBackOpenTransactions rolls back every transaction that holds a lock or waits, the
// youngest first; the waits end first, so that no lock a rollback releases is handed on.
// A transaction that holds nothing and waits for nothing has done nothing to undo: it
// simply belongs to the incarnation that ended.
func (b *Broker) rollBackOpenTransactions(now time.Duration) {
	open := map[TxID]*Tx{}
	for id, t := range b.waiting {
		open[id] = t
	}
	for _, g := range b.groups {
		if g.holder != nil {
			open[g.holder.id] = g.holder
		}
	}
	ids := slices.Sorted(maps.Keys(open))
	for _, id := range ids {
		if t := open[id]; t.wait != nil {
			b.stopWaiting(t)
			t.wait = nil
		}
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if t := open[ids[i]]; !t.done {
			b.marks[MarkCrashRolledBack]++
			b.rollback(now, t, nil)
		}
	}
	clear(b.waiting)
	clear(b.txPool)
	b.txPool = b.txPool[:0]
}

// endTasks ends every activated task: its session died with the instance (ACT-8). A task
// ended by a crash has not failed (G-6).
func (b *Broker) endTasks(now time.Duration) {
	for _, m := range b.monitors {
		for len(m.tasks) > 0 {
			t := m.tasks[len(m.tasks)-1]
			m.tasks = m.tasks[:len(m.tasks)-1]
			t.exited = true
			delete(b.tasks, t.id)
			b.trace(TraceRecord{At: now, Kind: TraceTaskExited, Queue: m.q.id, Task: t.id, Running: int32(m.running())})
		}
	}
}

// loseTransmissionState forgets the transmission objects (TXQ-6, G-13), the connections,
// the open blocks and the acknowledgements owed; the rows stay, to be sent again from
// their first fragment. The order endpoints are visited in does not matter: each is
// reset on its own.
func (b *Broker) loseTransmissionState(now time.Duration) {
	for ep := range b.allDialogs {
		ep.scheduled = false
		ep.hasTO = false
		ep.routeArmed = false // a delayed conversation's next try is a timer (G-28)
		if in := ep.in; in != nil {
			in.ackOwed, in.ackListed = false, false
		}
		if o := ep.out; o != nil {
			o.forgetTransmission()
		}
	}
	b.transmissionObjects = 0
	for i := range b.sched {
		b.sched[i] = newScheduler()
	}
	b.localDelivery = &fifoDeliveryList{}
	for _, c := range b.conns {
		if c.state == ConnectionLoggedIn {
			c.stats.TotalConnectedTime += now - c.connectedSince
		}
		*c = connection{peer: c.peer, connectDelay: c.connectDelay, stats: c.stats, lastActivity: c.lastActivity}
	}
	b.openBlocks = b.openBlocks[:0]
	b.selfPackets = b.selfPackets[:0]
	// What a forwarder holds is in memory only (RTE-5, G-27): lost. The senders keep every
	// message until its final destination acknowledges it, and retry.
	b.forwards, b.forwardHeld = nil, 0
}

// forgetTransmission forgets what the transmission object knew of the rows: which
// fragments were sent and acknowledged, their retry state, and the far side's receive
// window. Every row is as if never sent; sentBeforeCrash keeps, for the assertion about
// acknowledgements only, how far the earlier incarnations sent, since the far side may
// acknowledge that after the restart.
func (o *outbound) forgetTransmission() {
	if o.sentBeforeCrash.before(o.sentTo) {
		o.sentBeforeCrash = o.sentTo
	}
	o.unacked, o.resend, o.retryAt = nil, 0, 0
	o.inLocalDelivery, o.held = false, false
	first := o.sentTo.seq
	if !o.empty() {
		first = o.rows[o.head].seq
	}
	o.sentTo = fragmentRef{seq: first}
	// Every row before the first live one was acknowledged or dropped: the far side's
	// receive_sequence is at least there.
	o.ackedSeq = first
	for i := o.head; i < len(o.rows); i++ {
		r := &o.rows[i]
		r.nextUnsent, r.acked = 0, 0
	}
}

// loseSessionState forgets what the sessions and the queue monitors had in memory: the
// sessions waiting on queues, the queues to wake, the poison counters, the monitors'
// states, and the broker tick.
func (b *Broker) loseSessionState() {
	for _, q := range b.queues {
		if q == nil {
			continue
		}
		clear(q.waiters)
		q.waiters = q.waiters[:0]
		clear(q.heldSenders)
		q.heldSenders = q.heldSenders[:0]
		q.wakeListed, q.signalled, q.rollbacks = false, false, 0
	}
	clear(b.wake)
	b.wake = b.wake[:0]
	b.waking = false
	for _, m := range b.monitors {
		*m = monitor{q: m.q, activation: m.activation, notifications: m.notifications, started: m.started, sent: m.sent}
	}
	b.tickArmed = false
	for _, g := range slices.SortedFunc(maps.Values(b.groups), func(x, y *group) int { return cmp.Compare(x.id, y.id) }) {
		g.waiters = nil
		b.maybeForget(g)
	}
}
