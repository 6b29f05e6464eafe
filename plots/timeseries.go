package plots

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// timeAxis is the label of the X axis of every plot over time.
const timeAxis = "time (s)"

// ThroughputByLevel plots the messages received per second at each priority level over
// time, one line per level. It takes rates, not counts: X is virtual time in seconds and
// Y the rate over the sampling interval that ends at X, which is what Rates makes of the
// cumulative counts a run samples. Each rate is drawn as a step over its interval.
func ThroughputByLevel(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := timeSeries("Throughput per priority level", "messages per second", lines, plotter.PreStep, false, opts)
	if err != nil {
		return nil, fmt.Errorf("throughput by level: %w", err)
	}
	return p, nil
}

// TransmissionQueueDepth plots the rows of each database's transmission queue over time,
// one line per database (the scenarios name them instance/database). X is virtual time in
// seconds and Y the rows at that instant; a sampled depth holds until the next sample.
func TransmissionQueueDepth(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := timeSeries("Transmission queue depth per database", "rows", lines, plotter.PostStep, true, opts)
	if err != nil {
		return nil, fmt.Errorf("transmission queue depth: %w", err)
	}
	return p, nil
}

// LinkCounters plots counters of the links over time: packets lost, dropped in a
// partition or for capacity, fragments retransmitted and copies duplicated, one line per
// link and counter, named by the caller (for example "B1→B2 lost", "B1→B2 dropped by
// partition"). It takes cumulative counts, as a run samples them, not rates:
// these are rare events, and a cumulative count shows when they happened (where it
// climbs) and how many there were in all (where it ends) without the spikes and zeros of
// a rate. Y never falls on a correct counter, but the plot does not insist.
func LinkCounters(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := timeSeries("Link counters: losses, drops, retransmissions, duplicates", "count since the start", lines, plotter.PostStep, true, opts)
	if err != nil {
		return nil, fmt.Errorf("link counters: %w", err)
	}
	return p, nil
}

// timeSeries plots lines over virtual time with the legend below, both axes from zero (or
// below, for a negative value). Counts get whole-number ticks.
func timeSeries(title, yLabel string, lines []Line, step plotter.StepKind, counts bool, opts []Option) (*plot.Plot, error) {
	if err := checkLines(lines); err != nil {
		return nil, err
	}
	c, err := newChart(title, timeAxis, yLabel, opts)
	if err != nil {
		return nil, err
	}
	p := c.p
	p.X.Min, p.Y.Min = 0, 0 // a run starts at time zero; counts and rates start at zero
	for i, l := range lines {
		style := lineStyle(i)
		if slices.ContainsFunc(lines[i+1:], func(m Line) bool { return coincide(l.Points, m.Points) }) {
			style = underStyle(style) // a later line is the same: this one shows around it
		}
		if err := addLine(c, l.Name, toXYs(l.Points, 1), style, step); err != nil {
			return nil, fmt.Errorf("line %q: %w", l.Name, err)
		}
	}
	widenEmpty(&p.X)
	widenEmpty(&p.Y)
	if counts {
		p.Y.Tick.Marker = plot.TickerFunc(integerTicks)
	}
	return c.finish(), nil
}

// coincideShare is the share of the instants where either of two lines is not zero at
// which they must be equal to coincide.
const coincideShare = 0.9

// coincide reports whether two lines sampled at the same instants would hide one another:
// equal at coincideShare or more of the instants where either is not zero, and not zero
// throughout. Lines that are both zero for a while are not said to coincide for that.
func coincide(a, b []Point) bool {
	if len(a) != len(b) {
		return false
	}
	busy, equal := 0, 0
	for i := range a {
		if a[i].X != b[i].X {
			return false
		}
		if a[i].Y == 0 && b[i].Y == 0 {
			continue
		}
		busy++
		if a[i].Y == b[i].Y {
			equal++
		}
	}
	return busy > 0 && float64(equal) >= coincideShare*float64(busy)
}
