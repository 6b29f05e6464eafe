package file

import (
	"github.com/sbsim/sbsim/scenarios"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
)

// fixedResult is a result with a known value for every metric.
func fixedResult() *scenarios.Result {
	ms := time.Millisecond
	return &scenarios.Result{
		EndTime: 90 * time.Second, InvariantsChecked: true,
		Latency: scenarios.LatencySummary{Count: 30, Mean: 300 * ms, P50: 200 * ms, P90: 800 * ms, P99: 1500 * ms, Max: 2 * time.Second},
		Levels: []scenarios.LevelResult{
			{Level: 10, Messages: 10, Bytes: 10_000, Share: 0.25, Latency: scenarios.LatencySummary{Count: 10, P99: 500 * ms},
				TransmissionQueueWait: scenarios.LatencySummary{Count: 10, P99: 10 * ms}},
			{Level: 1, Messages: 20, Bytes: 30_000, Share: 0.75, Latency: scenarios.LatencySummary{Count: 20, P99: 1500 * ms}},
		},
		Workloads: []scenarios.WorkloadResult{
			{Name: "orders", DialogsBegun: 8, DialogsEnded: 8, MessagesSent: 16, RepliesReceived: 16},
			{Name: "audit", DialogsBegun: 2, DialogsEnded: 1, MessagesSent: 4, SendFailures: 1},
		},
		Queues: []scenarios.QueueResult{
			{Queue: "StockQueue", Database: "Warehouse", Instance: "Tokyo", PeakActivated: 3, PoisonDisables: 1,
				LockWaits: scenarios.LatencySummary{Count: 4, P99: 40 * ms}, LockWaitsAbandoned: 2,
				Monitor: &model.QueueMonitor{NotifiesSent: 5}, Samples: []scenarios.QueueSample{{Readers: 1}, {Readers: 4}}},
			{Queue: "OrderQueue", Database: "Sales", Instance: "Lisbon"},
		},
		Readers: []scenarios.ReaderResult{
			{Queue: "OrderQueue", Mode: "receive", PeakRunning: 2, Deadlocks: 1, Rollbacks: 3},
			{Queue: "StockQueue", Mode: "activated:ProcessStock", PeakRunning: 3, Deadlocks: 2},
		},
		Instances: []scenarios.InstanceResult{
			{Name: "Lisbon", Counters: model.Counters{Deadlocks: 3, FragmentsRetransmitted: 7}, TransmissionQueueRows: 1},
			{Name: "Tokyo", Counters: model.Counters{FragmentsRetransmitted: 5}},
		},
	}
}

