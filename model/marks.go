package model

import (
	"fmt"
	"slices"
)

// Mark names a path through the broker, or through the world that drives it, that a good
// test must reach: a fragment retried and then acknowledged, a duplicate discarded, a lock
// wait, a deadlock victim, each branch of ACT-4, a crash recovered from. A mark is counted
// each time its path is taken (MarkCounts), on every run, tracing or not: one increment of
// a fixed array, so that counting costs nothing worth measuring. The table below is the
// one place that names and describes the marks: docs/marks.md is checked against it, and
// scenario files require marks by these names (require_marks).
//
// A mark is a path that a world can take: paths of the model that no scenario's programs
// reach (a rollback to a savepoint, a lock time-out, an activated task that exits without
// a RECEIVE, an event notification dropped by the far side) have none, since requiring
// them could never pass; the model's unit tests cover those.
type Mark uint8

// The marks, grouped by area. Their order is the order of MarkTable and of docs/marks.md;
// their numbers are not part of any output.
const (
	// The dialog protocol.
	MarkFragmentRetransmitted Mark = iota
	MarkFragmentAckedAfterRetry
	MarkFragmentDuplicate
	MarkPacketCorrupt
	MarkFragmentOutOfOrder
	MarkFragmentBeyondWindow
	MarkMessageReassembled
	MarkArrivalForClosedEndpoint
	MarkArrivalForUnknownDialog
	MarkTargetRefused
	MarkClosedTargetRetained
	MarkClosedTargetForgotten
	// Ending dialogs.
	MarkErrorDelivered
	MarkErrorOvertook
	MarkBrokerErrorDelivered
	MarkEndWithCleanup
	MarkDialogTimerFired
	MarkLifetimeExpired
	MarkSendDropped
	// Routing and forwarding.
	MarkRouteDelayed
	MarkRouteFoundLater
	MarkFailedOverToMirror
	MarkFragmentForwarded
	MarkArrivalNoRoute
	MarkForwardFull
	MarkForwardHops
	// The transmission scheduler.
	MarkAgedPastHigherLevel
	// Transactions, locks and queues.
	MarkLockWait
	MarkDeadlockVictim
	MarkWaitforExpired
	MarkMessageReturned
	MarkPoisonDisabled
	MarkArrivalHeldQueueOff
	MarkQueueOnReleased
	// Activation.
	MarkActivationArrivalOnEmpty
	MarkActivationUnread
	MarkActivationSessionWaits
	MarkActivationRecentlyEmpty
	MarkActivationAtMaxReaders
	MarkNotificationSent
	// Crashes and the links, marked by the world.
	MarkCrashRolledBack
	MarkCrashResent
	MarkPartitionHealed

	// NumMarks is the number of marks: the length of MarkCounts.
	NumMarks int = iota
)

// MarkInfo describes a mark: its stable name, the rules of the specification its path
// carries out, and what reaching it means, in one line.
type MarkInfo struct {
	Mark        Mark
	Name        string
	Rules       string
	Description string
}

