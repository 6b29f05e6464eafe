package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/sbsim/sbsim/plots"
	"github.com/sbsim/sbsim/scenarios"
)

// The base names of the plot files; each is written as .png and .svg. A queue's plot is
// QueuePlotPrefix followed by its instance and name.
const (
	LatencyCDFPlot             = "latency-cdf"
	ThroughputPlot             = "throughput"
	QueuePlotPrefix            = "queue-"
	TransmissionQueueDepthPlot = "transmission-queue-depth"
	LinkCountersPlot           = "link-counters"
	RoundTripCDFPlot           = "round-trip-cdf"
	BacklogPlot                = "backlog"
	EndpointsByStatePlot       = "endpoints-by-state"
	CPUPlot                    = "cpu"
)

// WritePlots draws res in dir, which must exist, as PNG and SVG: the latency distribution
// per priority level, the throughput per level over time, each queue's ready messages and
// reader sessions over time (for the queues that had readers or a queue monitor), the
// transmission queue depth per database over time, and the link counters over time. The
// plots over time end shortly after the last change of any figure (activePeriod). It skips
// a plot that has nothing to show, and returns the files it wrote, in that order.
func WritePlots(dir string, res *scenarios.Result) ([]string, error) {
	return writePlots(&Folder{dir: dir, unlisted: true}, plotData{cdfRows(res), roundTripRows(res), seriesRows(res), res.Name, res.Seed})
}

// plotData is what the plots are drawn from: the rows of latency_cdf.csv,
// round_trip_cdf.csv and series.csv, and the scenario and seed of summary.json, which
// every title names.
type plotData struct {
	cdf        []CDFRow
	roundTrips []RoundTripRow
	rows       []SeriesRow
	scenario   string
	seed       uint64
}

// writePlots draws the plots from the rows of the files, so that WritePlots and Replot
// draw the same thing.
func writePlots(f *Folder, d plotData) ([]string, error) {
	type named struct {
		base string
		draw func(opts ...plots.Option) (*plot.Plot, error)
	}
	var todo []named
	all := d.rows
	rows := activePeriod(all)
	// A world of requests and replies answers first with its round trips: the plot the
	// command names first is the first written.
	if lines := roundTripLines(d.roundTrips); len(lines) > 0 {
		todo = append(todo, named{RoundTripCDFPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.RoundTripCDF(lines, o...) }})
	}
	if lines := latencyLines(d.cdf); len(lines) > 0 {
		todo = append(todo, named{LatencyCDFPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.LatencyCDF(lines, o...) }})
	}
	if lines := throughputLines(rows); len(lines) > 0 {
		todo = append(todo, named{ThroughputPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.ThroughputByLevel(lines, o...) }})
	}
	taken := map[string]bool{}
	for _, q := range queueSeries(rows) {
		base := uniqueBase(QueuePlotPrefix+fileSafe(q.name), taken)
		off := queueOff(rows, q.name)
		todo = append(todo, named{base, func(o ...plots.Option) (*plot.Plot, error) {
			return plots.QueueOverTime(q.name, q.ready, q.activated, q.readers, q.waiting, append(o, plots.QueueOff(off))...)
		}})
	}
	if lines := nonZero(linesOf(rows, KindQueue, "ready", "")); len(lines) > 1 { // one queue's is its queue plot
		todo = append(todo, named{BacklogPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.Backlog(lines, o...) }})
	}
	if lines := nonZero(linesOf(rows, KindDatabase, "transmission_queue_rows", "")); len(lines) > 0 {
		todo = append(todo, named{TransmissionQueueDepthPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.TransmissionQueueDepth(lines, o...) }})
	}
	if lines := endpointLines(all); len(lines) > 0 { // to the end: a leak shows after the traffic stops
		todo = append(todo, named{EndpointsByStatePlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.EndpointsByState(lines, o...) }})
	}
	if lines := linkLines(rows); len(lines) > 0 {
		todo = append(todo, named{LinkCountersPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.LinkCounters(lines, o...) }})
	}
	if lines := cpuLines(rows); len(lines) > 0 {
		todo = append(todo, named{CPUPlot, func(o ...plots.Option) (*plot.Plot, error) { return plots.CPUByInstance(lines, o...) }})
	}
	run := plots.Run(d.scenario, d.seed)
	down := plots.Downtimes(downtimes(rows)) // the plots over time shade when an instance was down (G-13)
	var paths []string
	for _, t := range todo {
		opts := []plots.Option{run}
		if t.base != LatencyCDFPlot && t.base != RoundTripCDFPlot {
			opts = append(opts, down)
		}
		p, err := t.draw(opts...)
		if err != nil {
			return paths, fmt.Errorf("plot %s: %w", t.base, err)
		}
		saved, err := f.savePlot(p, t.base)
		paths = append(paths, saved...)
		if err != nil {
			return paths, fmt.Errorf("plot %s: %w", t.base, err)
		}
	}
	return paths, nil
}

