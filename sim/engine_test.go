package sim

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a handler that notes which events fired, and when.
type recorder struct {
	e     *Engine
	fired []string
}

func (r *recorder) HandleEvent(arg uint64) {
	r.fired = append(r.fired, fmt.Sprintf("%d@%v", arg, r.e.Now()))
}

func TestEventsFireInTimeThenSchedulingOrder(t *testing.T) {
	e := New(1)
	r := &recorder{e: e}
	e.Schedule(3*time.Second, r, 1)
	e.Schedule(1*time.Second, r, 2)
	e.Schedule(3*time.Second, r, 3) // same instant as 1, scheduled later: fires after it
	e.Schedule(2*time.Second, r, 4)
	e.Schedule(1*time.Second, r, 5)
	e.Schedule(0, r, 6)

	reason := e.Run(Limits{})

	assert.Equal(t, Drained, reason)
	assert.Equal(t, []string{"6@0s", "2@1s", "5@1s", "4@2s", "1@3s", "3@3s"}, r.fired)
	assert.Equal(t, 3*time.Second, e.Now())
	assert.Equal(t, uint64(6), e.Fired())
	assert.Equal(t, 0, e.Pending())
}

func TestEventScheduledForNowFromAHandlerFiresAfterThoseAlreadyDue(t *testing.T) {
	e := New(1)
	r := &recorder{e: e}
	e.Schedule(time.Second, HandlerFunc(func(uint64) {
		e.Schedule(e.Now(), r, 9) // same instant, scheduled after event 2
	}), 0)
	e.Schedule(time.Second, r, 2)

	e.Run(Limits{})

	assert.Equal(t, []string{"2@1s", "9@1s"}, r.fired)
}

func TestCancelledEventNeverFires(t *testing.T) {
	e := New(1)
	r := &recorder{e: e}
	a := e.Schedule(time.Second, r, 1)
	b := e.Schedule(2*time.Second, r, 2)
	c := e.Schedule(2*time.Second, r, 3)
	// Event 1 cancels event 3, due at the same time as event 2.
	e.Schedule(time.Second, HandlerFunc(func(uint64) {
		assert.True(t, e.Cancel(c), "cancelling a pending event")
	}), 0)

	require.True(t, e.Cancel(a), "cancelling a pending event")
	assert.False(t, e.Cancel(a), "cancelling twice")
	assert.False(t, e.Cancel(EventID{}), "cancelling the zero EventID")
	assert.Equal(t, 3, e.Pending())

	e.Run(Limits{})

	assert.Equal(t, []string{"2@2s"}, r.fired)
	assert.False(t, e.Cancel(b), "cancelling an event that fired")
	assert.Equal(t, 0, e.Pending())
}

func TestCancelledSlotReusedDoesNotReviveTheOldEvent(t *testing.T) {
	e := New(1)
	r := &recorder{e: e}
	old := e.Schedule(time.Second, r, 1)
	e.Cancel(old)
	e.Schedule(2*time.Second, r, 2) // reuses the freed slot; the stale entry at 1s must stay dead

	e.Run(Limits{})

	assert.Equal(t, []string{"2@2s"}, r.fired)
	assert.False(t, e.Cancel(old))
}

func TestManyCancellationsKeepTheQueueCompact(t *testing.T) {
	e := New(1)
	r := &recorder{e: e}
	keep := e.Schedule(time.Hour, r, 7)
	for i := range 10000 {
		e.Cancel(e.Schedule(time.Duration(i+1)*time.Minute, r, 0))
	}

	assert.Equal(t, 1, e.Pending())
	assert.LessOrEqual(t, e.queue.len(), 2*64+2, "stale entries must be compacted away")
	e.Run(Limits{})
	assert.Equal(t, []string{"7@1h0m0s"}, r.fired)
	assert.False(t, e.Cancel(keep))
}

func TestSchedulingInThePastPanics(t *testing.T) {
	e := New(1)
	e.Schedule(5*time.Second, HandlerFunc(func(uint64) {}), 0)
	e.Run(Limits{})
	require.Equal(t, 5*time.Second, e.Now())

	assert.PanicsWithValue(t, "sim: event scheduled at 4s, before the current time 5s", func() {
		e.Schedule(4*time.Second, HandlerFunc(func(uint64) {}), 0)
	})
	assert.Panics(t, func() { e.After(-time.Nanosecond, HandlerFunc(func(uint64) {}), 0) })
	assert.Panics(t, func() { e.Schedule(6*time.Second, nil, 0) })
	assert.NotPanics(t, func() { e.Schedule(5*time.Second, HandlerFunc(func(uint64) {}), 0) })
}

// FND-17: a delay that overflows virtual time stops the run with an error that says so,
// instead of the panic of an event in the past, and nothing fires after it.
func TestAnOverflowedDelayStopsTheRunWithAnError(t *testing.T) {
	e := New(1)
	fired := 0
	e.Schedule(time.Hour, HandlerFunc(func(uint64) {
		fired++
		assert.Equal(t, EventID{}, e.After(math.MaxInt64, HandlerFunc(func(uint64) { fired++ }), 0))
	}), 0)
	e.Schedule(2*time.Hour, HandlerFunc(func(uint64) { fired++ }), 0)
	require.NotPanics(t, func() { assert.Equal(t, Stopped, e.Run(Limits{})) })
	require.EqualError(t, e.Err(), "sim: event scheduled at -2562046h47m16.854775809s, a negative time: a sum of delays overflowed at t=1h0m0s")
	assert.Equal(t, 1, fired)
	assert.Equal(t, Stopped, e.Run(Limits{}), "a run with an error does not resume")
	assert.Equal(t, 1, fired)
}

