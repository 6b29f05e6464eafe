package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// saturation runs all ten levels offering together load times what a 2 Mbit/s link
// carries, for the duration, and returns, for each level, its share of the bytes delivered
// while the link was overloaded (the run stops when the arrivals stop), and the part of
// the bytes it offered that were delivered.
func saturation(t *testing.T, seed uint64, aging bool, load float64, arrivals time.Duration) (shares, served map[int]float64) {
	t.Helper()
	levels := []model.PriorityLevel{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cfg := floodConfig("saturation", levels, 250_000, load, arrivals)
	cfg.MaxTime = arrivals
	cfg.Broker.StarvationAgingOff = !aging
	res, err := Run(cfg, seed)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	shares, served = map[int]float64{}, map[int]float64{}
	offered := map[int]int64{}
	for i, w := range res.Workloads {
		offered[int(levels[i])] = w.MessagesSent * 4096
	}
	for _, l := range res.Levels {
		shares[l.Level] = l.Share
		served[l.Level] = float64(l.Bytes) / float64(offered[l.Level])
	}
	return shares, served
}

// TestPRI16_SaturationGivesTheDocumentedShape loads a link three times beyond what it carries
// with all ten levels, each offering the same expected load, and checks the shape PRI-16
// documents ("adjacent levels give a small advantage, distant levels a large one; with many
// levels most processing goes to the top 2 or 3 levels") on the bytes delivered while the
// link is overloaded, over several seeds. Bounds: the top three levels get more than 70% of
// what is delivered; the part of its offered load a level gets through never grows going
// down a level, with 5 points of slack: the top levels get nearly all they offer, and what
// separates them is the traffic still in flight when the run stops (up to a second of a
// level's 30, about 3%, plus losses; seed 3: levels 10, 9, 8 got 95.8%, 96.6%, 99.8%);
// levels 10 and 9 differ by less than 15 points of it, levels 10 and 1 by more than 80.
//
// The first version compared the shares themselves level by level; with round-robin ties
// (G-11) the top levels all get nearly everything they offer, so their shares follow the
// Poisson noise of what each happened to offer (seed 2: level 8 offered more than level 9
// and got 28.8% against 25.7%). The part of the offered load served is the quantity
// priorities order.
func TestPRI16_SaturationGivesTheDocumentedShape(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		shares, served := saturation(t, seed, true, 3, 30*time.Second)
		shape := fmt.Sprintf("seed %d shares %v served %v", seed, shares, served)
		assert.Greater(t, shares[10]+shares[9]+shares[8], 0.70, shape)
		for l := 10; l > 1; l-- {
			assert.GreaterOrEqual(t, served[l]+0.05, served[l-1], "level %d below level %d: %s", l, l-1, shape)
		}
		assert.Less(t, served[10]-served[9], 0.15, shape)
		assert.Greater(t, served[10]-served[1], 0.80, shape)
	}
}

// TestG11_StarvationBoundUnderASustainedFlood: level 10 offers 10% more than the link carries
// for 200 s, and level 1 a trickle of 5%. G-11's bound: a level-1 message waits in the
// transmission queue about the 90 s of aging that raise it to 10; it then takes turns with
// the level-10 dialogs, so it also waits about as long as level 10 itself does, plus one
// retry back-off when its block was lost (a retransmission ages again from its retry).
// Without aging, level 1 waits for the flood to end.
func TestG11_StarvationBoundUnderASustainedFlood(t *testing.T) {
	maxWait := func(aging bool) (level1, level10 time.Duration) {
		cfg := floodConfig("sustained", []model.PriorityLevel{10, 1}, 250_000, 2.2, 200*time.Second)
		low := &cfg.Workloads[1] // level 1: a twenty-second of level 10's load
		low.Interarrival.Mean *= 22
		low.Dialogs = max(1, low.Dialogs/22)
		cfg.Broker.StarvationAgingOff = !aging
		res, err := Run(cfg, 1)
		require.NoError(t, err)
		require.Nil(t, res.Violation)
		require.Len(t, res.Levels, 2)
		return res.Levels[1].TransmissionQueueWait.Max, res.Levels[0].TransmissionQueueWait.Max
	}
	one, ten := maxWait(true)
	assert.LessOrEqual(t, one, 90*time.Second+ten+4*time.Second, "with aging (level 10 waited up to %v)", ten)
	unaged, _ := maxWait(false)
	assert.Greater(t, unaged, 150*time.Second, "without aging level 1 waits for the flood to end")
	t.Logf("longest level-1 wait: %v with aging, %v without; level 10: %v", one, unaged, ten)
}
