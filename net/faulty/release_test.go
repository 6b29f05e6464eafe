package faulty

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sbsim/sbsim/sim"
)

// TestReleaseComesOnceAfterTheLastCopy checks SetRelease's promise, on which a sender's
// recycling of packet memory rests: every packet offered comes back exactly once, whether
// delivered, duplicated, lost, refused for capacity or cut by a down window, and never
// while a copy of it is still on its way or before the receiver has seen its last copy.
func TestReleaseComesOnceAfterTheLastCopy(t *testing.T) {
	cfg := Config{LatencyFixed: 10 * time.Millisecond, LatencyJitter: sim.ExponentialMean(20 * time.Millisecond),
		LossProbability: 0.2, DuplicateProbability: 0.6, Capacity: 40,
		Down: []Window{{From: 300 * time.Millisecond, Until: 400 * time.Millisecond}}}
	h := newHarness(t, 7, cfg)
	released := map[int]int{}
	h.link.SetRelease(func(p packet) {
		released[p.id]++
		for i := range h.link.flights {
			if f := &h.link.flights[i]; f.d.Packet.id == p.id && f.sentAt == p.sentAt && f.d.Size > 0 {
				t.Errorf("packet %d released at %v while a copy is still on its way", p.id, h.e.Now())
			}
		}
	})
	seen := map[int]time.Duration{}
	inner := h.link.deliver
	h.link.deliver = func(d Delivery[packet]) {
		if _, ok := released[d.Packet.id]; ok {
			t.Errorf("packet %d delivered at %v after its release", d.Packet.id, h.e.Now())
		}
		seen[d.Packet.id] = h.e.Now()
		inner(d)
	}
	const n = 1000
	h.sendEvery(n, time.Millisecond, 100)
	for id := range n {
		assert.Equal(t, 1, released[id], "packet %d: releases", id)
	}
	c := h.link.Counters()
	assert.Positive(t, c.Duplicated, "the link duplicated packets")
	assert.Positive(t, c.Lost, "the link lost packets")
	assert.Positive(t, c.DroppedPartition, "the down window cut packets")
}