// FND-17: no event fires after the horizon, with or without a time limit; one due after it
// ends the run as a time limit would, without moving the clock there.
func TestNoEventFiresAfterTheHorizon(t *testing.T) {
	for _, limits := range []Limits{{}, {MaxTime: math.MaxInt64}} {
		e := New(1)
		fired := 0
		e.Schedule(Horizon, HandlerFunc(func(uint64) { fired++ }), 0)
		e.Schedule(Horizon+1, HandlerFunc(func(uint64) { fired++ }), 0)
		assert.Equal(t, TimeLimit, e.Run(limits), "%+v", limits)
		assert.Equal(t, 1, fired, "%+v", limits)
		assert.Equal(t, Horizon, e.Now(), "%+v", limits)
		assert.NoError(t, e.Err())
	}
	assert.Greater(t, time.Duration(math.MaxInt64)-Horizon, 12*MaxDelay, "a dozen delays after the horizon still fit")
}

// ticker reschedules itself every period, forever.
type ticker struct {
	e      *Engine
	period time.Duration
	stopAt uint64
}

func (k *ticker) HandleEvent(n uint64) {
	if k.stopAt != 0 && n == k.stopAt {
		k.e.Stop()
	}
	k.e.After(k.period, k, n+1)
}

func TestRunStopsAtLimitsAndSaysWhy(t *testing.T) {
	tests := []struct {
		name       string
		limits     Limits
		stopAt     uint64
		wantReason StopReason
		wantNow    time.Duration
		wantFired  uint64
	}{
		{name: "time limit", limits: Limits{MaxTime: 10500 * time.Millisecond}, wantReason: TimeLimit,
			wantNow: 10500 * time.Millisecond, wantFired: 11}, // ticks at 0s..10s
		{name: "time limit on an event's instant fires it", limits: Limits{MaxTime: 10 * time.Second},
			wantReason: TimeLimit, wantNow: 10 * time.Second, wantFired: 11},
		{name: "event limit", limits: Limits{MaxEvents: 4}, wantReason: EventLimit,
			wantNow: 3 * time.Second, wantFired: 4},
		{name: "handler stops", limits: Limits{MaxEvents: 100}, stopAt: 6, wantReason: Stopped,
			wantNow: 6 * time.Second, wantFired: 7},
		{name: "the first limit reached wins", limits: Limits{MaxTime: 100 * time.Second, MaxEvents: 3},
			wantReason: EventLimit, wantNow: 2 * time.Second, wantFired: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(1)
			k := &ticker{e: e, period: time.Second, stopAt: tt.stopAt}
			e.Schedule(0, k, 0)

			reason := e.Run(tt.limits)

			assert.Equal(t, tt.wantReason, reason)
			assert.Equal(t, tt.wantNow, e.Now())
			assert.Equal(t, tt.wantFired, e.Fired())
			assert.Equal(t, 1, e.Pending(), "the ticker's next event stays pending")
		})
	}
}

func TestRunResumesAfterALimit(t *testing.T) {
	e := New(1)
	r := &recorder{e: e}
	for i := range 5 {
		e.Schedule(time.Duration(i)*time.Second, r, uint64(i))
	}

	assert.Equal(t, TimeLimit, e.Run(Limits{MaxTime: 2 * time.Second}))
	assert.Equal(t, EventLimit, e.Run(Limits{MaxEvents: 4}))
	assert.Equal(t, Drained, e.Run(Limits{MaxTime: time.Minute}))

	assert.Equal(t, []string{"0@0s", "1@1s", "2@2s", "3@3s", "4@4s"}, r.fired)
	assert.Equal(t, 4*time.Second, e.Now(), "a drained run leaves the clock at its last event")
}

func TestStopReasonString(t *testing.T) {
	for _, r := range []StopReason{Drained, TimeLimit, EventLimit, Stopped} {
		assert.NotContains(t, r.String(), "StopReason", "reason %d has no words", int(r))
	}
	assert.Equal(t, "StopReason(0)", StopReason(0).String())
}

// randomWalk schedules events at random delays from two streams and returns what fired.
func randomWalk(seed uint64) []string {
	e := New(seed)
	r := &recorder{e: e}
	a, b := e.Stream("a"), e.Stream("b")
	for i := range 50 {
		e.After(ExponentialMean(time.Second).Sample(a), r, uint64(i))
		e.After(UniformBetween(0, 2*time.Second).Sample(b), r, uint64(100+i))
	}
	e.Run(Limits{})
	return r.fired
}

func TestSameSeedSameSequenceOtherSeedAnother(t *testing.T) {
	assert.Equal(t, randomWalk(42), randomWalk(42), "same seed")
	assert.NotEqual(t, randomWalk(42), randomWalk(43), "different seeds")
}
