package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// saturationShares runs all ten levels offering together load times what a 2 Mbit/s link
// carries, for the duration, and returns the share of the delivered bytes each level got while the link
// was overloaded (the run stops when the arrivals stop).
func saturationShares(t *testing.T, seed uint64, aging bool, load float64, arrivals time.Duration) map[int]float64 {
	t.Helper()
	levels := []model.PriorityLevel{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cfg := floodConfig("saturation", levels, 250_000, load, arrivals)
	cfg.MaxTime = arrivals
	cfg.Broker.StarvationAgingOff = !aging
	res, err := Run(cfg, seed)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	shares := map[int]float64{}
	for _, l := range res.Levels {
		shares[l.Level] = l.Share
	}
	return shares
}

// TestPRI16_SaturationGivesTheDocumentedShape loads a link three times beyond what it carries
// with all ten levels, each offering the same load, and checks the shape PRI-16 documents
// ("adjacent levels give a small advantage, distant levels a large one; with many levels
// most processing goes to the top 2 or 3 levels") on the bytes delivered while the link is
// overloaded, over several seeds. The bounds: the top three levels get more than 70%;
// shares never grow from one level to the one below (2 points of slack for losses);
// levels 10 and 9 differ by less than 10 points; levels 10 and 1 by more than 25.
func TestPRI16_SaturationGivesTheDocumentedShape(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		s := saturationShares(t, seed, true, 3, 30*time.Second)
		shape := fmt.Sprintf("seed %d shares %v", seed, s)
		assert.Greater(t, s[10]+s[9]+s[8], 0.70, shape)
		for l := 10; l > 1; l-- {
			assert.GreaterOrEqual(t, s[l]+0.02, s[l-1], "level %d below level %d: %s", l, l-1, shape)
		}
		assert.Less(t, s[10]-s[9], 0.10, shape)
		assert.Greater(t, s[10]-s[1], 0.25, shape)
	}
}
