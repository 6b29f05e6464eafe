package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// oneMachine is Remus Rusanu's test machine as the calibration models it: one instance,
// the initiator and the target in two databases, the target queue served by the activated
// procedure Drain (at most one task) once its activation is turned on at drainAt.
func oneMachine(wl Workload, procedure Procedure, drainAt time.Duration) Config {
	cfg := twoInstances(faulty.PairConfig{}, wl)
	cfg.Links = nil
	cfg.Instances = []model.Instance{{Name: "A", Databases: append(cfg.Instances[0].Databases, cfg.Instances[1].Databases...)}}
	procedure.Name = "Drain"
	cfg.Instances[0].Databases[1].Queues[0].Activation = model.Activation{Procedure: "Drain", MaxQueueReaders: 1}
	cfg.Procedures = []Procedure{procedure}
	if drainAt > 0 {
		on := true
		cfg.Timeline = []Change{{At: drainAt, Queue: "TargetQueue", Activation: &model.ActivationChange{Status: &on}}}
	}
	costs := DefaultCosts
	cfg.Costs = &costs
	cfg.CheckInvariants = false
	return cfg
}

// drainRate loads 10,000 messages on 100 conversations of 100 messages into the target
// queue, then drains them with one activated task running procedure, and returns the
// messages received per second from the activation to the last commit.
func drainRate(t *testing.T, procedure Procedure) float64 {
	const drainAt = 5 * time.Second
	cfg := oneMachine(Workload{Name: "load", Dialogs: 100, Interarrival: sim.Fixed(time.Millisecond), Messages: 100,
		Size: FixedSize(100)}, procedure, drainAt)
	cfg.SampleInterval = 5 * time.Millisecond
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	require.Zero(t, res.StatementErrors, res.FirstStatementError)
	for _, s := range res.Series.Levels {
		if s.Messages >= 10000 {
			require.Greater(t, s.At, drainAt, "the messages were received before the drain began: the load did not finish first")
			return 10000 / (s.At - drainAt).Seconds()
		}
	}
	t.Fatalf("%d messages received of 10,000", res.Latency.Count)
	return 0
}

// sendTime is the time a serial sender takes per message: one dialog per message
// (perMessage) or one dialog reused for every message, each message its own transaction.
func sendTime(t *testing.T, perMessage bool) time.Duration {
	const n = 2000
	wl := Workload{Name: "send", Dialogs: 1, Messages: n, MessageGap: sim.Fixed(time.Microsecond), Size: FixedSize(100)}
	if perMessage {
		wl = Workload{Name: "send", Dialogs: n, Interarrival: sim.Fixed(time.Microsecond), Messages: 1, Size: FixedSize(100)}
	}
	cfg := oneMachine(wl, Procedure{}, 0) // the target queue is never read: only the sender works
	cfg.MaxTime = time.Minute
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate(cat))
	w, err := build(&cfg, cat, 1)
	require.NoError(t, err)
	w.run()
	run := w.workloads[0]
	require.Zero(t, w.statementErrors, w.firstStatementError)
	require.Equal(t, int64(n), run.messagesSent)
	return run.busyUntil / n // the sender's work ends when its last step's does
}

// TestCostCalibration_RusanuDrainAndReuseRatios reproduces, through the world, the
// measurements the default costs stand for (docs/costs.md): Remus Rusanu drained 10,000
// queued messages (100 conversations of 100) at 312 msgs/s with RECEIVE TOP(1) and a commit
// per message, 383 with a commit every 100 messages, and 1,676 receiving the whole result
// set per RECEIVE; and sending on one dialog per message cost about 4 times what it cost on
// a reused dialog. The ratios must hold within ±25 %.
func TestCostCalibration_RusanuDrainAndReuseRatios(t *testing.T) {
	if testing.Short() {
		t.Skip("drains 30,000 messages")
	}
	top1 := drainRate(t, Procedure{Top: 1, WaitFor: 10 * time.Millisecond})
	batched := drainRate(t, Procedure{Top: 1, CommitEvery: 100, WaitFor: 10 * time.Millisecond})
	set := drainRate(t, Procedure{WaitFor: 10 * time.Millisecond})
	perMessage, reused := sendTime(t, true), sendTime(t, false)
	t.Logf("drain: TOP(1) %.0f msgs/s, commit every 100 %.0f, whole set %.0f; send per message %v on a new dialog, %v reused",
		top1, batched, set, perMessage, reused)
	within := func(what string, want, got float64) {
		assert.InDelta(t, want, got, 0.25*want, "%s: ratio %.3f, Rusanu's %.3f", what, got, want)
	}
	within("commit every 100 / TOP(1)", 383.0/312, batched/top1)
	within("whole result set / TOP(1)", 1676.0/312, set/top1)
	within("dialog per message / reused", 4, float64(perMessage)/float64(reused))
	// The absolute rates are the 2006 machine's too (not required by the issue, but what
	// the defaults stand for): within 25 % of 312 msgs/s.
	assert.InDelta(t, 312, top1, 0.25*312, fmt.Sprintf("TOP(1) drain %.0f msgs/s", top1))
}

