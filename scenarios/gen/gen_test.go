package gen_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
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

// Swarm draws a mix per seed, the same for the same seed, and applies it to the user's
// design without changing it: every pair of instances has a link with the mix's faults,
// the partition cuts the first pair, invariants are checked.
func TestSwarmPutsTheSeedsFaultMixOnEveryLink(t *testing.T) {
	s, err := file.Library("three-sites")
	require.NoError(t, err)
	before := len(s.Config.Links)
	var partitioned, crashed int
	for seed := uint64(1); seed <= 40; seed++ {
		cfg, mix := gen.Swarm(s.Config, seed)
		again, mix2 := gen.Swarm(s.Config, seed)
		require.Equal(t, mix, mix2, "seed %d", seed)
		require.Equal(t, cfg.Links, again.Links, "seed %d", seed)
		assert.True(t, cfg.CheckInvariants)
		n := len(cfg.Instances)
		require.Len(t, cfg.Links, n*(n-1)/2, "seed %d: a link per pair", seed)
		for _, l := range cfg.Links {
			assert.Equal(t, mix.Loss, l.AToB.LossProbability, "seed %d link %s-%s", seed, l.A, l.B)
			assert.Equal(t, mix.Corrupt, l.BToA.CorruptProbability, "seed %d link %s-%s", seed, l.A, l.B)
		}
		if mix.PartitionMs > 0 {
			partitioned++
			assert.NotEmpty(t, cfg.Links[0].Partitions, "seed %d: %v", seed, mix)
		}
		if mix.Crashed {
			crashed++
			assert.True(t, len(cfg.Timeline) > len(s.Config.Timeline) || len(cfg.Crashes.Instances) > 0, "seed %d: %v", seed, mix)
		}
		var flips int
		for _, c := range cfg.Timeline[len(s.Config.Timeline):] {
			if c.Queue != "" && c.Status == model.QueueOff {
				flips++
			}
		}
		assert.Equal(t, mix.QueueFlips, flips, "seed %d", seed)
	}
	assert.Len(t, s.Config.Links, before, "the design's own config is left as it was")
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