// activePeriod returns the rows up to shortly after the last change of any figure: up to
// 5% of that time later, and at least to the next sample. A run that drains goes on idle
// until the closed target endpoints are deleted (G-16, 30 minutes by default), sampled all
// along; over that tail the plots over time would squeeze what happened into a sliver.
func activePeriod(rows []SeriesRow) []SeriesRow {
	type key struct{ kind, subject, metric string }
	last := map[key]int64{}
	changed := 0.0
	for _, r := range rows {
		if strings.HasPrefix(r.Metric, EndpointsMetricPrefix) {
			continue // endpoints change until the retention of closed ones ends: their plot has the whole run
		}
		k := key{r.Kind, r.Subject, r.Metric}
		if v, ok := last[k]; v != r.Value || (!ok && r.Value != 0) {
			changed = r.TimeS // a change, or a subject that appears (a level's first message)
		}
		last[k] = r.Value
	}
	cutoff := changed * 1.05
	for _, r := range rows {
		if r.TimeS > changed {
			cutoff = max(cutoff, r.TimeS) // the first sample after the last change
			break
		}
	}
	end := len(rows)
	for end > 0 && rows[end-1].TimeS > cutoff {
		end--
	}
	return rows[:end]
}

// levelName is a level's legend entry.
func levelName(level string) string { return "priority " + level }

// latencyLines returns one line per level, in the rows' order.
func latencyLines(cdf []CDFRow) []plots.Line {
	var lines []plots.Line
	for _, r := range cdf {
		name := levelName(strconv.Itoa(r.Level))
		if len(lines) == 0 || lines[len(lines)-1].Name != name {
			lines = append(lines, plots.Line{Name: name})
		}
		l := &lines[len(lines)-1]
		l.Points = append(l.Points, plots.Point{X: r.LatencyS, Y: r.Fraction})
	}
	return lines
}

// throughputLines returns the messages received per second of each level that has at
// least two samples, highest level first, as the latency distribution has them.
func throughputLines(rows []SeriesRow) []plots.Line {
	lines := linesOf(rows, KindLevel, "messages", "")
	slices.SortStableFunc(lines, func(a, b plots.Line) int { return cmp.Compare(levelOf(b.Name), levelOf(a.Name)) })
	var out []plots.Line
	for _, l := range lines {
		if rates := plots.Rates(l.Points); len(rates) > 0 {
			out = append(out, plots.Line{Name: levelName(l.Name), Points: rates})
		}
	}
	return out
}

// roundTripLines returns one line per workload, in the rows' order.
func roundTripLines(rows []RoundTripRow) []plots.Line {
	var lines []plots.Line
	for _, r := range rows {
		if len(lines) == 0 || lines[len(lines)-1].Name != r.Workload {
			lines = append(lines, plots.Line{Name: r.Workload})
		}
		l := &lines[len(lines)-1]
		l.Points = append(l.Points, plots.Point{X: r.RoundTripS, Y: r.Fraction})
	}
	return lines
}

// endpointLines returns a line per database and endpoint state that had an endpoint at
// some instant, named "instance/database CO", by database, then state.
func endpointLines(rows []SeriesRow) []plots.Line {
	var lines []plots.Line
	index := map[string]int{}
	for _, r := range rows {
		st, ok := strings.CutPrefix(r.Metric, EndpointsMetricPrefix)
		if r.Kind != KindDatabase || !ok {
			continue
		}
		name := r.Subject + " " + st
		i, seen := index[name]
		if !seen {
			i = len(lines)
			index[name] = i
			lines = append(lines, plots.Line{Name: name})
		}
		lines[i].Points = append(lines[i].Points, plots.Point{X: r.TimeS, Y: float64(r.Value)})
	}
	return nonZero(lines)
}

// levelOf returns the level a level subject names, or 0 for a subject that is not a number.
func levelOf(subject string) int {
	l, _ := strconv.Atoi(subject)
	return l
}

// linesOf returns one line per subject of kind with a metric, named by the subject and
// suffix, in the order the subjects first appear.
func linesOf(rows []SeriesRow, kind, metric, suffix string) []plots.Line {
	var lines []plots.Line
	index := map[string]int{}
	for _, r := range rows {
		if r.Kind != kind || r.Metric != metric {
			continue
		}
		i, ok := index[r.Subject]
		if !ok {
			i = len(lines)
			index[r.Subject] = i
			lines = append(lines, plots.Line{Name: r.Subject + suffix})
		}
		lines[i].Points = append(lines[i].Points, plots.Point{X: r.TimeS, Y: float64(r.Value)})
	}
	return lines
}

