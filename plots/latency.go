package plots

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// LatencyCDF plots the distribution of message latency, one line per priority level (or
// any other grouping the caller names). Each line's points are (latency in seconds,
// fraction of the messages that took at most that long), X not decreasing, Y in [0, 1]
// and not decreasing, as the scenarios' per-level CDF gives them. Lines are drawn as
// steps that hold each fraction until the next latency, which is exact for an empirical
// distribution and a lower bound for a bucketed one.
//
// When every latency is positive and they span at least a factor of ten, the latency axis
// is logarithmic, so that a fast level and a slow tail both stay readable; otherwise it
// is linear from zero. Tick labels carry their unit (250µs, 10ms, 1s).
func LatencyCDF(lines []Line, opts ...Option) (*plot.Plot, error) {
	p, err := distribution("Latency distribution per priority level", "latency", "fraction of messages", lines, opts)
	if err != nil {
		return nil, fmt.Errorf("latency CDF: %w", err)
	}
	return p, nil
}

// distribution plots distributions of durations, as LatencyCDF describes, with its title,
// the name of the durations on the X axis and the label of the Y axis.
func distribution(title, xName, yLabel string, lines []Line, opts []Option) (*plot.Plot, error) {
	if err := checkCDF(lines); err != nil {
		return nil, err
	}
	xmin, xmax, _, _ := bounds(lines)
	logScale := xmin > 0 && xmax/xmin >= 10
	xLabel := xName
	if logScale {
		xLabel = xName + " (log scale)"
	}
	c, err := newChart(title, xLabel, yLabel, opts)
	if err != nil {
		return nil, err
	}
	p := c.p
	for i, l := range lines {
		pts := toXYs(l.Points, 1)
		if pts[0].Y > 0 {
			// The distribution is 0 below its first latency: start the step from there.
			pts = append(plotter.XYs{{X: pts[0].X, Y: 0}}, pts...)
		}
		if err := addLine(c, l.Name, pts, lineStyle(i), plotter.PostStep); err != nil {
			return nil, fmt.Errorf("line %q: %w", l.Name, err)
		}
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = fractionTicks
	if logScale {
		p.X.Min, p.X.Max = xmin, xmax
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = secondsTicks{plot.TickerFunc(logTicks)}
	} else {
		p.X.Min = math.Min(0, xmin)
		widenEmpty(&p.X)
		p.X.Tick.Marker = secondsTicks{plot.TickerFunc(niceTicks)}
	}
	return c.finish(), nil
}

// checkCDF checks the lines of a distribution: checkLines, no negative latency, and each
// fraction in [0, 1] and never falling.
func checkCDF(lines []Line) error {
	if err := checkLines(lines); err != nil {
		return err
	}
	for i, l := range lines {
		for j, pt := range l.Points {
			if pt.X < 0 {
				return fmt.Errorf("line %d: %q: point %d has negative latency %v", i, l.Name, j, pt.X)
			}
			if pt.Y < 0 || pt.Y > 1 {
				return fmt.Errorf("line %d: %q: point %d has fraction %v outside [0, 1]", i, l.Name, j, pt.Y)
			}
			if j > 0 && pt.Y < l.Points[j-1].Y {
				return fmt.Errorf("line %d: %q: point %d has fraction %v, less than %v at point %d",
					i, l.Name, j, pt.Y, l.Points[j-1].Y, j-1)
			}
		}
	}
	return nil
}

// fractionTicks marks the fraction axis every tenth, labelled, so that the grid shows
// the median and the 90th percentile.
var fractionTicks = func() plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, 11)
	for i := range ticks {
		ticks[i] = plot.Tick{Value: float64(i) / 10, Label: strconv.FormatFloat(float64(i)/10, 'f', -1, 64)}
	}
	return ticks
}()

// logTicks marks a logarithmic axis from min to max (both positive): every power of ten,
// labelled, and its multiples 2 to 9 unlabelled; when fewer than three powers of ten fall
// in the range, the multiples 2 and 5 are labelled too, so that a range of one or two
// decades still has labels. It replaces plot.LogTicks, which starts at the power of ten
// that truncation (not flooring) of log10(min) gives, so that below 1 the ticks can start
// above the data, and which labels only powers of ten.
func logTicks(min, max float64) []plot.Tick {
	first := int(math.Floor(math.Log10(min)))
	last := int(math.Ceil(math.Log10(max)))
	decades := 0
	for e := first; e <= last; e++ {
		if v := math.Pow10(e); v >= min && v <= max {
			decades++
		}
	}
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow10(e)
			t := plot.Tick{Value: v}
			if m == 1 || (decades < 3 && (m == 2 || m == 5)) {
				t.Label = "x" // secondsTicks writes the real label
			}
			ticks = append(ticks, t)
			if e == last {
				break
			}
		}
	}
	return ticks
}

// secondsTicks relabels the major ticks of a Ticker over seconds as durations: 0.0025
// reads 2.5ms.
type secondsTicks struct {
	plot.Ticker
}

// Ticks implements plot.Ticker.
func (s secondsTicks) Ticks(min, max float64) []plot.Tick {
	ticks := s.Ticker.Ticks(min, max)
	for i, t := range ticks {
		if !t.IsMinor() {
			ticks[i].Label = seconds(t.Value)
		}
	}
	return ticks
}

// seconds formats a number of seconds as a duration, rounded to the nanosecond.
func seconds(v float64) string {
	return time.Duration(math.Round(v * 1e9)).String()
}
