package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// DistributionKind names the shape of a Distribution.
type DistributionKind int

const (
	// Constant always gives Mean. It is the zero kind, so the zero Distribution is the
	// constant zero.
	Constant DistributionKind = iota
	// Uniform is uniform on [Min, Max).
	Uniform
	// Exponential has mean Mean.
	Exponential
	// Normal has mean Mean and standard deviation StdDev; a negative draw is clamped to
	// zero, which puts that probability on zero and raises the mean when StdDev is not
	// small next to Mean.
	Normal
	// LogNormal has mean Mean and standard deviation StdDev (of the duration itself, not of
	// its logarithm): a right-skewed delay that is never negative, the usual shape of
	// network latency and service times.
	LogNormal
)

var kindNames = [...]string{"constant", "uniform", "exponential", "normal", "lognormal"}

// String returns the kind's name as scenario files spell it.
func (k DistributionKind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("DistributionKind(%d)", int(k))
}

// Distribution describes a random duration: a delay, a latency, a processing time. It is a
// plain value, so it can sit in a configuration; Sample draws from it with a stream. The
// zero Distribution is the constant zero.
type Distribution struct {
	Kind DistributionKind
	// Mean is the value of a Constant and the mean of the other kinds but Uniform.
	Mean time.Duration
	// StdDev is the standard deviation of a Normal or LogNormal.
	StdDev time.Duration
	// Min and Max bound a Uniform.
	Min, Max time.Duration
}

// Fixed returns the distribution that always gives d.
func Fixed(d time.Duration) Distribution { return Distribution{Kind: Constant, Mean: d} }

// UniformBetween returns the uniform distribution on [min, max).
func UniformBetween(min, max time.Duration) Distribution {
	return Distribution{Kind: Uniform, Min: min, Max: max}
}

// ExponentialMean returns the exponential distribution with the given mean.
func ExponentialMean(mean time.Duration) Distribution {
	return Distribution{Kind: Exponential, Mean: mean}
}

// NormalMean returns the normal distribution with the given mean and standard deviation,
// clamped at zero.
func NormalMean(mean, stdDev time.Duration) Distribution {
	return Distribution{Kind: Normal, Mean: mean, StdDev: stdDev}
}

// LogNormalMean returns the log-normal distribution with the given mean and standard
// deviation.
func LogNormalMean(mean, stdDev time.Duration) Distribution {
	return Distribution{Kind: LogNormal, Mean: mean, StdDev: stdDev}
}

// Validate reports the first field that makes d unusable, by name: negative, inconsistent,
// or above MaxDelay.
func (d Distribution) Validate() error {
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"mean", d.Mean}, {"stddev", d.StdDev}, {"min", d.Min}, {"max", d.Max}} {
		if f.v > MaxDelay {
			return fmt.Errorf("%s distribution: %s %v is above the longest delay, %v", d.Kind, f.name, f.v, MaxDelay)
		}
	}
	switch d.Kind {
	case Constant, Exponential, Normal, LogNormal:
		if d.Mean < 0 {
			return fmt.Errorf("%s distribution: mean %v is negative", d.Kind, d.Mean)
		}
		if d.StdDev < 0 {
			return fmt.Errorf("%s distribution: stddev %v is negative", d.Kind, d.StdDev)
		}
		if d.Kind == LogNormal && d.Mean == 0 && d.StdDev > 0 {
			return errors.New("lognormal distribution: mean must be positive when stddev is")
		}
	case Uniform:
		if d.Min < 0 {
			return fmt.Errorf("uniform distribution: min %v is negative", d.Min)
		}
		if d.Max < d.Min {
			return fmt.Errorf("uniform distribution: max %v is below min %v", d.Max, d.Min)
		}
	default:
		return fmt.Errorf("distribution kind %d is unknown", int(d.Kind))
	}
	return nil
}

// MeanValue returns the distribution's expected value, ignoring the clamping of a Normal at
// zero.
func (d Distribution) MeanValue() time.Duration {
	if d.Kind == Uniform {
		return d.Min + (d.Max-d.Min)/2
	}
	return d.Mean
}

// String describes the distribution as the command line prints it.
func (d Distribution) String() string {
	switch d.Kind {
	case Constant:
		return d.Mean.String()
	case Uniform:
		return fmt.Sprintf("uniform(%v, %v)", d.Min, d.Max)
	case Exponential:
		return fmt.Sprintf("exponential(mean %v)", d.Mean)
	case Normal, LogNormal:
		return fmt.Sprintf("%s(mean %v, stddev %v)", d.Kind, d.Mean, d.StdDev)
	}
	return d.Kind.String()
}

// Sample draws one duration from d with the stream r. It never returns a negative duration
// nor one above MaxDelay, where a draw of a shape without bound (exponential, normal,
// lognormal) is clamped, and it never allocates. A Constant draws nothing from r, so
// switching a delay between constant and random shifts only the stream it draws from.
func (d Distribution) Sample(r *rand.Rand) time.Duration {
	if r == nil {
		panic("sim: Distribution.Sample with a nil stream would use the global random source")
	}
	var x float64
	switch d.Kind {
	case Constant:
		return min(d.Mean, MaxDelay)
	// The shapes below write out gonum's formulas (distuv.Uniform, Normal, LogNormal) with an
	// explicit float64 conversion around each product: Go may fuse a*b+c into one FMA
	// instruction on arm64 and other platforms, which rounds differently, and a seed must
	// draw the same numbers on every machine. Exponential, a division, goes through gonum.
	case Uniform:
		if d.Max == d.Min {
			return min(d.Min, MaxDelay)
		}
		x = float64(r.Float64()*float64(d.Max-d.Min)) + float64(d.Min)
	case Exponential:
		if d.Mean == 0 {
			return 0
		}
		x = distuv.Exponential{Rate: 1 / float64(d.Mean), Src: r}.Rand()
	case Normal:
		x = float64(r.NormFloat64()*float64(d.StdDev)) + float64(d.Mean)
	case LogNormal:
		if d.Mean == 0 {
			return 0
		}
		m, s := float64(d.Mean), float64(d.StdDev)
		// The parameters of the underlying normal that give mean m and deviation s.
		sigma2 := math.Log1p(float64(s*s) / float64(m*m))
		mu := math.Log(m) - sigma2/2
		x = math.Exp(float64(r.NormFloat64()*math.Sqrt(sigma2)) + mu)
	default:
		panic(fmt.Sprintf("sim: sample from an unvalidated distribution of kind %d", int(d.Kind)))
	}
	if x <= 0 {
		return 0
	}
	if x >= float64(MaxDelay) {
		return MaxDelay
	}
	return time.Duration(x)
}

// Bernoulli reports true with probability p, drawing from the stream r.
func Bernoulli(r *rand.Rand, p float64) bool {
	if r == nil {
		panic("sim: Bernoulli with a nil stream would use the global random source")
	}
	return distuv.Bernoulli{P: p, Src: r}.Rand() == 1
}
