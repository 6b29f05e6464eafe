package scenarios

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// longestDelays is a world whose every delay is the longest Validate accepts, and whose
// distributions are the widest: the sums the world forms of them must not overflow.
func longestDelays() Config {
	link := faulty.Config{LatencyFixed: sim.MaxDelay, LatencyJitter: sim.NormalMean(sim.MaxDelay, sim.MaxDelay),
		LossProbability: 0.3}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "slow", Dialogs: 3, Start: sim.MaxDelay,
		Interarrival: sim.ExponentialMean(sim.MaxDelay), Messages: 2, MessageGap: sim.LogNormalMean(sim.MaxDelay, sim.MaxDelay),
		Size: FixedSize(20000), Replies: true})
	cfg.Broker = model.Config{RetryIntervalMin: sim.MaxDelay / 2, RetryIntervalMax: sim.MaxDelay / 2, AckDelay: sim.MaxDelay,
		ConnectionIdleClose: sim.MaxDelay, ClosedTargetRetention: sim.MaxDelay, StarvationAgingStep: sim.MaxDelay}
	cfg.Readers = []Reader{{Queue: "TargetQueue", ProcessingTime: sim.ExponentialMean(sim.MaxDelay), Top: 100}}
	// One sample a year: the default, one a second, would keep a century of them.
	cfg.SampleInterval = sim.MaxDelay / 10
	cfg.MaxTime = sim.Horizon // past the default of 1,000 h, to the end of the clock
	// Its loss never heals and its delays outlast any bound: the liveness phase (INV-12)
	// does not apply to this test of the clock.
	cfg.Liveness.Off = true
	// A latency longer than the closed target's retention lets a late copy re-create a
	// forgotten target endpoint: a design finding (G-16), as Service Broker would, and no
	// violation: the checkers stay on.
	return cfg
}

// FND-17: `latency: 2562047h` used to pass and panic in the engine with an event scheduled
// at -2562047h. Every delay at the longest Validate accepts runs without overflow, to its
// end or to the horizon; one nanosecond more is refused, naming the field.
func TestTheLongestDelaysDoNotOverflowTheClock(t *testing.T) {
	for seed := range uint64(5) {
		var res *Result
		require.NotPanics(t, func() {
			var err error
			res, err = Run(longestDelays(), seed)
			require.NoError(t, err, "seed %d", seed)
		}, "seed %d", seed)
		assert.LessOrEqual(t, res.EndTime, sim.Horizon, "seed %d", seed)
		assert.Nil(t, res.Violation, "seed %d", seed)
		assert.Positive(t, res.Latency.Count, "seed %d: some messages arrive", seed)
		t.Logf("seed %d: %v at %v after %d events, %d messages", seed, res.StopReason, res.EndTime, res.Events, res.Latency.Count)
		assert.Contains(t, []sim.StopReason{sim.Drained, sim.TimeLimit}, res.StopReason, "seed %d", seed)
	}
	tooLong := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"latency", func(c *Config) { c.Links[0].AToB.LatencyFixed = 2562047 * time.Hour },
			"link 0 (A<->B): AToB.LatencyFixed 2562047h0m0s is above the longest delay, 87600h0m0s"},
		{"jitter", func(c *Config) { c.Links[0].BToA.LatencyJitter = sim.NormalMean(time.Millisecond, 2000000*time.Hour) },
			"link B->A: LatencyJitter normal(mean 1ms, stddev 2000000h0m0s) is invalid: normal distribution: stddev 2000000h0m0s is above the longest delay, 87600h0m0s"},
		{"start", func(c *Config) { c.Workloads[0].Start = sim.MaxDelay + 1 },
			"workload 0 (slow): Start 87600h0m0.000000001s is above the longest delay, 87600h0m0s"},
		{"ack delay", func(c *Config) { c.Broker.AckDelay = sim.MaxDelay + 1 },
			"broker config: AckDelay 87600h0m0.000000001s is above the longest delay, 87600h0m0s"},
		{"processing", func(c *Config) { c.Readers[0].ProcessingTime = sim.Fixed(sim.MaxDelay + 1) },
			"reader 0 (TargetQueue): ProcessingTime: constant distribution: mean 87600h0m0.000000001s is above the longest delay, 87600h0m0s"},
		{"timeline", func(c *Config) { c.Timeline = []Change{{At: math.MaxInt64, Queue: "TargetQueue"}} },
			"timeline 0: At 2562047h47m16.854775807s is above the longest delay, 87600h0m0s"},
	}
	for _, tt := range tooLong {
		cfg := longestDelays()
		tt.set(&cfg)
		_, err := Run(cfg, 1)
		assert.EqualError(t, err, `scenario "two instances": `+tt.want, tt.name)
	}
}

// FND-17: the world of the issue, `latency: 2562047h`, built without Validate (which now
// refuses it), stops with the engine's error where it used to panic with "event scheduled
// at -2562047h46m37.709551616s".
func TestAnOverflowingLinkStopsWithAnErrorNotAPanic(t *testing.T) {
	link := faulty.Config{LatencyFixed: 2562047 * time.Hour}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "w", Dialogs: 2, Messages: 2, Size: FixedSize(1000)})
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	w, err := build(&cfg, cat, 1)
	require.NoError(t, err)
	var reason sim.StopReason
	require.NotPanics(t, func() { reason = w.e.Run(sim.Limits{}) })
	assert.Equal(t, sim.Stopped, reason)
	require.Error(t, w.e.Err())
	assert.Contains(t, w.e.Err().Error(), "a negative time: a sum of delays overflowed")
}
