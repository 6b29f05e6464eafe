package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// programWorld has a client and a back-end service on instance A, and a front service with
// three workers on instance B, all on one contract (Request from the initiator, Reply from
// the target, Tick from either side), joined by a lossy link; wl runs from Client to Front.
func programWorld(wl Workload) Config {
	contract := model.Contract{Name: "RequestReply", Messages: []model.ContractMessage{
		{MessageType: "Request", SentBy: model.SentByInitiator}, {MessageType: "Reply", SentBy: model.SentByTarget},
		{MessageType: "Tick", SentBy: model.SentByAny}}}
	db := func(name string, services ...string) model.Database {
		d := model.Database{Name: name, MessageTypes: []model.MessageType{{Name: "Request"}, {Name: "Reply"}, {Name: "Tick"}},
			Contracts: []model.Contract{contract}}
		for _, s := range services {
			d.Queues = append(d.Queues, model.Queue{Name: s + "Queue"})
			d.Services = append(d.Services, model.Service{Name: s, Queue: s + "Queue", Contracts: []string{"RequestReply"}})
		}
		return d
	}
	wl.From, wl.To, wl.Contract, wl.MessageType, wl.ReplyType = "Client", "Front", "RequestReply", "Request", "Reply"
	if wl.Interarrival == (sim.Distribution{}) {
		wl.Interarrival = sim.ExponentialMean(50 * time.Millisecond)
	}
	if wl.Size == (SizeDistribution{}) {
		wl.Size = FixedSize(200)
	}
	return Config{
		Name: "programs",
		Instances: []model.Instance{
			{Name: "A", Databases: []model.Database{db("Shop", "Client", "Back")}},
			{Name: "B", Databases: []model.Database{db("Hub", "Front", "W1", "W2", "W3")}},
		},
		Links:           []Link{{A: "A", B: "B", PairConfig: lossy(0.05, 0.05)}},
		Workloads:       []Workload{wl},
		CheckInvariants: true,
	}
}

// readerOf returns the result row of the queue's reader program.
func readerOf(t *testing.T, res *Result, queue string) ReaderResult {
	t.Helper()
	for _, r := range res.Readers {
		if r.Queue == queue {
			return r
		}
	}
	require.Failf(t, "no reader", "queue %s has no reader in %+v", queue, res.Readers)
	return ReaderResult{}
}

func runProgram(t *testing.T, cfg Config, seed uint64) *Result {
	t.Helper()
	res, err := Run(cfg, seed)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Zero(t, res.StatementErrors, res.FirstStatementError)
	return res
}

func reply() Statement {
	return Statement{Kind: StatementSend, MessageType: "Reply", Size: FixedSize(500)}
}

// DLG-16: a program's SEND on the received conversation is a reply from the target side,
// which the contract allows; a type the contract keeps for the initiator could only fail,
// and the program is refused before it runs.
func TestDLG16_ProgramRepliesOnTheReceivedConversation(t *testing.T) {
	cfg := programWorld(Workload{Name: "rr", Dialogs: 20, Messages: 3, Replies: true})
	cfg.Readers = []Reader{{Queue: "FrontQueue", ProcessingTime: sim.Fixed(time.Millisecond),
		On: []Handler{{MessageType: "Request", Do: []Statement{reply()}}}}}

	res := runProgram(t, cfg, 1)

	assert.Equal(t, sim.Drained, res.StopReason)
	assert.Equal(t, int64(60), res.Workloads[0].RepliesReceived, "every request answered by the program")
	assert.Equal(t, int64(20), res.Workloads[0].DialogsEnded)
	front := readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(60), front.Sends)
	assert.Zero(t, front.StatementFailures)

	cfg.Readers[0].On[0].Do = []Statement{{Kind: StatementSend, MessageType: "Request"}} // the initiator's type
	cfg.Workloads[0].Replies = false
	_, err := Run(cfg, 1)
	require.Error(t, err, "SEND of an initiator's type from the target can only fail")
	assert.Contains(t, err.Error(), `no contract lets the target send "Request" (DLG-16)`)
}

