package scenarios_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
	"github.com/sbsim/sbsim/sim"
)

// flowProblems describes what is wrong with the figures of figures.go in a run of the
// property worlds (checkWorldConfig), or returns none:
//   - every user message received is counted once, on the queue it was received from;
//   - on a queue, no message's time in queue is longer than its sojourn (ready comes after
//     the SEND commit, the RECEIVE before its commit);
//   - a queue's backlog peak is at least every sample's ready messages while the queue was
//     ON: the peak is read after every step that made a message ready;
//   - a workload with replies and no lifetime has a round trip per reply (every reply finds
//     its request), and no request left untracked.
func flowProblems(res *scenarios.Result, cfg scenarios.Config, s gen.World) []string {
	var problems []string
	var received int64
	for _, q := range res.Queues {
		f := q.Flow
		received += f.Received
		if f.TimeInQueue.Count != f.Received || f.Sojourn.Count != f.Received {
			problems = append(problems, fmt.Sprintf("queue %s/%s: %d received, %d times in queue, %d sojourns",
				q.Instance, q.Queue, f.Received, f.TimeInQueue.Count, f.Sojourn.Count))
		}
		if f.TimeInQueue.Max > f.Sojourn.Max || f.TimeInQueue.Mean > f.Sojourn.Mean {
			problems = append(problems, fmt.Sprintf("queue %s/%s: time in queue %+v longer than sojourn %+v",
				q.Instance, q.Queue, f.TimeInQueue, f.Sojourn))
		}
		if s.QueueFlips == 0 { // an OFF queue gathers broker messages (DialogTimer, Error) unsignalled
			for _, smp := range q.Samples {
				if smp.Ready > f.BacklogPeak {
					problems = append(problems, fmt.Sprintf("queue %s/%s: %d ready at t=%v, above the backlog peak %d",
						q.Instance, q.Queue, smp.Ready, smp.At, f.BacklogPeak))
					break
				}
			}
		}
	}
	if received != res.Latency.Count {
		problems = append(problems, fmt.Sprintf("%d messages received over the queues, %d in all", received, res.Latency.Count))
	}
	for i, w := range res.Workloads {
		if !cfg.Workloads[i].Replies || s.LifetimeMs > 0 {
			continue
		}
		if w.RoundTrip.Count != w.RepliesReceived || w.RoundTripsUntracked != 0 {
			problems = append(problems, fmt.Sprintf("workload %s: %d round trips (%d untracked) for %d replies",
				w.Name, w.RoundTrip.Count, w.RoundTripsUntracked, w.RepliesReceived))
		}
	}
	return problems
}

// backlogSpec is a queue that falls behind: Poisson arrivals on Dialogs local dialogs, and
// a reader of Sessions sessions that takes Top messages per RECEIVE and ProcessingMs per
// message, sampled every SampleMs.
type backlogSpec struct {
	Seed                                                            uint64
	Dialogs, Messages, GapMs, Top, Sessions, ProcessingMs, SampleMs int
}

func genBacklogSpec() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[backlogSpec](), map[string]gopter.Gen{
		"Seed":         gopgen.UInt64(),
		"Dialogs":      gopgen.IntRange(1, 20),
		"Messages":     gopgen.IntRange(1, 30),
		"GapMs":        gopgen.IntRange(1, 50),
		"Top":          gopgen.IntRange(0, 5),
		"Sessions":     gopgen.IntRange(1, 4),
		"ProcessingMs": gopgen.IntRange(0, 40),
		"SampleMs":     gopgen.IntRange(1, 50),
	})
}

// checkBacklog runs the spec and describes what is wrong with its queue's figures.
func checkBacklog(s backlogSpec) string {
	ms := time.Millisecond
	cfg := scenarios.OneInstance(scenarios.Workload{Name: "w", Dialogs: s.Dialogs, Interarrival: sim.ExponentialMean(time.Duration(s.GapMs) * ms),
		Messages: s.Messages, MessageGap: sim.ExponentialMean(time.Duration(s.GapMs) * ms), Size: scenarios.FixedSize(100)})
	cfg.Readers = []scenarios.Reader{{Queue: "TargetQueue", Top: s.Top, Sessions: s.Sessions,
		ProcessingTime: sim.ExponentialMean(time.Duration(s.ProcessingMs) * ms)}}
	cfg.SampleInterval = time.Duration(s.SampleMs) * ms
	res, err := scenarios.Run(cfg, s.Seed)
	if err != nil {
		return "run: " + err.Error()
	}
	var problems []string
	if res.Violation != nil {
		problems = append(problems, res.Violation.Error())
	}
	problems = append(problems, flowProblems(res, cfg, gen.World{})...)
	q, why := scenarios.FlowOfQueue(res, "TargetQueue")
	switch {
	case why != "":
		problems = append(problems, why)
	case q.Received != int64(s.Dialogs*s.Messages):
		problems = append(problems, fmt.Sprintf("%d received of %d sent", q.Received, s.Dialogs*s.Messages))
	case q.LastReceived-q.LastArrival > q.Sojourn.Max+time.Microsecond:
		problems = append(problems, fmt.Sprintf("time to drain %v longer than the longest sojourn %v", q.LastReceived-q.LastArrival, q.Sojourn.Max))
	}
	if len(problems) > 0 {
		return fmt.Sprintf("seed %d: %s", s.Seed, strings.Join(problems, "; "))
	}
	return ""
}

// The flow figures of a queue that falls behind hold together over random arrival rates,
// readers, batches and sample intervals: its backlog peak is at least what every sample
// saw ready, each message's time in queue is within its sojourn, every message is received
// once, and the time to drain is within the last message's sojourn.
func TestBacklogAndTimeInQueueHoldTogetherOnABusyQueue(t *testing.T) {
	properties := gopter.NewProperties(gen.Parameters(t, 100, 20))
	properties.Property("backlog, time in queue, sojourn, drain", prop.ForAll(checkBacklog, genBacklogSpec()))
	properties.TestingRun(t)
}

// TestLOCK10_RoundTripsCountRepliesReceivedWhileTheInitiatorsEndWaits is a world the lock
// property shrank to: a pooled fire-and-forget dialog whose initiator issues its END while
// the initiator's reader holds the group's lock, receiving a reply (LOCK-10: the END waits).
// The target receives a later request meanwhile; the round trips must not forget the
// dialog then (the initiator has not ended), or the reply it still receives has no
// request to pair with: "0 round trips for 1 replies".
func TestLOCK10_RoundTripsCountRepliesReceivedWhileTheInitiatorsEndWaits(t *testing.T) {
	s := gen.LockWorld{World: gen.World{Seed: 2237364522727, Instances: 3, Conversations: 2, Messages: 5, Replies: true,
		EndWithError: true, SendWindow: 1, ReceiveWindow: 1, Bandwidth: 32907, Forwarders: 1,
		Life:     gen.Life{End: int(scenarios.EndFireAndForget), Reuse: true, PoolDialogs: 1},
		Programs: gen.Program{Kind: 1, Fan: 1, Messages: 1}},
		Sessions: 1, TouchRate: 0.16316197701308005, GroupSize: 1, ProcessingMs: 9}
	if problems := checkWorldConfig(s.World, s.World.Programs.Apply(s.World, s.Config())); problems != "" {
		t.Fatal(problems)
	}
}
