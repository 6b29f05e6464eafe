package batch

import (
	"fmt"
	"iter"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// Param is one parameter of a sweep: a key of the scenario (file.Override) and the values
// it takes.
type Param struct {
	Key    string
	Values []string
}

// ParseParam reads key=v1,v2,...; a comma inside brackets or braces belongs to its value
// ({uniform: [1ms, 5ms]},{uniform: [1ms, 50ms]} is two values).
func ParseParam(s string) (Param, error) {
	key, vals, ok := strings.Cut(s, "=")
	if !ok || key == "" || vals == "" {
		return Param{}, fmt.Errorf("want key=v1,v2,... (got %q)", s)
	}
	var values []string
	depth, start := 0, 0
	for i, c := range vals {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				values, start = append(values, vals[start:i]), i+1
			}
		}
	}
	if depth != 0 {
		return Param{}, fmt.Errorf("-set %s: unbalanced brackets or braces", s)
	}
	return Param{key, append(values, vals[start:])}, nil
}

// Point is one combination of the parameters' values: Values[k] for Params[k].
type Point struct {
	Values []string
	// Scenario is the scenario with those values set.
	Scenario *file.Scenario
}

// Overrides returns the point's values as overrides of the sweep's parameters.
func (s *Sweep) Overrides(p Point) []file.Override {
	out := make([]file.Override, len(p.Values))
	for k, v := range p.Values {
		out[k] = file.Override{Key: s.Params[k].Key, Value: v}
	}
	return out
}

// Describe writes a point as key=value, key=value.
func (s *Sweep) Describe(p Point) string {
	var parts []string
	for _, o := range s.Overrides(p) {
		parts = append(parts, o.String())
	}
	return strings.Join(parts, ", ")
}

// Sweep is a scenario run for every combination of its parameters' values, the first
// parameter varying slowest, each on seeds 1 to Seeds.
type Sweep struct {
	Scenario *file.Scenario
	Params   []Param
	Seeds    int
	// Points are the combinations, built by NewSweep.
	Points []Point
}

// NewSweep builds the sweep's points, each a scenario with its values set; a value that
// does not make a valid scenario is an error that names it.
func NewSweep(s *file.Scenario, params []Param, seeds int) (*Sweep, error) {
	if len(params) == 0 {
		return nil, fmt.Errorf("sweep: no parameter")
	}
	if seeds < 1 {
		return nil, fmt.Errorf("sweep: %d seeds: want 1 or more", seeds)
	}
	sw := &Sweep{Scenario: s, Params: params, Seeds: seeds}
	combos := [][]string{{}}
	for _, p := range params {
		var next [][]string
		for _, c := range combos {
			for _, v := range p.Values {
				next = append(next, append(append([]string(nil), c...), v))
			}
		}
		combos = next
	}
	for _, c := range combos {
		p := Point{Values: c}
		var err error
		if p.Scenario, err = s.With(sw.Overrides(p)...); err != nil {
			return nil, err
		}
		sw.Points = append(sw.Points, p)
	}
	return sw, nil
}

// SweepRun is what the sweep keeps of one run: its point and seed, every metric's values
// (scenarios.Measures), the invariant it violated, if any, and why it failed the scenario's
// per-seed expectations. The last run of each point also carries the point's verdict.
type SweepRun struct {
	Point     int
	Seed      uint64
	Measures  []scenarios.Measure
	Violation *invariant.Violation
	// Stop is why the run stopped.
	Stop sim.StopReason
	// Reasons are why the run failed its scenario, as a check says it (SeedFailure).
	Reasons []string
	// Expectations, on the last seed of a point and only there, is the point's verdict on
	// the scenario's expectations.
	Expectations *PointVerdict
	samples      []file.Sample // of the statistical expectations, for the point's verdict
}

