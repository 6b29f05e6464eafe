package model

import (
	"fmt"
	"time"
)

// TraceKind says what a TraceRecord reports.
type TraceKind uint8

const (
	// TraceMessageSent: a SEND (or END's EndDialog/Error) committed and got its sequence
	// number; Fragments holds the message's fragment count.
	TraceMessageSent TraceKind = iota + 1
	// TraceFragmentSent: a fragment left in a block; Retry marks a retransmission.
	TraceFragmentSent
	// TraceFragmentStored: a fragment was added to the target queue (status 2 or 1), or,
	// while the queue is OFF, to the receiving database's transmission queue. Only the
	// first copy of a fragment is stored.
	TraceFragmentStored
	// TraceFragmentDuplicate: a copy of a fragment already stored arrived, and was acked.
	TraceFragmentDuplicate
	// TraceFragmentDiscarded: an arriving fragment was dropped on purpose; Reason says why.
	TraceFragmentDiscarded
	// TracePacketCorrupt: a block failed the integrity check and was discarded unacked
	// (PROTO-11, the Broker:Corrupted Message event).
	TracePacketCorrupt
	// TraceMessageReady: a complete, in-order message became receivable (status 1).
	TraceMessageReady
	// TraceMessageReceived: RECEIVE returned the message.
	TraceMessageReceived
	// TraceRowRemoved: a transmission queue row was deleted; Reason says why.
	TraceRowRemoved
	// TraceStateChanged: a conversation endpoint changed state.
	TraceStateChanged
	// TraceAckSent: a dedicated acknowledgement left.
	TraceAckSent
	// TraceScheduled: the transmission scheduler chose the dialog for the next fragment
	// towards Peer; Priority is the endpoint's level, Effective its effective transmit level
	// (G-11) and BestWaiting the highest effective level of any dialog waiting for that
	// destination, computed apart.
	TraceScheduled
	// TraceLockAcquired: transaction Tx took the lock of Group (LOCK-2).
	TraceLockAcquired
	// TraceLockReleased: transaction Tx, ending, released the lock of Group (LOCK-3).
	TraceLockReleased
	// TraceLockWait: statement Statement of transaction Tx waits for Group, which HolderTx
	// holds (G-24).
	TraceLockWait
	// TraceDeadlock: a wait closed a cycle; transaction Tx is the victim, rolled back.
	TraceDeadlock
	// TraceMessageReturned: a rollback put a received message back on the queue (TXN-1,
	// TXN-3).
	TraceMessageReturned
	// TraceTxCommitted and TraceTxRolledBack: transaction Tx ended, after its
	// TraceLockReleased records.
	TraceTxCommitted
	TraceTxRolledBack
	// TraceSavepointRolledBack: transaction Tx rolled back to a savepoint, after the
	// TraceMessageReturned records; its locks stay.
	TraceSavepointRolledBack
	// TraceQueueDisabled: poison detection turned Queue OFF (QUE-8).
	TraceQueueDisabled
	// TraceTaskStarted: Queue's monitor started activated task Task (ACT-6), with what it
	// knew then: Running tasks before the start, MaxReaders, Ready messages, Waiting
	// sessions (RECEIVE without WHERE or GET CONVERSATION GROUP), SinceEmpty (how long ago a
	// RECEIVE last returned nothing, -1 for never) and Cause (1: ACT-4a, 2: ACT-4b).
	TraceTaskStarted
	// TraceTaskExited: activated task Task ended; Running tasks are left.
	TraceTaskExited
	// TraceActivationFailed: a task of Queue failed (ACT-10, G-6): the monitor stops
	// activating.
	TraceActivationFailed
	// TraceMonitorReceive: a RECEIVE or GET CONVERSATION GROUP ran on monitored Queue
	// (ACT-3): it ends the NOTIFIED state and reopens the notification window.
	TraceMonitorReceive
	// TraceNotificationSent: Queue's monitor sent QUEUE_ACTIVATION (ACT-11), with the same
	// fields as TraceTaskStarted.
	TraceNotificationSent
	// TraceNotificationDropped: an event notification's dialog was ended or failed by the
	// far side: the notification is dropped (ACT-11).
	TraceNotificationDropped
	// TraceActivationAltered: ALTER QUEUE ... WITH ACTIVATION ran on Queue (ACT-7):
	// MaxReaders is the new MAX_QUEUE_READERS, Running the tasks running, and Cause 1 when
	// it ended a NOTIFIED state that a task start left.
	TraceActivationAltered
	// TraceEndpointForgotten: a closed target endpoint was deleted when its retention ended
	// (G-16). A later arrival from the initiator finds the dialog unknown and creates a new
	// target endpoint, as Service Broker does: the checker reports that as a design finding.
	TraceEndpointForgotten
	// TraceDelayed: no route leads to the far service; the conversation waits and tries
	// again (RTE-2 step 7, G-28). TraceRouted: a delayed conversation found its route; Peer
	// is where its messages now go.
	TraceDelayed
	TraceRouted
	// TraceForwarded: a forwarder put a fragment not meant for it into a block towards Peer
	// (RTE-5), at level 5 whatever the dialog's (PRI-14): Priority, Effective and
	// BestWaiting as for TraceScheduled; Fragments is the hops the fragment has made.
	TraceForwarded
	// TraceMessageHeld: a complete, in-order message arrived for a queue that is OFF: it
	// waits, acknowledged, in the receiving database's transmission queue, and becomes
	// ready (TraceMessageReady) when ALTER QUEUE sets the queue ON (TXQ-4, G-18).
	TraceMessageHeld
	// TraceInstanceCrashed: the instance crashed (G-13). The records of the transactions
	// the crash rolled back and of the tasks it ended come just before it; Tx and Task are
	// the last transaction and task ids of the incarnation that ended. No record of the
	// instance follows until TraceInstanceRestarted.
	TraceInstanceCrashed
	// TraceInstanceRestarted: the crashed instance restarted (G-13); Tx and Task are as in
	// TraceInstanceCrashed: nothing of the incarnation before may act after it.
	TraceInstanceRestarted
)

