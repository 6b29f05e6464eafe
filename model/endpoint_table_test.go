package model

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndpointTableIsAMap checks the endpoint table against a map, the plainly correct
// slow version: random sets and removes of ids from several origin instances, and lookups
// of ids it never held, give the same answers, the same count, and every endpoint in id
// order; pages whose endpoints are all gone are dropped.
func TestEndpointTableIsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tab endpointTable
	ref := map[uint64]*endpoint{}
	id := func() uint64 { return worldUnique(InstanceID(rng.IntN(3)), uint64(rng.IntN(2000))) }
	for step := range 20000 {
		k := id()
		switch rng.IntN(3) {
		case 0:
			ep := &endpoint{handle: ConversationHandle(k)}
			tab.set(k, ep)
			ref[k] = ep
		case 1:
			tab.remove(k)
			delete(ref, k)
		}
		require.Same(t, ref[k], tab.get(k), "step %d: id %x", step, k)
		require.Equal(t, len(ref), tab.len(), "step %d: count", step)
	}
	assert.Nil(t, tab.get(0), "an id of no instance")
	assert.Nil(t, tab.get(worldUnique(40, 5)), "an id of an instance the table never saw")
	assert.Nil(t, tab.get(worldUnique(0, 1<<40)), "an id beyond every page")
	var got []uint64
	for ep := range tab.all {
		got = append(got, uint64(ep.handle))
	}
	assert.True(t, slices.IsSorted(got), "in id order")
	assert.Len(t, got, len(ref))
	for k := range ref {
		tab.remove(k)
	}
	for _, pages := range tab.origins {
		for i, p := range pages {
			assert.Nil(t, p, "page %d kept with no endpoint", i)
		}
	}
}
