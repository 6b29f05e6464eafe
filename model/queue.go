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

// serviceQueue is the broker's state of one queue: its status and the endpoints that have
// receivable messages, oldest first.
type serviceQueue struct {
	id     QueueID
	status QueueStatus
	// endpoints with ready messages; endpoints[:head] were taken.
	endpoints []*endpoint
	head      int
	// signalled is set when the queue is listed in the current Effects.Ready.
	signalled bool
	// heldSenders are same-instance endpoints whose messages to this queue wait while it is
	// OFF (G-18).
	heldSenders []*endpoint
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

// enqueue makes a message ready on the endpoint's queue. An Error goes before the
// conversation's other ready messages (DLG-13). The queue is signalled in Effects.Ready
// unless it is OFF: then the message waits, in order, until ALTER QUEUE sets it ON (TXQ-4,
// G-18).
func (b *Broker) enqueue(now time.Duration, ep *endpoint, m queuedMessage, fromInitiator bool) {
	b.queuingOrder++
	m.order = b.queuingOrder
	m.enqueuedAt = now
	if m.msgType == ErrorMessageType {
		ep.ready = slices.Insert(ep.ready, 0, m)
	} else {
		ep.ready = append(ep.ready, m)
	}
	b.counters.MessagesEnqueued++
	b.trace(TraceRecord{At: now, Kind: TraceMessageReady, Peer: ep.farInstance, Conversation: ep.conv,
		FromInitiator: fromInitiator, Sequence: m.seq, MessageType: m.msgType, Bytes: m.bytes, SentAt: m.sentAt})
	q := b.queueOf(ep)
	if !ep.inQueueList {
		ep.inQueueList = true
		q.endpoints = append(q.endpoints, ep)
	}
	b.signal(q)
}

// signal lists the queue in Effects.Ready when it is ON and has something to receive.
func (b *Broker) signal(q *serviceQueue) {
	if q.status == QueueOn && !q.signalled && q.head < len(q.endpoints) {
		q.signalled = true
		b.effects.Ready = append(b.effects.Ready, q.id)
	}
}

func (b *Broker) queueOf(ep *endpoint) *serviceQueue {
	return b.queues[b.cat.Services[ep.service].Queue]
}

// Receive is RECEIVE TOP(top) FROM queue (QUE-4), without a transaction: it returns the
// ready messages of one conversation, in order, appending them to buf. top <= 0 means no
// TOP. Conversations take turns in the order their messages became ready. Groups, locks and
// priorities come with the conversation group issue.
func (b *Broker) Receive(now time.Duration, queue QueueID, top int, buf []ReceivedMessage) ([]ReceivedMessage, error) {
	q, err := b.localQueue(queue)
	if err != nil {
		return buf, err
	}
	if q.status == QueueOff {
		return buf, fmt.Errorf("RECEIVE from queue %q: %w", b.cat.Queues[queue].Name, ErrQueueDisabled)
	}
	for q.head < len(q.endpoints) {
		ep := q.endpoints[q.head]
		q.endpoints[q.head] = nil
		q.head++
		ep.inQueueList = false
		if ep.deleted || len(ep.ready) == 0 {
			continue
		}
		n := len(ep.ready)
		if top > 0 {
			n = min(n, top)
		}
		for _, m := range ep.ready[:n] {
			buf = append(buf, b.received(ep, m))
			b.trace(TraceRecord{At: now, Kind: TraceMessageReceived, Conversation: ep.conv,
				FromInitiator: !ep.isInitiator, Sequence: m.seq, MessageType: m.msgType, Bytes: m.bytes, SentAt: m.sentAt})
		}
		ep.ready = slices.Delete(ep.ready, 0, n)
		if len(ep.ready) == 0 {
			if cap(ep.ready) > idleCapacity {
				ep.ready = nil // an idle endpoint keeps at most a small buffer
			}
		} else {
			ep.inQueueList = true
			q.endpoints = append(q.endpoints, ep)
		}
		break
	}
	q.compact()
	b.counters.MessagesReceived += int64(len(buf))
	return buf, nil
}

func (b *Broker) received(ep *endpoint, m queuedMessage) ReceivedMessage {
	return ReceivedMessage{Status: 1, Priority: ep.priority, QueuingOrder: m.order, ConversationGroupID: ep.group,
		ConversationHandle: ep.handle, ConversationID: ep.conv, MessageSequenceNumber: m.seq, Service: ep.service,
		Contract: ep.contract, MessageType: m.msgType, Bytes: m.bytes, ErrorCode: m.errorCode,
		SentAt: m.sentAt, TransmittedAt: m.txAt, EnqueuedAt: m.enqueuedAt}
}

func (q *serviceQueue) compact() {
	if q.head == len(q.endpoints) {
		q.endpoints = q.endpoints[:0]
		q.head = 0
	} else if q.head > 64 && q.head > len(q.endpoints)/2 {
		n := copy(q.endpoints, q.endpoints[q.head:])
		clear(q.endpoints[n:])
		q.endpoints = q.endpoints[:n]
		q.head = 0
	}
}

// AlterQueueStatus is ALTER QUEUE ... WITH STATUS = ON|OFF. Messages that arrived while the
// queue was OFF become receivable, in order, when it is ON again (G-18).
func (b *Broker) AlterQueueStatus(now time.Duration, queue QueueID, status QueueStatus) error {
	q, err := b.localQueue(queue)
	if err != nil {
		return err
	}
	b.now = now
	q.status = status
	if status == QueueOn {
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
		b.pump(now)
	}
	b.signal(q)
	return nil
}

// QueueStatus returns the queue's current status.
func (b *Broker) QueueStatus(queue QueueID) (QueueStatus, error) {
	q, err := b.localQueue(queue)
	if err != nil {
		return 0, err
	}
	return q.status, nil
}

// ReadyMessages counts the queue's receivable messages (held ones too while it is OFF).
func (b *Broker) ReadyMessages(queue QueueID) int {
	q, err := b.localQueue(queue)
	if err != nil {
		return 0
	}
	n := 0
	for _, ep := range q.endpoints[q.head:] {
		n += len(ep.ready)
	}
	return n
}

func (b *Broker) localQueue(queue QueueID) (*serviceQueue, error) {
	if queue < 0 || int(queue) >= len(b.queues) || b.queues[queue] == nil {
		return nil, fmt.Errorf("queue %d: %w", queue, ErrNotLocal)
	}
	return b.queues[queue], nil
}
