package model

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Broker is one instance's Service Broker: its databases' conversation endpoints, queues
// and transmission queues, its schedulers and local delivery list, and its adjacent-broker
// connections. It is driven: each input method (an application statement, PacketArrived,
// TimerFired) runs at a virtual time and leaves what it asks of the world in Effects, which
// the caller applies and then clears with Advance. A Broker performs no I/O and is not safe for concurrent use.
type Broker struct {
	id  InstanceID
	cat *Catalog
	cfg Config
	// now is the time of the input being handled.
	now time.Duration

	// endpointStates counts the endpoints of each database by state (EndpointStates).
	endpointStates []EndpointStateCounts

	endpoints endpointTable                    // by handle, for applications and timers
	dialogs   [2]endpointTable                 // by conversation id, [side(initiator)], for arriving fragments
	retained  map[ConversationHandle]*endpoint // closed targets kept for late arrivals (G-16)
	queues    []*serviceQueue                  // by QueueID; nil for other instances' queues
	dbs       []*databaseState                 // by DatabaseID; nil for other instances' databases
	conns     []*connection                    // by peer InstanceID
	sched     []*scheduler                     // by destination InstanceID, for dialogs between instances
	// localDelivery lists the same-instance dialogs with fragments due, delivered directly
	// rather than scheduled by level (PRI-13).
	localDelivery localDeliveryList

	openBlocks []InstanceID // peers with an open block
	// onPick, when set, sees every scheduling decision before it is carried out (tests).
	onPick      func(now time.Duration, peer InstanceID, ep *endpoint)
	selfPackets []Packet // packets to this instance, processed before the input returns
	// buf holds the free lists of the hot path's slices (buffers.go); ackScratch is
	// flushAcks' room to gather acknowledgements before it splits them into packets.
	buf        buffers
	ackScratch []Ack

	counter      uint64 // for handles, conversation and group ids
	queuingOrder int64

	// msdb is msdb's sys.routes, for the messages that arrive (RTE-1). forwards holds, by
	// next hop, what this instance forwards (RTE-5), and forwardHeld its bytes.
	msdb        routeTable
	forwards    []*endpoint
	forwardHeld int64
	// moved maps the address of mirrored databases that failed over to their mirror's
	// (PrincipalMoved); nil while none did.
	moved map[InstanceID]InstanceID

	groups     map[ConversationGroupID]*group // this instance's conversation groups
	txCounter  uint64
	statements uint64
	waiting    map[TxID]*Tx    // transactions whose statement waits
	wake       []*serviceQueue // queues whose waiting sessions may go on
	txPool     []*Tx           // ended transactions, for reuse
	waking     bool            // wakeReceivers is running

	monitors    []*monitor // queue monitors, by creation (ACT-1)
	tasks       map[TaskID]*task
	taskCounter uint64
	tickArmed   bool
	tracing     bool
	effects     Effects
	counters    Counters
	// marks counts the marked paths taken (marks.go).
	marks MarkCounts
	// transmissionObjects counts endpoints holding a transmission object (TXQ-6).
	transmissionObjects int
	// rowsThroughTXQ counts the live rows of same-instance dialogs that waited in a
	// transmission queue for an OFF target queue (txqRow.throughTXQ): while there are none,
	// a same-instance arrival needs no look at its sender's row (TXQ-6).
	rowsThroughTXQ int

	// down is set from a crash to the restart, when the broker takes no input (G-13);
	// crashedAt is when it last crashed, and crashing is set while the crash rolls back the
	// open transactions. incarnation counts the crashes: a timer or a transaction of an
	// earlier incarnation does nothing in this one (crash.go).
	down        bool
	crashing    bool
	crashedAt   time.Duration
	incarnation uint32
}

