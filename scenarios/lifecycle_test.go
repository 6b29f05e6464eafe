package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// lifeCycleWorld is twoInstances on a 20 ms link: dialogs dialogs of two messages, one a
// second, with the life cycle given, and a reader on each queue (the initiator's receives
// replies and EndDialogs).
func lifeCycleWorld(end LifeCycle, replies bool, dialogs int) Config {
	link := faulty.Config{LatencyFixed: 20 * time.Millisecond}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "w", Dialogs: dialogs,
		Interarrival: sim.Fixed(time.Second), Messages: 2, Size: FixedSize(100), Replies: replies, ReplySize: FixedSize(50), End: end})
	cfg.Readers = []Reader{{Queue: "TargetQueue", Top: 10}, {Queue: "InitiatorQueue", Top: 10}}
	return cfg
}

// endpointsOf counts the endpoints of instance i by state, at the end of the run.
func endpointsOf(res *Result, i int) map[model.EndpointState]int {
	out := map[model.EndpointState]int{}
	for _, sc := range res.Instances[i].EndpointStates {
		out[sc.State] += sc.Count
	}
	return out
}

// runLifeCycle runs cfg until limit (zero: until it drains) and checks it held every
// invariant and made no statement fail.
func runLifeCycle(t *testing.T, cfg Config, limit time.Duration) *Result {
	t.Helper()
	cfg.MaxTime = limit
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.Zero(t, res.StatementErrors, res.FirstStatementError)
	if limit == 0 {
		require.Equal(t, sim.Drained, res.StopReason)
	}
	return res
}

// TestDLG7_DLG8_InitiatorEndsByDefault: the default life cycle, as before: the initiator
// ends after its last reply; the target ends on the EndDialog (DLG-6); once drained, no
// endpoint is left (G-16: the closed target is forgotten after its retention).
func TestDLG7_DLG8_InitiatorEndsByDefault(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndInitiator, true, 5), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(5), w.DialogsEnded)
	assert.Equal(t, int64(10), w.RepliesReceived)
	assert.Equal(t, int64(10), w.MessagesReceived)
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1))
}

// TestDLG8_G16_TargetEndsOnTheLastMessage: with end: target the target ends once it has
// the last message (its EndDialog goes to the initiator, DLG-8) and the initiator ends on
// the EndDialog (DLG-6). Ten minutes in, the initiator's endpoints are deleted and the
// target's are closed and kept for the retention (G-16).
func TestDLG8_G16_TargetEndsOnTheLastMessage(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndTarget, false, 5), 10*time.Minute)
	w := res.Workloads[0]
	assert.Equal(t, int64(5), w.DialogsEndedByTarget)
	assert.Equal(t, int64(5), w.DialogsEnded, "the initiator ends on the EndDialog")
	assert.Equal(t, int64(10), w.MessagesReceived)
	assert.Empty(t, endpointsOf(res, 0), "closed initiator endpoints are deleted at once (G-16)")
	assert.Equal(t, map[model.EndpointState]int{model.Closed: 5}, endpointsOf(res, 1))
}

// TestDLG8_TargetEndsAfterItsLastReply: end: target-after-reply answers every message and
// ends after the last reply, which the initiator receives before the EndDialog (DLG-8).
func TestDLG8_TargetEndsAfterItsLastReply(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndTargetAfterReply, true, 5), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(10), w.RepliesReceived, "every reply arrives before the EndDialog")
	assert.Equal(t, int64(5), w.DialogsEndedByTarget)
	assert.Equal(t, int64(5), w.DialogsEnded)
	assert.Zero(t, w.SendFailures)
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1))
}

// TestDLG11_DLG4_FireAndForgetLeaksTargetsInDisconnectedInbound: the initiator ends right
// after its last SEND though it wants replies. The target's replies find a closed
// initiator endpoint and are discarded (DLG-11), or are refused once the EndDialog has
// arrived (DI: SEND is allowed only in SO and CO, G-16); the target's program never ends,
// so each target endpoint stays DISCONNECTED_INBOUND for ever (DLG-4) while the
// initiator's are gone.
func TestDLG11_DLG4_FireAndForgetLeaksTargetsInDisconnectedInbound(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndFireAndForget, true, 5), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(5), w.DialogsEnded)
	assert.Zero(t, w.RepliesReceived, "no reply reaches an initiator that has ended")
	assert.Equal(t, int64(10), w.MessagesReceived, "the messages themselves are delivered (DLG-8)")
	assert.Empty(t, endpointsOf(res, 0))
	assert.Equal(t, map[model.EndpointState]int{model.DisconnectedInbound: 5}, endpointsOf(res, 1))
}

