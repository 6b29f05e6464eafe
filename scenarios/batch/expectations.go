package batch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// runJudgement is what one run gives its scenario's expectations, worked out on the worker
// that ran it: why it failed (the invariant violated, each per-seed expectation that did
// not hold) and a sample of each statistical expectation, in the file's order.
type runJudgement struct {
	reasons []string
	samples []file.Sample
	stop    sim.StopReason // why the run stopped
	// marks are the run's coverage marks, for the check's MarkTally.
	marks model.MarkCounts
}

// judgeRun judges res against s's per-seed expectations and samples its statistical ones.
func judgeRun(s *file.Scenario, res *scenarios.Result) runJudgement {
	j := runJudgement{stop: res.StopReason, marks: res.Marks}
	if v := res.Violation; v != nil {
		line, _, _ := strings.Cut(v.Error(), "\n") // rule, time, place and why, without the records
		j.reasons = append(j.reasons, line)
	}
	for _, v := range s.Check(res) { // the per-seed ones, and a design finding not expected
		// require_marks is judged over the seeds (Verdict.MissingMarks), not on each.
		if !v.Expectation.Statistical() && !v.Expectation.RequiresMarks() && !v.OK {
			j.reasons = append(j.reasons, v.String())
		}
	}
	j.samples = Samples(s, res)
	return j
}

// Samples is what res gives each of s's statistical expectations, in the file's order: the
// seed's part of their verdicts over the seeds (OverSeeds.Add).
func Samples(s *file.Scenario, res *scenarios.Result) []file.Sample {
	var samples []file.Sample
	for _, e := range s.Expectations {
		if e.Statistical() {
			samples = append(samples, e.Sample(res))
		}
	}
	return samples
}

// OverSeedsVerdict is a statistical expectation judged over the seeds of a check or of a
// sweep's point (file.OverSeeds): the verdict, with what the seeds gave, and the first
// seed on which the comparison missed (0 when none did), to replay.
type OverSeedsVerdict struct {
	file.ExpectationVerdict
	FirstMiss uint64
}

// OverSeedsHeld reports whether every statistical expectation held.
func OverSeedsHeld(vs []OverSeedsVerdict) bool {
	for _, v := range vs {
		if !v.OK {
			return false
		}
	}
	return true
}

// firstMiss is the first seed that missed a failed statistical expectation, else 1.
func firstMiss(vs []OverSeedsVerdict) uint64 {
	for _, v := range vs {
		if !v.OK && v.FirstMiss != 0 {
			return v.FirstMiss
		}
	}
	return 1
}

// overSeedsText writes each verdict on a line, indented under the scenario's.
func overSeedsText(vs []OverSeedsVerdict) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "      %s\n", v.ExpectationVerdict)
	}
	return b.String()
}

// OverSeeds judges a scenario's statistical expectations (file.OverSeeds) over the seeds
// added to it, in constant memory: counts, and a running mean and variance (Welford's) of
// each metric. Check and Sweep use it; a caller that runs its own seeds (Map) adds each
// run's Samples, in the seeds' order, and reads the Verdicts once they are in.
type OverSeeds struct {
	exps    []file.Expectation // the statistical ones, in the file's order
	tallies []tally
}

// tally is one statistical expectation's seeds so far.
type tally struct {
	seeds, held, measured int
	mean, m2              float64 // of the measured values: their mean, and the sum of squared deviations from it
	firstMiss, noValue    uint64  // the first seed that missed the comparison, and the first with no value
	missGot, why          string  // what each gave
}

// NewOverSeeds judges the statistical expectations of s.
func NewOverSeeds(s *file.Scenario) *OverSeeds {
	o := &OverSeeds{}
	for _, e := range s.Expectations {
		if e.Statistical() {
			o.exps = append(o.exps, e)
		}
	}
	o.tallies = make([]tally, len(o.exps))
	return o
}

// Add counts one seed's samples (Samples).
func (o *OverSeeds) Add(seed uint64, samples []file.Sample) {
	for i, s := range samples {
		t := &o.tallies[i]
		t.seeds++
		if s.Holds {
			t.held++
		} else if t.firstMiss == 0 {
			t.firstMiss, t.missGot = seed, s.Got
		}
		if !s.Measured {
			if t.noValue == 0 {
				t.noValue, t.why = seed, s.Got
			}
			continue
		}
		t.measured++
		d := s.Value - t.mean
		t.mean += d / float64(t.measured)
		t.m2 += d * (s.Value - t.mean)
	}
}

// Verdicts judges every statistical expectation over the seeds added, in the file's order.
func (o *OverSeeds) Verdicts() []OverSeedsVerdict {
	out := make([]OverSeedsVerdict, 0, len(o.exps))
	for i, e := range o.exps {
		t := o.tallies[i]
		var ok bool
		var got string
		if e.Over.Mean {
			ok, got = t.judgeMean(e)
		} else {
			ok, got = t.judgeShare(e)
		}
		v := OverSeedsVerdict{ExpectationVerdict: file.ExpectationVerdict{Expectation: e, OK: ok, Got: got}}
		if !ok {
			v.FirstMiss = t.firstMiss
		}
		out = append(out, v)
	}
	return out
}

// judgeShare judges e.Over.Share by the exact (Clopper-Pearson) interval of the fraction of
// seeds on which the comparison held: it fails when the whole interval is below the share.
func (t tally) judgeShare(e file.Expectation) (ok bool, got string) {
	level := e.Over.Level()
	lo, hi := shareInterval(t.held, t.seeds, level)
	got = fmt.Sprintf("%d of %d seeds (%s), %s confidence interval %s to %s",
		t.held, t.seeds, percent(float64(t.held)/float64(max(t.seeds, 1))), file.Percent(level), percent(lo), percent(hi))
	switch {
	case hi < e.Over.Share:
		return false, got + fmt.Sprintf(", below %s; first miss: seed %d (got %s)", file.Percent(e.Over.Share), t.firstMiss, t.missGot)
	case lo < e.Over.Share:
		return true, got + "; " + TooFewSeeds + moreSeeds(t.held, t.seeds, e.Over.Share, level)
	}
	return true, got
}

