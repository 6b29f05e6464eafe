package gen_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// Draw is a function of its seed: the same seed gives the same world and the same config,
// other seeds give other worlds.
func TestDrawIsAFunctionOfTheSeed(t *testing.T) {
	a, b := gen.Draw[gen.World](gen.Worlds(), 11), gen.Draw[gen.World](gen.Worlds(), 11)
	require.Equal(t, a, b)
	assert.Equal(t, a.Config(), b.Config())
	assert.NotEqual(t, a, gen.Draw[gen.World](gen.Worlds(), 12))
}

// Swarm draws a mix per seed, the same for the same seed and the one simulate explore
// -swarm draws, and applies it to the user's design without changing it: every pair of
// instances has a link with the mix's faults, invariants are checked, the faults heal at
// the mix's time.
func TestSwarmPutsTheSeedsFaultMixOnEveryLink(t *testing.T) {
	s, err := file.Library("three-sites")
	require.NoError(t, err)
	before := len(s.Config.Links)
	var lossy, partitioned, crashed int
	for seed := uint64(1); seed <= 40; seed++ {
		cfg, mix := gen.Swarm(s.Config, seed)
		again, mix2 := gen.Swarm(s.Config, seed)
		require.Equal(t, mix, mix2, "seed %d", seed)
		require.Equal(t, cfg.Links, again.Links, "seed %d", seed)
		assert.Equal(t, scenarios.DrawFaultMix(&s.Config, seed, true), mix, "explore -swarm's mix, seed %d", seed)
		assert.True(t, cfg.CheckInvariants)
		assert.Equal(t, mix.HealAt, cfg.Liveness.After, "seed %d", seed)
		n := len(cfg.Instances)
		require.Len(t, cfg.Links, n*(n-1)/2, "seed %d: a link per pair", seed)
		for _, lm := range mix.Links {
			i := slices.IndexFunc(cfg.Links, func(l scenarios.Link) bool { return l.A == lm.A && l.B == lm.B })
			require.GreaterOrEqual(t, i, 0, "seed %d: the mix's link %s-%s", seed, lm.A, lm.B)
			l := cfg.Links[i]
			assert.GreaterOrEqual(t, l.AToB.DuplicateProbability, lm.Duplicate, "seed %d link %s-%s", seed, l.A, l.B)
			assert.GreaterOrEqual(t, l.BToA.CorruptProbability, lm.Corrupt, "seed %d link %s-%s", seed, l.A, l.B)
			if lm.Loss > 0 {
				lossy++
			}
			if len(lm.Partitions) > 0 {
				partitioned++
				assert.Subset(t, l.Partitions, lm.Partitions, "seed %d", seed)
			}
		}
		if len(mix.Crashes) > 0 {
			crashed++
			assert.Greater(t, len(cfg.Timeline), len(s.Config.Timeline), "seed %d: %v", seed, mix)
		}
	}
	assert.Len(t, s.Config.Links, before, "the design's own config is left as it was")
	assert.Positive(t, lossy)
	assert.Positive(t, partitioned)
	assert.Positive(t, crashed)
}

// A swarmed design runs, and a seed's run is the same twice.
func TestASwarmedRunIsDeterministic(t *testing.T) {
	s, err := file.Library("lossy-wan")
	require.NoError(t, err)
	cfg, _ := gen.Swarm(s.Config, 5)
	a, err := scenarios.Run(cfg, 5)
	require.NoError(t, err)
	b, err := scenarios.Run(cfg, 5)
	require.NoError(t, err)
	assert.Equal(t, a.Events, b.Events)
	assert.Nil(t, a.Violation)
}