// DLG-1, DLG-3: a chain across two instances: Front (B) receives a request, begins a dialog
// to Back (A) and sends it on, in its transaction; Back ends each dialog, and Front ends
// its side on the EndDialog.
func TestDLG1_ProgramChainsToAServiceOnAnotherInstance(t *testing.T) {
	cfg := programWorld(Workload{Name: "chain", Dialogs: 15, Messages: 2})
	cfg.Readers = []Reader{
		{Queue: "FrontQueue", On: []Handler{{MessageType: "Request", Do: []Statement{
			{Kind: StatementBeginDialog, ToServices: []string{"Back"}, Contract: "RequestReply", MessageType: "Request", Size: FixedSize(300)}}}}},
		{Queue: "BackQueue", On: []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementEnd}}}}},
	}

	res := runProgram(t, cfg, 2)

	assert.Equal(t, sim.Drained, res.StopReason)
	front, back := readerOf(t, res, "FrontQueue"), readerOf(t, res, "BackQueue")
	assert.Equal(t, int64(30), front.BeginDialogs)
	assert.Equal(t, int64(30), front.Sends)
	assert.Equal(t, int64(30), back.Messages, "every request reached the end of the chain")
	assert.Equal(t, int64(30), back.Ends)
	for _, in := range res.Instances {
		assert.Zero(t, in.TransmissionQueueRows, "instance %s", in.Name)
		assert.Empty(t, in.Endpoints, "instance %s: every endpoint closed", in.Name)
	}
}

// sagaConfig is a saga on Front: each request fans out to three workers in the request's
// conversation group; the workers answer; Front gathers the replies per group, and once
// all three are in answers the client and the saga is done.
func sagaConfig(sessions int, mode ReaderMode) Config {
	cfg := programWorld(Workload{Name: "saga", Dialogs: 20, Messages: 1, Replies: true})
	worker := func(q string) Reader {
		return Reader{Queue: q, ProcessingTime: sim.ExponentialMean(5 * time.Millisecond),
			On: []Handler{{MessageType: "Request", Do: []Statement{reply()}}}}
	}
	cfg.Readers = []Reader{
		{Queue: "FrontQueue", Mode: mode, Sessions: sessions, ProcessingTime: sim.ExponentialMean(2 * time.Millisecond),
			On: []Handler{
				{MessageType: "Request", Do: []Statement{{Kind: StatementFanOut, ToServices: []string{"W1", "W2", "W3"},
					Contract: "RequestReply", MessageType: "Request", Size: FixedSize(100)}}},
				{MessageType: "Reply", Do: []Statement{{Kind: StatementGather, Then: []Statement{
					{Kind: StatementSend, Target: TargetOrigin, MessageType: "Reply", Size: FixedSize(800)}}}}},
			}},
		worker("W1Queue"), worker("W2Queue"), worker("W3Queue"),
	}
	return cfg
}

// DLG-2, LOCK-10: a fan-out begins its dialogs WITH RELATED_CONVERSATION = the received
// one, so that their replies come back in the origin's group, where the program's state
// per group finds the saga: each of the 20 sagas gathers its three replies and answers.
func TestDLG2_SagaFansOutInTheReceivedGroupAndGathersPerGroup(t *testing.T) {
	res := runProgram(t, sagaConfig(1, GroupLoop), 3)

	assert.Equal(t, sim.Drained, res.StopReason)
	front := readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(60), front.BeginDialogs)
	assert.Equal(t, int64(20), front.Gathered, "every saga gathered its three replies")
	assert.Equal(t, int64(60+20), front.Sends, "three requests and one answer per saga")
	assert.Equal(t, int64(60), front.Ends, "each sub-dialog ended once its reply was counted")
	assert.Zero(t, front.StatementFailures)
	assert.Equal(t, int64(20), res.Workloads[0].RepliesReceived)
	assert.Equal(t, int64(20), res.Workloads[0].DialogsEnded)
}

// LOCK-6, LOCK-7: with four sessions, the group lock serialises a saga's replies: two
// sessions never count replies of one group at once, so that every saga still completes
// exactly once, whichever loop the sessions run.
func TestLOCK6_SagaRepliesOfOneGroupAreSerialisedByItsLock(t *testing.T) {
	for _, mode := range []ReaderMode{ReceiveLoop, GroupLoop} {
		t.Run(mode.String(), func(t *testing.T) {
			for seed := uint64(1); seed <= 5; seed++ {
				res := runProgram(t, sagaConfig(4, mode), seed)
				front := readerOf(t, res, "FrontQueue")
				assert.Equal(t, int64(20), front.Gathered, "seed %d", seed)
				assert.Zero(t, front.StatementFailures, "seed %d", seed)
				assert.Equal(t, int64(20), res.Workloads[0].RepliesReceived, "seed %d", seed)
			}
		})
	}
}