var traceKindNames = [...]string{"", "sent", "fragment-sent", "fragment-stored", "fragment-duplicate",
	"fragment-discarded", "packet-corrupt", "ready", "received", "row-removed", "state", "ack-sent", "scheduled",
	"lock-acquired", "lock-released", "lock-wait", "deadlock", "returned", "committed", "rolled-back",
	"savepoint-rolled-back", "queue-disabled", "task-started", "task-exited", "activation-failed", "monitor-receive",
	"notification-sent", "notification-dropped", "activation-altered", "forgotten", "delayed", "routed", "forwarded", "held", "crashed", "restarted"}

func (k TraceKind) String() string {
	if int(k) < len(traceKindNames) && k != 0 {
		return traceKindNames[k]
	}
	return fmt.Sprintf("TraceKind(%d)", int(k))
}

// Reason qualifies a discard or a removal.
type Reason uint8

const (
	ReasonNone Reason = iota
	// ReasonAcked: the row's fragments were all acknowledged (INV-3).
	ReasonAcked
	// ReasonEndWithError: END WITH ERROR dropped the dialog's other rows (DLG-9).
	ReasonEndWithError
	// ReasonCleanup: END WITH CLEANUP dropped everything (DLG-10).
	ReasonCleanup
	// ReasonLifetime: the dialog's lifetime expired (DLG-5, G-15).
	ReasonLifetime
	// ReasonErrorReceived: an Error arrived for the dialog (DLG-11, DLG-12, G-17).
	ReasonErrorReceived
	// ReasonRemoteEnded: the far side ended; this side's unsent messages are dropped (DLG-11).
	ReasonRemoteEnded
	// ReasonWindow: beyond the out-of-order window (G-21), dropped unacked.
	ReasonWindow
	// ReasonClosedEndpoint: for an endpoint that is closed or ended (G-16), dropped and acked.
	ReasonClosedEndpoint
	// ReasonUnknownDialog: for a dialog this side no longer knows (a closed initiator is
	// deleted at once, G-16), dropped and acked.
	ReasonUnknownDialog
	// ReasonTargetRefused: the target service is unknown or refuses the contract.
	ReasonTargetRefused
	// ReasonNoRoute: msdb has no route for a fragment that arrived (RTE-1).
	ReasonNoRoute
	// ReasonNotForwarded: msdb routes it elsewhere, and forwarding is off (RTE-4).
	ReasonNotForwarded
	// ReasonForwardFull: holding it would exceed MESSAGE_FORWARD_SIZE (RTE-5).
	ReasonForwardFull
	// ReasonHops: it has made its last hop (RTE-6, G-27); a loop ends here.
	ReasonHops
)

var reasonNames = [...]string{"", "acked", "end-with-error", "cleanup", "lifetime", "error-received",
	"remote-ended", "window", "closed-endpoint", "unknown-dialog", "target-refused", "no-route", "not-forwarded",
	"forward-full", "hops"}

func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// IsDiscard reports whether a row removal for this reason is a documented discard rather
// than a delivery: messages may go missing at the end of a dialog only after one (INV-1).
func (r Reason) IsDiscard() bool { return r != ReasonNone && r != ReasonAcked }

