package results

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sbsim/sbsim/sim"
)

func TestRunExitCodeSaysFailedBeforeLimit(t *testing.T) {
	cases := []struct {
		ok     bool
		reason sim.StopReason
		want   int
	}{
		{true, sim.Drained, ExitOK},
		{true, sim.TimeLimit, ExitOK}, // the scenario's horizon is an end
		{true, sim.EventLimit, ExitLimit},
		{false, sim.EventLimit, ExitFailed},
		{false, sim.Stopped, ExitFailed},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, RunExitCode(tc.ok, tc.reason), "ok %v, %v", tc.ok, tc.reason)
	}
}

func TestWorstFollowsTheDocumentedOrder(t *testing.T) {
	assert.Equal(t, ExitOK, Worst())
	assert.Equal(t, ExitLimit, Worst(ExitOK, ExitLimit))
	assert.Equal(t, ExitFailed, Worst(ExitLimit, ExitFailed))
	assert.Equal(t, ExitNotWritten, Worst(ExitFailed, ExitNotWritten, ExitLimit))
	assert.Equal(t, ExitInterrupted, Worst(ExitNotWritten, ExitInterrupted))
	assert.Equal(t, ExitUsage, Worst(ExitInterrupted, ExitUsage))
}