// DLG-1: a router begins a dialog to one of K services for each message and sends it on:
// round-robin spreads them evenly, hash keeps each conversation on one service, random
// reaches each service.
func TestDLG1_RouterSendsEachMessageToOneOfK(t *testing.T) {
	for _, by := range []RouteBy{RouteRoundRobin, RouteRandom, RouteHash} {
		t.Run(by.String(), func(t *testing.T) {
			cfg := programWorld(Workload{Name: "routed", Dialogs: 30, Messages: 3})
			cfg.Readers = []Reader{{Queue: "FrontQueue", On: []Handler{{MessageType: "Request", Do: []Statement{
				{Kind: StatementRoute, ToServices: []string{"W1", "W2", "W3"}, Contract: "RequestReply", By: by}}}}}}
			end := []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementEnd}}}}
			for _, q := range []string{"W1Queue", "W2Queue", "W3Queue"} {
				cfg.Readers = append(cfg.Readers, Reader{Queue: q, On: end})
			}

			res := runProgram(t, cfg, 4)

			var total int64
			for _, q := range []string{"W1Queue", "W2Queue", "W3Queue"} {
				n := readerOf(t, res, q).Messages
				total += n
				switch by {
				case RouteRoundRobin:
					assert.Equal(t, int64(30), n, q)
				case RouteRandom:
					assert.Positive(t, n, q)
				case RouteHash:
					assert.Zero(t, n%3, "%s: a conversation's three messages go to one service", q)
				}
			}
			assert.Equal(t, int64(90), total)
			assert.Equal(t, int64(90), readerOf(t, res, "FrontQueue").BeginDialogs)
		})
	}
}

// DLG-9: END CONVERSATION WITH ERROR from the target's program sends an Error to the
// initiator, whose handler ends its side: every dialog ends on both sides.
func TestDLG9_ProgramEndsWithError(t *testing.T) {
	cfg := programWorld(Workload{Name: "refused", Dialogs: 10, Messages: 1, Replies: true})
	cfg.Readers = []Reader{
		{Queue: "FrontQueue", On: []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementEnd, ErrorCode: 50001}}}}},
		{Queue: "ClientQueue", On: []Handler{{MessageType: "Error", Do: []Statement{{Kind: StatementEnd}}}}},
	}

	res := runProgram(t, cfg, 5)

	assert.Equal(t, sim.Drained, res.StopReason)
	assert.Equal(t, int64(10), readerOf(t, res, "FrontQueue").Ends)
	assert.Equal(t, int64(10), readerOf(t, res, "ClientQueue").Ends, "the initiator received an Error per dialog")
	assert.Zero(t, res.Workloads[0].RepliesReceived)
	for _, in := range res.Instances {
		assert.Empty(t, in.Endpoints, "instance %s", in.Name)
	}
}

// DLG-10: END CONVERSATION WITH CLEANUP drops the target's endpoint without telling the
// initiator: the initiator's endpoints stay, waiting for replies that never come.
func TestDLG10_ProgramEndsWithCleanup(t *testing.T) {
	cfg := programWorld(Workload{Name: "cleaned", Dialogs: 10, Messages: 1, Replies: true})
	cfg.Readers = []Reader{{Queue: "FrontQueue", On: []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementEnd, WithCleanup: true}}}}}}
	cfg.MaxTime = time.Minute

	res := runProgram(t, cfg, 6)

	assert.Equal(t, int64(10), readerOf(t, res, "FrontQueue").Ends)
	a, b := res.Instances[0], res.Instances[1]
	assert.Empty(t, b.Endpoints, "the target's endpoints are gone")
	assert.Len(t, a.Endpoints, 10, "the initiator was never told")
	for _, ep := range a.Endpoints {
		assert.Equal(t, model.Conversing, ep.State)
	}
}

// DLG-14: a scheduler: the first request arms a timer on its conversation; on each
// DialogTimer the program sends a Tick to the initiator and re-arms the timer, once a
// second for the whole run.
func TestDLG14_SchedulerReArmsItsTimerAndSends(t *testing.T) {
	cfg := programWorld(Workload{Name: "scheduled", Dialogs: 1, Messages: 1, Replies: true})
	cfg.Readers = []Reader{
		{Queue: "FrontQueue", On: []Handler{
			{MessageType: "Request", Do: []Statement{{Kind: StatementTimer, Timeout: time.Second}}},
			{MessageType: "DialogTimer", Do: []Statement{{Kind: StatementSend, MessageType: "Tick", Size: FixedSize(10)},
				{Kind: StatementTimer, Timeout: time.Second}}},
		}},
		{Queue: "ClientQueue", On: []Handler{{MessageType: "Tick"}}}, // counted, not a reply
	}
	cfg.MaxTime = 30*time.Second + 500*time.Millisecond
	cfg.Liveness.Off = true // a scheduler never drains: its ticks are on their way at the limit
	cfg.Links = nil         // a perfect link: no tick waits for a retry

	res := runProgram(t, cfg, 7)

	front := readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(31), front.Timers, "the first arm and one re-arm per tick")
	assert.Equal(t, int64(30), front.Sends)
	assert.InDelta(t, 30, readerOf(t, res, "ClientQueue").Messages, 1, "a tick a second arrived")
}

