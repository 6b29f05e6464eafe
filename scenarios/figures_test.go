package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// oneInstance is a world of one instance: services Initiator and Target in one database,
// each on its queue, a contract with a request and a reply type, and wl between them: a
// local dialog, so that messages are ready on the far queue at their SEND's commit.
func oneInstance(wl Workload) Config {
	contract := model.Contract{Name: "RequestReply", Messages: []model.ContractMessage{
		{MessageType: "Request", SentBy: model.SentByInitiator}, {MessageType: "Reply", SentBy: model.SentByTarget}}}
	wl.From, wl.To, wl.Contract, wl.MessageType, wl.ReplyType = "Initiator", "Target", "RequestReply", "Request", "Reply"
	return Config{
		Name: "one instance",
		Instances: []model.Instance{{Name: "A", Databases: []model.Database{{Name: "Shop",
			MessageTypes: []model.MessageType{{Name: "Request"}, {Name: "Reply"}},
			Contracts:    []model.Contract{contract},
			Queues:       []model.Queue{{Name: "InitiatorQueue"}, {Name: "TargetQueue"}},
			Services: []model.Service{{Name: "Initiator", Queue: "InitiatorQueue"},
				{Name: "Target", Queue: "TargetQueue", Contracts: []string{"RequestReply"}}}}}}},
		Workloads:       []Workload{wl},
		CheckInvariants: true,
	}
}

// metricValue is the value of metric name on subject s of res; the test fails without one.
func metricValue(t *testing.T, res *Result, name string, s Subject) float64 {
	t.Helper()
	m, ok := LookupMetric(name)
	require.True(t, ok, name)
	v, why, ok := m.Value(res, s)
	require.True(t, ok, "%s on %v: %s", name, s, why)
	return v
}

// PROTO-4 makes reply k on a dialog answer request k: the round trip pairs them in order.
// One local dialog sends three requests 4 ms apart; the target's reader takes 10 ms a
// message, the initiator's 25 ms, each one message per RECEIVE:
//
//	request sent (commit)   0    4    8
//	target receives         0   10   20    commits 10, 20, 30 (the reply's SEND)
//	initiator receives     10   35   60    commits 35, 60, 85
//
// so the round trips are 35, 56 and 77 ms (a LIFO pairing would give 27, 56 and 85 ms);
// the target queue's times in queue 0, 6 and 12 ms, its sojourns 10, 16 and 22 ms; the
// initiator queue's times in queue 0, 15 and 30 ms, its sojourns 25, 40 and 55 ms.
func TestPROTO4_RoundTripPairsReplyKWithRequestK(t *testing.T) {
	cfg := oneInstance(Workload{Name: "orders", Dialogs: 1, Messages: 3, MessageGap: sim.Fixed(4 * time.Millisecond),
		Size: FixedSize(100), Replies: true, ReplySize: FixedSize(100)})
	cfg.Readers = []Reader{
		{Queue: "TargetQueue", Top: 1, ProcessingTime: sim.Fixed(10 * time.Millisecond)},
		{Queue: "InitiatorQueue", Top: 1, ProcessingTime: sim.Fixed(25 * time.Millisecond)},
	}

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.Equal(t, int64(3), res.Workloads[0].RepliesReceived)
	ms := func(n float64) float64 { return n * float64(time.Millisecond) }
	orders := Subject{Workload: "orders"}
	within := func(want, got float64, what string) { assert.InEpsilon(t, want, got, 0.002, what) } // HDR: 3 digits
	within(ms(56), metricValue(t, res, "round_trip.p50", orders), "round_trip.p50")
	within(ms(77), metricValue(t, res, "round_trip.max", orders), "round_trip.max")
	within(ms(56), metricValue(t, res, "round_trip.mean", orders), "round_trip.mean")
	within(ms(77), metricValue(t, res, "round_trip.max", Subject{}), "round_trip.max of the run")
	assert.Zero(t, res.Workloads[0].RoundTripsUntracked)

	target, initiator := Subject{Queue: "TargetQueue"}, Subject{Queue: "InitiatorQueue"}
	within(ms(6), metricValue(t, res, "time_in_queue.mean", target), "target time_in_queue.mean")
	within(ms(12), metricValue(t, res, "time_in_queue.max", target), "target time_in_queue.max")
	within(ms(16), metricValue(t, res, "sojourn.mean", target), "target sojourn.mean")
	within(ms(22), metricValue(t, res, "sojourn.max", target), "target sojourn.max")
	within(ms(15), metricValue(t, res, "time_in_queue.mean", initiator), "initiator time_in_queue.mean")
	within(ms(55), metricValue(t, res, "sojourn.max", initiator), "initiator sojourn.max")
	within(ms(40), metricValue(t, res, "sojourn.mean", initiator), "initiator sojourn.mean")
	within(ms(10.5), metricValue(t, res, "time_in_queue.mean", Subject{}), "time_in_queue.mean of the run, over six messages")

	assert.Equal(t, 3.0, metricValue(t, res, "messages.received", target))
	assert.Equal(t, 2.0, metricValue(t, res, "backlog.peak", target), "two requests wait while the first is processed")
	assert.Equal(t, 2.0, metricValue(t, res, "backlog.peak", initiator), "two replies wait while the first is processed")
	assert.InEpsilon(t, 100.0, metricValue(t, res, "throughput", target), 1e-9, "3 messages from 0 to 30 ms")
	assert.InEpsilon(t, 40.0, metricValue(t, res, "throughput", initiator), 1e-9, "3 messages from 10 to 85 ms")
	assert.Equal(t, ms(22), metricValue(t, res, "drain_time", target), "from the last arrival at 8 ms to the commit at 30 ms")
	assert.Equal(t, ms(55), metricValue(t, res, "drain_time", initiator), "from the last arrival at 30 ms to the commit at 85 ms")
	// Local messages are ready at their SEND's commit: their latency is the histogram's floor.
	assert.Equal(t, time.Microsecond, time.Duration(metricValue(t, res, "latency.max", orders)))
}