// TestDLG4_DLG6_NeverEndedDialogsStayConversing: nobody ends: Service Broker never ends a
// dialog by itself (DLG-6), so both endpoints of every dialog stay CONVERSING.
func TestDLG4_DLG6_NeverEndedDialogsStayConversing(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndNever, true, 5), 0)
	w := res.Workloads[0]
	assert.Zero(t, w.DialogsEnded)
	assert.Equal(t, int64(10), w.RepliesReceived)
	assert.Equal(t, map[model.EndpointState]int{model.Conversing: 5}, endpointsOf(res, 0))
	assert.Equal(t, map[model.EndpointState]int{model.Conversing: 5}, endpointsOf(res, 1))
}

// TestDLG10_CleanupAfterTheLastReplyLeavesTheTargetConversing: END WITH CLEANUP after the
// last reply drops the initiator's endpoint and tells the target nothing (DLG-10): the
// target endpoints stay CONVERSING.
func TestDLG10_CleanupAfterTheLastReplyLeavesTheTargetConversing(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndCleanup, true, 5), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(5), w.DialogsEnded)
	assert.Equal(t, int64(10), w.RepliesReceived)
	assert.Empty(t, endpointsOf(res, 0))
	assert.Equal(t, map[model.EndpointState]int{model.Conversing: 5}, endpointsOf(res, 1))
}

// TestDLG10_INV1_CleanupRightAfterSendingDropsWhatWasNotTransmitted: without replies the
// initiator ends WITH CLEANUP right after its last SEND: the messages still in its
// transmission queue are dropped with the endpoint (DLG-10), a documented discard for
// INV-1, and the target never hears of the dialog's end.
func TestDLG10_INV1_CleanupRightAfterSendingDropsWhatWasNotTransmitted(t *testing.T) {
	res := runLifeCycle(t, lifeCycleWorld(EndCleanup, false, 5), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(10), w.MessagesSent)
	assert.Less(t, w.MessagesReceived, w.MessagesSent, "the cleanup dropped messages not yet transmitted")
	assert.Empty(t, endpointsOf(res, 0))
	for state := range endpointsOf(res, 1) {
		assert.Contains(t, []model.EndpointState{model.StartedInbound, model.Conversing}, state, "the target is never told")
	}
}

// TestG16_DLG4_AnHourOfFireAndForgetAgainstTargetEnds: the endpoint leak of the issue.
// One dialog every 10 s for an hour: when the target ends (and the initiator ends on its
// EndDialog), what is left after the hour is the closed targets of the last 30 minutes,
// kept for the retention (G-16); with fire and forget against a target that never ends,
// every target endpoint of the hour is still DISCONNECTED_INBOUND (DLG-4), and the count
// only grows.
func TestG16_DLG4_AnHourOfFireAndForgetAgainstTargetEnds(t *testing.T) {
	hour := func(end LifeCycle) map[model.EndpointState]int {
		cfg := lifeCycleWorld(end, false, 360)
		cfg.Workloads[0].Interarrival = sim.Fixed(10 * time.Second)
		res := runLifeCycle(t, cfg, time.Hour)
		assert.Empty(t, endpointsOf(res, 0), "%v: no initiator endpoint is left after its close", end)
		return endpointsOf(res, 1)
	}
	targetEnds := hour(EndTarget)
	assert.InDelta(t, 180, targetEnds[model.Closed], 2, "the closed targets of the last 30 minutes: %v", targetEnds)
	assert.Equal(t, targetEnds[model.Closed], sum(targetEnds), "nothing but closed targets: %v", targetEnds)
	leak := hour(EndFireAndForget)
	assert.Equal(t, 360, leak[model.DisconnectedInbound], "every target of the hour leaks: %v", leak)
	assert.Equal(t, 360, sum(leak), "%v", leak)
}

func sum(m map[model.EndpointState]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func TestLifeCycleValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Workload)
		want string
	}{
		{"target with replies", func(w *Workload) { w.End, w.Replies = EndTarget, true }, "target-after-reply"},
		{"target-after-reply without replies", func(w *Workload) { w.End, w.Replies = EndTargetAfterReply, false }, "needs Replies"},
		{"never with an error", func(w *Workload) { w.End, w.EndWithError = EndNever, true }, "EndWithError"},
		{"unknown", func(w *Workload) { w.End = EndCleanup + 1 }, "unknown"},
		{"reuse with a life cycle", func(w *Workload) { w.End, w.Reuse = EndNever, &Reuse{Dialogs: 1} }, "End is not used"},
		{"reuse of no dialog", func(w *Workload) { w.Reuse = &Reuse{} }, "Dialogs 0 is below 1"},
		{"reuse ending with replies", func(w *Workload) { w.Replies, w.Reuse = true, &Reuse{Dialogs: 1, RecycleAfterMessages: 5} }, "EndOfStream"},
		{"reuse with a message gap", func(w *Workload) { w.MessageGap, w.Reuse = sim.Fixed(time.Second), &Reuse{Dialogs: 1} }, "MessageGap is not used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := lifeCycleWorld(EndInitiator, false, 1)
			tc.edit(&cfg.Workloads[0])
			_, err := Run(cfg, 1)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