// Effects is what the inputs since the last Advance ask of the world.
type Effects struct {
	// Transmit holds packets for other instances, to carry over the links. The world owns
	// them: the broker never touches a packet again once it is here, unless the world
	// gives it back with RecyclePacket when it is done with it.
	Transmit []Packet
	// Timers to arm; a timer fires TimerFired with the same value.
	Timers []Timer
	// Ready lists queues on which messages became receivable.
	Ready []QueueID
	// Trace holds the records of the steps taken, when tracing is on.
	Trace []TraceRecord
	// Completed lists the statements that waited and have finished (ErrWaiting).
	Completed []Completion
	// QueueDisabled lists queues that poison detection turned OFF (QUE-8): the
	// Broker:Queue Disabled event.
	QueueDisabled []QueueID
	// LockWaits lists the waits for group locks that ended (G-24).
	LockWaits []LockWait
	// Activations lists the activated tasks to start (ACT-6): the world runs the queue's
	// procedure as the task, and calls TaskExited when it ends.
	Activations []ActivationStart
}

// TimerKind says what a Timer is for.
type TimerKind uint8

const (
	TimerRetry               TimerKind = iota + 1 // Key: conversation handle
	TimerAckFlush                                 // Key: peer instance
	TimerConnect                                  // Key: peer instance
	TimerIdle                                     // Key: peer instance
	TimerLifetime                                 // Key: conversation handle
	TimerRetention                                // Key: conversation handle
	TimerWireFree                                 // Key: peer instance
	TimerStatement                                // Key: transaction id; a WAITFOR or lock time-out
	TimerDialog                                   // Key: conversation handle; BEGIN CONVERSATION TIMER (DLG-14)
	TimerMonitorTick                              // Key: 0; the broker tick of the queue monitors (G-2)
	TimerTaskDeadline                             // Key: task id; G-6's check of an activated task
	TimerNotificationTimeout                      // Key: queue id; the end of ACT-12's time-out
	TimerMonitorEvaluate                          // Key: queue id; an evaluation after an ACT-3 event
	TimerRoute                                    // Key: conversation handle; a delayed conversation tries again (G-28)
)

// Timer asks the world to call TimerFired at At. Timers are never cancelled: one that is no
// longer needed does nothing when it fires. Incarnation is the broker's incarnation when
// the timer was armed: a timer armed before a crash does nothing after the restart (G-13).
type Timer struct {
	At          time.Duration
	Kind        TimerKind
	Incarnation uint32
	Key         uint64
}

// Counters are a broker's protocol counters.
type Counters struct {
	MessagesSent           int64 // sequenced messages queued for transmission
	MessagesEnqueued       int64 // messages made ready on this instance's queues
	MessagesReceived       int64 // rows returned by RECEIVE
	FragmentsSent          int64 // fragments put in blocks, retransmissions included
	FragmentsRetransmitted int64
	FragmentsReceived      int64 // fragments arrived intact
	DuplicatesDiscarded    int64 // copies of fragments already stored (PROTO-5)
	CorruptDiscarded       int64 // fragments in blocks that failed the integrity check (PROTO-11)
	FragmentsDiscarded     int64 // dropped on purpose: window, closed or unknown dialog
	AcksSent               int64 // dedicated acknowledgements
	AcksPiggybacked        int64 // acknowledgements carried by fragments
	EndpointsCreated       int64
	EndpointsDeleted       int64
	Commits                int64
	Rollbacks              int64 // whole transactions, savepoint rollbacks not counted
	Deadlocks              int64 // victims rolled back (G-24)
	PoisonDisables         int64 // queues turned OFF by poison detection (QUE-8)
	SendsDropped           int64 // SENDs whose dialog failed before their commit
	FragmentsForwarded     int64 // fragments passed on to the next hop (RTE-5)
	AcksForwarded          int64 // dedicated acknowledgements passed on
	Crashes                int64 // crashes of the instance (G-13)
	Restarts               int64
}

