package sim

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

// sampleMoments draws n samples and returns their mean and standard deviation, in seconds,
// and the smallest sample.
func sampleMoments(d Distribution, n int) (mean, std float64, least time.Duration) {
	r := newStream(1, "moments")
	xs := make([]float64, n)
	least = time.Duration(math.MaxInt64)
	for i := range xs {
		v := d.Sample(r)
		least = min(least, v)
		xs[i] = v.Seconds()
	}
	mean, std = stat.MeanStdDev(xs, nil)
	return mean, std, least
}

func TestDistributionSamplesHaveTheirMeanAndSpread(t *testing.T) {
	const n = 200000
	tests := []struct {
		name     string
		d        Distribution
		wantMean float64 // seconds
		wantStd  float64
	}{
		{"constant", Fixed(3 * time.Second), 3, 0},
		{"uniform", UniformBetween(time.Second, 3*time.Second), 2, 2 / math.Sqrt(12)},
		{"exponential", ExponentialMean(2 * time.Second), 2, 2},
		{"normal", NormalMean(10*time.Second, time.Second), 10, 1},
		{"lognormal", LogNormalMean(2*time.Second, time.Second), 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.d.Validate())
			mean, std, least := sampleMoments(tt.d, n)

			// Five standard errors of the mean: a correct sampler fails this with
			// probability below one in a million.
			assert.InDelta(t, tt.wantMean, mean, 5*tt.wantStd/math.Sqrt(n)+1e-9, "%v: mean", tt.d)
			assert.InDelta(t, tt.wantStd, std, 0.02*tt.wantStd+1e-9, "%v: standard deviation", tt.d)
			assert.GreaterOrEqual(t, least, time.Duration(0), "%v: a delay is never negative", tt.d)
			assert.InDelta(t, tt.wantMean, tt.d.MeanValue().Seconds(), 1e-9, "%v: MeanValue", tt.d)
		})
	}
}

func TestNormalIsClampedAtZero(t *testing.T) {
	_, _, least := sampleMoments(NormalMean(time.Millisecond, 10*time.Millisecond), 1000)
	assert.Equal(t, time.Duration(0), least)
}

func TestDistributionValidateNamesTheField(t *testing.T) {
	tests := []struct {
		d    Distribution
		want string
	}{
		{Fixed(-time.Second), "constant distribution: mean -1s is negative"},
		{NormalMean(time.Second, -time.Second), "normal distribution: stddev -1s is negative"},
		{UniformBetween(-time.Second, 0), "uniform distribution: min -1s is negative"},
		{UniformBetween(2*time.Second, time.Second), "uniform distribution: max 1s is below min 2s"},
		{LogNormalMean(0, time.Second), "lognormal distribution: mean must be positive when stddev is"},
		{Distribution{Kind: 99}, "distribution kind 99 is unknown"},
		{Fixed(MaxDelay + 1), "constant distribution: mean 87600h0m0.000000001s is above the longest delay, 87600h0m0s"},
		{NormalMean(time.Millisecond, 2000000*time.Hour), "normal distribution: stddev 2000000h0m0s is above the longest delay, 87600h0m0s"},
		{UniformBetween(0, math.MaxInt64), "uniform distribution: max 2562047h47m16.854775807s is above the longest delay, 87600h0m0s"},
	}
	for _, tt := range tests {
		assert.EqualError(t, tt.d.Validate(), tt.want, "%#v", tt.d)
	}
	assert.NoError(t, Distribution{}.Validate(), "the zero distribution is the constant zero")
}

// FND-17: no draw is above MaxDelay, however wide the distribution, so that a sum of a few
// draws and an instant before the horizon cannot overflow.
func TestSamplesStayAtMostMaxDelay(t *testing.T) {
	r := newStream(1, "wide")
	for _, d := range []Distribution{ExponentialMean(MaxDelay), NormalMean(MaxDelay, MaxDelay), LogNormalMean(MaxDelay, MaxDelay),
		UniformBetween(MaxDelay, MaxDelay), Fixed(MaxDelay), NormalMean(0, math.MaxInt64), Fixed(math.MaxInt64)} {
		top := time.Duration(0)
		for range 10000 {
			x := d.Sample(r)
			require.GreaterOrEqual(t, x, time.Duration(0), "%v", d)
			top = max(top, x)
		}
		assert.LessOrEqual(t, top, MaxDelay, "%v", d)
		assert.Greater(t, top, MaxDelay/2, "%v: the clamp leaves the distribution's upper range", d)
	}
}

func TestSampleAndBernoulliDoNotAllocate(t *testing.T) {
	r := newStream(1, "alloc")
	for _, d := range []Distribution{Fixed(1), UniformBetween(0, 5), ExponentialMean(5),
		NormalMean(5, 1), LogNormalMean(5, 1)} {
		allocs := testing.AllocsPerRun(100, func() { d.Sample(r) })
		assert.Zero(t, allocs, "%v", d)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { Bernoulli(r, 0.5) }))
}

func TestBernoulliFrequency(t *testing.T) {
	const n, p = 100000, 0.3
	r := newStream(1, "bernoulli")
	hits := 0
	for range n {
		if Bernoulli(r, p) {
			hits++
		}
	}
	// Five binomial standard deviations.
	assert.InDelta(t, p, float64(hits)/n, 5*math.Sqrt(p*(1-p)/n))
	assert.False(t, Bernoulli(r, 0))
	assert.True(t, Bernoulli(r, 1))
}

func TestSampleWithNilStreamPanics(t *testing.T) {
	assert.Panics(t, func() { ExponentialMean(time.Second).Sample(nil) })
	assert.Panics(t, func() { Bernoulli(nil, 0.5) })
}
