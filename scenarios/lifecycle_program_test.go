package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// withTargetHandler gives cfg's target queue a handler for the workload's Request that
// answers it, when the workload wants replies, as the default reader would: a Reply of
// the same 50 bytes. The handler replaces the reply, not the life cycle.
func withTargetHandler(cfg Config) Config {
	var do []Statement
	if cfg.Workloads[0].Replies {
		do = []Statement{{Kind: StatementSend, MessageType: "Reply", Size: FixedSize(50)}}
	}
	for i := range cfg.Readers {
		if cfg.Readers[i].Queue == "TargetQueue" {
			cfg.Readers[i].On = []Handler{{MessageType: "Request", Do: do}}
		}
	}
	return cfg
}

// lifeCycleFigures are what a life cycle promises, to compare a world with a handler with
// the same world without.
type lifeCycleFigures struct {
	Sent, ReceivedByTarget, EndedByTarget, Ended, Replies, SendFailures, Recycled int64
	Initiator, Target                                                             map[model.EndpointState]int
}

func figuresOf(res *Result) lifeCycleFigures {
	w := res.Workloads[0]
	return lifeCycleFigures{w.MessagesSent, w.MessagesReceived, w.DialogsEndedByTarget, w.DialogsEnded, w.RepliesReceived,
		w.SendFailures, w.DialogsRecycled, endpointsOf(res, 0), endpointsOf(res, 1)}
}

// TestDLG8_TargetAfterReplyWithAHandlerEndsAfterTheHandlersReply: the target's reader
// answers by a handler; the life cycle still ends the target's side after the last reply,
// and the EndDialog follows the handler's reply (DLG-8): every reply arrives, both sides
// end, nothing is left.
func TestDLG8_TargetAfterReplyWithAHandlerEndsAfterTheHandlersReply(t *testing.T) {
	res := runLifeCycle(t, withTargetHandler(lifeCycleWorld(EndTargetAfterReply, true, 5)), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(10), w.MessagesReceived, "the handler's messages count for the life cycle")
	assert.Equal(t, int64(10), w.RepliesReceived, "every reply arrives before the EndDialog")
	assert.Equal(t, int64(5), w.DialogsEndedByTarget)
	assert.Equal(t, int64(5), w.DialogsEnded)
	assert.Zero(t, w.SendFailures)
	target := readerOf(t, res, "TargetQueue")
	assert.Equal(t, int64(10), target.Sends, "the handler sent the replies, the default none")
	assert.Zero(t, target.Ends, "the life cycle's END is not a statement of the program")
	assert.Zero(t, target.StatementFailures)
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1))
}

// TestDLG8_DLG6_TargetEndsWithAHandler: end: target with a handler that takes the
// Requests: the target still ends on the last message (DLG-8), and the initiator on the
// EndDialog (DLG-6).
func TestDLG8_DLG6_TargetEndsWithAHandler(t *testing.T) {
	res := runLifeCycle(t, withTargetHandler(lifeCycleWorld(EndTarget, false, 5)), 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(10), w.MessagesReceived)
	assert.Equal(t, int64(5), w.DialogsEndedByTarget)
	assert.Equal(t, int64(5), w.DialogsEnded, "the initiator ends on the EndDialog")
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1))
}

// TestDLG11_FireAndForgetWithAHandlerCountsTheRefusedReplies: the handler's replies to a
// fire-and-forget initiator are refused or discarded (DLG-11) as the default reader's are,
// and the refused ones count in send_failures; the targets leak in DISCONNECTED_INBOUND.
func TestDLG11_FireAndForgetWithAHandlerCountsTheRefusedReplies(t *testing.T) {
	plain := figuresOf(runLifeCycle(t, lifeCycleWorld(EndFireAndForget, true, 5), 0))
	handled := runLifeCycle(t, withTargetHandler(lifeCycleWorld(EndFireAndForget, true, 5)), 0)
	assert.Positive(t, plain.SendFailures)
	assert.Equal(t, plain, figuresOf(handled))
	assert.Equal(t, plain.SendFailures, readerOf(t, handled, "TargetQueue").StatementFailures,
		"each refused reply is a failed statement of the handler")
	assert.Equal(t, map[model.EndpointState]int{model.DisconnectedInbound: 5}, endpointsOf(handled, 1))
}