// contendedRate sends conversations x messages from instance A to readers sessions of
// TargetQueue on instance B, which has cpus CPUs; each message costs 10 ms of processing on
// a CPU. It returns the messages received per second, the whole run long.
func contendedRate(t *testing.T, cpus, sessions, conversations, messages int) float64 {
	cfg := twoInstances(faulty.PairConfig{}, Workload{Name: "load", Dialogs: conversations, Interarrival: sim.Fixed(time.Millisecond),
		Messages: messages, Size: FixedSize(100)})
	costs := DefaultCosts
	costs.ProcessingOnCPU = true
	cfg.Costs, cfg.CPUs = &costs, map[string]int{"B": cpus}
	cfg.Readers = []Reader{{Queue: "TargetQueue", Top: 1, Sessions: sessions, ProcessingTime: sim.Fixed(10 * time.Millisecond)}}
	cfg.SampleInterval = 10 * time.Millisecond
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.Zero(t, res.StatementErrors, res.FirstStatementError)
	total := int64(conversations * messages)
	for _, s := range res.Series.Levels {
		if s.Messages >= total {
			return float64(total) / s.At.Seconds()
		}
	}
	t.Fatalf("%d messages received of %d", res.Latency.Count, total)
	return 0
}

// Readers contend for their instance's CPUs: on 4 CPUs, 4 readers drain about 4 times as
// fast as one, and 8 no faster than 4; on 1 CPU, more readers do not help at all.
func TestCostReadersStopHelpingAtTheCPUCount(t *testing.T) {
	rate := map[[2]int]float64{}
	for _, cpus := range []int{1, 4} {
		for _, sessions := range []int{1, 2, 4, 8} {
			rate[[2]int{cpus, sessions}] = contendedRate(t, cpus, sessions, 200, 10)
		}
	}
	t.Logf("msgs/s by [cpus, readers]: %v", rate)
	assert.Greater(t, rate[[2]int{4, 4}], 3.3*rate[[2]int{4, 1}], "4 readers on 4 CPUs")
	assert.Greater(t, rate[[2]int{4, 2}], 1.8*rate[[2]int{4, 1}], "2 readers on 4 CPUs")
	assert.Less(t, rate[[2]int{4, 8}], 1.1*rate[[2]int{4, 4}], "8 readers on 4 CPUs: the CPUs ran out")
	assert.Less(t, rate[[2]int{1, 8}], 1.1*rate[[2]int{1, 1}], "8 readers on 1 CPU")
	assert.Less(t, rate[[2]int{1, 2}], 1.1*rate[[2]int{1, 1}], "2 readers on 1 CPU")
}

// LOCK-6, LOCK-7: when one conversation holds every message, its group's lock lets one
// reader at a time process it; the others skip the locked group and wait, so that adding
// readers and CPUs does not help, costs or not.
func TestLOCK6_LOCK7_OneConversationKeepsExtraReadersFromHelping(t *testing.T) {
	one := contendedRate(t, 4, 1, 1, 500)
	for _, sessions := range []int{2, 8} {
		many := contendedRate(t, 4, sessions, 1, 500)
		assert.InDelta(t, one, many, 0.05*one, "%d readers on one conversation", sessions)
	}
	spread := contendedRate(t, 4, 8, 50, 10)
	assert.Greater(t, spread, 3*one, "the same load on 50 conversations")
}