// Latency takes a level or a workload, and names the workload it does not know.
func TestLatencyPerWorkloadNeedsAKnownWorkload(t *testing.T) {
	m, _ := LookupMetric("latency.p99")
	res := &Result{Workloads: []WorkloadResult{{Name: "orders", Latency: LatencySummary{Count: 1, P99: time.Second}}}}
	v, _, ok := m.Value(res, Subject{Workload: "orders"})
	assert.True(t, ok)
	assert.Equal(t, float64(time.Second), v)
	_, why, _ := m.Value(res, Subject{Workload: "audit"})
	assert.Equal(t, `workload "audit" is not in the result`, why)
	_, why, _ = m.Value(res, Subject{Workload: "orders", Level: 5})
	assert.Equal(t, "latency takes a level or a workload, not both", why)
}

// A fire-and-forget dialog (the initiator ends after its last SEND) has no round trip, and
// the requests of its dialogs are not kept waiting for replies that cannot come.
func TestFireAndForgetKeepsNoRequestsForRoundTrips(t *testing.T) {
	cfg := oneInstance(Workload{Name: "orders", Dialogs: 50, Interarrival: sim.Fixed(time.Millisecond), Messages: 3,
		Size: FixedSize(100)})

	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate(cat))
	w, err := build(&cfg, cat, 1)
	require.NoError(t, err)
	reason := w.run()
	res := w.result(reason, 1)

	require.Nil(t, res.Violation)
	assert.Zero(t, w.flows.pendingLen, "no request waits for a reply")
	assert.Empty(t, w.flows.pending)
	assert.Zero(t, res.Workloads[0].RoundTrip.Count)
	m, _ := LookupMetric("round_trip.p99")
	_, why, _ := m.Value(res, Subject{Workload: "orders"})
	assert.Equal(t, "no reply received", why)
	assert.Equal(t, int64(150), res.Workloads[0].Latency.Count)
}
