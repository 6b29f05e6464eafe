package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestReservedPlaceOrdersAsIfScheduledThen checks Reserve's promise: an event scheduled
// late with a reserved place fires among the events due at its instant where Schedule,
// called at the time of the reservation, would have put it.
func TestReservedPlaceOrdersAsIfScheduledThen(t *testing.T) {
	e := New(1)
	var fired []string
	mark := func(name string) Handler { return HandlerFunc(func(uint64) { fired = append(fired, name) }) }
	first := e.Reserve()
	e.Schedule(time.Second, mark("scheduled after the reservation"), 0)
	second := e.Reserve()
	e.Schedule(time.Second, mark("scheduled last"), 0)
	e.Schedule(time.Millisecond, HandlerFunc(func(uint64) {
		e.ScheduleReserved(time.Second, second, mark("second reservation"), 0)
		e.ScheduleReserved(time.Second, first, mark("first reservation"), 0)
	}), 0)
	e.Run(Limits{})
	assert.Equal(t, []string{"first reservation", "scheduled after the reservation", "second reservation", "scheduled last"}, fired)
	assert.Panics(t, func() { e.ScheduleReserved(2*time.Second, e.Reserve()+1, mark("never reserved"), 0) })
	assert.Panics(t, func() { e.ScheduleReserved(0, e.Reserve(), mark("in the past"), 0) })
}