// A costed run is deterministic: the same scenario and seed give the same trace and CPU
// figures, byte for byte.
func TestCostedRunIsDeterministic(t *testing.T) {
	cfg := twoInstances(lossy(0.05, 0.05), Workload{Name: "orders", Dialogs: 30, Interarrival: sim.ExponentialMean(5 * time.Millisecond),
		Messages: 5, MessageGap: sim.ExponentialMean(time.Millisecond), Size: FixedSize(2000), Replies: true})
	costs := DefaultCosts
	costs.ProcessingOnCPU = true
	cfg.Costs, cfg.CPUs = &costs, map[string]int{"A": 1, "B": 2}
	cfg.Readers = []Reader{{Queue: "TargetQueue", Top: 2, Sessions: 4, CommitEvery: 3, ProcessingTime: sim.ExponentialMean(3 * time.Millisecond)}}
	first, second := traceText(t, cfg, 7), traceText(t, cfg, 7)
	require.Equal(t, first, second)
	a, err := Run(cfg, 7)
	require.NoError(t, err)
	b, err := Run(cfg, 7)
	require.NoError(t, err)
	assert.Equal(t, a.CPU, b.CPU)
	assert.Equal(t, a.Series, b.Series)
	require.Len(t, a.CPU, 2)
	assert.Positive(t, a.CPU[1].Busy)
}

// A bad cost model is refused, naming the field.
func TestCostConfigIsValidated(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"negative cost", func(c *Config) { c.Costs = &Costs{Send: -time.Millisecond} }, "Costs.Send -1ms is outside 0..1h"},
		{"cost above the cap", func(c *Config) { c.Costs = &Costs{LogFlush: 2 * time.Hour} }, "Costs.LogFlush 2h0m0s is outside 0..1h"},
		{"no CPU", func(c *Config) { c.CPUs = map[string]int{"A": 0} }, `instance "A": CPUs 0 is outside 1..1024`},
		{"unknown instance", func(c *Config) { c.CPUs = map[string]int{"Z": 2, "Y": 2} }, `CPUs: instance "Y" does not exist`},
		{"negative commit_every", func(c *Config) { c.Readers = []Reader{{Queue: "TargetQueue", CommitEvery: -1}} }, "CommitEvery -1 is negative"},
		{"procedure's negative commit_every", func(c *Config) { c.Procedures = []Procedure{{Name: "P", CommitEvery: -2}} }, "CommitEvery -2 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := twoInstances(faulty.PairConfig{}, Workload{Name: "w", Dialogs: 1, Messages: 1})
			tc.edit(&cfg)
			err := validateConfig(cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// CommitEvery batches RECEIVEs in one transaction: a queue loaded with 250 messages (and
// the EndDialog) drained with TOP(1) takes a commit per message without it, and exactly
// three (100, 100 and 51 rows) with a commit every 100 (ceil(251/N) for N), costs or not;
// every message is still received once.
func TestCommitEveryBatchesReceivesInOneTransaction(t *testing.T) {
	for _, costs := range []bool{false, true} {
		for _, tc := range []struct{ every, commits int }{{0, 251}, {1, 251}, {10, 26}, {100, 3}, {250, 2}, {251, 1}, {300, 1}} {
			cfg := oneMachine(Workload{Name: "one", Dialogs: 1, Messages: 250, Size: FixedSize(100)},
				Procedure{Top: 1, CommitEvery: tc.every, WaitFor: 10 * time.Millisecond}, time.Second)
			if !costs {
				cfg.Costs = nil
			}
			cfg.CheckInvariants = true
			res, err := Run(cfg, 1)
			require.NoError(t, err)
			require.Nil(t, res.Violation)
			var drained ReaderResult
			for _, r := range res.Readers {
				if r.Queue == "TargetQueue" {
					drained.Messages += r.Messages
					drained.Commits += r.Commits
				}
			}
			assert.Equal(t, int64(250), drained.Messages, "costs %v, commit_every %d", costs, tc.every)
			assert.Equal(t, int64(tc.commits), drained.Commits, "costs %v, commit_every %d", costs, tc.every)
		}
	}
}