// Each metric measures its part of a Result, each comparator compares as its name says,
// and a metric with nothing to measure fails and says why.
func TestExpectationCheckAgainstAFixedResult(t *testing.T) {
	ms := float64(time.Millisecond)
	for _, tc := range []struct {
		e   Expectation
		ok  bool
		got string
	}{
		{Expectation{Metric: "latency.p99", Comparator: Below, Value: 2000 * ms}, true, "1.5s"},
		{Expectation{Metric: "latency.max", Comparator: Below, Value: 2000 * ms}, false, "2s"},
		{Expectation{Metric: "latency.max", Comparator: AtMost, Value: 2000 * ms}, true, "2s"},
		{Expectation{Metric: "latency.mean", Comparator: Above, Value: 300 * ms}, false, "300ms"},
		{Expectation{Metric: "latency.p50", Comparator: AtLeast, Value: 200 * ms}, true, "200ms"},
		{Expectation{Metric: "latency.p99", Subject: scenarios.Subject{Level: 10}, Comparator: Below, Value: 400 * ms}, false, "500ms"},
		{Expectation{Metric: "latency.p99", Subject: scenarios.Subject{Level: 5}, Comparator: Below, Value: 1000 * ms}, false, "no message received"},
		{Expectation{Metric: "transmission_queue_wait.p99", Subject: scenarios.Subject{Level: 10}, Comparator: AtMost, Value: 10 * ms}, true, "10ms"},
		{Expectation{Metric: "messages.delivered", Comparator: Equals, Value: 30}, true, "30"},
		{Expectation{Metric: "messages.delivered", Subject: scenarios.Subject{Level: 1}, Comparator: AtLeast, Value: 20}, true, "20"},
		{Expectation{Metric: "messages.delivered", Subject: scenarios.Subject{Level: 5}, Comparator: Equals, Value: 0}, true, "0"},
		{Expectation{Metric: "bytes.delivered", Subject: scenarios.Subject{Level: 1}, Comparator: Equals, Value: 30_000}, true, "30000"},
		{Expectation{Metric: "bytes.delivered", Comparator: Equals, Value: 40_000}, true, "40000"},
		{Expectation{Metric: "share", Subject: scenarios.Subject{Level: 10}, Comparator: Below, Value: 0.3}, true, "0.25"},
		{Expectation{Metric: "dialogs.ended", Subject: scenarios.Subject{Workload: "audit"}, Comparator: Equals, Value: 2}, false, "1"},
		{Expectation{Metric: "dialogs.ended", Comparator: Equals, Value: 9}, true, "9"},
		{Expectation{Metric: "dialogs.begun", Comparator: Equals, Value: 10}, true, "10"},
		{Expectation{Metric: "replies.received", Subject: scenarios.Subject{Workload: "orders"}, Comparator: Equals, Value: 16}, true, "16"},
		{Expectation{Metric: "send_failures", Comparator: Equals, Value: 0}, false, "1"},
		{Expectation{Metric: "messages.sent", Subject: scenarios.Subject{Workload: "nope"}, Comparator: Equals, Value: 0}, false, `workload "nope" is not in the result`},
		{Expectation{Metric: "readers.peak", Subject: scenarios.Subject{Queue: "StockQueue"}, Comparator: AtMost, Value: 2}, false, "4"},
		{Expectation{Metric: "readers.peak", Subject: scenarios.Subject{Queue: "Lisbon/Sales/OrderQueue"}, Comparator: AtMost, Value: 2}, true, "2"},
		{Expectation{Metric: "readers.peak", Subject: scenarios.Subject{Queue: "Mars/Sales/OrderQueue"}, Comparator: AtMost, Value: 2}, false, `queue "Mars/Sales/OrderQueue" is not in the result`},
		{Expectation{Metric: "activated_tasks.peak", Subject: scenarios.Subject{Queue: "StockQueue"}, Comparator: Equals, Value: 3}, true, "3"},
		{Expectation{Metric: "poison_disables", Comparator: Equals, Value: 1}, true, "1"},
		{Expectation{Metric: "poison_disables", Subject: scenarios.Subject{Queue: "OrderQueue"}, Comparator: Equals, Value: 0}, true, "0"},
		{Expectation{Metric: "notifications.sent", Subject: scenarios.Subject{Queue: "StockQueue"}, Comparator: AtLeast, Value: 1}, true, "5"},
		{Expectation{Metric: "notifications.sent", Subject: scenarios.Subject{Queue: "OrderQueue"}, Comparator: AtLeast, Value: 1}, false, "0"},
		{Expectation{Metric: "lock_wait.p99", Subject: scenarios.Subject{Queue: "StockQueue"}, Comparator: Below, Value: 50 * ms}, true, "40ms"},
		{Expectation{Metric: "lock_wait.p99", Subject: scenarios.Subject{Queue: "OrderQueue"}, Comparator: Equals, Value: 0}, true, "0s"},
		{Expectation{Metric: "lock_wait.abandoned", Comparator: Equals, Value: 2}, true, "2"},
		{Expectation{Metric: "deadlocks", Comparator: Equals, Value: 3}, true, "3"},
		{Expectation{Metric: "deadlocks", Subject: scenarios.Subject{Queue: "StockQueue"}, Comparator: Equals, Value: 2}, true, "2"},
		{Expectation{Metric: "rollbacks", Subject: scenarios.Subject{Queue: "OrderQueue"}, Comparator: Equals, Value: 3}, true, "3"},
		{Expectation{Metric: "statement_errors", Comparator: Equals, Value: 0}, true, "0"},
		{Expectation{Metric: "fragments.retransmitted", Comparator: Equals, Value: 12}, true, "12"},
		{Expectation{Metric: "fragments.retransmitted", Subject: scenarios.Subject{Instance: "Tokyo"}, Comparator: Above, Value: 5}, false, "5"},
		{Expectation{Metric: "transmission_queue.rows", Comparator: Equals, Value: 0}, false, "1"},
		{Expectation{Metric: "end_time", Comparator: AtMost, Value: float64(90 * time.Second)}, true, "1m30s"},
		{Expectation{Metric: "invariants", Comparator: Equals, Value: 1}, true, "hold"},
		{Expectation{Metric: "nope", Comparator: Equals}, false, `unknown metric "nope"`},
	} {
		ok, got := tc.e.Check(fixedResult())
		assert.Equal(t, tc.ok, ok, "%s", tc.e)
		assert.Equal(t, tc.got, got, "%s", tc.e)
	}
}