var markTable = [NumMarks]MarkInfo{
	{MarkFragmentRetransmitted, "fragment.retransmitted", "PROTO-10", "a fragment went again because its retry timer ran out before an acknowledgement came"},
	{MarkFragmentAckedAfterRetry, "fragment.acked-after-retry", "PROTO-10", "a fragment sent more than once was acknowledged: a loss (or a slow acknowledgement) healed by retrying"},
	{MarkFragmentDuplicate, "fragment.duplicate-discarded", "PROTO-5", "a copy of a fragment already stored arrived, and was acknowledged and discarded"},
	{MarkPacketCorrupt, "packet.corrupt-dropped", "PROTO-11", "a block failed the integrity check and was dropped, unacknowledged"},
	{MarkFragmentOutOfOrder, "fragment.held-out-of-order", "PROTO-4, G-21", "a fragment arrived ahead of receive_sequence and was stored (status 2) until the gap filled"},
	{MarkFragmentBeyondWindow, "fragment.window-dropped", "G-21", "a fragment arrived beyond the out-of-order window and was dropped unacknowledged"},
	{MarkMessageReassembled, "message.reassembled", "PROTO-6", "a message of several fragments was complete and in order, and became ready"},
	{MarkArrivalForClosedEndpoint, "fragment.closed-endpoint-discarded", "DLG-11, G-16", "a fragment arrived for an endpoint that is closed or ended, and was discarded and acknowledged"},
	{MarkArrivalForUnknownDialog, "fragment.unknown-dialog-discarded", "G-16", "a fragment arrived for a dialog this side no longer knows (a closed initiator), and was discarded"},
	{MarkTargetRefused, "target.refused", "DLG-3, G-15", "a first message found its target service missing or refusing the contract: a broker Error went back"},
	{MarkClosedTargetRetained, "target.retained-arrival", "G-16", "a late arrival reached a closed target kept for its retention, which was extended"},
	{MarkClosedTargetForgotten, "target.forgotten", "G-16", "a closed target endpoint was deleted when its retention ended"},
	{MarkErrorDelivered, "dialog.error-delivered", "DLG-9, G-17", "the Error of END CONVERSATION WITH ERROR reached the far side's queue"},
	{MarkErrorOvertook, "dialog.error-overtook-missing", "G-17", "an Error was delivered while earlier messages of its direction were still missing"},
	{MarkBrokerErrorDelivered, "dialog.broker-error-delivered", "PROTO-3, G-15", "a broker-generated Error (unknown service, refused contract) reached the initiator's queue"},
	{MarkEndWithCleanup, "dialog.ended-with-cleanup", "DLG-10", "END CONVERSATION WITH CLEANUP dropped an endpoint without telling the far side"},
	{MarkDialogTimerFired, "dialog.timer-fired", "DLG-14", "a conversation timer expired and put a DialogTimer message on the queue"},
	{MarkLifetimeExpired, "dialog.lifetime-expired", "DLG-5, G-15", "a dialog's lifetime ran out on one side: an Error on its queue, its rows dropped"},
	{MarkSendDropped, "send.dropped-at-commit", "DLG-11", "a SEND committed after its dialog had failed or expired, and its message was dropped"},
	{MarkRouteDelayed, "route.delayed", "RTE-2, G-28", "no route led to the far service: the conversation was delayed, to try again"},
	{MarkRouteFoundLater, "route.found-after-delay", "RTE-2, G-28", "a delayed conversation found its route and its messages went"},
	{MarkFailedOverToMirror, "route.failed-over-to-mirror", "RTE-3", "a dialog moved to the mirror of a database that failed over"},
	{MarkFragmentForwarded, "forward.passed-on", "RTE-5", "a forwarder passed a fragment not meant for it on to the next hop"},
	{MarkArrivalNoRoute, "forward.dropped-no-route", "RTE-1, RTE-4", "a fragment for elsewhere arrived where msdb has no route for it, or forwarding is off, and was dropped"},
	{MarkForwardFull, "forward.dropped-full", "RTE-5, G-27", "a forwarder dropped a fragment that would have passed MESSAGE_FORWARD_SIZE"},
	{MarkForwardHops, "forward.dropped-hops", "RTE-6, G-27", "a forwarder dropped a fragment that had made its last hop (a routing loop ends)"},
	{MarkAgedPastHigherLevel, "priority.aged-past-higher-level", "PRI-11, G-11", "starvation prevention raised a dialog's level and it sent before a dialog of a higher level"},
	{MarkLockWait, "lock.waited", "G-24", "a statement waited for a conversation group lock that another transaction held"},
	{MarkDeadlockVictim, "lock.deadlock-victim", "G-24", "a lock wait closed a cycle: the youngest transaction was chosen as victim and rolled back"},
	{MarkWaitforExpired, "receive.waitfor-expired", "QUE-4, QUE-5", "a RECEIVE or GET CONVERSATION GROUP waited its whole WAITFOR time-out and returned nothing"},
	{MarkMessageReturned, "tx.message-returned", "TXN-1, TXN-3", "a rollback put a received message back on its queue"},
	{MarkPoisonDisabled, "queue.poison-disabled", "QUE-8, G-14", "five rollbacks in a row turned a queue OFF (poison message detection)"},
	{MarkArrivalHeldQueueOff, "queue.off-arrival-held", "TXQ-4, G-18", "a message arrived for a queue that is OFF and waited, acknowledged, in the transmission queue"},
	{MarkQueueOnReleased, "queue.on-released", "G-18", "ALTER QUEUE set a queue ON and released messages that waited for it"},
	{MarkActivationArrivalOnEmpty, "activation.started-arrival-on-empty", "ACT-4, ACT-6", "a task started because a message arrived on a queue with nothing unread and no task (ACT-4 a)"},
	{MarkActivationUnread, "activation.started-unread", "ACT-4, ACT-6", "a task started because messages waited unread and no session waited for them (ACT-4 b)"},
	{MarkActivationSessionWaits, "activation.held-by-waiting-session", "ACT-4, ACT-5", "messages waited, but a session waiting in RECEIVE or GET CONVERSATION GROUP made activation unnecessary"},
	{MarkActivationRecentlyEmpty, "activation.held-by-recent-empty", "ACT-4, G-3", "messages waited, but a RECEIVE had returned nothing within the last few seconds"},
	{MarkActivationAtMaxReaders, "activation.at-max-readers", "ACT-6", "activation was necessary, but MAX_QUEUE_READERS tasks were already running"},
	{MarkNotificationSent, "activation.notification-sent", "ACT-11, ACT-12", "a queue monitor sent a QUEUE_ACTIVATION event notification"},
	{MarkCrashRolledBack, "crash.transaction-rolled-back", "G-13", "a crash rolled back a transaction that was open"},
	{MarkCrashResent, "crash.restarted-resending", "G-13", "a restarted instance found transmission queue rows of a dialog and sent them again"},
	{MarkPartitionHealed, "link.partition-healed", "G-19", "a link delivered again after a partition on it had dropped packets"},
}

