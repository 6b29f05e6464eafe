package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// reuseWorld is lifeCycleWorld's pair with units units of work of messages messages, one
// every 10 ms, sent on a pool as reuse says.
func reuseWorld(units, messages int, reuse Reuse) Config {
	cfg := lifeCycleWorld(EndInitiator, false, units)
	w := &cfg.Workloads[0]
	w.Interarrival, w.Messages, w.Reuse = sim.Fixed(10*time.Millisecond), messages, &reuse
	return cfg
}

// TestLOCK9_LOCK3_TwoSendersOnOneDialogTakeTurns: two senders share one dialog, and each
// holds its transaction 50 ms after its SENDs. SEND locks the dialog's group until the
// commit (LOCK-9, LOCK-3): the second sender waits for the first's commit (G-24), and every
// unit's messages still arrive in order, on the one dialog.
func TestLOCK9_LOCK3_TwoSendersOnOneDialogTakeTurns(t *testing.T) {
	res := runLifeCycle(t, reuseWorld(20, 3, Reuse{Dialogs: 1, Senders: 2, HoldTime: sim.Fixed(50 * time.Millisecond)}), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(1), w.DialogsBegun, "one long-lived dialog")
	assert.Equal(t, int64(60), w.MessagesSent)
	assert.Equal(t, int64(60), w.MessagesReceived)
	assert.Positive(t, w.SenderLockWaits, "the senders took turns on the group's lock")
	assert.Positive(t, w.SenderLockWait)
	assert.Equal(t, map[model.EndpointState]int{model.Conversing: 1}, endpointsOf(res, 0), "the pool's dialog lives on")
	assert.Equal(t, map[model.EndpointState]int{model.Conversing: 1}, endpointsOf(res, 1))
}

// TestLOCK9_LOCK4_ASenderPerDialogNeverWaits: Rusanu's table, a dialog per sender: no two
// senders share a group, so none waits, and each dialog has a group of its own (LOCK-9).
func TestLOCK9_LOCK4_ASenderPerDialogNeverWaits(t *testing.T) {
	res := runLifeCycle(t, reuseWorld(20, 3, Reuse{Dialogs: 2, HoldTime: sim.Fixed(5 * time.Millisecond)}), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(2), w.DialogsBegun)
	assert.Zero(t, w.SenderLockWaits)
	assert.Equal(t, int64(60), w.MessagesReceived)
}

// TestDLG8_RecycleAfterMessagesEndsAfterTheLastMessage: a dialog is retired once it has
// carried 10 messages: its sender ends it after its messages (DLG-8: the EndDialog follows
// them), the target ends on the EndDialog, and the next unit begins a new dialog.
func TestDLG8_RecycleAfterMessagesEndsAfterTheLastMessage(t *testing.T) {
	res := runLifeCycle(t, reuseWorld(50, 2, Reuse{Dialogs: 1, RecycleAfterMessages: 10}), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(10), w.DialogsBegun)
	assert.Equal(t, int64(10), w.DialogsRecycled)
	assert.Equal(t, int64(10), w.DialogsEnded)
	assert.Equal(t, int64(100), w.MessagesReceived, "nothing is lost to the recycling")
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1), "drained: the closed targets were forgotten (G-16)")
}

// TestDLG8_RecycleAfterAnAge: a dialog older than 100 ms is retired by the next unit that
// uses it: 50 units over half a second use about five dialogs.
func TestDLG8_RecycleAfterAnAge(t *testing.T) {
	res := runLifeCycle(t, reuseWorld(50, 1, Reuse{Dialogs: 1, RecycleAfter: 100 * time.Millisecond}), 0)
	w := res.Workloads[0]
	assert.InDelta(t, 5, w.DialogsBegun, 1)
	assert.Equal(t, w.DialogsBegun-1, w.DialogsRecycled, "the last dialog is not yet due")
	assert.Equal(t, int64(50), w.MessagesReceived)
}

// TestDLG6_DLG8_EndOfStreamMonologue: the data push of "Reusing Conversations" recycled as
// in "Recycling Conversations": the target never sends (a monologue) and ends only on the
// end-of-stream message; the initiator ends on the target's EndDialog (DLG-6), so that the
// initiator is the side that ends last and no endpoint is left in DO waiting.
func TestDLG6_DLG8_EndOfStreamMonologue(t *testing.T) {
	res := runLifeCycle(t, reuseWorld(40, 1, Reuse{Dialogs: 2, RecycleAfterMessages: 10, EndOfStream: true}), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(4), w.DialogsRecycled)
	assert.Equal(t, int64(4), w.DialogsEndedByTarget, "the target ends on each end-of-stream message")
	assert.Equal(t, int64(4), w.DialogsEnded, "the initiator ends on the target's EndDialog")
	assert.Equal(t, int64(40), w.MessagesReceived, "the end-of-stream messages aside")
	assert.Zero(t, w.RepliesReceived)
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1))
}

// TestDLG8_EndOfStreamWithReplies: a pool with replies recycles by end of stream, so that
// no reply finds an ended initiator: every message is answered.
func TestDLG8_EndOfStreamWithReplies(t *testing.T) {
	cfg := reuseWorld(30, 2, Reuse{Dialogs: 3, Senders: 5, RecycleAfterMessages: 8, EndOfStream: true,
		HoldTime: sim.Fixed(2 * time.Millisecond)})
	cfg.Workloads[0].Replies = true
	res := runLifeCycle(t, cfg, 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(60), w.MessagesReceived)
	assert.Equal(t, int64(60), w.RepliesReceived, "no reply is lost to the recycling")
	assert.Positive(t, w.DialogsRecycled)
}

func TestReuseIsRefusedWithCrashes(t *testing.T) {
	cfg := reuseWorld(1, 1, Reuse{Dialogs: 1})
	cfg.Timeline = []Change{{At: time.Second, Crash: &CrashChange{Instance: "A", RestartAfter: time.Second}}}
	_, err := Run(cfg, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not modelled through crashes")
}

// TestLOCK9_APoolPaysItsStatementsOnTheCPUs: with the cost model on, a pool's senders pay
// their BEGIN DIALOG, SENDs and COMMITs on the instance's CPUs, and every unit still
// arrives (cost.go).
func TestLOCK9_APoolPaysItsStatementsOnTheCPUs(t *testing.T) {
	cfg := reuseWorld(20, 3, Reuse{Dialogs: 1, Senders: 2, HoldTime: sim.Fixed(5 * time.Millisecond)})
	costs := DefaultCosts
	cfg.Costs = &costs
	res := runLifeCycle(t, cfg, 0)
	assert.Equal(t, int64(60), res.Workloads[0].MessagesReceived)
	ok := false
	for _, m := range Measures(res) {
		if m.Metric == "cpu.busy" && m.Subject.Instance == "A" && m.Value > 0 {
			ok = true
		}
	}
	assert.True(t, ok, "the senders' statements kept instance A's CPUs busy")
}