// DLG-14, DLG-9: a watchdog: Front sends each request on to a fast or a slow back-end
// (round-robin) and arms a timer on the new dialog; when the timer fires on a dialog that
// saw no reply, it ends it with an error; a reply that arrived in time leaves it alone.
func TestDLG14_WatchdogEndsAConversationThatSawNoReplyInTime(t *testing.T) {
	cfg := programWorld(Workload{Name: "watched", Dialogs: 20, Messages: 1, Interarrival: sim.Fixed(100 * time.Millisecond)})
	cfg.Readers = []Reader{
		{Queue: "FrontQueue", On: []Handler{
			{MessageType: "Request", Do: []Statement{
				{Kind: StatementRoute, ToServices: []string{"W1", "W2"}, Contract: "RequestReply", MessageType: "Request"},
				{Kind: StatementTimer, Target: TargetBegun, Timeout: 2 * time.Second}}},
			{MessageType: "Reply"}, // seen: the watchdog lets the dialog be
			{MessageType: "DialogTimer", Do: []Statement{{Kind: StatementEnd, IfSilent: true, ErrorCode: 50002}}},
		}},
		{Queue: "W1Queue", On: []Handler{{MessageType: "Request", Do: []Statement{reply()}}}},
		{Queue: "W2Queue", On: []Handler{{MessageType: "Request", ProcessingTime: sim.Fixed(5 * time.Second), Do: []Statement{reply()}}}},
	}
	cfg.MaxTime = 5 * time.Minute

	res := runProgram(t, cfg, 8)

	front := readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(20), front.Timers)
	assert.Equal(t, int64(10), front.Ends, "the slow back-end's ten dialogs, and only those")
	assert.Equal(t, int64(10), readerOf(t, res, "W1Queue").Sends)
}

// QUE-8: a handler that rolls back every transaction that received its type is a poison
// message strategy: five rollbacks disable the queue.
func TestQUE8_HandlerRollbackRateDisablesTheQueue(t *testing.T) {
	cfg := programWorld(Workload{Name: "poison", Dialogs: 3, Messages: 2})
	cfg.Readers = []Reader{{Queue: "FrontQueue", On: []Handler{{MessageType: "Request", RollbackRate: 1}}}}
	cfg.MaxTime = time.Minute
	cfg.Liveness.Off = true // the disabled queue keeps its messages

	res := runProgram(t, cfg, 9)

	front := readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(5), front.Rollbacks)
	assert.Zero(t, front.Messages)
	for _, q := range res.Queues {
		if q.Queue == "FrontQueue" {
			assert.Equal(t, int64(1), q.PoisonDisables)
		}
	}
}

// LOCK-9: a statement on a conversation whose group another session holds waits for its
// lock; the program pauses at it and goes on when it gets the lock.
func TestLOCK9_ProgramStatementWaitsForAGroupAnotherSessionHolds(t *testing.T) {
	cfg := programWorld(Workload{Name: "shared", Dialogs: 30, Messages: 4, Interarrival: sim.Fixed(5 * time.Millisecond), Replies: true})
	var first model.ConversationHandle
	cfg.Readers = []Reader{{Queue: "FrontQueue", Sessions: 3, ProcessingTime: sim.ExponentialMean(20 * time.Millisecond),
		Hook: func(ctx *HookContext) ([]Statement, bool) {
			if ctx.Message.MessageType == model.EndDialogMessageType {
				return nil, false
			}
			if first == 0 {
				first = ctx.Message.ConversationHandle
			}
			return []Statement{reply(), {Kind: StatementTimer, Target: TargetHandle, Conversation: first, Timeout: time.Hour}}, true
		}}}

	res := runProgram(t, cfg, 10)

	front := readerOf(t, res, "FrontQueue")
	assert.Positive(t, front.StatementWaits, "a timer on the first conversation waited for its group")
	assert.Equal(t, int64(120), res.Workloads[0].RepliesReceived)
}

