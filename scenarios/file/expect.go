package file

import (
	"fmt"
	"github.com/sbsim/sbsim/scenarios"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
)

// Expectation is one assertion on a run's results, as a scenario file's expect list
// writes it: {metric: latency.p99, level: 10, below: 2s}, or {invariants: hold}.
type Expectation struct {
	// Metric names what is measured (scenarios.Metrics).
	Metric string
	// Subject narrows the metric to one priority level (1 to 10), one queue (its name, or
	// instance/database/queue), one workload (its name) or one instance; left empty, the
	// metric covers them all. Each metric takes some of them.
	scenarios.Subject
	// Comparator and Value say what the metric must be: Value is in the metric's unit,
	// nanoseconds for a duration.
	Comparator Comparator
	Value      float64
	// Over says how the expectation is judged over the seeds of a check; its zero value
	// judges every seed alone.
	Over OverSeeds
	// Implicit, when set, says why the scenario expects this without writing it
	// (implicitVerdicts).
	Implicit string
}

// Comparator compares a metric with an expectation's value.
type Comparator uint8

const (
	Below Comparator = iota + 1
	AtMost
	AtLeast
	Above
	Equals
)

var comparatorNames = [...]string{"", "below", "at_most", "at_least", "above", "equals"}

// String returns the comparator as a scenario file writes it.
func (c Comparator) String() string {
	if int(c) < len(comparatorNames) && c > 0 {
		return comparatorNames[c]
	}
	return fmt.Sprintf("Comparator(%d)", int(c))
}

// Holds reports whether got compares with want as c says: got below want, say.
func (c Comparator) Holds(got, want float64) bool {
	switch c {
	case Below:
		return got < want
	case AtMost:
		return got <= want
	case AtLeast:
		return got >= want
	case Above:
		return got > want
	case Equals:
		return got == want
	}
	return false
}

// ExpectationVerdict is an expectation checked against one result.
type ExpectationVerdict struct {
	Expectation Expectation
	OK          bool
	// Got is the metric's value, or why there is none.
	Got string
}

func (v ExpectationVerdict) String() string {
	verdict := "ok"
	if !v.OK {
		verdict = "FAILED"
	}
	return fmt.Sprintf("%s: %s (got %s)", verdict, v.Expectation, v.Got)
}

// Check measures the expectation's metric on res: ok when it meets the comparator, and
// what it measured (or why it could not). It judges one seed, whatever e.Over says.
func (e Expectation) Check(res *scenarios.Result) (ok bool, got string) {
	s := e.Sample(res)
	return s.Holds, s.Got
}

// Sample is what one run gives an expectation: its metric's value, when measured, whether
// the value meets the comparison, and the value as the metric's unit writes it (or why
// there is none).
type Sample struct {
	Value    float64
	Measured bool
	Holds    bool
	Got      string
}

// Sample measures the expectation's metric on res and compares it.
func (e Expectation) Sample(res *scenarios.Result) Sample {
	m, known := scenarios.LookupMetric(e.Metric)
	if !known {
		return Sample{Got: fmt.Sprintf("unknown metric %q", e.Metric)}
	}
	v, why, measured := m.Value(res, e.Subject)
	if !measured {
		return Sample{Got: why}
	}
	got := m.Unit.Format(v)
	if m.Unit == scenarios.Verdict && v == 0 {
		got = "violated: " + res.Violation.Error()
	}
	return Sample{Value: v, Measured: true, Holds: e.Comparator.Holds(v, e.Value), Got: got}
}

// String writes the expectation in words: latency.p99 at level 10 below 2s.
func (e Expectation) String() string {
	if e.RequiresMarks() {
		return "every mark of " + RequireMarksKey + " reached"
	}
	m, known := scenarios.LookupMetric(e.Metric)
	if known && m.Unit == scenarios.Verdict {
		return "invariants " + m.Unit.Format(e.Value)
	}
	var b strings.Builder
	b.WriteString(e.Metric)
	if e.Level > 0 {
		fmt.Fprintf(&b, " at level %d", e.Level)
	}
	for _, s := range []struct{ what, v string }{{"queue", e.Queue}, {"workload", e.Workload}, {"instance", e.Instance}} {
		if s.v != "" {
			fmt.Fprintf(&b, " of %s %q", s.what, s.v)
		}
	}
	fmt.Fprintf(&b, " %s %s", strings.ReplaceAll(e.Comparator.String(), "_", " "), m.Unit.Format(e.Value))
	if e.Implicit != "" {
		return fmt.Sprintf("%s (implicit: %s)", e.Over.words(b.String()), e.Implicit)
	}
	return e.Over.words(b.String())
}

// Check checks every expectation of the file against res, in order. A statistical
// expectation (Statistical) is only shown, as what this seed gave: one seed cannot judge
// it, so it holds here, and batch.Check judges it over the seeds it runs. What every
// scenario expects without writing it follows, when it failed (implicitVerdicts), and last
// the verdict of require_marks when the run missed a mark (marksVerdict), which batch.Check
// judges over the seeds instead.
func (f *Scenario) Check(res *scenarios.Result) []ExpectationVerdict {
	out := make([]ExpectationVerdict, 0, len(f.Expectations))
	for _, e := range f.Expectations {
		s := e.Sample(res)
		ok, got := s.Holds, s.Got
		if e.Statistical() {
			ok, got = true, e.Over.onOneSeed(s)
		}
		out = append(out, ExpectationVerdict{Expectation: e, OK: ok, Got: got})
	}
	out = append(out, f.implicitVerdicts(res)...)
	return append(out, f.marksVerdict(res)...)
}

