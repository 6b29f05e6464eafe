package scenarios

import (
	"errors"
	"fmt"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// LifeCycle says who ends a workload's dialogs, and when (issue 14, item 2). Each one
// names the programs of both sides: the side that does not end by the life cycle ends on
// the EndDialog it receives (DLG-6), except where the life cycle says it does not.
type LifeCycle uint8

const (
	// EndInitiator: the initiator ends after its last SEND, or, with replies, once every
	// reply has arrived; the target ends on the EndDialog (DLG-6). The default.
	EndInitiator LifeCycle = iota
	// EndTarget: the target ends once it has received the dialog's last message; the
	// initiator ends on the EndDialog. A workload without replies.
	EndTarget
	// EndTargetAfterReply: the target answers every message and ends after its last reply
	// (the EndDialog follows the reply, DLG-8); the initiator receives the replies, then
	// ends on the EndDialog. A workload with replies.
	EndTargetAfterReply
	// EndFireAndForget is the anti-pattern: the initiator ends right after its last SEND,
	// even when it expects replies, and the target's program, written for a partner that
	// ends, answers while it can but never ends its side: the EndDialog leaves the target
	// endpoint DISCONNECTED_INBOUND for ever (DLG-4, G-16), and replies and errors find a
	// closed initiator endpoint (DLG-11).
	EndFireAndForget
	// EndNever: nobody ends; both endpoints stay CONVERSING.
	EndNever
	// EndCleanup: the initiator ends WITH CLEANUP after its last SEND, or after its last
	// reply with replies (DLG-10): the target is never told and stays CONVERSING, and what
	// was still in the initiator's transmission queue is dropped.
	EndCleanup
)

var lifeCycleNames = [...]string{"initiator", "target", "target-after-reply", "fire-and-forget", "never", "cleanup"}

func (c LifeCycle) String() string {
	if int(c) < len(lifeCycleNames) {
		return lifeCycleNames[c]
	}
	return fmt.Sprintf("LifeCycle(%d)", int(c))
}

// ParseLifeCycle returns the life cycle called name (String's names).
func ParseLifeCycle(name string) (LifeCycle, bool) {
	for i, n := range lifeCycleNames {
		if n == name {
			return LifeCycle(i), true
		}
	}
	return 0, false
}

// LifeCycleNames lists the life cycles' names, in order.
func LifeCycleNames() []string { return lifeCycleNames[:] }

// Reuse makes a workload send its units of work on a pool of long-lived dialogs instead of
// a dialog each (issue 14, item 3): the conversation reuse table of Remus Rusanu's
// "Reusing Conversations" (2007). Each of the workload's Dialogs is then a unit of work: it
// arrives at the workload's Interarrival and goes, in turn, to one of Senders senders;
// sender s SENDs on dialog s mod Dialogs of the pool. A unit is one transaction: BEGIN
// DIALOG when its pool slot has none, its Messages SENDs, the HoldTime the application
// still works in the transaction, COMMIT. SEND locks the dialog's conversation group until
// the commit (LOCK-9, LOCK-3), so that two senders on one dialog take turns: the second
// waits for the first's commit (G-24).
type Reuse struct {
	// Dialogs is the pool's size, M; at least 1.
	Dialogs int
	// Senders is how many senders share the pool, S; zero means one per dialog.
	Senders int
	// RecycleAfterMessages retires a dialog once it has carried that many messages;
	// RecycleAfter once it is that old. Zero for neither: the dialogs live for ever.
	RecycleAfterMessages int
	RecycleAfter         time.Duration
	// EndOfStream retires a dialog the way Rusanu's "Recycling Conversations" does: the
	// sender SENDs an end-of-stream message (an empty message of the workload's type) and
	// the target, which otherwise never ends (and, without replies, never sends: a
	// monologue), ends on it; the initiator ends on the EndDialog. Without it, the sender
	// ends the dialog itself (END CONVERSATION in its unit's transaction, after its
	// messages: DLG-8), and the target ends on the EndDialog.
	EndOfStream bool
	// HoldTime is how long a unit's transaction stays open after its SENDs, holding the
	// group's lock; zero commits at once.
	HoldTime sim.Distribution
}

func (r *Reuse) senders() int {
	if r.Senders == 0 {
		return r.Dialogs
	}
	return r.Senders
}

// validateLifeCycle checks End and Reuse against the rest of the workload.
func (w *Workload) validateLifeCycle() error {
	switch {
	case w.End > EndCleanup:
		return fmt.Errorf("End: life cycle %d is unknown", w.End)
	case w.End == EndTarget && w.Replies:
		return errors.New("End: target ends on the last message, without replies: with replies write target-after-reply")
	case w.End == EndTargetAfterReply && !w.Replies:
		return errors.New("End: target-after-reply needs Replies")
	case w.EndWithError && (w.End == EndNever || w.End == EndCleanup):
		return fmt.Errorf("EndWithError: a %v dialog is not ended with an error", w.End)
	}
	r := w.Reuse
	if r == nil {
		return nil
	}
	switch {
	case w.End != EndInitiator:
		return errors.New("Reuse: a pool's dialogs end by their recycling: End is not used")
	case w.GroupSize > 1:
		return errors.New("Reuse: each pooled dialog has a group of its own: GroupSize is not used")
	case r.Dialogs < 1:
		return fmt.Errorf("Reuse: Dialogs %d is below 1", r.Dialogs)
	case r.Senders < 0 || r.Senders > MaxSessions:
		return fmt.Errorf("Reuse: Senders %d is outside 0..%d", r.Senders, MaxSessions)
	case r.RecycleAfterMessages < 0:
		return fmt.Errorf("Reuse: RecycleAfterMessages %d is negative", r.RecycleAfterMessages)
	case r.RecycleAfter < 0:
		return fmt.Errorf("Reuse: RecycleAfter %v is negative", r.RecycleAfter)
	case w.Messages < 1 && w.Dialogs > 0:
		return errors.New("Reuse: a unit of work sends at least one message: Messages is 0")
	case w.Replies && !r.EndOfStream && (r.RecycleAfterMessages > 0 || r.RecycleAfter > 0):
		return errors.New("Reuse: a sender that ends a dialog with replies on their way loses them: recycle with EndOfStream")
	case w.EndWithError:
		return errors.New("Reuse: EndWithError is not used by a pool")
	case w.MessageGap != (sim.Distribution{}):
		return errors.New("Reuse: a unit's SENDs run in one transaction, one after another: MessageGap is not used")
	}
	if err := r.HoldTime.Validate(); err != nil {
		return fmt.Errorf("Reuse: HoldTime: %w", err)
	}
	return nil
}

// initiatorEndsAfterSend reports whether the initiator ends the dialog once it has sent
// its last message.
func (wl *workloadRun) initiatorEndsAfterSend(d *dialogApp) bool {
	switch wl.cfg.End {
	case EndInitiator, EndCleanup:
		return !wl.cfg.Replies || d.replies >= wl.cfg.Messages
	case EndFireAndForget:
		return true
	case EndTarget, EndTargetAfterReply:
		return wl.cfg.Messages == 0 // a dialog of no message has no target to end it
	}
	return false
}

// initiatorEndsAfterReplies reports whether the initiator ends the dialog on its last
// reply.
func (wl *workloadRun) initiatorEndsAfterReplies(d *dialogApp) bool {
	if d.reused || (wl.cfg.End != EndInitiator && wl.cfg.End != EndCleanup) {
		return false
	}
	return d.replies >= wl.cfg.Messages && d.sent >= wl.cfg.Messages
}

// endOptions are the options of the END CONVERSATION the life cycle ends with.
func (wl *workloadRun) endOptions() model.EndOptions {
	switch {
	case wl.cfg.End == EndCleanup:
		return model.EndOptions{WithCleanup: true}
	case wl.cfg.EndWithError:
		return model.EndOptions{WithError: true, ErrorCode: 50000}
	}
	return model.EndOptions{}
}

// targetEndsOnEndDialog reports whether the target's program ends its side when the
// EndDialog arrives (DLG-6): not the fire-and-forget one, nor a never-ending one.
func (wl *workloadRun) targetEndsOnEndDialog() bool {
	return wl.cfg.End != EndFireAndForget && wl.cfg.End != EndNever
}

// targetReceived is the target's program's part of the life cycle, for a user message m
// of dialog d it has just received (and answered, with replies, or handled: handled) in
// the session's transaction: count it, and end the target's side when the life cycle
// says so (after the handler's statements, when handled).
func (s *session) targetReceived(d *dialogApp, m model.ReceivedMessage, handled bool) {
	wl := d.wl
	if d.isEndOfStream() {
		s.acts = append(s.acts, appAct{kind: actCountedEndOfStream, d: d})
	} else {
		wl.received++
		s.acts = append(s.acts, appAct{kind: actCounted, d: d})
	}
	d.received++
	end := false
	switch {
	case d.reused:
		end = d.endOfStream > 0 && d.received >= d.endOfStream
	case wl.cfg.End == EndTarget || wl.cfg.End == EndTargetAfterReply:
		end = d.received >= wl.cfg.Messages
	}
	if !end || d.targetEnded {
		return
	}
	d.targetEnded = true
	wl.targetEnded++
	s.acts = append(s.acts, appAct{kind: actTargetEnded, d: d})
	opts := model.EndOptions{}
	if wl.cfg.EndWithError {
		opts = model.EndOptions{WithError: true, ErrorCode: 50000}
	}
	s.lifeCycleEnd(m.ConversationHandle, opts, handled)
}

// undoLifeCycle takes back what targetReceived counted, for a rolled-back transaction.
func undoLifeCycle(a appAct) {
	switch a.kind {
	case actCounted:
		a.d.received--
		a.d.wl.received--
	case actCountedEndOfStream:
		a.d.received--
	case actTargetEnded:
		a.d.targetEnded = false
		a.d.wl.targetEnded--
	}
}

// validateReuseCrashes refuses a pool of reused dialogs in a world with crashes: a crash
// would roll back a unit's transaction under its sender, which the pool does not redo.
func (c *Config) validateReuseCrashes() error {
	crashes := c.Crashes.enabled()
	for _, ch := range c.Timeline {
		crashes = crashes || ch.Crash != nil
	}
	if !crashes {
		return nil
	}
	for i, w := range c.Workloads {
		if w.Reuse != nil {
			return fmt.Errorf("workload %d (%s): Reuse: a pool of dialogs is not modelled through crashes", i, w.Name)
		}
	}
	return nil
}

// lifeCycleMetrics are the workloads' figures of life cycles and reuse. Each has a value
// only for the workloads it concerns (a life cycle other than initiator, or a pool), so
// that a world that uses neither reports none of them.
func lifeCycleMetrics() []Metric {
	var ms []Metric
	for _, m := range []struct {
		name, doc string
		applies   func(WorkloadResult) bool
		get       func(WorkloadResult) int64
	}{
		{"messages.received_by_target", "the messages the targets received and committed, end-of-stream messages aside (a workload with a life cycle other than initiator, or a pool)",
			func(w WorkloadResult) bool { return w.End != EndInitiator || w.Reused },
			func(w WorkloadResult) int64 { return w.MessagesReceived }},
		{"dialogs.ended_by_target", "dialogs whose target ended the conversation by the life cycle (target, target-after-reply, or a pool's end-of-stream; none for the others: the leak of fire-and-forget)",
			func(w WorkloadResult) bool { return w.End != EndInitiator || w.Reused },
			func(w WorkloadResult) int64 { return w.DialogsEndedByTarget }},
		{"dialogs.recycled", "pooled dialogs the senders retired, by count or age (reuse)",
			func(w WorkloadResult) bool { return w.Reused }, func(w WorkloadResult) int64 { return w.DialogsRecycled }},
		{"senders.lock_waits", "units of work whose first SEND on a pooled dialog waited for its group's lock, held by another unit's transaction (LOCK-9, reuse)",
			func(w WorkloadResult) bool { return w.Reused }, func(w WorkloadResult) int64 { return w.SenderLockWaits }},
	} {
		ms = append(ms, Metric{Name: m.name, Takes: WorkloadKey, Doc: m.doc + "; with a workload, that one's",
			value: lifeCycleValue(m.applies, m.get)})
	}
	return ms
}

// lifeCycleValue sums a figure over the workloads of the subject it applies to; it has no
// value when it applies to none.
func lifeCycleValue(applies func(WorkloadResult) bool, get func(WorkloadResult) int64) func(*Result, Subject) (float64, string) {
	return func(res *Result, s Subject) (float64, string) {
		var n int64
		found := false
		for _, w := range res.Workloads {
			if (s.Workload == "" || w.Name == s.Workload) && applies(w) {
				n += get(w)
				found = true
			}
		}
		if !found {
			return 0, "no workload of the subject has a life cycle or a pool this figure counts"
		}
		return float64(n), ""
	}
}
