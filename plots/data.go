package plots

import (
	"errors"
	"fmt"
	"math"
)

// Point is one sample of a series. In a time series X is virtual time in seconds (the
// caller converts a time.Duration with its Seconds method); in a latency distribution X is
// a latency in seconds and Y the fraction of messages that took at most X.
type Point struct {
	X, Y float64
}

// Line is one named series: a priority level, a database, a link counter. Name is its
// legend entry.
type Line struct {
	Name   string
	Points []Point
}

// BandPoint is one value of a swept parameter X with the mean of a metric over the runs
// at that value and the bounds of its confidence interval, Lo ≤ Mean ≤ Hi.
type BandPoint struct {
	X, Mean, Lo, Hi float64
}

// Band is one named curve of a sweep (a priority level, a queue) with its confidence
// band.
type Band struct {
	Name   string
	Points []BandPoint
}

// errNoData is wrapped by every error about missing input: no lines, a line without
// points, an empty series.
var errNoData = errors.New("no data")

// Rates differentiates a cumulative count sampled over time into a rate per second. The
// rate of each interval between two successive samples is reported at the interval's
// end: the result has one point fewer than the input, and its i-th point is
// (X[i+1], (Y[i+1]-Y[i]) / (X[i+1]-X[i])). A sample whose X is not greater than the last
// sample used is skipped, so that repeated instants cannot divide by zero. Fewer than two
// usable samples give nil.
func Rates(cumulative []Point) []Point {
	var out []Point
	for i, prev := 1, 0; i < len(cumulative); i++ {
		dx := cumulative[i].X - cumulative[prev].X
		if !(dx > 0) {
			continue
		}
		out = append(out, Point{X: cumulative[i].X, Y: (cumulative[i].Y - cumulative[prev].Y) / dx})
		prev = i
	}
	return out
}

// finite reports whether every value is a finite number.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// checkLines checks what every plot of lines needs: at least one line, each named, each
// with points, every value finite, and X never decreasing along a line (a time series or
// a distribution is drawn left to right).
func checkLines(lines []Line) error {
	if len(lines) == 0 {
		return fmt.Errorf("no lines: %w", errNoData)
	}
	for i, l := range lines {
		if err := checkLine(l); err != nil {
			return fmt.Errorf("line %d: %w", i, err)
		}
	}
	return nil
}

// checkLine checks one line for checkLines.
func checkLine(l Line) error {
	if l.Name == "" {
		return errors.New("no name for the legend")
	}
	if len(l.Points) == 0 {
		return fmt.Errorf("%q: no points: %w", l.Name, errNoData)
	}
	for j, p := range l.Points {
		if !finite(p.X, p.Y) {
			return fmt.Errorf("%q: point %d (%v, %v) is not finite", l.Name, j, p.X, p.Y)
		}
		if j > 0 && p.X < l.Points[j-1].X {
			return fmt.Errorf("%q: point %d has x %v, less than %v at point %d",
				l.Name, j, p.X, l.Points[j-1].X, j-1)
		}
	}
	return nil
}

// checkSeries checks one named series of QueueOverTime as checkLine does.
func checkSeries(name string, pts []Point) error {
	return checkLine(Line{Name: name, Points: pts})
}

// bounds returns the smallest and largest X and Y over all the lines.
func bounds(lines []Line) (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, l := range lines {
		for _, p := range l.Points {
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	return xmin, xmax, ymin, ymax
}
