package batch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

// CheckSeeds yields each seed of a target in order, then the target's verdict, which
// agrees with its seeds.
func TestCheckSeedsYieldsEachSeedThenTheVerdict(t *testing.T) {
	targets := []Target{{Name: "poison-message", Scenario: library(t, "poison-message"), Seeds: 3},
		{Name: "single-conversation-activation", Scenario: library(t, "single-conversation-activation"), Seeds: 2}}
	var got []string
	for r, v := range CheckSeeds(targets, 2, nil) {
		if v != nil {
			got = append(got, "verdict "+v.Name)
			assert.True(t, v.OK(), v.Name)
			continue
		}
		got = append(got, r.Name)
		assert.True(t, r.OK(), "%s seed %d: %v", r.Name, r.Seed, r.Reasons)
		assert.NotZero(t, r.Stop, "%s seed %d", r.Name, r.Seed)
	}
	assert.Equal(t, []string{"poison-message", "poison-message", "poison-message", "verdict poison-message",
		"single-conversation-activation", "single-conversation-activation", "verdict single-conversation-activation"}, got)
}

// Until returns as soon as its context is done, without waiting for the pair under way.
func TestUntilStopsAtOnceWhenItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release := make(chan struct{})
	defer close(release)
	slow := func(yield func(int, error) bool) {
		if !yield(1, nil) {
			return
		}
		<-release // a run that takes long
		yield(2, nil)
	}
	var got []int
	start := time.Now()
	for v := range Until(ctx, slow) {
		got = append(got, v)
		cancel()
	}

	assert.Equal(t, []int{1}, got)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.Error(t, ctx.Err())
}

func TestCallReturnsTheResultOrTheInterrupt(t *testing.T) {
	v, err := Call(context.Background(), func() (sim.StopReason, error) { return sim.Drained, nil })
	assert.NoError(t, err)
	assert.Equal(t, sim.Drained, v)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	block := make(chan struct{})
	defer close(block)
	_, err = Call(ctx, func() (int, error) { <-block; return 0, nil })
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
}
