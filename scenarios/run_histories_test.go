package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// Run's checkers keep no histories; a run with a violation runs again with them, and its
// result is the first run's with the records of the second: the same as a run that kept
// histories from the start. INV-12's violation names a conversation whose records show
// what it sent.
func TestINV12_AViolationShowsTheRecordsOfARunAgainWithHistories(t *testing.T) {
	cfg := livenessWorld(lossEverything)
	cfg.MaxTime = time.Hour

	res, err := Run(cfg, 1)
	require.NoError(t, err)
	without, err := runOnce(cfg, 1, histories{})
	require.NoError(t, err)
	with, err := runOnce(cfg, 1, histories{all: true})
	require.NoError(t, err)

	require.NotNil(t, res.Violation)
	assert.Equal(t, "INV-12", res.Violation.Rule)
	assert.Empty(t, without.Violation.Records, "a run without histories has no records to show")
	require.NotEmpty(t, res.Violation.Records, "Run shows the conversation's records")
	assert.Equal(t, with.Violation, res.Violation, "the records of a run that kept histories throughout")
	for _, r := range res.Violation.Records {
		assert.Equal(t, res.Violation.Conversation, r.Conversation)
	}
	assert.Equal(t, with.Events, res.Events)
}

// G-16: a run with design findings runs again too, for the records of each finding.
func TestG16_FindingsShowTheRecordsOfARunAgainWithHistories(t *testing.T) {
	cfg := fireAndForget(perfect50ms(), cutBoth(2*time.Second, 31*time.Minute), 0)

	res, err := Run(cfg, 2)
	require.NoError(t, err)
	with, err := runOnce(cfg, 2, histories{all: true})
	require.NoError(t, err)

	require.Nil(t, res.Violation)
	require.NotEmpty(t, res.Findings)
	assert.Equal(t, with.Findings, res.Findings)
	for _, f := range res.Findings {
		assert.NotEmpty(t, f.Records, "finding on %v", f.Conversation)
	}
}

// A run that is not a function of its config and seed (here a hook whose answers depend on
// how often it was called, across runs) is caught when its second run, for the histories,
// reaches another verdict: Run fails and says how the two runs differ, rather than show
// records of another run.
func TestARunThatIsNotDeterministicIsCaughtByItsSecondRun(t *testing.T) {
	cfg := fireAndForget(perfect50ms(), cutBoth(2*time.Second, 31*time.Minute), 0)
	calls, perRun := 0, 1<<62
	cfg.Readers[0].Hook = func(ctx *HookContext) ([]Statement, bool) {
		calls++
		if calls <= perRun || ctx.Message.MessageType != model.DefaultMessageType {
			return nil, false // as the default reader does, for as many calls as one run makes
		}
		return []Statement{{Kind: StatementTimer, Timeout: time.Minute}}, true
	}
	first, err := runOnce(cfg, 2, histories{})
	require.NoError(t, err)
	require.NotEmpty(t, first.Findings)
	calls, perRun = 0, calls

	_, err = Run(cfg, 2)

	require.Error(t, err)
	assert.Contains(t, err.Error(), "the run is not deterministic: run again with the checkers' histories")
}
