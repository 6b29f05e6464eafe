package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// RoundTripCDF plots the distribution of round trips (a request's SEND commit to the
// commit that received its reply), one line per workload, as LatencyCDF draws latencies:
// points (round trip in seconds, fraction of the replies that took at most that long).
func RoundTripCDF(lines []Line) (*plot.Plot, error) {
	p, err := distribution("Round trip distribution per workload", "round trip", "fraction of replies", lines)
	if err != nil {
		return nil, fmt.Errorf("round trip CDF: %w", err)
	}
	return p, nil
}

// EndpointsByState plots conversation endpoints over time, one line per database and
// state (the rows of sys.conversation_endpoints by state): a design that leaks endpoints
// (fire and forget, nobody ends) shows a line that climbs and stays.
func EndpointsByState(lines []Line) (*plot.Plot, error) {
	p, err := timeSeries("Conversation endpoints by state", "endpoints", lines, plotter.PostStep, true)
	if err != nil {
		return nil, fmt.Errorf("endpoints by state: %w", err)
	}
	return p, nil
}

// Backlog plots the ready messages of several queues over time, one line per queue, on
// one axis: which queue falls behind, and when it catches up.
func Backlog(lines []Line) (*plot.Plot, error) {
	p, err := timeSeries("Backlog: ready messages per queue", "ready messages", lines, plotter.PostStep, true)
	if err != nil {
		return nil, fmt.Errorf("backlog: %w", err)
	}
	return p, nil
}
