package results

import (
	"bufio"
	"cmp"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sbsim/sbsim/plots"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// SweepFile is the name of the file SweepWriter writes, besides the plots.
const SweepFile = "sweep.csv"

// SweepWriter writes a sweep's runs to a directory as they come: each run's rows go to
// sweep.csv at once, one row per metric and subject (the parameters' values, seed, subject,
// metric, unit, value in seconds for a duration), and only the values of the plotted
// metrics are kept, so that its memory does not grow with the runs' figures. Close draws,
// when the first parameter's values are numbers or durations, latency p99 per level and
// the most readers per queue against it, with 95% confidence bands across seeds (one line
// per value of the second parameter, when there is one).
type SweepWriter struct {
	folder *Folder
	sw     *batch.Sweep
	f      *pendingFile
	out    *bufio.Writer
	csv    *csv.Writer
	// plotted are the metrics drawn (sweepPlotted, then those the expectations name);
	// series holds, by plotted metric, by line, by point, the values over seeds.
	plotted []sweepPlot
	series  []map[string][][]float64
	// record is sweep.json: the sweep and the verdicts of its points as they finish.
	record SweepRecord
}

// NewSweepWriter starts the folder's sweep.csv, under a temporary name until Close, and
// writes its header.
func NewSweepWriter(folder *Folder, sw *batch.Sweep) (*SweepWriter, error) {
	f, err := folder.create(SweepFile)
	if err != nil {
		return nil, err
	}
	w := &SweepWriter{folder: folder, sw: sw, f: f, out: bufio.NewWriterSize(f, 1<<16), record: newSweepRecord(sw)}
	w.csv = csv.NewWriter(w.out)
	var header []string
	for _, p := range sw.Params {
		header = append(header, p.Key)
	}
	_ = w.csv.Write(append(header, "seed", "subject", "metric", "unit", "value"))
	w.plotted = sweepPlots(sw.Scenario)
	for range w.plotted {
		w.series = append(w.series, map[string][][]float64{})
	}
	return w, nil
}

// Add writes one run's rows and keeps its plotted values. A write that fails stops the
// writing; Close returns its error.
func (w *SweepWriter) Add(r batch.SweepRun) {
	if r.Expectations != nil {
		w.record.Points = append(w.record.Points, pointRecord(w.sw, r.Expectations))
	}
	if w.csv.Error() != nil {
		return
	}
	point := w.sw.Points[r.Point].Values
	for _, m := range r.Measures {
		v := measureValue(m)
		rec := append(append([]string(nil), point...), strconv.FormatUint(r.Seed, 10), m.Subject.String(), m.Metric,
			m.Unit.String(), strconv.FormatFloat(v, 'g', -1, 64))
		_ = w.csv.Write(rec)
		for i, pl := range w.plotted {
			if m.Metric != pl.metric || m.Subject == (scenarios.Subject{}) && !pl.whole {
				continue
			}
			name := m.Subject.String()
			if len(w.sw.Params) == 2 {
				name += ", " + w.sw.Params[1].Key + "=" + point[1]
			}
			if w.series[i][name] == nil {
				w.series[i][name] = make([][]float64, len(w.sw.Points))
			}
			w.series[i][name][r.Point] = append(w.series[i][name][r.Point], v)
		}
	}
}

// Close finishes sweep.csv, renames it into place, draws the plots, writes sweep.json and,
// last, report.html from the folder's files (WriteSweepReportFromFolder), and returns the
// paths it wrote. A sweep.csv that could not be written whole is removed. The folder
// stays open.
func (w *SweepWriter) Close() ([]string, error) {
	w.csv.Flush()
	err := w.csv.Error()
	if err == nil {
		err = w.out.Flush()
	}
	if err != nil {
		w.f.abort()
		return nil, fmt.Errorf("write %s: %w", w.f.path, err)
	}
	if err := w.f.commit(w.folder, SweepFile); err != nil {
		return nil, err
	}
	plotted, err := w.plots()
	files := append([]string{w.f.path}, plotted...)
	if err != nil {
		return files, err
	}
	return w.writeReport(files)
}

// measureValue is a measure in the unit the files write: seconds for a duration.
func measureValue(m scenarios.Measure) float64 {
	if m.Unit == scenarios.Duration {
		return seconds(time.Duration(m.Value))
	}
	return m.Value
}

// sweepPlot is a metric a sweep draws, one line per subject; whole draws the whole run's
// value too.
type sweepPlot struct {
	metric, file, label string
	whole               bool
}

// sweepPlotted are the metrics every sweep plots, one line per subject.
var sweepPlotted = []sweepPlot{
	{metric: "latency.p99", file: "sweep-latency-p99", label: "latency p99 (s)"},
	{metric: "readers.peak", file: "sweep-readers-peak", label: "readers at most (sessions)"},
}

// sweepPlots are the plots of a sweep of s: sweepPlotted, then each other metric its
// expectations name, the figures its question is about (verdicts left out).
func sweepPlots(s *file.Scenario) []sweepPlot {
	out := slices.Clone(sweepPlotted)
	if s == nil {
		return out
	}
	for _, e := range s.Expectations {
		m, ok := scenarios.LookupMetric(e.Metric)
		if !ok || m.Unit == scenarios.Verdict || slices.ContainsFunc(out, func(p sweepPlot) bool { return p.metric == e.Metric }) {
			continue
		}
		unit := m.Unit.String()
		if m.Unit == scenarios.Duration {
			unit = "s"
		}
		out = append(out, sweepPlot{metric: e.Metric, file: "sweep-" + strings.ReplaceAll(e.Metric, ".", "-"),
			label: e.Metric + " (" + unit + ")", whole: true})
	}
	return out
}

// plots draws the metrics of sweepPlotted against the first parameter, when its values are
// numbers (a trailing % allowed) or durations (in seconds).
func (w *SweepWriter) plots() ([]string, error) {
	first := w.sw.Params[0]
	xs := make([]float64, len(first.Values))
	for i, v := range first.Values {
		x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil {
			d, derr := time.ParseDuration(v)
			if derr != nil {
				return nil, nil // not numeric: sweep.csv only
			}
			x = d.Seconds()
		}
		xs[i] = x
	}
	stride := len(w.sw.Points) / len(first.Values) // points per value of the first parameter
	var files []string
	for i, m := range w.plotted {
		series := w.series[i]
		if len(series) == 0 {
			continue
		}
		names := slices.SortedFunc(maps.Keys(series), naturalCompare) // dialogs=4 before dialogs=16
		var bands []plots.Band
		for _, n := range names {
			b := plots.Band{Name: n}
			for p, vals := range series[n] {
				if len(vals) == 0 {
					continue
				}
				b.Points = append(b.Points, bandPoint(xs[p/stride], vals))
			}
			bands = append(bands, b)
		}
		key := first.Key
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			key = key[i+1:] // the parameter's own name; sweep.csv has the whole path
		}
		p, err := plots.Sweep(key, m.label, bands, plots.Seeds(w.scenarioName(), w.seeds()))
		if err != nil {
			return files, err
		}
		saved, err := w.folder.savePlot(p, m.file)
		files = append(files, saved...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// bandPoint is the mean of a metric's values over the seeds at x with its 95% confidence
// interval, clipped to the values themselves: with few seeds Student's t makes the
// interval far wider than the spread of the runs (12.7 times the standard error for two),
// and a band beyond every value the runs gave would only stretch the axis. Every metric is
// ≥ 0, so the band is too.
func bandPoint(x float64, vals []float64) plots.BandPoint {
	iv := batch.NewInterval(vals)
	lo, hi := max(0, iv.Lo, slices.Min(vals)), min(iv.Hi, slices.Max(vals))
	return plots.BandPoint{X: x, Mean: iv.Mean, Lo: min(lo, iv.Mean), Hi: max(hi, iv.Mean)}
}

// naturalCompare orders names as a person reads them: runs of digits by their number, the
// rest by byte, so "dialogs=4" comes before "dialogs=16".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits returns the length of the run of ASCII digits s begins with.
func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// scenarioName is the name of the swept scenario, for the plots' titles.
func (w *SweepWriter) scenarioName() string {
	if w.sw.Scenario == nil {
		return ""
	}
	return w.sw.Scenario.Config.Name
}

// seeds are the seeds every point of the sweep ran: 1 to Seeds.
func (w *SweepWriter) seeds() []uint64 {
	out := make([]uint64, w.sw.Seeds)
	for i := range out {
		out[i] = uint64(i + 1)
	}
	return out
}

// BatchOptions are how the command runs a batch (sweep, explore): the folder (BatchDir's
// default when empty), the workers, every run printed or only the failures (Verbose), and
// Progress, called once per finished run, and Done, once they all finished (both may be
// nil: a progress bar).
type BatchOptions struct {
	Out            string
	Workers        int
	Verbose        bool
	Progress, Done func()
}

func (o BatchOptions) done() {
	if o.Done != nil {
		o.Done()
	}
}

// RunSweep is simulate sweep: it runs the sweep, reports each run as it finishes (with the command that replays
// one that broke an invariant), and writes sweep.csv and the plots, also when interrupted.
func RunSweep(ctx context.Context, stdout, stderr io.Writer, arg string, sw *batch.Sweep, o BatchOptions) int {
	report, err := NewBatchReport(stdout, BatchDir(o.Out, "sweep", arg), o.Verbose)
	var w *SweepWriter
	if err == nil {
		w, err = NewSweepWriter(report.Folder, sw)
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitNotWritten
	}
	var bug error
	for r, err := range batch.Until(ctx, sw.Run(o.Workers, o.Progress)) {
		pt := sw.Points[r.Point]
		replay := PinnedReplay(file.Replay(arg, sw.Overrides(pt), r.Seed), pt.Scenario.Hash)
		if err != nil { // a run that could not start or panicked: a bug; the runs before it are kept
			bug = fmt.Errorf("%w\nreplay: %s", err, replay)
			break
		}
		w.Add(r)
		report.SweepRun(arg, sw.Overrides(pt), r, replay)
		fmt.Fprint(stdout, sw.PointFailures(r)) // a point whose expectations failed, after its last seed
	}
	o.done()
	files, werr := w.Close()
	if werr == nil {
		SaySwept(stdout, sw, report.Runs, report.Failed, files)
	}
	code := report.Close(len(sw.Points)*sw.Seeds, ctx.Err() != nil, stderr)
	for _, e := range []struct {
		err  error
		code int
	}{{bug, ExitFailed}, {werr, ExitNotWritten}} {
		if e.err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", e.err)
			code = Worst(code, e.code)
		}
	}
	return code
}
