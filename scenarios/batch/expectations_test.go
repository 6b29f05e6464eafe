package batch

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// The share's interval is the exact Clopper-Pearson one (values checked against a direct
// summation of the binomial distribution), which keeps its level for few seeds where the
// normal approximation does not.
func TestShareIntervalIsClopperPearson(t *testing.T) {
	for _, tc := range []struct {
		held, n int
		lo, hi  float64
	}{
		{5, 10, 0.187086, 0.812914},
		{0, 10, 0, 0.308495},
		{10, 10, 0.691505, 1},
		{983, 1000, 0.972921, 0.990066},
		{0, 0, 0, 1},
	} {
		lo, hi := shareInterval(tc.held, tc.n, 0.95)
		assert.InDelta(t, tc.lo, lo, 1e-5, "%d of %d", tc.held, tc.n)
		assert.InDelta(t, tc.hi, hi, 1e-5, "%d of %d", tc.held, tc.n)
	}
	assert.Equal(t, 72, seedsToShow(1, 0.95, 0.95), "0.025^(1/72) is the first at or above 95%")
	assert.Equal(t, 36, seedsToShow(1, 0.90, 0.95))
	n := seedsToShow(0.933, 0.90, 0.95)
	lo, _ := shareInterval(int(0.933*float64(n)), n, 0.95)
	assert.GreaterOrEqual(t, lo, 0.90, "%d seeds at 93.3%% show 90%%", n)
	assert.InDelta(t, 400, n, 100, "about what the normal approximation gives, 1.96² p(1-p)/(p-0.9)²: 220, and more for the exact interval")
}

// judge feeds values to one statistical expectation, seed 1 first, and returns its verdict;
// a NaN is a seed without a value.
func judge(e file.Expectation, values []float64) OverSeedsVerdict {
	o := NewOverSeeds(&file.Scenario{Expectations: []file.Expectation{{Metric: "invariants", Comparator: file.Equals, Value: 1}, e}})
	for i, v := range values {
		s := file.Sample{Value: v, Measured: v == v, Got: scenarios.Duration.Format(v)}
		if s.Measured {
			s.Holds = e.Comparator.Holds(v, e.Value)
		} else {
			s.Got = "no message received"
		}
		o.Add(uint64(i+1), []file.Sample{s})
	}
	vs := o.Verdicts()
	if len(vs) != 1 {
		panic("one statistical expectation, one verdict")
	}
	return vs[0]
}

// values returns n values, of which the seeds in miss are 20s and the others 1s.
func values(n int, miss ...int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(time.Second)
	}
	for _, m := range miss {
		out[m-1] = float64(20 * time.Second)
	}
	return out
}

func every(n, from, step int) []int {
	var out []int
	for s := from; s <= n; s += step {
		out = append(out, s)
	}
	return out
}

// "below 10s in at least 95% of seeds" fails when the seeds show it holds in fewer (the
// whole interval below 95%), is shown when the whole interval is at or above, and between
// the two says that the seeds are too few to tell, whatever their number.
func TestAShareFailsOnlyWhenTheSeedsShowItIsBelowItsBound(t *testing.T) {
	p99 := file.Expectation{Metric: "latency.p99", Comparator: file.Below, Value: float64(10 * time.Second), Over: file.OverSeeds{Share: 0.95}}
	for _, tc := range []struct {
		name   string
		values []float64
		ok     bool
		got    string
		miss   uint64
	}{
		{"below the bound on 90% of 1,000 seeds", values(1000, every(1000, 7, 10)...), false,
			"900 of 1000 seeds (90.0%), 95% confidence interval 88.0% to 91.8%, below 95%; first miss: seed 7 (got 20s)", 7},
		{"on 98.3% of 1,000 seeds", values(1000, every(1000, 50, 59)...), true,
			"983 of 1000 seeds (98.3%), 95% confidence interval 97.3% to 99.0%", 0},
		{"on 90% of 200 seeds", values(200, every(200, 5, 10)...), false,
			"180 of 200 seeds (90.0%), 95% confidence interval 85.0% to 93.8%, below 95%; first miss: seed 5 (got 20s)", 5},
		{"on 90% of 20 seeds: too few to tell", values(20, 3, 13), true,
			"18 of 20 seeds (90.0%), 95% confidence interval 68.3% to 98.8%; too few seeds to show it or refute it: more seeds holding on 90.0% would refute it", 0},
		{"one miss of 3 seeds: too few to tell", values(3, 2), true,
			"2 of 3 seeds (66.7%), 95% confidence interval 9.4% to 99.2%; too few seeds to show it or refute it: more seeds holding on 66.7% would refute it", 0},
		{"all of 10 seeds: too few to tell", values(10), true,
			"10 of 10 seeds (100.0%), 95% confidence interval 69.2% to 100.0%; too few seeds to show it or refute it: 72 that all hold would show it", 0},
		{"on 98% of 100 seeds: too few to tell", values(100, 10, 60), true,
			"98 of 100 seeds (98.0%), 95% confidence interval 93.0% to 99.8%; too few seeds to show it or refute it: about 258 seeds holding on 98.0% would show it", 0},
		{"two misses of 3 seeds", values(3, 2, 3), false,
			"1 of 3 seeds (33.3%), 95% confidence interval 0.8% to 90.6%, below 95%; first miss: seed 2 (got 20s)", 2},
		{"a seed without a value misses", append(values(2, 1), nan(), nan()), false,
			"1 of 4 seeds (25.0%), 95% confidence interval 0.6% to 80.6%, below 95%; first miss: seed 1 (got 20s)", 1},
		{"all of 72 seeds: shown", values(72), true, "72 of 72 seeds (100.0%), 95% confidence interval 95.0% to 100.0%", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(p99, tc.values)
			assert.Equal(t, tc.ok, v.OK)
			assert.Equal(t, tc.got, v.Got)
			assert.Equal(t, tc.miss, v.FirstMiss)
		})
	}
}