// NewBroker returns the broker of instance id.
func NewBroker(cat *Catalog, id InstanceID, cfg Config) (*Broker, error) {
	if int(id) >= len(cat.Instances) {
		return nil, fmt.Errorf("instance %d is not in the catalog", id)
	}
	if err := cfg.WithDefaults().Validate(); err != nil {
		return nil, fmt.Errorf("instance %q: %w", cat.Instances[id].Name, err)
	}
	b := &Broker{
		id: id, cat: cat, cfg: cfg.WithDefaults(),
		retained:      map[ConversationHandle]*endpoint{},
		groups:        map[ConversationGroupID]*group{},
		tasks:         map[TaskID]*task{},
		waiting:       map[TxID]*Tx{},
		queues:        make([]*serviceQueue, len(cat.Queues)),
		conns:         make([]*connection, len(cat.Instances)),
		localDelivery: &fifoDeliveryList{},
	}
	for i, q := range cat.Queues {
		if cat.Databases[q.Database].Instance == id {
			b.queues[i] = &serviceQueue{id: QueueID(i), status: q.Status}
			if a := q.Activation; a.Status || a.Procedure != "" || a.MaxQueueReaders > 0 {
				b.monitorFor(b.queues[i]).activation = a // ACT-1
			}
		}
	}
	for _, n := range cat.EventNotifications {
		if q := b.queues[n.Queue]; q != nil {
			m := b.monitorFor(q) // ACT-1
			m.notifications = append(m.notifications, &notification{name: n.Name, to: n.To, from: n.From})
		}
	}
	for i := range b.conns {
		b.conns[i] = &connection{peer: InstanceID(i)}
	}
	b.sched = make([]*scheduler, len(cat.Instances))
	for i := range b.sched {
		b.sched[i] = newScheduler()
	}
	b.dbs = make([]*databaseState, len(cat.Databases))
	for i, db := range cat.Databases {
		if db.Instance == id {
			b.dbs[i] = &databaseState{honor: db.HonorBrokerPriority, prios: priorities{list: slices.Clone(db.Priorities)},
				routes: newRouteTable(0, db.Routes)}
		}
	}
	b.msdb = newRouteTable(0, cat.Instances[id].Routes)
	return b, nil
}

// ID returns the broker's instance.
func (b *Broker) ID() InstanceID { return b.id }

// SetTracing turns trace records on or off. Off, recording costs nothing.
func (b *Broker) SetTracing(on bool) { b.tracing = on }

// Effects returns what the broker asks of the world since the last Advance.
func (b *Broker) Effects() *Effects { return &b.effects }

// Advance clears the effects once the world has applied them.
func (b *Broker) Advance() {
	clear(b.effects.Transmit)
	b.effects.Transmit = b.effects.Transmit[:0]
	b.effects.Timers = b.effects.Timers[:0]
	for _, q := range b.effects.Ready {
		b.queues[q].signalled = false
	}
	b.effects.Ready = b.effects.Ready[:0]
	b.effects.Trace = b.effects.Trace[:0]
	clear(b.effects.Completed)
	b.effects.Completed = b.effects.Completed[:0]
	b.effects.QueueDisabled = b.effects.QueueDisabled[:0]
	b.effects.LockWaits = b.effects.LockWaits[:0]
	b.effects.Activations = b.effects.Activations[:0]
}

// EachTransmissionQueueRow calls f with every row TransmissionQueue lists, without
// building the list: the held messages of the OFF queues first, then each endpoint's rows
// in sequence order, the endpoints in no particular order. A caller that keeps rows in
// TransmissionQueue's order must break ties by this visiting order, as its stable sort does.
func (b *Broker) EachTransmissionQueueRow(f func(TransmissionQueueRow)) {
	for _, q := range b.queues {
		if q != nil {
			for i := range q.arrivalsHeld {
				f(b.heldRow(&q.arrivalsHeld[i]))
			}
		}
	}
	var partial []TransmissionQueueRow
	for ep := range b.endpoints.all {
		partial = b.partialRows(partial[:0], ep)
		for _, r := range partial {
			f(r)
		}
		if ep.out == nil {
			continue
		}
		for i := ep.out.head; i < len(ep.out.rows); i++ {
			r := &ep.out.rows[i]
			if r.removed {
				continue
			}
			status := r.status(ep.out.held)
			if ep.delayed {
				status = TransmissionStatusNoRoute
			}
			f(TransmissionQueueRow{ConversationHandle: ep.handle, ToService: ep.farName, ToBrokerInstance: ep.farBroker,
				FromService: ep.service, Contract: ep.contract, EnqueueTime: r.enqueued, MessageSequenceNumber: r.seq, MessageType: r.msgType,
				IsConversationError: r.msgType == ErrorMessageType, IsEndOfDialog: r.msgType == EndDialogMessageType,
				Bytes: r.bytes, TransmissionStatus: status, Priority: ep.priority, FragmentsAcked: r.acked, Fragments: r.count})
		}
	}
}