// INV-1 to INV-12: {invariants: hold} fails on a result with a violation, and says which.
func TestExpectationInvariantsFailOnAViolation(t *testing.T) {
	res := fixedResult()
	res.Violation = &invariant.Violation{Rule: "INV-1", At: time.Second, Message: "message 3 delivered twice"}

	ok, got := Expectation{Metric: "invariants", Comparator: Equals, Value: 1}.Check(res)

	assert.False(t, ok)
	assert.Contains(t, got, "violated: ")
	assert.Contains(t, got, "INV-1")
	ok, _ = Expectation{Metric: "invariants", Comparator: Equals, Value: 0}.Check(res)
	assert.True(t, ok, "invariants: violated")
}

// The expect list loads to typed expectations, and File.Check checks them in order.
func TestFileCheckInOrder(t *testing.T) {
	f, err := Load("expect.yaml", []byte(base+`workloads: [{name: w, from_service: S, to_service: S}]
expect:
  - {metric: latency.p99, level: 10, below: 2s}
  - {invariants: hold}
  - {metric: readers.peak, queue: Q, at_most: 2}
  - {metric: share, level: 1, at_least: 0.5}
  - {metric: dialogs.ended, workload: w, equals: 8}
  - {metric: fragments.retransmitted, instance: A, at_most: 10}
`))
	require.NoError(t, err)
	assert.Equal(t, []Expectation{
		{Metric: "latency.p99", Subject: scenarios.Subject{Level: 10}, Comparator: Below, Value: float64(2 * time.Second)},
		{Metric: "invariants", Comparator: Equals, Value: 1},
		{Metric: "readers.peak", Subject: scenarios.Subject{Queue: "Q"}, Comparator: AtMost, Value: 2},
		{Metric: "share", Subject: scenarios.Subject{Level: 1}, Comparator: AtLeast, Value: 0.5},
		{Metric: "dialogs.ended", Subject: scenarios.Subject{Workload: "w"}, Comparator: Equals, Value: 8},
		{Metric: "fragments.retransmitted", Subject: scenarios.Subject{Instance: "A"}, Comparator: AtMost, Value: 10},
	}, f.Expectations)

	verdicts := f.Check(fixedResult())

	require.Len(t, verdicts, 7, "the six of the file, then the implicit one on send failures")
	assert.Equal(t, "ok: latency.p99 at level 10 below 2s (got 500ms)", verdicts[0].String())
	assert.Equal(t, "ok: invariants hold (got hold)", verdicts[1].String())
	assert.Equal(t, `FAILED: readers.peak of queue "Q" at most 2 (got queue "Q" is not in the result)`, verdicts[2].String())
	assert.Equal(t, "ok: share at level 1 at least 0.5 (got 0.75)", verdicts[3].String())
	assert.False(t, verdicts[4].OK)
	assert.False(t, verdicts[5].OK, "Lisbon and Tokyo are not A")
	assert.Equal(t, `FAILED: send_failures equals 0 (implicit: no expectation names send_failures, so none may fail) (got 1: 1 in workload "audit")`,
		verdicts[6].String())
}

// Metrics lists every metric once, with its unit and the keys it takes.
func TestMetricsAreListed(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range scenarios.Metrics() {
		assert.False(t, seen[m.Name], "%s listed twice", m.Name)
		seen[m.Name] = true
		assert.NotEmpty(t, m.Doc, m.Name)
		assert.Equal(t, m.Needs, m.Needs&m.Takes, "%s needs only keys it takes", m.Name)
	}
	for _, name := range []string{"latency.p99", "messages.delivered", "invariants", "readers.peak", "poison_disables",
		"deadlocks", "lock_wait.p99", "notifications.sent", "statement_errors", "dialogs.ended"} {
		assert.True(t, seen[name], name)
	}
}

// A run that checked no invariant cannot pass {invariants: hold}: nothing was checked, so
// saying "hold" would be a false verdict.
func TestExpectationInvariantsHaveNoValueWhenNothingWasChecked(t *testing.T) {
	res := fixedResult()
	res.InvariantsChecked = false

	ok, got := Expectation{Metric: "invariants", Comparator: Equals, Value: 1}.Check(res)

	assert.False(t, ok)
	assert.Contains(t, got, "no invariant was checked")
}
