package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// TestG16_WorldsTheWiderPropertyFound are two worlds the dialog property found once it drew
// outages longer than the retention (seed 11 of SBSIM_PROP_SEED, 1,500 tests). In the
// first, a re-created target received only the EndDialog retry, delivered nothing and waited
// in CO for ever; in the second, the retried EndDialog lay beyond a receive window of 1
// (G-21), so the new SI target refused it unacknowledged and the initiator retried it for
// ever, in DO. Both are the design finding, and the property accepts what it leaves.
func TestG16_WorldsTheWiderPropertyFound(t *testing.T) {
	for _, s := range []gen.World{
		{Seed: 1226789186237294, Instances: 2, Conversations: 5, Messages: 1, Corrupt: 0.10954776168378422, JitterMs: 45,
			PartitionMs: 1723578, QueueFlips: 1, SendWindow: 2, ReceiveWindow: 1, Honor: true, Bandwidth: 185517},
		{Seed: 1475178, Instances: 2, Conversations: 5, Messages: 2, Corrupt: 0.14185867352564288,
			PartitionMs: 1787934, OneWay: true, QueueFlips: 1, SendWindow: 2, ReceiveWindow: 1, Honor: true, Bandwidth: 288000},
	} {
		res, err := scenarios.Run(s.Config(), s.Seed)
		require.NoError(t, err)
		assert.Nil(t, res.Violation)
		assert.Equal(t, 1, res.FindingCount, "%v", s)
		assert.Empty(t, checkWorld(s))
	}
}