// Counters returns the broker's counters.
func (b *Broker) Counters() Counters { return b.counters }

// TransmissionObjectBytes is the memory accounted to transmission objects (TXQ-6, G-13).
func (b *Broker) TransmissionObjectBytes() int64 {
	return int64(b.transmissionObjects) * int64(b.cfg.TransmissionObjectBytes)
}

func (b *Broker) trace(r TraceRecord) {
	if b.tracing {
		r.Instance = b.id
		b.effects.Trace = append(b.effects.Trace, r)
	}
}

func (b *Broker) timer(at time.Duration, kind TimerKind, key uint64) {
	b.effects.Timers = append(b.effects.Timers, Timer{At: at, Kind: kind, Key: key, Incarnation: b.incarnation})
}

func (b *Broker) nextID() uint64 {
	b.counter++
	return worldUnique(b.id, b.counter)
}

// makeReady tells the sending side that what the endpoint has to send may have changed. A
// same-instance dialog joins the local delivery list; a dialog between instances joins,
// moves in or leaves its destination's scheduler.
func (b *Broker) makeReady(ep *endpoint) {
	if ep.out == nil || !ep.routed {
		return
	}
	if ep.local {
		if !ep.out.inLocalDelivery {
			ep.out.inLocalDelivery = true
			b.localDelivery.ready(ep)
		}
		return
	}
	b.reschedule(ep)
}

// reschedule puts the endpoint in its destination's scheduler, keyed by its oldest due
// fragment, or takes it out when nothing is due.
func (b *Broker) reschedule(ep *endpoint) { b.rescheduleAfter(ep, false) }

// rescheduleAfter is reschedule; served says the endpoint just sent, which gives it a new
// turn in the round-robin.
func (b *Broker) rescheduleAfter(ep *endpoint, served bool) {
	_, _, since, ok := b.nextFragment(ep)
	if ep.deleted {
		ok = false
	}
	s := b.sched[ep.farInstance]
	switch {
	case ok && ep.scheduled:
		if since != ep.readySince || served {
			ep.readySince = since
			s.rekey(ep, served)
		}
	case ok:
		ep.readySince = since
		s.push(ep)
	case ep.scheduled:
		s.remove(ep)
	}
}

// useTransmissionObject gives a remote dialog's endpoint its transmission object on first
// use (TXQ-6); direct same-instance delivery uses none.
func (b *Broker) useTransmissionObject(ep *endpoint) {
	if !ep.hasTO && !ep.local {
		b.takeTransmissionObject(ep)
	}
}

// takeTransmissionObject gives the endpoint its transmission object, which it keeps and
// reuses until it closes (TXQ-6).
func (b *Broker) takeTransmissionObject(ep *endpoint) {
	if !ep.hasTO {
		ep.hasTO = true
		b.transmissionObjects++
	}
}

// pump delivers the same-instance dialogs that have something due, fills a block for every
// destination whose scheduler has dialogs waiting and whose wire is free (opening the
// connection first when it is closed), sends the open blocks, and processes the packets to
// this instance until none is left.
func (b *Broker) pump(now time.Duration) {
	for {
		for ep := b.localDelivery.next(); ep != nil; ep = b.localDelivery.next() {
			if ep.deleted || ep.out == nil {
				continue
			}
			ep.out.inLocalDelivery = false
			b.transmitEndpoint(now, ep)
		}
		for peer, s := range b.sched {
			if s.size == 0 {
				continue
			}
			if c := b.conns[peer]; b.wireFree(now, c) && b.ready(now, c) {
				b.fillBlock(now, c, s)
			}
		}
		b.flushBlocks()
		if self := b.conns[b.id]; len(self.acksOwed) > 0 || len(self.orphanAcks) > 0 {
			b.flushAcks(now, self)
		}
		if len(b.selfPackets) == 0 {
			if len(b.wake) > 0 && !b.waking {
				b.wakeReceivers(now)
				continue
			}
			return
		}
		p := b.selfPackets[0]
		b.selfPackets = slices.Delete(b.selfPackets, 0, 1)
		b.receivePacket(now, &p)
		b.RecyclePacket(&p) // same-instance: nothing else holds it
	}
}

