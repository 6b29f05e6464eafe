package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// RoundTripCDF plots the distribution of round trips (a request's SEND commit to the
// commit that received its reply), one line per workload, as LatencyCDF draws latencies:
// points (round trip in seconds, fraction of the replies that took at most that long).
func RoundTripCDF(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := distribution("Round trip distribution per workload", "round trip", "fraction of replies", lines, opts)
	if err != nil {
		return nil, fmt.Errorf("round trip CDF: %w", err)
	}
	return p, nil
}

// EndpointsByState plots conversation endpoints over time, one line per database and
// state (the rows of sys.conversation_endpoints by state): a design that leaks endpoints
// (fire and forget, nobody ends) shows a line that climbs and stays.
func EndpointsByState(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := timeSeries("Conversation endpoints by state", "endpoints", lines, plotter.PostStep, true, opts)
	if err != nil {
		return nil, fmt.Errorf("endpoints by state: %w", err)
	}
	return p, nil
}

// Backlog plots the ready messages of several queues over time, one line per queue, on
// one axis: which queue falls behind, and when it catches up.
func Backlog(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := timeSeries("Backlog: ready messages per queue", "ready messages", lines, plotter.PostStep, true, opts)
	if err != nil {
		return nil, fmt.Errorf("backlog: %w", err)
	}
	return p, nil
}

// CPUByInstance plots how many CPUs each instance kept busy over time, one line per
// instance: the CPU time it served over each sampling interval divided by the interval
// (Rates of the cumulative CPU seconds a run samples). A line near the instance's CPU
// count is a saturated instance.
func CPUByInstance(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := timeSeries("CPU per instance", "CPUs busy", lines, plotter.PreStep, false, opts)
	if err != nil {
		return nil, fmt.Errorf("CPU by instance: %w", err)
	}
	return p, nil
}
