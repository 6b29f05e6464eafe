package results

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sbsim/sbsim/scenarios/file"
)

// A sweep draws, beside latency p99 and readers, each metric the scenario's expectations
// name, once, and no verdict: the figures its question is about.
func TestSweepPlotsTheMetricsTheExpectationsName(t *testing.T) {
	s := &file.Scenario{Expectations: []file.Expectation{
		{Metric: "invariants"}, {Metric: "throughput"}, {Metric: "latency.p99"}, {Metric: "round_trip.p50"},
		{Metric: "throughput"}, {Metric: "no.such.metric"},
	}}
	var got []string
	for _, p := range sweepPlots(s) {
		got = append(got, p.file+" | "+p.label)
	}
	assert.Equal(t, []string{
		"sweep-latency-p99 | latency p99 (s)",
		"sweep-readers-peak | readers at most (sessions)",
		"sweep-throughput | throughput (per second)",
		"sweep-round_trip-p50 | round_trip.p50 (s)",
	}, got)
	assert.Len(t, sweepPlots(nil), len(sweepPlotted))
}
