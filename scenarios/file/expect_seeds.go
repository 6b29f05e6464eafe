package file

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// OverSeeds says how an expectation is judged over the seeds of a check (batch.Check) or
// of a sweep's point. Its zero value judges every seed alone: the comparison must hold on
// each. A statistical expectation (Share or Mean set) is judged once, over all the seeds,
// by a confidence interval: it fails when the whole interval lies on the wrong side of its
// bound, it is shown when the whole interval lies on the right side, and otherwise the
// seeds are too few to tell and it passes, saying so. docs/scenario-files.md#over-the-seeds
// explains the choice.
type OverSeeds struct {
	// Share, above 0, asks that the comparison hold on at least this fraction of the seeds
	// (in: 95%), judged by the Clopper-Pearson interval of the fraction on which it held.
	Share float64
	// Mean asks that the mean of the metric over the seeds meet the comparison
	// (mean_below: 3s), judged by the mean's interval with Student's t for n-1 degrees of
	// freedom.
	Mean bool
	// Confidence is the interval's confidence level, from 0.5 to below 1 (confidence: 99%);
	// 0 means DefaultConfidence.
	Confidence float64
}

// DefaultConfidence is the confidence level of a statistical expectation that names none.
const DefaultConfidence = 0.95

// Statistical reports whether the expectation is judged over the seeds, not on each.
func (e Expectation) Statistical() bool { return e.Over.Share > 0 || e.Over.Mean }

// Level returns the confidence level of the interval that judges the expectation.
func (o OverSeeds) Level() float64 {
	if o.Confidence == 0 {
		return DefaultConfidence
	}
	return o.Confidence
}

// words writes the comparison, as Expectation.String wrote it, with what o adds:
// "mean over seeds of latency.p50 above 5s", "latency.p99 below 10s in at least 95% of
// seeds", and ", at 99% confidence" when the level is not the default.
func (o OverSeeds) words(comparison string) string {
	switch {
	case o.Mean:
		comparison = "mean over seeds of " + comparison
	case o.Share > 0:
		comparison += " in at least " + Percent(o.Share) + " of seeds"
	default:
		return comparison
	}
	if o.Level() != DefaultConfidence {
		comparison += ", at " + Percent(o.Level()) + " confidence"
	}
	return comparison
}

// onOneSeed is what one run shows of a statistical expectation: the seed's value, and that
// a check judges it over its seeds.
func (o OverSeeds) onOneSeed(s Sample) string {
	switch {
	case !s.Measured:
		return s.Got + " on this seed; a check judges it over its seeds"
	case o.Mean:
		return s.Got + " on this seed; a check judges the mean over its seeds"
	case s.Holds:
		return s.Got + " on this seed, which meets the comparison; a check judges the share over its seeds"
	}
	return s.Got + " on this seed, " + MissedOnOneSeed + "; a check judges the share over its seeds"
}

// MissedOnOneSeed is what a run's verdict of a statistical expectation says when its one
// seed misses the comparison: the expectation holds on the run, and a check over the seeds
// judges it (the report marks it).
const MissedOnOneSeed = "which misses the comparison"

// Percent writes a fraction as a percentage: 0.95 is 95%.
func Percent(x float64) string {
	return strconv.FormatFloat(x*100, 'g', 6, 64) + "%"
}

// comparatorKey is a key that compares: the comparator, applied to each seed's value or to
// the mean over the seeds.
type comparatorKey struct {
	key  string
	c    Comparator
	mean bool
}

// comparatorKeys are the comparing keys, in the order the errors list them. A mean has no
// equals: the mean of a random figure is never exactly a value, and that of a fixed one
// is the per-seed equals.
var comparatorKeys = []comparatorKey{
	{"below", Below, false}, {"at_most", AtMost, false}, {"at_least", AtLeast, false},
	{"above", Above, false}, {"equals", Equals, false},
	{"mean_below", Below, true}, {"mean_at_most", AtMost, true}, {"mean_at_least", AtLeast, true},
	{"mean_above", Above, true},
}

// key returns the key that writes the expectation's comparison.
func (e Expectation) comparatorKey() string {
	if e.Over.Mean {
		return "mean_" + e.Comparator.String()
	}
	return e.Comparator.String()
}

// overSeeds decodes in and confidence, the keys that make an expectation statistical.
func (d *decoder) overSeeds(m *mapping, e *Expectation) {
	if v, ok := m.scalar("in", "a share of the seeds"); ok {
		path := join(m.path, "in")
		share, ok := d.fraction(v, path, "a share of the seeds like 95%")
		e.Over.Share = share
		switch {
		case !ok:
		case e.Over.Mean:
			d.errorf(v, path, "in is the share of the seeds on which a comparison holds: a mean_ comparator takes none")
			e.Over.Share = 0
		case e.Over.Share >= 1:
			d.errorf(v, path, "in: %s is every seed: leave in out, and the comparison must hold on each", v.Value)
			e.Over.Share = 0
		case share == 0:
			d.errorf(v, path, "in: %s holds whatever the seeds give: want a share above 0%%", v.Value)
		}
	}
	v, ok := m.scalar("confidence", "a confidence level")
	if !ok {
		return
	}
	path := join(m.path, "confidence")
	c, ok := d.fraction(v, path, "a confidence level like 95%")
	e.Over.Confidence = c
	switch {
	case !ok:
	case !e.Statistical():
		d.errorf(v, path, "confidence judges an expectation over the seeds: give in, or a mean_ comparator, with it")
	case c < 0.5 || c >= 1:
		d.errorf(v, path, "confidence %s is outside [50%%, 100%%)", v.Value)
	}
}

// fraction reads 95% or 0.95; want says what is expected, for the error.
func (d *decoder) fraction(v *yaml.Node, path, want string) (float64, bool) {
	x, ok := parseFraction(v.Value)
	if !ok {
		d.errorf(v, path, "want %s or 0.95, got %q", want, v.Value)
	}
	return x, ok
}

// parseFraction reads 95% or 0.95, from 0 to 1.
func parseFraction(s string) (float64, bool) {
	scale := 1.0
	if t, pct := strings.CutSuffix(s, "%"); pct {
		s, scale = strings.TrimSpace(t), 100
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || x < 0 || x > scale {
		return 0, false
	}
	return x / scale, true
}

// fractionValue writes x as a percentage when that reads back to x, else as a number.
func fractionValue(x float64) *yaml.Node {
	p := Percent(x)
	if y, _ := parseFraction(p); y == x {
		return plain(p)
	}
	return floatValue(x)
}

// marshal writes in and confidence into an expectation's mapping.
func (o OverSeeds) marshal(m node) {
	if o.Share > 0 {
		m.set("in", fractionValue(o.Share))
	}
	if o.Confidence != 0 {
		m.set("confidence", fractionValue(o.Confidence))
	}
}
