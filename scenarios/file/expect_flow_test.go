package file

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// The figures of issue 14 item 6 load as expectations, check against a result, and write
// back as they were read: round trip and latency per workload, and a queue's time in
// queue, sojourn, throughput (a rate, with or without /s), backlog and time to drain.
func TestExpectationsNameTheFlowFigures(t *testing.T) {
	text := base + `workloads: [{name: w, from_service: S, to_service: S, replies: on}]
expect:
  - {metric: round_trip.p99, workload: w, below: 2s}
  - {metric: latency.p50, workload: w, at_most: 100ms}
  - {metric: time_in_queue.mean, queue: Q, below: 50ms}
  - {metric: sojourn.max, queue: Q, at_most: 1s}
  - {metric: throughput, queue: Q, at_least: 250/s}
  - {metric: throughput, queue: Q, below: 1000.5}
  - {metric: backlog.peak, queue: Q, at_most: 12}
  - {metric: drain_time, queue: Q, below: 3s}
  - {metric: messages.received, queue: Q, equals: 40}
`
	f, err := Load("flow.yaml", []byte(text))
	require.NoError(t, err)
	ms := float64(time.Millisecond)
	q, w := scenarios.Subject{Queue: "Q"}, scenarios.Subject{Workload: "w"}
	assert.Equal(t, []Expectation{
		{Metric: "round_trip.p99", Subject: w, Comparator: Below, Value: 2000 * ms},
		{Metric: "latency.p50", Subject: w, Comparator: AtMost, Value: 100 * ms},
		{Metric: "time_in_queue.mean", Subject: q, Comparator: Below, Value: 50 * ms},
		{Metric: "sojourn.max", Subject: q, Comparator: AtMost, Value: 1000 * ms},
		{Metric: "throughput", Subject: q, Comparator: AtLeast, Value: 250},
		{Metric: "throughput", Subject: q, Comparator: Below, Value: 1000.5},
		{Metric: "backlog.peak", Subject: q, Comparator: AtMost, Value: 12},
		{Metric: "drain_time", Subject: q, Comparator: Below, Value: 3000 * ms},
		{Metric: "messages.received", Subject: q, Comparator: Equals, Value: 40},
	}, f.Expectations)

	res := &scenarios.Result{
		Workloads: []scenarios.WorkloadResult{{Name: "w", RoundTrip: scenarios.LatencySummary{Count: 40, P99: 1500 * time.Millisecond},
			Latency: scenarios.LatencySummary{Count: 80, P50: 80 * time.Millisecond}}},
		Queues: []scenarios.QueueResult{{Queue: "Q", Database: "D", Instance: "A", Flow: scenarios.QueueFlow{
			TimeInQueue: scenarios.LatencySummary{Count: 40, Mean: 60 * time.Millisecond},
			Sojourn:     scenarios.LatencySummary{Count: 40, Max: 900 * time.Millisecond},
			Received:    40, FirstArrival: time.Second, LastArrival: 1100 * time.Millisecond, LastReceived: 1200 * time.Millisecond,
			BacklogPeak: 13}}},
	}
	var got []string
	for _, v := range f.Check(res) {
		got = append(got, v.String())
	}
	assert.Equal(t, []string{
		`ok: round_trip.p99 of workload "w" below 2s (got 1.5s)`,
		`ok: latency.p50 of workload "w" at most 100ms (got 80ms)`,
		`FAILED: time_in_queue.mean of queue "Q" below 50ms (got 60ms)`,
		`ok: sojourn.max of queue "Q" at most 1s (got 900ms)`,
		`FAILED: throughput of queue "Q" at least 250/s (got 200/s)`,
		`ok: throughput of queue "Q" below 1000/s (got 200/s)`,
		`FAILED: backlog.peak of queue "Q" at most 12 (got 13)`,
		`ok: drain_time of queue "Q" below 3s (got 100ms)`,
		`ok: messages.received of queue "Q" equals 40 (got 40)`,
	}, got)

	out, err := f.Marshal()
	require.NoError(t, err)
	g, err := Load("flow.yaml", out)
	require.NoError(t, err, "written:\n%s", out)
	assert.Equal(t, f.Expectations, g.Expectations)
}

// A bad value of a new figure is an error with its line and column; a queue figure that
// needs a queue says so.
func TestExpectationsOfTheFlowFiguresReportBadValues(t *testing.T) {
	for _, tc := range []struct{ expect, want string }{
		{"{metric: throughput, queue: Q, above: fast}",
			`bad.yaml:10:43: expect[0].above: want a rate (a number of things per second, 0 or more, such as 250 or 250/s), got "fast"`},
		{"{metric: throughput, queue: Q, above: -3}", `expect[0].above: want a rate`},
		{"{metric: backlog.peak, at_most: 3}", `bad.yaml:10:5: expect[0].queue: metric backlog.peak needs a queue`},
		{"{metric: round_trip.p99, queue: Q, below: 1s}", `bad.yaml:10:30: expect[0].queue: metric round_trip.p99 takes no queue`},
	} {
		_, err := Load("bad.yaml", []byte(base+"workloads: [{name: w, from_service: S, to_service: S}]\nexpect:\n  - "+tc.expect+"\n"))
		require.Error(t, err, tc.expect)
		assert.Contains(t, err.Error(), tc.want, tc.expect)
	}
}