// TraceRecord is one step of the protocol, as observers see it. It is a plain value so that
// recording costs no allocation.
type TraceRecord struct {
	At time.Duration
	// Event is the number of the world's event during which the step happened, when the
	// world stamps it (scenarios does); zero otherwise.
	Event        uint64
	Kind         TraceKind
	Instance     InstanceID
	Peer         InstanceID // the other instance, for fragments, packets and acks
	Conversation ConversationID
	// FromInitiator is the direction of the message or fragment; for TraceStateChanged it
	// says which endpoint changed (true: the initiator's).
	FromInitiator bool
	Sequence      SequenceNumber
	Fragment      int32
	Fragments     int32 // TraceMessageSent: the message's fragment count
	MessageType   MessageTypeID
	Bytes         int64
	Retry         bool
	Reason        Reason
	From, To      EndpointState // TraceStateChanged
	SentAt        time.Duration // TraceMessageReady and TraceMessageReceived: when it was sent
	// Priority is the endpoint's level (TraceStateChanged, TraceScheduled); Effective and
	// BestWaiting are levels of a scheduling decision (TraceScheduled).
	Priority               PriorityLevel
	Effective, BestWaiting uint8
	// Tx is the transaction of a statement's record, Statement the statement's number (the
	// rows of one RECEIVE share it), Group the conversation group, HolderTx the holder a
	// lock wait waits for, Queue the queue of TraceQueueDisabled.
	Tx        TxID
	Statement uint64
	Group     ConversationGroupID
	HolderTx  TxID
	Queue     QueueID
	// Activation (TraceTaskStarted, TraceTaskExited, TraceNotificationSent): see the kinds.
	Task                                TaskID
	Running, MaxReaders, Ready, Waiting int32
	SinceEmpty                          time.Duration
	Cause                               uint8
}

// String renders the record on one line, as golden traces hold it.
func (r TraceRecord) String() string {
	head := fmt.Sprintf("t=%v %s i%d", r.At, r.Kind, r.Instance)
	if r.Event != 0 {
		head = fmt.Sprintf("t=%v #%d %s i%d", r.At, r.Event, r.Kind, r.Instance)
	}
	s := fmt.Sprintf("%s %s", head, r.Conversation)
	dir := "I→T"
	if !r.FromInitiator {
		dir = "T→I"
	}
	switch r.Kind {
	case TraceStateChanged:
		side := "target"
		if r.FromInitiator {
			side = "initiator"
		}
		if r.From == 0 {
			return fmt.Sprintf("%s %s created %v", s, side, r.To)
		}
		return fmt.Sprintf("%s %s %v→%v", s, side, r.From, r.To)
	case TracePacketCorrupt, TraceAckSent:
		return fmt.Sprintf("%s peer=i%d", s, r.Peer)
	case TraceEndpointForgotten:
		return s + " target"
	case TraceDelayed:
		return fmt.Sprintf("%s %s no route", s, dir)
	case TraceRouted:
		return fmt.Sprintf("%s %s peer=i%d", s, dir, r.Peer)
	case TraceInstanceCrashed, TraceInstanceRestarted:
		return fmt.Sprintf("%s last-tx=%d last-task=%d", head, r.Tx, r.Task)
	case TraceLockAcquired, TraceLockReleased, TraceDeadlock:
		return fmt.Sprintf("%s tx%d %v", head, r.Tx, r.Group)
	case TraceLockWait:
		return fmt.Sprintf("%s tx%d %v held-by=tx%d", head, r.Tx, r.Group, r.HolderTx)
	case TraceTxCommitted, TraceTxRolledBack, TraceSavepointRolledBack:
		return fmt.Sprintf("%s tx%d", head, r.Tx)
	case TraceQueueDisabled, TraceActivationFailed, TraceMonitorReceive:
		return fmt.Sprintf("%s queue=%d", head, r.Queue)
	case TraceTaskStarted, TraceNotificationSent:
		return fmt.Sprintf("%s queue=%d task=%d running=%d max=%d ready=%d waiting=%d since-empty=%v cause=%d", head, r.Queue,
			r.Task, r.Running, r.MaxReaders, r.Ready, r.Waiting, r.SinceEmpty, r.Cause)
	case TraceTaskExited:
		return fmt.Sprintf("%s queue=%d task=%d running=%d", head, r.Queue, r.Task, r.Running)
	case TraceActivationAltered:
		return fmt.Sprintf("%s queue=%d max=%d running=%d notified-ended=%d", head, r.Queue, r.MaxReaders, r.Running, r.Cause)
	case TraceMessageReceived, TraceMessageReturned:
		return fmt.Sprintf("%s %s seq=%d type=%d tx%d %v", s, dir, r.Sequence, r.MessageType, r.Tx, r.Group)
	case TraceScheduled:
		return fmt.Sprintf("%s %s peer=i%d level=%d effective=%d best-waiting=%d", s, dir, r.Peer, r.Priority.Level(),
			r.Effective, r.BestWaiting)
	case TraceForwarded:
		return fmt.Sprintf("%s %s seq=%d frag=%d peer=i%d level=%d effective=%d best-waiting=%d hops=%d", s, dir, r.Sequence,
			r.Fragment, r.Peer, r.Priority.Level(), r.Effective, r.BestWaiting, r.Fragments)
	case TraceFragmentSent, TraceFragmentStored, TraceFragmentDuplicate, TraceFragmentDiscarded:
		s = fmt.Sprintf("%s %s seq=%d frag=%d", s, dir, r.Sequence, r.Fragment)
	default:
		s = fmt.Sprintf("%s %s seq=%d type=%d", s, dir, r.Sequence, r.MessageType)
	}
	if r.Retry {
		s += " retry"
	}
	if r.Reason != ReasonNone {
		s += " " + r.Reason.String()
	}
	return s
}