// fillBlock fills one block towards c's peer in scheduling order (G-10, G-11): one fragment
// per decision, until the block is full and leaves, or no dialog has anything due.
func (b *Broker) fillBlock(now time.Duration, c *connection, s *scheduler) {
	for !c.busy {
		ep, aged := s.pick(&b.cfg, now)
		if ep == nil {
			return
		}
		r, f, _, ok := b.nextFragment(ep)
		if !ok {
			panic(fmt.Sprintf("model: instance %d: dialog %v waits in the scheduler with nothing due at t=%v", b.id, ep.conv, now))
		}
		var size int
		if ep.fwd != nil {
			size = int(heldBytes(&ep.fwd.held[ep.fwd.head].f))
		} else {
			size = fragmentHeaderBytes + int(fragmentBytes(r.bytes, b.cfg.FragmentSize, f))
		}
		if c.blockOpen && c.blockBytes+size > b.cfg.BlockBytesMax {
			b.sendBlock(c) // full: the fragment goes first in the next block, once the wire is free
			return
		}
		if aged {
			b.marks[MarkAgedPastHigherLevel]++
		}
		if b.onPick != nil {
			b.onPick(now, c.peer, ep)
		}
		if ep.fwd != nil {
			if b.tracing {
				b.traceForwarded(now, s, ep)
			}
			b.sendForwarded(now, ep)
			b.rescheduleAfter(ep, true)
			continue
		}
		if b.tracing {
			b.traceDecision(now, c.peer, s, ep)
		}
		b.sendFragment(now, ep, r, f)
		b.rescheduleAfter(ep, true)
	}
}

// WireFreeAt is the input that answers a block (a packet with HoldsConnection): the link
// towards peer will have carried it, and everything before it, at time at. Until then the
// connection carries no other block (G-10); what waits meanwhile is chosen when the wire
// frees, so the block holds what is most urgent then.
func (b *Broker) WireFreeAt(now time.Duration, peer InstanceID, at time.Duration) {
	b.checkUp("WireFreeAt", now)
	b.now = now
	c := b.conns[peer]
	c.busy, c.freeAt = false, at
	b.pump(now)
}

// wireFree reports whether the connection may carry a block now. When it may not and
// blocks wait, a timer wakes the broker when it can.
func (b *Broker) wireFree(now time.Duration, c *connection) bool {
	switch {
	case c.busy:
		return false // the world has not said yet when the last block will be through
	case now >= c.freeAt:
		return true
	case !c.freeArmed:
		c.freeArmed = true
		b.timer(c.freeAt, TimerWireFree, uint64(c.peer))
	}
	return false
}

// TimerFired is the input for a timer the broker asked for.
func (b *Broker) TimerFired(now time.Duration, t Timer) {
	b.checkUp("TimerFired", now)
	b.now = now
	if t.Incarnation != b.incarnation {
		return // armed before a crash: its state is gone (G-13)
	}
	switch t.Kind {
	case TimerRetry:
		if ep := b.endpoints.get(uint64(ConversationHandle(t.Key))); ep != nil {
			b.retry(t.At, ep)
		}
	case TimerAckFlush:
		b.flushAcks(now, b.conns[t.Key])
	case TimerConnect:
		b.connected(now, b.conns[t.Key])
	case TimerIdle:
		b.idle(now, b.conns[t.Key])
	case TimerLifetime:
		if ep := b.endpoints.get(uint64(ConversationHandle(t.Key))); ep != nil {
			b.lifetimeExpired(now, ep)
		}
	case TimerRetention:
		b.forgetClosed(now, ConversationHandle(t.Key))
	case TimerWireFree:
		b.conns[t.Key].freeArmed = false
	case TimerStatement:
		b.statementTimedOut(now, TxID(t.Key))
	case TimerMonitorTick:
		b.monitorTick(now)
	case TimerTaskDeadline:
		b.taskDeadline(now, TaskID(t.Key))
	case TimerNotificationTimeout:
		b.timerNotificationTimeout(now, QueueID(t.Key))
	case TimerMonitorEvaluate:
		b.monitorEvaluate(now, QueueID(t.Key))
	case TimerRoute:
		if ep := b.endpoints.get(uint64(ConversationHandle(t.Key))); ep != nil && !ep.deleted {
			ep.routeArmed = false
			b.ensureRouted(now, ep)
		}
	case TimerDialog:
		if ep := b.endpoints.get(uint64(ConversationHandle(t.Key))); ep != nil && !ep.deleted && ep.grp != nil && ep.timerAt == t.At {
			ep.timerAt = 0
			b.marks[MarkDialogTimerFired]++
			b.enqueue(now, ep, queuedMessage{seq: Unsequenced, msgType: DialogTimerMessageType}, !ep.isInitiator)
		}
	default:
		panic(fmt.Sprintf("model: instance %d: timer of unknown kind %d at t=%v", b.id, t.Kind, now))
	}
	b.pump(now)
}