// expectations decodes the expect list.
func (d *decoder) expectations(top *mapping) []Expectation {
	var out []Expectation
	top.list("expect", "expectations", func(_ int, n *yaml.Node, path string) {
		m := d.mapping(n, path, "expectation")
		if !m.present() {
			return
		}
		var e Expectation
		if m.has("invariants") {
			e.Metric, e.Comparator = "invariants", Equals
			var v string
			if m.str("invariants", &v) {
				switch strings.ToLower(v) {
				case "hold":
					e.Value = 1
				case "violated":
				default:
					d.errorf(d.at(join(path, "invariants")), join(path, "invariants"), "want hold or violated, got %q", v)
				}
			}
			m.done()
			out = append(out, e)
			return
		}
		d.expectation(m, &e)
		m.done()
		out = append(out, e)
	})
	return out
}

func (d *decoder) expectation(m *mapping, e *Expectation) {
	path := m.path
	var def *scenarios.Metric
	if m.name("metric", &e.Metric) {
		if found, ok := scenarios.LookupMetric(e.Metric); ok && found.Unit != scenarios.Verdict {
			def = &found
		} else {
			var names []string
			for _, x := range scenarios.Metrics() {
				if x.Unit != scenarios.Verdict {
					names = append(names, x.Name)
				}
			}
			msg := fmt.Sprintf("unknown metric %q", e.Metric)
			if s := closest(e.Metric, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			d.errorf(d.at(join(path, "metric")), join(path, "metric"), "%s; known metrics: %s", msg, strings.Join(names, ", "))
		}
	}
	sels := []struct {
		key string
		sel scenarios.Keys
		set func() bool
	}{
		{"level", scenarios.LevelKey, func() bool { return m.intField("level", &e.Level, 1, 10) }},
		{"queue", scenarios.QueueKey, func() bool { return m.name("queue", &e.Queue) }},
		{"workload", scenarios.WorkloadKey, func() bool { return m.name("workload", &e.Workload) }},
		{"instance", scenarios.InstanceKey, func() bool { return m.name("instance", &e.Instance) }},
	}
	for _, s := range sels {
		if !m.has(s.key) {
			m.get(s.key) // known
			if def != nil && def.Needs&s.sel != 0 {
				d.errorf(m.node, join(path, s.key), "metric %s needs a %s", e.Metric, s.key)
			}
			continue
		}
		if s.set() && def != nil && def.Takes&s.sel == 0 {
			d.errorf(m.keyNode(s.key), join(path, s.key), "metric %s takes no %s", e.Metric, s.key)
		}
	}
	var given []string
	for _, k := range comparatorKeys {
		v, ok := m.scalar(k.key, "a value")
		if !ok {
			continue
		}
		given = append(given, k.key)
		e.Comparator, e.Over.Mean = k.c, k.mean
		if def != nil {
			e.Value = d.metricValue(v, join(path, k.key), def.Unit)
		}
	}
	switch {
	case len(given) == 0 && !slices.ContainsFunc(comparatorKeys, func(k comparatorKey) bool { return m.has(k.key) }):
		d.errorf(m.node, path, "the expectation needs one of below, at_most, at_least, above, equals (or mean_below, mean_at_most, mean_at_least, mean_above)")
	case len(given) > 1:
		d.errorf(m.node, path, "the expectation gives %s: give one", strings.Join(given, " and "))
	}
	d.overSeeds(m, e)
}

// metricValue reads an expectation's value in the metric's unit.
func (d *decoder) metricValue(v *yaml.Node, path string, u scenarios.Unit) float64 {
	switch u {
	case scenarios.Duration:
		x, msg := parseDurationValue(v.Value)
		if msg != "" {
			d.errorf(v, path, "%s", msg)
		}
		return float64(x)
	case scenarios.Fraction:
		x, err := strconv.ParseFloat(v.Value, 64)
		if err != nil || math.IsNaN(x) || x < 0 || x > 1 {
			d.errorf(v, path, "want a fraction from 0 to 1, got %q", v.Value)
			return 0
		}
		return x
	case scenarios.Rate:
		x, err := strconv.ParseFloat(strings.TrimSuffix(v.Value, "/s"), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			d.errorf(v, path, "want a rate (a number of things per second, 0 or more, such as 250 or 250/s), got %q", v.Value)
			return 0
		}
		return x
	}
	x, err := parseInteger(v.Value)
	if err != nil || x < 0 || x > 1<<53 {
		d.errorf(v, path, "want a count (a whole number, 0 or more), got %q", v.Value)
		return 0
	}
	return float64(x)
}

// checkExpectations checks the names the expectations use.
func (d *decoder) checkExpectations(f *Scenario, cat *model.Catalog) {
	for i, e := range f.Expectations {
		path := index("expect", i)
		if e.Queue != "" {
			d.findQueue(cat, join(path, "queue"), e.Queue)
		}
		if e.Instance != "" {
			if _, ok := cat.Instance(e.Instance); !ok {
				d.notDefined(join(path, "instance"), "instance", e.Instance)
			}
		}
		if e.Workload != "" && !slices.ContainsFunc(f.Config.Workloads, func(w scenarios.Workload) bool { return w.Name == e.Workload }) {
			d.notDefined(join(path, "workload"), "workload", e.Workload)
		}
		if e.Metric == "invariants" && !f.Config.CheckInvariants {
			d.errorf(d.at(path), path, "invariants: hold needs check_invariants: on")
		}
	}
}
