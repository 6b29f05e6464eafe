package file

import (
	"github.com/sbsim/sbsim/scenarios"
	"strings"
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

// A library scenario's expectations are about the behaviour it demonstrates: changing that
// behaviour in its file makes them fail on the same seeds.
func TestLibraryExpectationsFailWhenTheBehaviourChanges(t *testing.T) {
	for _, c := range []struct {
		scenario string
		changes  [][2]string // from, to
	}{
		{"lossy-wan", [][2]string{{"      loss: 5%", "      loss: 60%"}}},
		{"queue-off-on", [][2]string{{"  - {at: 40s, alter_queue: OrderQueue, status: on}\n", ""}}},
		// Its lock waits come from readers sharing groups, from several readers, and from
		// touching other conversations: only without all three does no statement wait.
		{"lock-contention", [][2]string{{"    sessions: 8\n", "    sessions: 1\n"}, {"    group_size: 10\n", "    group_size: 1\n"},
			{"    touch_rate: 0.2\n", "    touch_rate: 0\n"}}},
		{"priority-flood", [][2]string{{"honor_broker_priority: on", "honor_broker_priority: off"}}},
		{"honor-priority-off", [][2]string{{"honor_broker_priority: off", "honor_broker_priority: on"}}},
		{"poison-message", [][2]string{{"rollback_rate: 1", "rollback_rate: 0"}}},
		{"partition-heals", [][2]string{{"from: 20s, until: 60s", "from: 20s, until: 21s"}}},
		{"single-conversation-activation", [][2]string{{"max_queue_readers: 5", "max_queue_readers: 1"}}},
		{"activation-burst", [][2]string{{"max_queue_readers: 4", "max_queue_readers: 2"}}},
		{"external-activation", [][2]string{{"max_readers: 3", "max_readers: 4"}}},
		// A full partition shorter than the retention of closed targets (G-16): nothing is
		// forgotten, nothing delivered twice.
		{"fire-and-forget-outage", [][2]string{{"{from: 5m, until: 40m}", "{from: 5m, until: 30m}"}}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			data, err := LibraryText(c.scenario)
			require.NoError(t, err)
			changed := string(data)
			for _, ch := range c.changes {
				next := strings.Replace(changed, ch[0], ch[1], 1)
				require.NotEqual(t, changed, next, "the change %q applies", ch[0])
				changed = next
			}
			f, err := Load(c.scenario+".yaml", []byte(changed))
			require.NoError(t, err)
			failed := false
			for _, seed := range librarySeeds {
				res, err := scenarios.Run(f.Config, seed)
				require.NoError(t, err)
				for _, v := range f.Check(res) {
					failed = failed || !v.OK
				}
			}
			assert.True(t, failed, "the changes %q break no expectation", c.changes)
		})
	}
}
