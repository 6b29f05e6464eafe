package scenarios

import (
	"errors"

	"github.com/sbsim/sbsim/model"
)

// A workload's life cycle and a reader program compose: a handler (or the hook) for a
// message of a workload's dialog replaces the reply the target would send, and nothing
// else. The life cycle still counts the message (received by the target, or a reply at
// the initiator) and still ends its side when it says so; with a handler, that END runs
// after the handler's statements, so that the EndDialog follows the handler's reply
// (DLG-8). A pool's end-of-stream message belongs to the pool's protocol: no handler sees
// it (docs/programs.md, docs/lifecycles.md).

// workloadReceived is the workload's part for a user message m the session received
// (handled says a handler or the hook took it): at the target, the automatic reply
// unless handled, and the target's life cycle; at the initiator, the reply counted, and
// the initiator's end once every reply is in.
func (s *session) workloadReceived(m model.ReceivedMessage, handled bool) {
	w := s.r.w
	now := w.now()
	d := w.dialogs[m.ConversationID]
	if d == nil {
		return
	}
	if m.ConversationHandle != d.initiator {
		if !handled && d.wl.cfg.Replies && !d.isEndOfStream() {
			size := int64(d.wl.cfg.ReplySize.distribution().Sample(d.wl.sizes))
			s.charge(costSend, 1)
			if err := s.t.Send(now, m.ConversationHandle, d.wl.replyType, size); errors.Is(err, model.ErrConversationNotSending) || errors.Is(err, model.ErrHandleNotFound) {
				// The dialog failed or ended meanwhile: its lifetime expired, an Error arrived
				// and this reader ended the conversation on it earlier in the batch.
				d.wl.sendFails++
			} else if err != nil {
				w.statementFailed(err)
			}
		}
		s.targetReceived(d, m, handled)
		return
	}
	if handled && m.MessageType != d.wl.replyType {
		return // a message of its own type that a handler takes (a scheduler's Tick) is no reply
	}
	d.replies++
	d.wl.replies++
	s.acts = append(s.acts, appAct{kind: actReply, d: d})
	if d.wl.initiatorEndsAfterReplies(d) && !d.ended && !d.wl.keepOpen {
		d.ended = true
		d.wl.ended++
		s.acts = append(s.acts, appAct{kind: actEnded, d: d})
		s.lifeCycleEnd(d.initiator, d.wl.endOptions(), handled)
	}
}

// lifeCycleEnd runs the END CONVERSATION of a life cycle on h: at once, or, after a
// handler or while the batch has handlers' statements to run (a reply to an earlier
// message of the dialog, say), as an op queued behind them.
func (s *session) lifeCycleEnd(h model.ConversationHandle, opts model.EndOptions, handled bool) {
	if handled || len(s.ops) > 0 {
		s.ops = append(s.ops, op{kind: StatementEnd, h: h, end: opts, life: true})
		return
	}
	s.charge(costEnd, 1)
	if err := s.t.EndConversation(s.r.w.now(), h, opts); err != nil && !errors.Is(err, model.ErrHandleNotFound) {
		s.r.w.statementFailed(err)
	}
}

// lifeCycleEndDone books the outcome of a life cycle's END run as an op: not a statement
// of the program. It reports whether the session stopped (a deadlock victim).
func (s *session) lifeCycleEndDone(o *op, err error) bool {
	switch {
	case err == nil:
		if _, ok := s.r.prog.watches[o.h]; ok {
			s.setWatch(o.h, false, false)
		}
	case errors.Is(err, model.ErrDeadlockVictim):
		s.failed(err)
		return true
	case err != nil && !errors.Is(err, model.ErrHandleNotFound): // a handler may have ended it first
		s.r.w.statementFailed(err)
	}
	return false
}

// endOfStream reports whether m is the end-of-stream message of a pooled dialog, arriving
// at its target: the pool's protocol, which the default program handles whatever the
// reader's handlers.
func (s *session) endOfStream(m model.ReceivedMessage) bool {
	d := s.r.w.dialogs[m.ConversationID]
	return d != nil && m.ConversationHandle != d.initiator && !isSystemType(m.MessageType) && d.isEndOfStream()
}

// replyRefused counts a handler's SEND that the target of a workload's dialog could not
// send on the received conversation because the dialog had failed or ended, as the
// automatic reply's refusals are (send_failures).
func (s *session) replyRefused(o *op, err error) {
	if o.kind != StatementSend || o.target != TargetReceived || !(errors.Is(err, model.ErrConversationNotSending) || errors.Is(err, model.ErrHandleNotFound)) {
		return
	}
	if d := s.r.w.dialogs[o.m.ConversationID]; d != nil && o.h == o.m.ConversationHandle && o.h != d.initiator {
		d.wl.sendFails++
	}
}
