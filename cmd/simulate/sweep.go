package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"gonum.org/v1/gonum/stat"

	"github.com/sbsim/sbsim/plots"
	"github.com/sbsim/sbsim/scenarios"
)

// setFlags collects the repeated -set key=v1,v2 flags.
type setFlags []param

type param struct {
	key    string
	values []string
}

func (s *setFlags) String() string { return fmt.Sprint(*s) }

func (s *setFlags) Set(v string) error {
	key, vals, ok := strings.Cut(v, "=")
	if !ok || key == "" || vals == "" {
		return fmt.Errorf("want key=v1,v2,... (got %q)", v)
	}
	*s = append(*s, param{key, strings.Split(vals, ",")})
	return nil
}

// cmdSweep is `simulate sweep`: the scenario for every combination of one or two
// parameters, each on seeds 1 to N, on every core; sweep.csv and plots with 95%
// confidence bands across seeds.
func cmdSweep(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("sweep", stderr)
	var sets setFlags
	fs.Var(&sets, "set", "`key=v1,v2,...`: a parameter and its values, the key a path in the file such as\n"+
		"workloads.0.dialogs or instances.Tokyo.databases.Warehouse.queues.StockQueue.activation.max_queue_readers\n"+
		"(a sequence's item by index or by name); once or twice")
	seeds := fs.Int("seeds", 5, "seeds 1 to `N` for every point")
	out := fs.String("out", "", "`DIR` for sweep.csv and the plots (default sbsim-results/sweep-NAME)")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`; the results do not depend on it")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintln(stderr, "simulate sweep: want one scenario, a file or a library name")
		return 2
	case len(sets) == 0 || len(sets) > 2:
		fmt.Fprintln(stderr, "simulate sweep: want one or two -set key=v1,v2,...")
		return 2
	case *seeds < 1 || *nworkers < 1:
		fmt.Fprintln(stderr, "simulate sweep: -seeds and -workers must be 1 or more")
		return 2
	}
	text, name, err := scenarioText(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	points := grid(sets)
	var jobs []job
	for _, pt := range points {
		data, err := withValues(text, sets, pt)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 2
		}
		f, err := scenarios.Load(name+" with "+describePoint(sets, pt), data) // positions are in the rewritten text
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 2
		}
		for s := 1; s <= *seeds; s++ {
			jobs = append(jobs, job{f.Config, uint64(s)})
		}
	}
	tick, finish := progress(stderr, len(jobs), "sweeping")
	results, errs := runAll(jobs, *nworkers, tick)
	finish()
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(stderr, "simulate: seed %d: %v\n", jobs[i].seed, err)
			return 2
		}
	}
	violated := 0
	for i, res := range results {
		if v := res.Violation; v != nil {
			violated++
			pt := points[i / *seeds]
			fmt.Fprintf(stdout, "%s violated with %s, seed %d; replay it by setting those values in the file and running:\n"+
				"  go run ./cmd/simulate run FILE -seed %d\n", v.Rule, describePoint(sets, pt), jobs[i].seed, jobs[i].seed)
		}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("sbsim-results", "sweep-"+strings.TrimSuffix(filepath.Base(name), ".yaml"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	rows := sweepRows(sets, points, *seeds, results)
	if err := writeSweepCSV(filepath.Join(dir, "sweep.csv"), sets, rows); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	files, err := sweepPlots(dir, sets, points, rows)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d points x %d seeds = %d runs; wrote %s", len(points), *seeds, len(jobs), filepath.Join(dir, "sweep.csv"))
	for _, f := range files {
		fmt.Fprintf(stdout, ", %s", f)
	}
	fmt.Fprintln(stdout)
	if len(files) == 0 {
		fmt.Fprintf(stdout, "no plots: the values of %s are not numbers or durations\n", sets[0].key)
	}
	if violated > 0 {
		fmt.Fprintf(stdout, "%d runs broke an invariant\n", violated)
		return 1
	}
	return 0
}

// scenarioText returns the YAML text of a file or of a library scenario, and its name.
func scenarioText(arg string) ([]byte, string, error) {
	if strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, os.PathSeparator) {
		data, err := os.ReadFile(arg)
		return data, arg, err
	}
	data, err := scenarios.LibraryFile(arg)
	return data, arg + ".yaml", err
}

// grid returns every combination of the parameters' value indexes, the first parameter
// varying slowest.
func grid(sets setFlags) [][]int {
	points := [][]int{{}}
	for _, p := range sets {
		var next [][]int
		for _, pt := range points {
			for i := range p.values {
				next = append(next, append(append([]int(nil), pt...), i))
			}
		}
		points = next
	}
	return points
}

func describePoint(sets setFlags, pt []int) string {
	var parts []string
	for k, i := range pt {
		parts = append(parts, sets[k].key+"="+sets[k].values[i])
	}
	return strings.Join(parts, ", ")
}

// withValues returns the scenario text with the point's values set at the parameters' keys.
func withValues(text []byte, sets setFlags, pt []int) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	for k, i := range pt {
		if err := setPath(&doc, sets[k].key, sets[k].values[i]); err != nil {
			return nil, fmt.Errorf("-set %s: %w", sets[k].key, err)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// setPath sets the scalar at key, a dotted path of mapping keys and sequence items (by index,
// or by the value of their name key); a missing last mapping key is added.
func setPath(doc *yaml.Node, key, value string) error {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	parts := strings.Split(key, ".")
	for k, part := range parts {
		last := k == len(parts)-1
		for n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			var found *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == part {
					found = n.Content[i+1]
				}
			}
			if found == nil {
				if !last {
					return fmt.Errorf("no key %q", strings.Join(parts[:k+1], "."))
				}
				found = &yaml.Node{Kind: yaml.ScalarNode}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: part}, found)
			}
			n = found
		case yaml.SequenceNode:
			item := itemOf(n, part)
			if item == nil {
				return fmt.Errorf("no item %q in %s", part, strings.Join(parts[:k], "."))
			}
			n = item
		default:
			return fmt.Errorf("%s is a scalar", strings.Join(parts[:k], "."))
		}
	}
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("%s is not a scalar", key)
	}
	n.Value, n.Tag, n.Style = value, "", 0
	return nil
}

// itemOf returns the sequence's item at index part, or the mapping item whose name is part.
func itemOf(seq *yaml.Node, part string) *yaml.Node {
	if i, err := strconv.Atoi(part); err == nil {
		if i >= 0 && i < len(seq.Content) {
			return seq.Content[i]
		}
		return nil
	}
	for _, it := range seq.Content {
		for it.Kind == yaml.AliasNode {
			it = it.Alias
		}
		if it.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value == "name" && it.Content[i+1].Value == part {
				return it
			}
		}
	}
	return nil
}

// sweepRow is one metric of one run.
type sweepRow struct {
	point   int
	seed    int
	subject string // "level 10", "queue StockQueue", "all"
	metric  string
	value   float64
}

// sweepRows extracts, from each run, latency p50/p99 and messages per level, the most
// readers and lock waits per queue, and the end time.
func sweepRows(sets setFlags, points [][]int, seeds int, results []*scenarios.Result) []sweepRow {
	var rows []sweepRow
	for p := range points {
		for s := 1; s <= seeds; s++ {
			res := results[p*seeds+s-1]
			add := func(subject, metric string, v float64) {
				rows = append(rows, sweepRow{p, s, subject, metric, v})
			}
			add("all", "latency_p99_s", res.Latency.P99.Seconds())
			add("all", "end_time_s", res.EndTime.Seconds())
			if res.InvariantsChecked {
				ok := 1.0
				if res.Violation != nil {
					ok = 0
				}
				add("all", "invariants_hold", ok)
			}
			for _, l := range res.Levels {
				subject := fmt.Sprintf("level %d", l.Level)
				add(subject, "latency_p50_s", l.Latency.P50.Seconds())
				add(subject, "latency_p99_s", l.Latency.P99.Seconds())
				add(subject, "messages", float64(l.Messages))
			}
			for _, q := range res.Queues {
				peak := q.PeakActivated
				for _, r := range res.Readers {
					if r.Queue == q.Queue {
						peak = max(peak, r.PeakRunning)
					}
				}
				subject := "queue " + q.Queue
				add(subject, "readers_peak", float64(peak))
				add(subject, "lock_wait_p99_s", q.LockWaits.P99.Seconds())
			}
		}
	}
	return rows
}

func writeSweepCSV(path string, sets setFlags, rows []sweepRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	header := []string{}
	for _, s := range sets {
		header = append(header, s.key)
	}
	_ = w.Write(append(header, "seed", "subject", "metric", "value"))
	points := grid(sets)
	for _, r := range rows {
		rec := []string{}
		for k, i := range points[r.point] {
			rec = append(rec, sets[k].values[i])
		}
		_ = w.Write(append(rec, strconv.Itoa(r.seed), r.subject, r.metric, strconv.FormatFloat(r.value, 'g', -1, 64)))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sweepPlots draws, for the first parameter (numeric values only), latency p99 per level and
// the most readers per queue against it, one line per subject with a 95% confidence band
// across seeds (and per value of the second parameter, when there is one).
func sweepPlots(dir string, sets setFlags, points [][]int, rows []sweepRow) ([]string, error) {
	xs := make([]float64, len(sets[0].values))
	for i, v := range sets[0].values {
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
	var files []string
	for _, m := range []struct{ metric, file, label string }{
		{"latency_p99_s", "sweep-latency-p99", "latency p99 (s)"},
		{"readers_peak", "sweep-readers-peak", "readers at most (sessions)"},
	} {
		series := map[string][][]float64{} // line name → by point → values over seeds
		for _, r := range rows {
			if r.metric != m.metric || r.subject == "all" {
				continue
			}
			name := r.subject
			if len(sets) == 2 {
				name += ", " + sets[1].key + "=" + sets[1].values[points[r.point][1]]
			}
			if series[name] == nil {
				series[name] = make([][]float64, len(points))
			}
			series[name][r.point] = append(series[name][r.point], r.value)
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
				mean, sd := stat.MeanStdDev(vals, nil)
				if math.IsNaN(sd) {
					sd = 0
				}
				half := 1.96 * sd / math.Sqrt(float64(len(vals)))
				b.Points = append(b.Points, plots.BandPoint{X: xs[points[p][0]], Mean: mean, Lo: max(0, mean-half), Hi: mean + half}) // every metric is ≥ 0
			}
			bands = append(bands, b)
		}
		key := sets[0].key
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