// Endpoint returns the conversation endpoint with the handle, as sys.conversation_endpoints
// shows it. Closed target endpoints stay visible while they are retained (G-16).
func (b *Broker) Endpoint(h ConversationHandle) (ConversationEndpoint, bool) {
	if ep := b.endpoints.get(uint64(h)); ep != nil {
		return ep.row(), true
	}
	return ConversationEndpoint{}, false
}

// EndpointStateOf returns the state of the endpoint with the handle, without building its
// row; ok is false when the instance has no such endpoint (never begun, or forgotten).
func (b *Broker) EndpointStateOf(h ConversationHandle) (state EndpointState, ok bool) {
	if ep := b.endpoints.get(uint64(h)); ep != nil {
		return ep.state, true
	}
	return 0, false
}

// EndpointCount returns how many endpoints the instance has, closed ones kept for their
// retention included: what Endpoints would list, without building the list.
func (b *Broker) EndpointCount() int { return b.endpoints.len() }

// Endpoints returns every endpoint of the instance, ordered by handle.
func (b *Broker) Endpoints() []ConversationEndpoint {
	rows := make([]ConversationEndpoint, 0, b.endpoints.len())
	for ep := range b.endpoints.all {
		rows = append(rows, ep.row())
	}
	slices.SortFunc(rows, func(x, y ConversationEndpoint) int { return cmp.Compare(x.ConversationHandle, y.ConversationHandle) })
	return rows
}

// TransmissionQueue returns the rows of the instance's transmission queues, ordered by
// enqueue time, then conversation and sequence: the messages sent and not yet
// acknowledged, and those that arrived for a queue that is OFF (TXQ-4, G-18), partial ones
// included.
func (b *Broker) TransmissionQueue() []TransmissionQueueRow {
	var rows []TransmissionQueueRow
	b.EachTransmissionQueueRow(func(r TransmissionQueueRow) { rows = append(rows, r) })
	// Stable: rows that tie belong to one endpoint (a message it holds for its OFF queue and
	// one it sent, with the same number at the same instant), and were appended in an order
	// that does not depend on the map's.
	slices.SortStableFunc(rows, func(x, y TransmissionQueueRow) int {
		return cmp.Or(cmp.Compare(x.EnqueueTime, y.EnqueueTime), cmp.Compare(x.ConversationHandle, y.ConversationHandle),
			cmp.Compare(x.MessageSequenceNumber, y.MessageSequenceNumber))
	})
	return rows
}

// traceDecision records a scheduling decision for the online checkers: the chosen dialog's
// level and effective level, and the best effective level waiting.
func (b *Broker) traceDecision(now time.Duration, peer InstanceID, s *scheduler, ep *endpoint) {
	b.trace(TraceRecord{At: now, Kind: TraceScheduled, Peer: peer, Conversation: ep.conv, FromInitiator: ep.isInitiator,
		Priority: ep.priority, Effective: uint8(effectiveLevel(&b.cfg, ep.txLevel.Level(), ep.readySince, now)),
		BestWaiting: uint8(s.bestWaiting(&b.cfg, now))})
}