// TestDLG6_DLG8_DLG10_EveryLifeCycleIsTheSameWithAHandler: for every life cycle, a target
// whose handler answers (as the default reader does) gives the same figures and leaves
// the same endpoints as the default reader: received by the target, ended by the target,
// ended, replies, refused SENDs.
func TestDLG6_DLG8_DLG10_EveryLifeCycleIsTheSameWithAHandler(t *testing.T) {
	for end := EndInitiator; end <= EndCleanup; end++ {
		for _, replies := range []bool{false, true} {
			if (end == EndTarget && replies) || (end == EndTargetAfterReply && !replies) {
				continue
			}
			plain := figuresOf(runLifeCycle(t, lifeCycleWorld(end, replies, 5), 0))
			handled := figuresOf(runLifeCycle(t, withTargetHandler(lifeCycleWorld(end, replies, 5)), 0))
			assert.Equal(t, plain, handled, "%v, replies %v", end, replies)
			if end != EndCleanup { // a cleanup drops what was not yet transmitted (DLG-10)
				assert.Equal(t, handled.Sent, handled.ReceivedByTarget, "%v, replies %v: the handler's messages count as received", end, replies)
			}
		}
	}
}

// TestDLG8_EndOfStreamWithAHandlerIsThePoolsNotTheHandlers: a pool recycled by end of
// stream, with replies, whose target answers by a handler: the end-of-stream message
// belongs to the pool's protocol, so that the handler never answers it and the target
// ends on it (DLG-8); every recycled dialog ends on both sides.
func TestDLG8_EndOfStreamWithAHandlerIsThePoolsNotTheHandlers(t *testing.T) {
	cfg := reuseWorld(30, 2, Reuse{Dialogs: 3, Senders: 5, RecycleAfterMessages: 8, EndOfStream: true,
		HoldTime: sim.Fixed(2 * time.Millisecond)})
	cfg.Workloads[0].Replies = true
	plain := runLifeCycle(t, cfg, 0)
	res := runLifeCycle(t, withTargetHandler(cfg), 0)
	w := res.Workloads[0]
	assert.Positive(t, w.DialogsRecycled)
	assert.Equal(t, int64(60), w.MessagesReceived)
	assert.Equal(t, int64(60), w.RepliesReceived, "one reply a request, none for an end-of-stream message")
	assert.Equal(t, int64(60), readerOf(t, res, "TargetQueue").Sends)
	assert.Equal(t, w.DialogsRecycled, w.DialogsEndedByTarget, "the target ends on each end-of-stream message")
	assert.Equal(t, w.DialogsRecycled, w.DialogsEnded, "the initiator on the target's EndDialog")
	assert.Equal(t, figuresOf(plain), figuresOf(res))
}

// TestDLG8_AHandlerOnTheReplyAtTheInitiatorRunsBesideTheLifeCycle: the initiator's reader
// has a handler for the Reply (here, a conversation timer it arms): the reply still counts
// for the life cycle and the round trip, the initiator still ends after its last reply,
// and its END runs after the handler's statement, which does not fail.
func TestDLG8_AHandlerOnTheReplyAtTheInitiatorRunsBesideTheLifeCycle(t *testing.T) {
	cfg := lifeCycleWorld(EndInitiator, true, 5)
	cfg.Readers[1].On = []Handler{{MessageType: "Reply", ProcessingTime: sim.Fixed(time.Millisecond),
		Do: []Statement{{Kind: StatementTimer, Timeout: time.Minute}}}}
	res := runLifeCycle(t, cfg, 0)
	w := res.Workloads[0]
	assert.Equal(t, int64(10), w.RepliesReceived)
	assert.Equal(t, int64(5), w.DialogsEnded)
	assert.Equal(t, int64(10), w.RoundTrip.Count)
	initiator := readerOf(t, res, "InitiatorQueue")
	assert.Equal(t, int64(10), initiator.Timers, "the handler's statement ran on every reply")
	assert.Zero(t, initiator.StatementFailures, "before the life cycle's END")
	assert.Empty(t, endpointsOf(res, 0))
	assert.Empty(t, endpointsOf(res, 1))
}
