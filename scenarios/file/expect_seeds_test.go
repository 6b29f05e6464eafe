package file

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// The statistical forms load to an Expectation whose Over says how the seeds judge it, and
// read back in words; a per-seed expectation keeps Over's zero value.
func TestStatisticalExpectationsLoad(t *testing.T) {
	s := float64(time.Second)
	for _, tc := range []struct {
		yaml  string
		want  Expectation
		words string
	}{
		{"{metric: latency.p99, level: 10, below: 10s}",
			Expectation{Metric: "latency.p99", Subject: scenarios.Subject{Level: 10}, Comparator: Below, Value: 10 * s},
			"latency.p99 at level 10 below 10s"},
		{"{metric: latency.p99, level: 10, below: 10s, in: 95%}",
			Expectation{Metric: "latency.p99", Subject: scenarios.Subject{Level: 10}, Comparator: Below, Value: 10 * s, Over: OverSeeds{Share: 0.95}},
			"latency.p99 at level 10 below 10s in at least 95% of seeds"},
		{"{metric: latency.p99, below: 10s, in: 0.9}",
			Expectation{Metric: "latency.p99", Comparator: Below, Value: 10 * s, Over: OverSeeds{Share: 0.9}},
			"latency.p99 below 10s in at least 90% of seeds"},
		{"{metric: messages.delivered, equals: 30, in: 99.5%, confidence: 99%}",
			Expectation{Metric: "messages.delivered", Comparator: Equals, Value: 30, Over: OverSeeds{Share: 0.995, Confidence: 0.99}},
			"messages.delivered equals 30 in at least 99.5% of seeds, at 99% confidence"},
		{"{metric: latency.p50, level: 1, mean_above: 5s}",
			Expectation{Metric: "latency.p50", Subject: scenarios.Subject{Level: 1}, Comparator: Above, Value: 5 * s, Over: OverSeeds{Mean: true}},
			"mean over seeds of latency.p50 at level 1 above 5s"},
		{"{metric: latency.mean, mean_below: 3s, confidence: 95%}",
			Expectation{Metric: "latency.mean", Comparator: Below, Value: 3 * s, Over: OverSeeds{Mean: true, Confidence: 0.95}},
			"mean over seeds of latency.mean below 3s"},
		{"{metric: fragments.retransmitted, instance: A, mean_at_most: 12}",
			Expectation{Metric: "fragments.retransmitted", Subject: scenarios.Subject{Instance: "A"}, Comparator: AtMost, Value: 12, Over: OverSeeds{Mean: true}},
			`mean over seeds of fragments.retransmitted of instance "A" at most 12`},
		{"{metric: share, level: 1, mean_at_least: 0.5, confidence: 0.9}",
			Expectation{Metric: "share", Subject: scenarios.Subject{Level: 1}, Comparator: AtLeast, Value: 0.5, Over: OverSeeds{Mean: true, Confidence: 0.9}},
			"mean over seeds of share at level 1 at least 0.5, at 90% confidence"},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			f, err := Load("stat.yaml", []byte(base+"expect: ["+tc.yaml+"]\n"))
			require.NoError(t, err)
			require.Len(t, f.Expectations, 1)
			e := f.Expectations[0]
			assert.Equal(t, tc.want, e)
			assert.Equal(t, tc.words, e.String())
			assert.Equal(t, tc.want.Over != OverSeeds{}, e.Statistical())
		})
	}
}

