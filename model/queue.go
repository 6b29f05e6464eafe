package model

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// queuedMessage is a receivable row of a service queue (status 1, ENT-4).
type queuedMessage struct {
	seq        SequenceNumber
	msgType    MessageTypeID
	bytes      int64
	sentAt     time.Duration
	txAt       time.Duration
	enqueuedAt time.Duration
	order      int64 // queuing_order
	errorCode  int32
}

// serviceQueue is the broker's state of one queue: its status, its groups that have ready
// messages and no lock holder (by group priority, PRI-7, G-22), and the sessions waiting
// in RECEIVE or GET CONVERSATION GROUP.
type serviceQueue struct {
	id     QueueID
	status QueueStatus
	groups groupHeap
	// ready counts the queue's ready rows.
	ready int
	// signalled is set when the queue is listed in the current Effects.Ready.
	signalled bool
	// heldSenders are same-instance endpoints whose messages to this queue wait while it is
	// OFF (G-18).
	heldSenders []*endpoint
	// arrivalsHeld are the messages that arrived for the queue while it is OFF, in the
	// order they arrived: they wait in the receiving database's transmission queue
	// (TXQ-4, G-18). Empty while the queue is ON.
	arrivalsHeld []heldArrival
	// waiters are the transactions waiting for messages, first come first served;
	// wakeListed is set while the queue is in the broker's list to wake.
	waiters      []*Tx
	spareWaiters []*Tx
	wakeListed   bool
	// rollbacks counts consecutive rollbacks of transactions that received from the queue
	// (QUE-8, G-14).
	rollbacks int
	// monitor is the queue's monitor, when it has activation or an event notification.
	monitor *monitor
}

// ReceivedMessage is one row of a RECEIVE result (ENT-4).
type ReceivedMessage struct {
	Status                uint8 // 1: a RECEIVE returns only ready rows (QUE-2)
	Priority              PriorityLevel
	QueuingOrder          int64
	ConversationGroupID   ConversationGroupID
	ConversationHandle    ConversationHandle
	ConversationID        ConversationID
	MessageSequenceNumber SequenceNumber
	Service               ServiceID
	Contract              ContractID
	MessageType           MessageTypeID
	Bytes                 int64
	ErrorCode             int32
	// SentAt is when the SEND committed on the far side, TransmittedAt when the message's
	// first fragment first left the far side (at once for a same-instance message),
	// EnqueuedAt when it became ready here.
	SentAt, TransmittedAt, EnqueuedAt time.Duration
}

// Statement errors an application sees, as SQL Server raises them. Callers branch on them
// with errors.Is.
var (
	ErrQueueDisabled          = errors.New("the queue is disabled (STATUS = OFF)")
	ErrHandleNotFound         = errors.New("the conversation handle is not found")
	ErrConversationNotSending = errors.New("the conversation is not in a state that allows SEND")
	ErrMessageTypeNotAllowed  = errors.New("the message type is not allowed by the contract for this side")
	ErrNotLocal               = errors.New("the object is not on this instance")
	ErrContractNotInDatabase  = errors.New("the contract is not defined in the service's database")
	ErrMessageTooLarge        = errors.New("the message is larger than the sim's 16 MiB cap")
)

// Broker-generated error codes (negative, G-15); tests compare them symbolically.
const (
	ErrorCodeLifetimeExpired     int32 = -8489
	ErrorCodeServiceNotFound     int32 = -8490
	ErrorCodeContractNotAccepted int32 = -8408
)

// MaxMessageBytes caps a message body (G-34).
const MaxMessageBytes = 16 << 20

// enqueue makes a message ready on the endpoint's queue, in receive order: a DialogTimer
// goes before the conversation's other ready messages, an Error before all but a
// DialogTimer (DLG-13). Incoming messages take no lock: they join their group even while a
// transaction holds it (LOCK-5). The queue is signalled in Effects.Ready unless it is OFF.
// A message from the far side that finds the queue OFF does not come here but waits in the
// receiving transmission queue (arrive, TXQ-4, G-18); the DialogTimer and the lifetime's
// Error, which the broker puts on its own queue, do come here, and wait on the OFF queue.
func (b *Broker) enqueue(now time.Duration, ep *endpoint, m queuedMessage, fromInitiator bool) {
	if ep.grp == nil {
		panic(fmt.Sprintf("model: instance %d: message for %v, which has left its group, at t=%v", b.id, ep.conv, now))
	}
	if ep.notification != nil {
		b.notificationArrived(now, ep, m) // an event notification's dialog, ended or failed
		return
	}
	b.queuingOrder++
	m.order = b.queuingOrder
	m.enqueuedAt = now
	q := ep.grp.queue
	wasEmpty := q.ready == 0
	ep.ready = insertReady(b.buf.ready.grow(ep.ready), m)
	b.counters.MessagesEnqueued++
	b.trace(TraceRecord{At: now, Kind: TraceMessageReady, Peer: ep.farInstance, Conversation: ep.conv,
		FromInitiator: fromInitiator, Sequence: m.seq, MessageType: m.msgType, Bytes: m.bytes, SentAt: m.sentAt, Group: ep.group})
	b.readyChanged(ep)
	if q.monitor != nil {
		b.monitorEvent(now, q.monitor, wasEmpty) // ACT-3: a message arrived (ACT-14: a DialogTimer too)
	}
}

