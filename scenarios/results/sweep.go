package results

import (
	"encoding/csv"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sbsim/sbsim/plots"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
)

// SweepFile is the name of the file WriteSweep writes, besides the plots.
const SweepFile = "sweep.csv"

// WriteSweep writes a sweep's runs to dir: sweep.csv, one row per metric and subject of
// each run, and, when the first parameter's values are numbers or durations, plots of
// latency p99 per level and of the most readers per queue against it, with 95% confidence
// bands across seeds (one line per value of the second parameter, when there is one). It
// returns the paths it wrote.
func WriteSweep(dir string, sw *batch.Sweep, runs []batch.SweepRun) ([]string, error) {
	path := filepath.Join(dir, SweepFile)
	if err := writeFile(path, func(w io.Writer) error { return writeSweepCSV(w, sw, runs) }); err != nil {
		return nil, err
	}
	plotted, err := sweepPlots(dir, sw, runs)
	return append([]string{path}, plotted...), err
}

// writeSweepCSV writes the long form: the parameters' values, seed, subject, metric, unit,
// value (seconds for a duration).
func writeSweepCSV(out io.Writer, sw *batch.Sweep, runs []batch.SweepRun) error {
	w := csv.NewWriter(out)
	var header []string
	for _, p := range sw.Params {
		header = append(header, p.Key)
	}
	_ = w.Write(append(header, "seed", "subject", "metric", "unit", "value"))
	for _, r := range runs {
		point := sw.Points[r.Point].Values
		for _, m := range r.Measures {
			rec := append(append([]string(nil), point...), strconv.FormatUint(r.Seed, 10), m.Subject.String(), m.Metric,
				m.Unit.String(), strconv.FormatFloat(measureValue(m), 'g', -1, 64))
			_ = w.Write(rec)
		}
	}
	w.Flush()
	return w.Error()
}

// measureValue is a measure in the unit the files write: seconds for a duration.
func measureValue(m scenarios.Measure) float64 {
	if m.Unit == scenarios.Duration {
		return seconds(time.Duration(m.Value))
	}
	return m.Value
}

// sweepPlotted are the metrics a sweep plots, one line per subject.
var sweepPlotted = []struct{ metric, file, label string }{
	{"latency.p99", "sweep-latency-p99", "latency p99 (s)"},
	{"readers.peak", "sweep-readers-peak", "readers at most (sessions)"},
}

// sweepPlots draws the metrics of sweepPlotted against the first parameter, when its values
// are numbers (a trailing % allowed) or durations (in seconds).
func sweepPlots(dir string, sw *batch.Sweep, runs []batch.SweepRun) ([]string, error) {
	first := sw.Params[0]
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
	stride := len(sw.Points) / len(first.Values) // points per value of the first parameter
	var files []string
	for _, m := range sweepPlotted {
		series := map[string][][]float64{} // line name → by point → values over seeds
		for _, r := range runs {
			for _, ms := range r.Measures {
				if ms.Metric != m.metric || ms.Subject == (scenarios.Subject{}) {
					continue
				}
				name := ms.Subject.String()
				if len(sw.Params) == 2 {
					name += ", " + sw.Params[1].Key + "=" + sw.Points[r.Point].Values[1]
				}
				if series[name] == nil {
					series[name] = make([][]float64, len(sw.Points))
				}
				series[name][r.Point] = append(series[name][r.Point], measureValue(ms))
			}
		}
		if len(series) == 0 {
			continue
		}
		names := make([]string, 0, len(series))
		for n := range series {
			names = append(names, n)
		}
		sort.Strings(names)
		var bands []plots.Band
		for _, n := range names {
			b := plots.Band{Name: n}
			for p, vals := range series[n] {
				if len(vals) == 0 {
					continue
				}
				iv := batch.NewInterval(vals)
				b.Points = append(b.Points, plots.BandPoint{X: xs[p/stride], Mean: iv.Mean, Lo: max(0, iv.Lo), Hi: iv.Hi}) // every metric is ≥ 0
			}
			bands = append(bands, b)
		}
		key := first.Key
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			key = key[i+1:] // the parameter's own name; sweep.csv has the whole path
		}
		p, err := plots.Sweep(key, m.label, bands)
		if err != nil {
			return files, err
		}
		if err := plots.SaveBoth(p, dir, m.file); err != nil {
			return files, err
		}
		files = append(files, filepath.Join(dir, m.file+".png"), filepath.Join(dir, m.file+".svg"))
	}
	return files, nil
}
