package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// activatedTarget makes the target queue of twoInstances activated, with procedure
// "Process" taking processing per message.
func activatedTarget(cfg *Config, maxReaders int, top int, processing time.Duration) {
	cfg.Instances[1].Databases[0].Queues[0].Activation = model.Activation{Status: true, Procedure: "Process", MaxQueueReaders: maxReaders}
	cfg.Procedures = []Procedure{{Name: "Process", Top: top, ProcessingTime: sim.Fixed(processing)}}
}

// targetQueue returns the result row of TargetQueue.
func targetQueue(t *testing.T, res *Result) QueueResult {
	for _, q := range res.Queues {
		if q.Queue == "TargetQueue" {
			return q
		}
	}
	t.Fatal("no result for TargetQueue")
	return QueueResult{}
}

// ACT-5, the seed's example (000_26dfb652fc5bbcd8): a queue holding many messages of one
// single conversation, MAX_QUEUE_READERS 5. The monitor starts a second reader while the
// first processes, that reader waits in RECEIVE on the locked group, and no third is ever
// started while one keeps waiting; every message is still received once, in order.
func TestACT5_OneConversationNeverGetsAThirdReader(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "one conversation", Dialogs: 1, Messages: 200,
		MessageGap: sim.Fixed(time.Millisecond), Size: FixedSize(500)})
	activatedTarget(&cfg, 5, 1, 100*time.Millisecond)
	cfg.SampleInterval = 100 * time.Millisecond

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	q := targetQueue(t, res)
	assert.Equal(t, 2, q.PeakActivated, "a second reader, never a third")
	waited := false
	for _, s := range q.Samples {
		require.LessOrEqual(t, s.Activated, 2, "at %v", s.At)
		waited = waited || (s.Activated == 2 && s.Waiting >= 1)
	}
	assert.True(t, waited, "the second reader waits in RECEIVE")
	assert.Equal(t, int64(200), res.Latency.Count, "every message received")
	assert.Zero(t, res.StatementErrors, res.FirstStatementError)
}

// ACT-4, ACT-6, G-5, G-7, INV-8: a burst over many conversations ramps the activated
// readers up to MAX_QUEUE_READERS and no further; they exit once the queue has been empty
// for the procedure's WAITFOR; a later message on the empty queue with no reader starts
// one again (ACT-4a).
func TestACT6_BurstRampsUpToMaxQueueReadersThenReadersExit(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "burst", Dialogs: 60, Interarrival: sim.Fixed(10 * time.Millisecond),
		Messages: 5, Size: FixedSize(500)})
	cfg.Workloads = append(cfg.Workloads, Workload{Name: "later", From: "Initiator", To: "Target", Contract: "RequestReply",
		MessageType: "Request", Dialogs: 1, Start: 2 * time.Minute, Messages: 1, Size: FixedSize(500)})
	activatedTarget(&cfg, 4, 1, 200*time.Millisecond)
	cfg.SampleInterval = 250 * time.Millisecond

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	q := targetQueue(t, res)
	assert.Equal(t, 4, q.PeakActivated, "the readers reach MAX_QUEUE_READERS")
	var idleBeforeLater, startedLater bool
	for _, s := range q.Samples {
		require.LessOrEqual(t, s.Activated, 4, "at %v", s.At)
		if s.At > time.Minute && s.At < 2*time.Minute && s.Activated == 0 {
			idleBeforeLater = true
		}
		if s.At > 2*time.Minute && s.Activated >= 1 {
			startedLater = true
		}
	}
	assert.True(t, idleBeforeLater, "every reader exited once the queue stayed empty")
	assert.True(t, startedLater, "the later message started a reader")
	assert.Equal(t, int64(301), res.Latency.Count)
	assert.Equal(t, model.MonitorInactive, q.Monitor.State)
	assert.Zero(t, q.Monitor.Running, "no task left at the end")
}