// PointVerdict is the scenario's expectations at one point of a sweep: the seeds on which
// the invariants or a per-seed expectation failed, and the statistical expectations judged
// over the point's seeds, as a check of the point's scenario would give them.
type PointVerdict struct {
	Point     int
	Seeds     int
	Failures  []SeedFailure
	OverSeeds []OverSeedsVerdict
}

// OK reports whether the point met every expectation.
func (p *PointVerdict) OK() bool { return len(p.Failures) == 0 && OverSeedsHeld(p.OverSeeds) }

// PointFailures says, after the last run of a point whose expectations failed, at which
// point and how: the count of failed seeds and the first one's reasons, then each failed
// statistical expectation. It is empty after any other run.
func (s *Sweep) PointFailures(r SweepRun) string {
	p := r.Expectations
	if p == nil || p.OK() {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expectations or invariants failed with %s", s.Describe(s.Points[p.Point]))
	if len(p.Failures) > 0 {
		f := p.Failures[0]
		fmt.Fprintf(&b, " on %d of %d seeds; seed %d: %s", len(p.Failures), p.Seeds, f.Seed, strings.Join(f.Reasons, "; "))
	}
	b.WriteString("\n")
	for _, v := range p.OverSeeds {
		if !v.OK {
			fmt.Fprintf(&b, "      %s\n", v.ExpectationVerdict)
		}
	}
	return b.String()
}

// Run runs every point on every seed, on workers, and yields what each run measured, in
// the order of the points and then of the seeds, with the point's verdict on the
// scenario's expectations on the last seed of each point.
func (s *Sweep) Run(workers int, progress func()) iter.Seq2[SweepRun, error] {
	return func(yield func(SweepRun, error) bool) {
		var jobs []Job
		for _, p := range s.Points {
			for seed := 1; seed <= s.Seeds; seed++ {
				jobs = append(jobs, Job{Config: Judged(p.Scenario.Config), Seed: uint64(seed)})
			}
		}
		keep := func(i int, res *scenarios.Result) SweepRun {
			j := judgeRun(s.Points[i/s.Seeds].Scenario, res)
			return SweepRun{Measures: scenarios.Measures(res), Violation: res.Violation, Stop: res.StopReason, Reasons: j.reasons, samples: j.samples}
		}
		var point *PointVerdict
		var over *OverSeeds
		for o := range Map(jobs, workers, keep, progress) {
			r := o.Kept
			r.Point, r.Seed = o.Index/s.Seeds, o.Seed
			if o.Err != nil {
				yield(r, fmt.Errorf("%s seed %d: %w", s.Describe(s.Points[r.Point]), o.Seed, o.Err))
				return
			}
			if o.Index%s.Seeds == 0 {
				point, over = &PointVerdict{Point: r.Point, Seeds: s.Seeds}, NewOverSeeds(s.Points[r.Point].Scenario)
			}
			if len(r.Reasons) > 0 {
				point.Failures = append(point.Failures, SeedFailure{Seed: r.Seed, Reasons: r.Reasons})
			}
			over.Add(r.Seed, r.samples)
			r.samples = nil
			if o.Index%s.Seeds == s.Seeds-1 {
				point.OverSeeds, r.Expectations = over.Verdicts(), point
			}
			if !yield(r, nil) {
				return
			}
		}
	}
}

// Interval is the mean of values over seeds and its 95% confidence interval: the mean
// plus and minus Student's t quantile for N-1 degrees of freedom (2.776 for 5 seeds, 1.96
// as N grows) times the standard error. One value has an interval of width zero.
type Interval struct {
	Mean, Lo, Hi float64
	N            int
}

// NewInterval returns the interval of values.
func NewInterval(values []float64) Interval {
	n := len(values)
	if n == 0 {
		return Interval{}
	}
	if n == 1 {
		return Interval{Mean: values[0], Lo: values[0], Hi: values[0], N: 1}
	}
	mean, sd := stat.MeanStdDev(values, nil)
	lo, hi := meanInterval(mean, sd, n, 0.95)
	return Interval{Mean: mean, Lo: lo, Hi: hi, N: n}
}