// signal lists the queue in Effects.Ready when it is ON and has something to receive, and
// wakes the sessions waiting on it.
func (b *Broker) signal(q *serviceQueue) {
	if q.status == QueueOn && !q.signalled && q.ready > 0 {
		q.signalled = true
		b.effects.Ready = append(b.effects.Ready, q.id)
	}
	b.wakeQueue(q)
}

func (b *Broker) queueOf(ep *endpoint) *serviceQueue {
	return b.queues[b.cat.Services[ep.service].Queue]
}

// Receive is RECEIVE TOP(top) FROM queue in a transaction of its own (autocommit), without
// WHERE or WAITFOR: the ready messages of the highest-priority group that no transaction
// holds, appended to buf (QUE-4, PRI-9). top <= 0 means no TOP.
func (b *Broker) Receive(now time.Duration, queue QueueID, top int, buf []ReceivedMessage) ([]ReceivedMessage, error) {
	t := b.autocommit(now)
	buf, err := t.Receive(now, queue, ReceiveOptions{Top: top}, buf)
	return buf, b.endAutocommit(now, t, err)
}

func (b *Broker) received(ep *endpoint, m queuedMessage) ReceivedMessage {
	return ReceivedMessage{Status: 1, Priority: ep.priority, QueuingOrder: m.order, ConversationGroupID: ep.group,
		ConversationHandle: ep.handle, ConversationID: ep.conv, MessageSequenceNumber: m.seq, Service: ep.service,
		Contract: ep.contract, MessageType: m.msgType, Bytes: m.bytes, ErrorCode: m.errorCode,
		SentAt: m.sentAt, TransmittedAt: m.txAt, EnqueuedAt: m.enqueuedAt}
}

// AlterQueueStatus is ALTER QUEUE ... WITH STATUS = ON|OFF. Messages that arrived while the
// queue was OFF, held in the receiving transmission queue, move into the queue in order
// when it is ON again (G-18).
func (b *Broker) AlterQueueStatus(now time.Duration, queue QueueID, status QueueStatus) error {
	b.checkUp("ALTER QUEUE", now)
	q, err := b.localQueue(queue)
	if err != nil {
		return err
	}
	b.now = now
	if q.monitor != nil {
		q.monitor.failed = false // G-6: an ALTER QUEUE lifts an activation failure
	}
	b.setQueueStatus(now, q, status)
	b.pump(now)
	return nil
}

// setQueueStatus sets the queue's status. Sessions waiting in RECEIVE get the error of an
// OFF queue at once (QUE-1).
func (b *Broker) setQueueStatus(now time.Duration, q *serviceQueue, status QueueStatus) {
	q.status = status
	if status == QueueOn {
		if len(q.heldSenders) > 0 || len(q.arrivalsHeld) > 0 {
			b.marks[MarkQueueOnReleased]++
		}
		// Held messages sat in a transmission queue, where levels apply (PRI-13): the
		// dialogs leave highest transmit level first, in the order they were held within a
		// level.
		slices.SortStableFunc(q.heldSenders, func(x, y *endpoint) int { return int(y.txLevel.Level()) - int(x.txLevel.Level()) })
		for _, ep := range q.heldSenders {
			if ep.out != nil {
				ep.out.held = false
				b.makeReady(ep)
			}
		}
		clear(q.heldSenders)
		q.heldSenders = q.heldSenders[:0]
		b.releaseArrivals(now, q)
	}
	b.signal(q) // wakes the waiting sessions: they find the queue OFF
	if q.monitor != nil {
		q.monitor.evalAltered = true
		b.monitorEvent(now, q.monitor, false) // ACT-3: ALTER QUEUE
	}
}

// QueueStatus returns the queue's current status.
func (b *Broker) QueueStatus(queue QueueID) (QueueStatus, error) {
	q, err := b.localQueue(queue)
	if err != nil {
		return 0, err
	}
	return q.status, nil
}

// ReadyMessages counts the queue's ready messages (status 1). Messages held in the
// transmission queue while the queue is OFF are not among them (TXQ-4, G-18).
func (b *Broker) ReadyMessages(queue QueueID) int {
	q, err := b.localQueue(queue)
	if err != nil {
		return 0
	}
	return q.ready
}

func (b *Broker) localQueue(queue QueueID) (*serviceQueue, error) {
	if queue < 0 || int(queue) >= len(b.queues) || b.queues[queue] == nil {
		return nil, fmt.Errorf("queue %d: %w", queue, ErrNotLocal)
	}
	return b.queues[queue], nil
}

// WaitingSessions counts the sessions waiting in RECEIVE or GET CONVERSATION GROUP on the
// queue (WAITFOR), whatever their WHERE.
func (b *Broker) WaitingSessions(queue QueueID) int {
	q, err := b.localQueue(queue)
	if err != nil {
		return 0
	}
	return len(q.waiters)
}
