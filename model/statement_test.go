package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reference: spec DLG-2: RELATED_CONVERSATION must name an existing, live dialog; the
// statement fails otherwise, and with a conversation of another service.
func TestDLG2_RelatedConversationMustExist(t *testing.T) {
	w := newTxWorld(t)
	initiator, target := w.local("d", "Initiator", 1)
	closing, _ := w.local("closing", "Initiator", 1)
	require.NoError(t, w.end(instA, closing, EndOptions{}))
	soH, err := w.brokers[instA].BeginDialog(w.now, w.service("Initiator"), w.name("Target"), w.contract("RequestReply"), BeginDialogOptions{})
	w.apply(instA)
	require.NoError(t, err)
	require.NoError(t, w.end(instA, soH, EndOptions{}))

	tests := []struct {
		name    string
		from    string
		related ConversationHandle
		want    error
	}{
		{"a handle that never existed", "Initiator", ConversationHandle(0xdead), ErrRelatedConversation},
		{"an ended conversation", "Initiator", closing, ErrRelatedConversation},
		{"a conversation ended from SO", "Initiator", soH, ErrRelatedConversation},
		{"a conversation of another service", "LocalTarget", initiator, ErrGroupOfOtherService},
		{"a live conversation of the service", "Initiator", initiator, nil},
		{"the target side's conversation", "LocalTarget", target, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := w.beginTx()
			h, err := s.beginDialog(tt.from, "Target", BeginDialogOptions{RelatedConversation: tt.related})
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
				assert.Zero(t, h)
			} else {
				require.NoError(t, err)
				assert.Equal(t, w.groupOf(tt.related), w.groupOf(h), "the new dialog joins the related one's group")
			}
			s.rollback()
		})
	}
}

// Reference: spec DLG-2 and DLG-15: RELATED_CONVERSATION_GROUP naming a group that does not
// exist creates it with that id (undone by a rollback); a group id stays valid until the
// last of its conversations has ended, and then is gone.
func TestDLG2_DLG15_NewRelatedGroupLivesUntilItsLastConversationEnds(t *testing.T) {
	w := newTxWorld(t)
	const id = ConversationGroupID(0xabc)
	b := w.brokers[instA]

	s := w.beginTx()
	_, err := s.beginDialog("Initiator", "LocalTarget", BeginDialogOptions{RelatedConversationGroup: id})
	require.NoError(t, err)
	assert.Equal(t, []ConversationGroupID{id}, s.tx.Locks())
	s.rollback()
	_, ok := b.Group(id)
	assert.False(t, ok, "the rollback removed the group it created")

	s = w.beginTx()
	h1, err := s.beginDialog("Initiator", "LocalTarget", BeginDialogOptions{RelatedConversationGroup: id})
	require.NoError(t, err)
	h2, err := s.beginDialog("Initiator", "Target", BeginDialogOptions{RelatedConversation: h1})
	require.NoError(t, err)
	s.commit()
	info := w.group(id)
	assert.Equal(t, GroupInfo{ID: id, Queue: w.queue("InitiatorQueue"), Service: w.service("Initiator"), Conversations: 2}, info)
	assert.Equal(t, id, w.groupOf(h2))
	_, err = w.brokers[instA].BeginDialog(w.now, w.service("LocalTarget"), w.name("Target"), w.contract("RequestReply"),
		BeginDialogOptions{RelatedConversationGroup: id})
	w.apply(instA)
	assert.ErrorIs(t, err, ErrGroupOfOtherService, "a group holds the conversations of one service (DLG-2)")

	w.sendN(h1, 1)
	require.NoError(t, w.end(instA, h1, EndOptions{}))
	assert.Equal(t, 1, w.group(id).Conversations, "the group lives on with one conversation")

	s = w.beginTx()
	require.NoError(t, s.end(h2, EndOptions{}))
	assert.Equal(t, 1, w.group(id).Conversations, "END takes effect at commit")
	s.commit()
	_, ok = b.Group(id)
	assert.False(t, ok, "the last conversation ended: the id is gone")

	h3 := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{RelatedConversationGroup: id})
	assert.Equal(t, id, w.groupOf(h3), "the id can name a new group")
}

// dialogTimers returns the conversation timers armed and not yet fired.
func (w *txWorld) dialogTimers() []time.Duration {
	var at []time.Duration
	for _, p := range w.pending {
		if p.timer != nil && p.timer.Kind == TimerDialog {
			at = append(at, p.at)
		}
	}
	return at
}

// Reference: spec DLG-14: BEGIN CONVERSATION TIMER takes effect when its transaction commits
// (G-31; the time-out counts from the commit); on expiry a DialogTimer message goes on this
// side's queue only, never to the far side, and the queue is signalled (it can activate).
func TestDLG14_ConversationTimerStartsAtCommit(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprintf("commit %v", commit), func(t *testing.T) {
			w := newTxWorld(t)
			initiator, _ := w.dialog("d", "Initiator", "Target", 1) // the far side is instance B
			s := w.beginTx()
			require.NoError(t, s.timer(initiator, time.Second))
			assert.Empty(t, w.dialogTimers(), "no timer before the commit")
			w.runUntil(w.now + 500*time.Millisecond)
			committedAt := w.now
			sent := len(w.sent)
			w.ready = nil
			if !commit {
				s.rollback()
				w.runUntil(w.now + time.Hour)
				msgs, err := w.receiveAll("InitiatorQueue")
				require.NoError(t, err)
				assert.Empty(t, msgs, "a rolled-back timer never fires")
				return
			}
			s.commit()
			assert.Equal(t, []time.Duration{committedAt + time.Second}, w.dialogTimers())
			w.runUntil(committedAt + time.Second - time.Nanosecond)
			assert.Zero(t, w.brokers[instA].ReadyMessages(w.queue("InitiatorQueue")))
			w.runUntil(committedAt + time.Second)
			assert.Equal(t, []QueueID{w.queue("InitiatorQueue")}, w.ready, "the queue is signalled")
			w.runUntil(w.now + time.Minute)
			assert.Equal(t, sent, len(w.sent), "nothing is sent to the far side")
			msgs, err := w.receiveAll("InitiatorQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"d:DialogTimer#-1"}, w.rows(msgs))
			assert.Equal(t, committedAt+time.Second, msgs[0].EnqueuedAt)
			far, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"d:Request#0"}, w.rows(far), "the far side gets no DialogTimer")
		})
	}
}

// Reference: spec DLG-14: an endpoint has one conversation timer; BEGIN CONVERSATION TIMER
// again replaces it, and only the last one set fires.
func TestDLG14_ResettingReplacesTheTimer(t *testing.T) {
	w := newTxWorld(t)
	_, target := w.local("d", "Initiator", 1)
	start := w.now
	s := w.beginTx()
	require.NoError(t, s.timer(target, time.Second))
	s.commit()
	w.runUntil(start + 500*time.Millisecond)
	s = w.beginTx()
	require.NoError(t, s.timer(target, 2*time.Second))
	s.commit()

	w.runUntil(start + 2*time.Second)
	assert.Equal(t, 1, w.brokers[instA].ReadyMessages(w.queue("LocalTargetQueue")), "the first timer was replaced")
	w.runUntil(start + time.Hour)
	msgs, err := w.receiveAll("LocalTargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"d:DialogTimer#-1", "d:Request#0"}, w.rows(msgs))
	require.Len(t, msgs, 2)
	assert.Equal(t, start+2500*time.Millisecond, msgs[0].EnqueuedAt)
}