func nan() float64 { var z float64; return z / z }

// "mean below 3s" fails when the whole confidence interval of the mean (Student's t) lies at
// or above 3s, is shown when it lies below, and needs a value from every seed.
func TestAMeanIsJudgedByItsConfidenceInterval(t *testing.T) {
	s := float64(time.Second)
	below := file.Expectation{Metric: "latency.p99", Comparator: file.Below, Value: 3 * s, Over: file.OverSeeds{Mean: true}}
	above := below
	above.Comparator = file.Above
	for _, tc := range []struct {
		name   string
		e      file.Expectation
		values []float64
		ok     bool
		got    string
	}{
		{"well below", below, []float64{1 * s, 2 * s, 1.5 * s, 2.5 * s}, true,
			"mean 1.75s ± 1.027s over 4 seeds, 95% confidence interval 722.9ms to 2.777s"},
		{"well above", below, []float64{4 * s, 5 * s, 4.5 * s, 5.5 * s}, false,
			"mean 4.75s ± 1.027s over 4 seeds, 95% confidence interval 3.723s to 5.777s, all at or above 3s; first seed that missed: 1 (got 4s)"},
		{"straddling", below, []float64{1 * s, 5 * s}, true,
			"mean 3s ± 25.41s over 2 seeds, 95% confidence interval -22.41s to 28.41s; too few seeds to show it or refute it"},
		{"straddling, above", above, []float64{1 * s, 5 * s}, true,
			"mean 3s ± 25.41s over 2 seeds, 95% confidence interval -22.41s to 28.41s; too few seeds to show it or refute it"},
		{"the same value on every seed", above, []float64{2 * s, 2 * s, 2 * s}, false,
			"mean 2s ± 0s over 3 seeds, 95% confidence interval 2s to 2s, all at or below 3s; first seed that missed: 1 (got 2s)"},
		{"one seed", below, []float64{4 * s}, true, "4s on 1 seed, which gives no interval: too few seeds to show it or refute it"},
		{"a seed without a value", below, []float64{1 * s, nan(), 2 * s}, false,
			"seed 2 gave no value (no message received): the mean needs one from every seed"},
		{"at a higher confidence the interval is wider", file.Expectation{Metric: "latency.p99", Comparator: file.Below, Value: 2.5 * s,
			Over: file.OverSeeds{Mean: true, Confidence: 0.99}}, []float64{1 * s, 2 * s, 1.5 * s, 2.5 * s}, true,
			"mean 1.75s ± 1.885s over 4 seeds, 99% confidence interval -135.1ms to 3.635s; too few seeds to show it or refute it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := judge(tc.e, tc.values)
			assert.Equal(t, tc.ok, v.OK)
			assert.Equal(t, tc.got, v.Got)
		})
	}
}