// noMark stands for no mark in tables that map to marks.
const noMark Mark = 255

// discardMarks is the mark of an arriving fragment's discard, by its reason.
var discardMarks = [...]Mark{
	ReasonNone: noMark, ReasonAcked: noMark, ReasonEndWithError: noMark, ReasonCleanup: noMark,
	ReasonLifetime: noMark, ReasonErrorReceived: noMark, ReasonRemoteEnded: noMark,
	ReasonWindow:         MarkFragmentBeyondWindow,
	ReasonClosedEndpoint: MarkArrivalForClosedEndpoint,
	ReasonUnknownDialog:  MarkArrivalForUnknownDialog,
	ReasonTargetRefused:  MarkTargetRefused,
	ReasonNoRoute:        MarkArrivalNoRoute,
	ReasonNotForwarded:   MarkArrivalNoRoute,
	ReasonForwardFull:    MarkForwardFull,
	ReasonHops:           MarkForwardHops,
}

// MarkTable returns every mark, in the order of the constants: a copy, which the caller
// may keep.
func MarkTable() []MarkInfo { return slices.Clone(markTable[:]) }

// Name returns the mark's stable name: "fragment.retransmitted".
func (m Mark) Name() string {
	if int(m) < NumMarks {
		return markTable[m].Name
	}
	return fmt.Sprintf("Mark(%d)", int(m))
}

func (m Mark) String() string { return m.Name() }

// Description says in one line what reaching the mark means.
func (m Mark) Description() string {
	if int(m) < NumMarks {
		return markTable[m].Description
	}
	return ""
}

// LookupMark returns the mark of a name, and whether there is one.
func LookupMark(name string) (Mark, bool) {
	for _, info := range markTable {
		if info.Name == name {
			return info.Mark, true
		}
	}
	return 0, false
}

// MarkCounts counts, by mark, how many times each path was taken. The zero value counts
// nothing; it is a plain array, copied by value.
type MarkCounts [NumMarks]uint64

// Add adds o's counts to c's.
func (c *MarkCounts) Add(o *MarkCounts) {
	for i := range c {
		c[i] += o[i]
	}
}

// Reached reports whether mark m was counted at least once.
func (c *MarkCounts) Reached(m Mark) bool { return c[m] > 0 }

// Marks returns how many times the broker took each marked path, since it was created:
// crashes and restarts keep the counts.
func (b *Broker) Marks() MarkCounts { return b.marks }