// nonZero returns the lines that are not zero throughout.
func nonZero(lines []plots.Line) []plots.Line {
	var out []plots.Line
	for _, l := range lines {
		for _, p := range l.Points {
			if p.Y != 0 {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// linkLines returns, for each link, its packets lost at random, dropped in a partition,
// dropped for capacity and duplicated, each a line of its own as summary.json's links
// table keeps them, and for each instance its fragments retransmitted, cumulative, leaving
// out those that stayed zero.
func linkLines(rows []SeriesRow) []plots.Line {
	var lines []plots.Line
	for _, m := range []struct{ metric, suffix string }{
		{"lost", " lost"}, {"dropped_partition", " dropped by partition"},
		{"dropped_capacity", " dropped for capacity"}, {"duplicated", " duplicated"},
	} {
		lines = append(lines, nonZero(linesOf(rows, KindLink, m.metric, m.suffix))...)
	}
	return append(lines, nonZero(linesOf(rows, KindInstance, "fragments_retransmitted", " retransmitted"))...)
}

// cpuLines returns, for each instance with a cpu_busy series (a world with costs), the
// CPUs it kept busy over each sampling interval, leaving out those never busy.
func cpuLines(rows []SeriesRow) []plots.Line {
	var out []plots.Line
	for _, l := range nonZero(linesOf(rows, KindInstance, "cpu_busy", "")) {
		rates := plots.Rates(l.Points)
		for i := range rates {
			rates[i].Y /= 1e6 // microseconds of CPU per second: CPUs busy
		}
		if len(rates) > 0 {
			out = append(out, plots.Line{Name: l.Name, Points: rates})
		}
	}
	return out
}

// queueOff returns the spans when queue's STATUS was OFF, from its off rows (1 when it
// became OFF, 0 when ON again); none for a queue that stayed ON.
func queueOff(rows []SeriesRow, queue string) []plots.Span {
	var out []plots.Span
	for _, r := range rows {
		if r.Kind != KindQueue || r.Subject != queue || r.Metric != "off" {
			continue
		}
		if n := len(out); n > 0 && math.IsInf(out[n-1].To, 1) && r.Value == 0 {
			out[n-1].To = r.TimeS
		} else if (n == 0 || !math.IsInf(out[n-1].To, 1)) && r.Value == 1 {
			out = append(out, plots.Span{Subject: "queue", From: r.TimeS, To: math.Inf(1)})
		}
	}
	return out
}

// queueData is one queue's series for plots.QueueOverTime.
type queueData struct {
	name                               string
	ready, activated, readers, waiting []plots.Point
	monitor                            bool
}

// queueSeries returns the series of the queues that had a reader session running at some
// sample or have a queue monitor, in the order the queues first appear.
func queueSeries(rows []SeriesRow) []queueData {
	var all []queueData
	index := map[string]int{}
	for _, r := range rows {
		if r.Kind != KindQueue {
			continue
		}
		i, ok := index[r.Subject]
		if !ok {
			i = len(all)
			index[r.Subject] = i
			all = append(all, queueData{name: r.Subject})
		}
		q := &all[i]
		pt := plots.Point{X: r.TimeS, Y: float64(r.Value)}
		switch r.Metric {
		case "ready":
			q.ready = append(q.ready, pt)
		case "readers":
			q.readers = append(q.readers, pt)
		case "waiting":
			q.waiting = append(q.waiting, pt)
		case "activated":
			q.activated = append(q.activated, pt)
		case "monitor_state":
			q.monitor = true
		}
	}
	var out []queueData
	for _, q := range all {
		if len(q.ready) > 0 && len(q.readers) > 0 && (q.monitor || len(nonZero([]plots.Line{{Points: q.readers}})) > 0) {
			out = append(out, q)
		}
	}
	return out
}

// fileSafe makes a subject's name part of a file name: "/" becomes "-", and any character
// but an ASCII letter, digit, ".", "_" or "-" becomes "_".
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '/':
			return '-'
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

// uniqueBase returns base, or base-2, base-3, ... when it is taken already, and marks it
// taken.
func uniqueBase(base string, taken map[string]bool) string {
	out := base
	for i := 2; taken[out]; i++ {
		out = base + "-" + strconv.Itoa(i)
	}
	taken[out] = true
	return out
}

// downtimes returns the spans when an instance was down, from the rows of its down metric
// (1 at a crash, 0 at the restart), in time order; none in a world without crashes.
func downtimes(rows []SeriesRow) []plots.Downtime {
	var out []plots.Downtime
	open := map[string]int{} // by instance, the span not yet closed
	for _, r := range rows {
		if r.Kind != KindInstance || r.Metric != "down" {
			continue
		}
		if i, ok := open[r.Subject]; ok && r.Value == 0 {
			out[i].To = r.TimeS
			delete(open, r.Subject)
		} else if !ok && r.Value == 1 {
			open[r.Subject] = len(out)
			out = append(out, plots.Downtime{Instance: r.Subject, From: r.TimeS, To: math.Inf(1)})
		}
	}
	return out
}
