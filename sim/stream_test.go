package sim

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func draws(e *Engine, name string, n int) []uint64 {
	r := e.Stream(name)
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestAddingAStreamLeavesOtherStreamsDrawsUnchanged(t *testing.T) {
	alone := New(7)
	want := draws(alone, "link/A->B", 100)

	crowded := New(7)
	// Other streams made before, and drawn from heavily, must not shift link/A->B.
	for i := range 20 {
		draws(crowded, fmt.Sprintf("app/%d", i), 1000)
	}
	got := draws(crowded, "link/A->B", 100)

	assert.Equal(t, want, got)
}

func TestStreamsDifferByNameAndBySeed(t *testing.T) {
	base := draws(New(7), "link/A->B", 8)

	assert.NotEqual(t, base, draws(New(7), "link/B->A", 8), "another name")
	assert.NotEqual(t, base, draws(New(8), "link/A->B", 8), "another seed")
	assert.Equal(t, base, draws(New(7), "link/A->B", 8), "same seed and name")
}

func TestStreamRequestedTwicePanics(t *testing.T) {
	e := New(7)
	e.Stream("workload")

	assert.PanicsWithValue(t, `sim: random stream "workload" requested twice`, func() { e.Stream("workload") })
}

func TestHasStreamReportsRequestedNames(t *testing.T) {
	e := New(7)
	assert.False(t, e.HasStream("workload"))
	e.Stream("workload")
	assert.True(t, e.HasStream("workload"))
}
