package file

import (
	"github.com/sbsim/sbsim/scenarios"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// librarySeeds are the seeds every library scenario's expectations are checked on in CI;
// `simulate check all -seeds N` explores further.
var librarySeeds = []uint64{1, 2, 3}

// Every library scenario loads, runs and meets its expectations on a fixed set of seeds,
// and has a question and at least one expectation besides the invariants.
func TestLibraryScenariosMeetTheirExpectations(t *testing.T) {
	names := LibraryNames()
	require.GreaterOrEqual(t, len(names), 10)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			f, err := Library(name)
			require.NoError(t, err)
			assert.NotEmpty(t, f.Question, "the design question it answers")
			require.GreaterOrEqual(t, len(f.Expectations), 2, "invariants and at least one expectation of its own")
			for _, seed := range librarySeeds {
				res, err := scenarios.Run(f.Config, seed)
				require.NoError(t, err)
				assert.Nil(t, res.Violation, "seed %d", seed)
				assert.True(t, res.InvariantsChecked, "seed %d", seed)
				assert.Zero(t, res.StatementErrors, "seed %d: %s", seed, res.FirstStatementError)
				for _, v := range f.Check(res) {
					assert.True(t, v.OK, "seed %d: %v", seed, v)
				}
				for _, l := range res.Links { // FND-8: the link accounting of a whole world
					assert.NoError(t, l.Counters.Check(), "seed %d link %s", seed, l.Name)
				}
			}
		})
	}
}

func TestLibraryRefusesAnUnknownName(t *testing.T) {
	_, err := Library("no-such-scenario")
	assert.ErrorIs(t, err, ErrUnknownScenario)
}