// A statistical key that cannot mean anything is an error at its line and column, with its
// path and why.
func TestStatisticalExpectationErrors(t *testing.T) {
	for _, tc := range []struct{ name, expect, want string }{
		{"a share without a percent or fraction", "{metric: latency.p99, below: 1s, in: most}",
			`bad.yaml:8:47: expect[0].in: want a share of the seeds like 95% or 0.95, got "most"`},
		{"a share above 100%", "{metric: latency.p99, below: 1s, in: 120%}",
			`bad.yaml:8:47: expect[0].in: want a share of the seeds like 95% or 0.95, got "120%"`},
		{"every seed", "{metric: latency.p99, below: 1s, in: 100%}",
			`bad.yaml:8:47: expect[0].in: in: 100% is every seed: leave in out, and the comparison must hold on each`},
		{"no seed", "{metric: latency.p99, below: 1s, in: 0%}",
			`bad.yaml:8:47: expect[0].in: in: 0% holds whatever the seeds give: want a share above 0%`},
		{"a share of a mean", "{metric: latency.p99, mean_below: 1s, in: 95%}",
			`bad.yaml:8:52: expect[0].in: in is the share of the seeds on which a comparison holds: a mean_ comparator takes none`},
		{"a confidence alone", "{metric: latency.p99, below: 1s, confidence: 95%}",
			`bad.yaml:8:55: expect[0].confidence: confidence judges an expectation over the seeds: give in, or a mean_ comparator, with it`},
		{"a confidence of 100%", "{metric: latency.p99, mean_below: 1s, confidence: 100%}",
			`bad.yaml:8:60: expect[0].confidence: confidence 100% is outside [50%, 100%)`},
		{"a confidence too low", "{metric: latency.p99, below: 1s, in: 95%, confidence: 0.2}",
			`bad.yaml:8:64: expect[0].confidence: confidence 0.2 is outside [50%, 100%)`},
		{"a confidence that is no number", "{metric: latency.p99, below: 1s, in: 95%, confidence: high}",
			`bad.yaml:8:64: expect[0].confidence: want a confidence level like 95% or 0.95, got "high"`},
		{"a mean and a per-seed comparator", "{metric: latency.p99, below: 1s, mean_below: 1s}",
			`bad.yaml:8:10: expect[0]: the expectation gives below and mean_below: give one`},
		{"a mean of equals", "{metric: latency.p99, mean_equals: 1s}",
			`bad.yaml:8:10: expect[0]: the expectation needs one of below, at_most, at_least, above, equals (or mean_below, mean_at_most, mean_at_least, mean_above)
bad.yaml:8:32: expect[0].mean_equals: unknown key "mean_equals" in the expectation; known keys: metric, level, queue, workload, instance, below, at_most, at_least, above, equals, mean_below, mean_at_most, mean_at_least, mean_above, in, confidence`},
		{"a mean in the wrong unit", "{metric: deadlocks, mean_below: 1s}",
			`bad.yaml:8:42: expect[0].mean_below: want a count (a whole number, 0 or more), got "1s"`},
		{"a share of the invariants", "{invariants: hold, in: 95%}",
			`bad.yaml:8:29: expect[0].in: unknown key "in" in the expectation`},
		{"a share given twice", "{metric: latency.p99, below: 1s, in: 95%, in: 90%}",
			`bad.yaml:8:52: expect[0].in: key "in" appears twice in the expectation (first at line 8)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(base+"expect: ["+tc.expect+"]\n"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Len(t, strings.Split(err.Error(), "\n"), strings.Count(tc.want, "\n")+1, "one error each:\n%s", err)
		})
	}
}

// A single run cannot judge an expectation over seeds: Scenario.Check shows what this seed
// gave and holds, so that run's verdict stays that of its per-seed expectations.
func TestScenarioCheckShowsAStatisticalExpectationPerSeed(t *testing.T) {
	f, err := Load("stat.yaml", []byte(base+`expect:
  - {metric: latency.p99, below: 1s, in: 95%}
  - {metric: latency.p99, below: 2s, in: 95%}
  - {metric: latency.p99, mean_below: 1s}
  - {metric: latency.p99, level: 5, below: 1s, in: 95%}
  - {metric: latency.p99, below: 1s}
`))
	require.NoError(t, err)

	vs := f.Check(fixedResult())

	require.Len(t, vs, 6, "the five, then the implicit send_failures of fixedResult's audit workload")
	assert.Equal(t, sendFailures, vs[5].Expectation.Metric)
	assert.Equal(t, "ok: latency.p99 below 1s in at least 95% of seeds (got 1.5s on this seed, which misses the comparison; a check judges the share over its seeds)", vs[0].String())
	assert.Equal(t, "ok: latency.p99 below 2s in at least 95% of seeds (got 1.5s on this seed, which meets the comparison; a check judges the share over its seeds)", vs[1].String())
	assert.Equal(t, "ok: mean over seeds of latency.p99 below 1s (got 1.5s on this seed; a check judges the mean over its seeds)", vs[2].String())
	assert.Equal(t, "ok: latency.p99 at level 5 below 1s in at least 95% of seeds (got no message received on this seed; a check judges it over its seeds)", vs[3].String())
	assert.False(t, vs[4].OK, "a per-seed expectation still fails on its seed")
	ok, got := f.Expectations[0].Check(fixedResult())
	assert.False(t, ok, "Expectation.Check compares one seed's value, whatever Over says")
	assert.Equal(t, "1.5s", got)
}

// Marshal writes the statistical forms so that Load reads them back the same; a mean of
// equals, which no file can say, is refused.
func TestMarshalWritesStatisticalExpectations(t *testing.T) {
	f, err := Load("stat.yaml", []byte(base+`expect:
  - {metric: latency.p99, level: 10, below: 10s, in: 95%}
  - {metric: latency.p99, below: 10s, in: 0.123456789, confidence: 99%}
  - {metric: latency.p50, mean_above: 5s, confidence: 0.9}
`))
	require.NoError(t, err)

	out, err := f.Marshal()

	require.NoError(t, err)
	assert.Contains(t, string(out), "{metric: latency.p99, level: 10, below: 10s, in: 95%}")
	assert.Contains(t, string(out), "{metric: latency.p50, mean_above: 5s, confidence: 90%}")
	again, err := Load("again.yaml", out)
	require.NoError(t, err)
	assert.Equal(t, f.Expectations, again.Expectations)

	bad := &Scenario{Expectations: []Expectation{{Metric: "latency.p99", Comparator: Equals, Over: OverSeeds{Mean: true}}}}
	_, err = bad.Marshal()
	assert.ErrorContains(t, err, "expect[0]: a mean has no equals comparator")
}