// judgeMean judges the mean over the seeds by its confidence interval (Student's t for n-1
// degrees of freedom): it fails when no value of the interval meets the comparison. Every
// seed must give a value.
func (t tally) judgeMean(e file.Expectation) (ok bool, got string) {
	unit := unitOf(e)
	if t.noValue != 0 {
		return false, fmt.Sprintf("seed %d gave no value (%s): the mean needs one from every seed", t.noValue, t.why)
	}
	if t.measured < 2 {
		return true, fmt.Sprintf("%s on %d seed, which gives no interval: "+TooFewSeeds, format(unit, t.mean), t.measured)
	}
	level := e.Over.Level()
	lo, hi := meanInterval(t.mean, math.Sqrt(t.m2/float64(t.measured-1)), t.measured, level)
	got = fmt.Sprintf("mean %s ± %s over %d seeds, %s confidence interval %s to %s", format(unit, t.mean),
		format(unit, (hi-lo)/2), t.measured, file.Percent(level), format(unit, lo), format(unit, hi))
	c, v := e.Comparator, e.Value
	switch {
	case !someHolds(c, lo, hi, v):
		return false, got + fmt.Sprintf(", all %s %s; first seed that missed: %d (got %s)", missWord(c), format(unit, v), t.firstMiss, t.missGot)
	case !c.Holds(lo, v) || !c.Holds(hi, v):
		return true, got + "; " + TooFewSeeds
	}
	return true, got
}

// someHolds reports whether some value of [lo, hi] compares with v as c says.
func someHolds(c file.Comparator, lo, hi, v float64) bool {
	switch c {
	case file.Below, file.AtMost:
		return c.Holds(lo, v)
	case file.Above, file.AtLeast:
		return c.Holds(hi, v)
	}
	return lo <= v && v <= hi
}

// missWord says where an interval lies when c fails on all of it.
func missWord(c file.Comparator) string {
	switch c {
	case file.Below:
		return "at or above"
	case file.AtMost:
		return "above"
	case file.Above:
		return "at or below"
	case file.AtLeast:
		return "below"
	}
	return "away from"
}

// format writes a statistic in its unit, to four significant digits: a mean of durations
// is not a whole number of nanoseconds worth writing out.
func format(u scenarios.Unit, v float64) string {
	if v != 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
		scale := math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-3)
		v = math.Round(v/scale) * scale
	}
	return u.Format(v)
}

func unitOf(e file.Expectation) scenarios.Unit {
	m, _ := scenarios.LookupMetric(e.Metric)
	return m.Unit
}

// percent writes a fraction as a percentage with one decimal: 0.9834 is 98.3%.
func percent(x float64) string { return strconv.FormatFloat(x*100, 'f', 1, 64) + "%" }

// shareInterval is the two-sided Clopper-Pearson interval, at level, of the probability of
// which held of n trials are an outcome: exact, so that it keeps its level for few seeds.
func shareInterval(held, n int, level float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	alpha := 1 - level
	lo, hi = 0, 1
	if held > 0 {
		lo = distuv.Beta{Alpha: float64(held), Beta: float64(n - held + 1)}.Quantile(alpha / 2)
	}
	if held < n {
		hi = distuv.Beta{Alpha: float64(held + 1), Beta: float64(n - held)}.Quantile(1 - alpha/2)
	}
	return lo, hi
}

// moreSeeds says what more seeds would do to an undecided share, if the fraction that held
// stayed what it is: show it, with about how many seeds in all, or refute it.
func moreSeeds(held, n int, share, level float64) string {
	p := float64(held) / float64(n)
	switch {
	case held == n:
		return fmt.Sprintf(": %d that all hold would show it", seedsToShow(1, share, level))
	case p > share:
		return fmt.Sprintf(": about %d seeds holding on %s would show it", seedsToShow(p, share, level), percent(p))
	case p < share:
		return fmt.Sprintf(": more seeds holding on %s would refute it", percent(p))
	}
	return ""
}

// seedsToShow is about how many seeds, the comparison holding on a fraction p of them, show
// a share at level: the fewest n whose interval of p·n of n lies at or above the share. For
// p = 1 that is exact, (alpha/2)^(1/n) >= share; below, p·n is rounded down, and the search
// stops at a billion seeds.
func seedsToShow(p, share, level float64) int {
	if p == 1 {
		return int(math.Ceil(math.Log((1-level)/2) / math.Log(share)))
	}
	shows := func(n int) bool {
		lo, _ := shareInterval(int(p*float64(n)), n, level)
		return lo >= share
	}
	hi := 1
	for !shows(hi) && hi < 1e9 {
		hi *= 2
	}
	lo := hi / 2
	for lo+1 < hi {
		if mid := (lo + hi) / 2; shows(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// meanInterval is the two-sided interval, at level, of the mean of n values of that mean
// and sample standard deviation sd: mean ± Student's t quantile for n-1 degrees of freedom
// times the standard error.
func meanInterval(mean, sd float64, n int, level float64) (lo, hi float64) {
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-level)/2)
	half := t * sd / math.Sqrt(float64(n))
	return mean - half, mean + half
}

// TooFewSeeds is what a verdict over the seeds says when they cannot show the expectation
// or refute it: it holds, and more seeds would tell (a sweep's page counts them).
const TooFewSeeds = "too few seeds to show it or refute it"