// INV-11 with programs: a saga with four sessions, a router by random choice and a Go hook
// give a byte-identical trace and result on the same seed, another on another seed.
func TestINV11_ProgramsAreDeterministic(t *testing.T) {
	cfg := sagaConfig(4, ReceiveLoop)
	cfg.Workloads = append(cfg.Workloads, Workload{Name: "routed", From: "Client", To: "Front", Contract: "RequestReply",
		MessageType: "Tick", Dialogs: 10, Interarrival: sim.ExponentialMean(30 * time.Millisecond), Messages: 2, Size: UniformSize(0, 5000)})
	cfg.Readers[0].On = append(cfg.Readers[0].On, Handler{MessageType: "Tick", ProcessingPerKB: time.Millisecond, Do: []Statement{
		{Kind: StatementRoute, ToServices: []string{"W1", "W2", "W3"}, Contract: "RequestReply", By: RouteRandom}}})
	cfg.Readers[1].Hook = func(ctx *HookContext) ([]Statement, bool) {
		if ctx.Message.MessageType == model.EndDialogMessageType || ctx.Rand.IntN(2) == 0 {
			return nil, false
		}
		return []Statement{{Kind: StatementEnd}}, true
	}

	first := traceText(t, cfg, 42)
	assert.Equal(t, first, traceText(t, cfg, 42), "same seed")
	assert.NotEqual(t, first, traceText(t, cfg, 43), "another seed")
	cfg.Trace = true
	a, err := Run(cfg, 42)
	require.NoError(t, err)
	b, err := Run(cfg, 42)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%+v", a.Readers), fmt.Sprintf("%+v", b.Readers))
	assert.Positive(t, readerOf(t, a, "FrontQueue").BeginDialogs)
}

// A handler's processing time depends on the message's type and size: a fixed time plus a
// time per KiB replaces the reader's processing time for that type only.
func TestProgramProcessingDependsOnTypeAndSize(t *testing.T) {
	cfg := programWorld(Workload{Name: "sized", Dialogs: 10, Messages: 2, Size: FixedSize(4096)})
	cfg.Readers = []Reader{{Queue: "FrontQueue", ProcessingTime: sim.Fixed(time.Second),
		On: []Handler{{MessageType: "Request", ProcessingTime: sim.Fixed(time.Millisecond), ProcessingPerKB: 2 * time.Millisecond}}}}

	res := runProgram(t, cfg, 13)

	front := readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(20), front.Messages)
	// 20 requests of 4 KiB at 1 ms + 4 × 2 ms, and 10 EndDialogs at the reader's 1 s.
	assert.Equal(t, 20*9*time.Millisecond+10*time.Second, front.Busy)
}

// The flow figures count what a program handles as they count the default path's: a
// request answered by a handler waits on its queue, and is timed, exactly as one answered
// by the workload's automatic reply, when both readers take the same time.
func TestProgramHandledMessagesCountInTheQueueFigures(t *testing.T) {
	cfg := programWorld(Workload{Name: "rr", Dialogs: 30, Interarrival: sim.Fixed(20 * time.Millisecond), Messages: 2, Replies: true,
		ReplySize: reply().Size})
	slow := sim.Fixed(50 * time.Millisecond)
	cfg.Readers = []Reader{{Queue: "FrontQueue", ProcessingTime: slow}}
	byDefault := runProgram(t, cfg, 3)
	cfg.Readers = []Reader{{Queue: "FrontQueue", ProcessingTime: slow, On: []Handler{{MessageType: "Request", ProcessingTime: slow, Do: []Statement{reply()}}}}}
	byProgram := runProgram(t, cfg, 3)

	flow := func(res *Result) QueueFlow {
		for _, q := range res.Queues {
			if q.Queue == "FrontQueue" {
				return q.Flow
			}
		}
		t.Fatal("no FrontQueue")
		return QueueFlow{}
	}
	got, want := flow(byProgram), flow(byDefault)
	require.Equal(t, int64(60), want.Received)
	assert.Positive(t, want.TimeInQueue.Max, "a reader slower than the arrivals leaves messages waiting")
	assert.Equal(t, want.Received, got.Received)
	assert.Equal(t, want.TimeInQueue, got.TimeInQueue, "time in queue of the program's messages")
	assert.Equal(t, want.Sojourn, got.Sojourn)
}