// withExpect returns a library scenario with more expectations added to its file.
func withExpect(t *testing.T, name string, lines ...string) *file.Scenario {
	text, err := file.LibraryText(name)
	require.NoError(t, err)
	s, err := file.Load(name+".yaml", []byte(string(text)+strings.Join(lines, "")))
	require.NoError(t, err)
	return s
}

// A check judges a statistical expectation over all its seeds: lossy-wan's p99 is below 10s
// on about half the seeds, so "in at least 95%" fails over 20 of them although no seed
// fails, and the verdict names a seed that missed, to replay; "below 30s in 95%" holds.
func TestCheckJudgesAStatisticalExpectationOverItsSeeds(t *testing.T) {
	s := withExpect(t, "lossy-wan", "  - {metric: latency.p99, below: 10s, in: 95%}\n", "  - {metric: latency.p99, below: 30s, in: 95%}\n")

	var got []Verdict
	for v := range Check([]Target{{"lossy-wan", s, 20}}, 2, nil) {
		got = append(got, v)
	}

	require.Len(t, got, 1)
	v := got[0]
	require.NoError(t, v.Err)
	assert.False(t, v.OK())
	assert.Empty(t, v.Failures, "every seed meets the per-seed expectations")
	require.Len(t, v.OverSeeds, 5, "lossy-wan's own three (latency.p99, round_trip.p50, round_trip.p99) and the two added")
	for i := range 3 {
		assert.True(t, v.OverSeeds[i].OK, "%s", v.OverSeeds[i].ExpectationVerdict)
	}
	bad := v.OverSeeds[3]
	assert.False(t, bad.OK)
	assert.Regexp(t, `^FAILED: latency.p99 below 10s in at least 95% of seeds \(got \d+ of 20 seeds .*, below 95%; first miss: seed \d+ \(got .*\)\)$`, bad.ExpectationVerdict.String())
	assert.NotZero(t, bad.FirstMiss)
	assert.Equal(t, bad.FirstMiss, v.ReplaySeed())
	assert.True(t, v.OverSeeds[4].OK, "%s", v.OverSeeds[4].ExpectationVerdict)
	text := v.OverSeedsText()
	assert.Equal(t, 5, strings.Count(text, "\n      ")+1, text)
	assert.Contains(t, text, "      FAILED: latency.p99 below 10s in at least 95% of seeds (got ")
}

// A sweep judges the scenario's expectations at every point: the per-seed ones on each run,
// the statistical ones over the point's seeds, and says which points failed after the last
// run of each.
func TestSweepJudgesTheExpectationsAtEveryPoint(t *testing.T) {
	s := withExpect(t, "poison-message", "  - {metric: rollbacks, queue: TargetQueue, mean_at_least: 5}\n")
	sw, err := NewSweep(s, []Param{{"readers.0.rollback_rate", []string{"0", "1"}}}, 2)
	require.NoError(t, err)

	var verdicts []*PointVerdict
	var failures []string
	for r, err := range sw.Run(2, nil) {
		require.NoError(t, err)
		if r.Seed < 2 {
			assert.Nil(t, r.Expectations, "a point's verdict comes with its last seed")
		}
		if r.Expectations != nil {
			verdicts = append(verdicts, r.Expectations)
		}
		failures = append(failures, sw.PointFailures(r))
	}

	require.Len(t, verdicts, 2)
	zero, one := verdicts[0], verdicts[1]
	assert.False(t, zero.OK(), "without rollbacks, the poison expectations fail")
	require.Len(t, zero.Failures, 2)
	assert.Equal(t, uint64(1), zero.Failures[0].Seed)
	assert.Contains(t, zero.Failures[0].Reasons, `FAILED: rollbacks of queue "TargetQueue" equals 10 (got 0)`)
	require.Len(t, zero.OverSeeds, 1)
	assert.False(t, zero.OverSeeds[0].OK)
	assert.True(t, one.OK(), "%+v", one)
	assert.Equal(t, []string{"", "expectations or invariants failed with readers.0.rollback_rate=0 on 2 of 2 seeds; seed 1: " +
		strings.Join(zero.Failures[0].Reasons, "; ") + "\n" +
		`      FAILED: mean over seeds of rollbacks of queue "TargetQueue" at least 5 (got mean 0 ± 0 over 2 seeds, 95% confidence interval 0 to 0, all below 5; first seed that missed: 1 (got 0))` + "\n",
		"", ""}, failures)
}