// ACT-11, ACT-12, G-4: with an event notification instead of internal activation, the
// monitor sends QUEUE_ACTIVATION to the activator's service; the external activator
// starts readers after their start-up delay, at most MaxReaders, and every message is
// received. The monitor sends no second notification inside the 60 s time-out unless a
// RECEIVE ran on the queue.
func TestACT11_ExternalActivatorStartsReadersOnNotifications(t *testing.T) {
	cfg := twoInstances(lossy(0.05, 0.02), Workload{Name: "orders", Dialogs: 30, Interarrival: sim.ExponentialMean(200 * time.Millisecond),
		Messages: 4, Size: FixedSize(2000), Replies: true, ReplySize: FixedSize(100)})
	stock := &cfg.Instances[1].Databases[0]
	stock.Queues = append(stock.Queues, model.Queue{Name: "ActivatorQueue"})
	stock.Services = append(stock.Services, model.Service{Name: "ActivatorService", Queue: "ActivatorQueue",
		Contracts: []string{model.ContractPostEventNotification}})
	stock.EventNotifications = []model.EventNotification{{Name: "StockActivation", Queue: "TargetQueue", Service: "ActivatorService"}}
	cfg.Procedures = []Procedure{{Name: "Process", Top: 2, ProcessingTime: sim.Fixed(50 * time.Millisecond)}}
	cfg.ExternalActivators = []ExternalActivator{{Queue: "ActivatorQueue", Target: "TargetQueue", Procedure: "Process",
		StartupDelay: sim.Fixed(2 * time.Second), MaxReaders: 3}}

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.Len(t, res.Activators, 1)
	a := res.Activators[0]
	assert.Positive(t, a.Notifications)
	assert.Positive(t, a.Started)
	q := targetQueue(t, res)
	require.NotNil(t, q.Monitor)
	assert.Equal(t, a.Notifications, q.Monitor.NotifiesSent, "every notification reached the activator")
	assert.Zero(t, q.PeakActivated, "no internal activation")
	for _, r := range res.Readers {
		if r.Mode == "external:Process" {
			assert.LessOrEqual(t, r.PeakRunning, 3, "at most MaxReaders")
		}
	}
	for _, w := range res.Workloads {
		assert.Equal(t, w.MessagesSent, w.RepliesReceived, "every request answered")
	}
	assert.Zero(t, res.StatementErrors, res.FirstStatementError)
}

// ACT-7 from the timeline: MAX_QUEUE_READERS raised from 1 to 4 in the middle of a burst
// lets the monitor start more readers at once; before the ALTER one reader works alone.
func TestACT7_TimelineRaisesMaxQueueReaders(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "burst", Dialogs: 200, Interarrival: sim.Fixed(20 * time.Millisecond),
		Messages: 2, Size: FixedSize(500)})
	activatedTarget(&cfg, 1, 1, 100*time.Millisecond)
	four := 4
	cfg.Timeline = []Change{{At: 2 * time.Second, Queue: "TargetQueue", Activation: &model.ActivationChange{MaxQueueReaders: &four}}}
	cfg.SampleInterval = 100 * time.Millisecond

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	q := targetQueue(t, res)
	assert.Equal(t, 4, q.PeakActivated)
	for _, s := range q.Samples {
		if s.At < 2*time.Second {
			require.LessOrEqual(t, s.Activated, 1, "at %v, before the ALTER", s.At)
		}
	}
	assert.Zero(t, res.StatementErrors, res.FirstStatementError)
}

// G-5, ACT-4(a), ACT-6: a burst of 200 dialogs on an idle queue with MAX_QUEUE_READERS 8
// and readers slower than the arrivals: the first message starts a reader at once, and
// every later reader waits for a tick (5 s, G-2), one per tick, so the eighth starts about
// 35 s after the first, as measured on real servers.
func TestG5_EightReadersTakeThirtyFiveSeconds(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "burst", Dialogs: 200, Start: 1300 * time.Millisecond,
		Interarrival: sim.Fixed(5 * time.Millisecond), Messages: 1, Size: FixedSize(100)})
	activatedTarget(&cfg, 8, 1, 2*time.Second)
	cfg.Trace = true

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	var starts []time.Duration
	for _, r := range res.Trace {
		if r.Kind == model.TraceTaskStarted && len(starts) < 8 {
			starts = append(starts, r.At)
		}
	}
	require.Len(t, starts, 8)
	first := starts[0]
	assert.Less(t, first, 1400*time.Millisecond, "the first message activates at once (ACT-4a)")
	for i, at := range starts[1:] {
		assert.Equal(t, time.Duration(i+1)*model.MonitorTick, at, "reader %d starts on tick %d (G-5)", i+2, i+1)
	}
	assert.InDelta(t, 35*time.Second, starts[7]-first, float64(2*time.Second), "eight readers in about 35 s")
	assert.Equal(t, int64(200), res.Latency.Count)
}
