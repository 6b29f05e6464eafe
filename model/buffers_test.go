package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlabsReuseClearedSlicesWithinTheirBound checks the free lists: a slice put back is
// handed out again, emptied and with its old elements cleared (it keeps nothing alive),
// to a request its room satisfies; grow keeps the elements; and a class keeps at most
// slabBytesPerClass of room, so that a burst does not stay in memory for ever.
func TestSlabsReuseClearedSlicesWithinTheirBound(t *testing.T) {
	var p slabs[Ack]
	s := p.get(3)
	require.Equal(t, 4, cap(s), "room rounded up to a power of two")
	s = append(s, Ack{Selective: []FragmentRange{{Sequence: 1}}}, Ack{Valid: true})
	p.put(s)
	again := p.get(4)
	require.Len(t, again, 0)
	assert.Same(t, &s[:1][0], &again[:1][0], "the slice put back is reused")
	assert.Equal(t, Ack{}, again[:2][0], "its elements were cleared")
	assert.Equal(t, Ack{}, again[:2][1], "its elements were cleared")

	var g []Ack
	for i := range 100 {
		g = p.push(g, Ack{Fragment: int32(i)})
	}
	for i := range g {
		require.Equal(t, int32(i), g[i].Fragment, "grow keeps element %d", i)
	}

	var rows slabs[txqRow]
	limit := slabsPerClass(64, 3) // txqRow is 64 bytes
	for range limit + 100 {
		rows.put(make([]txqRow, 0, 8))
	}
	assert.Len(t, rows.free[3], limit, "class 3 keeps at most its bound")
	assert.LessOrEqual(t, limit*8*64, slabBytesPerClass)

	// Large classes: at least slabsPerClassMin slices while they fit in
	// slabBytesMaxPerClass, fewer beyond, none for a slice larger than that.
	for k := range slabClasses {
		n, slice := slabsPerClass(64, k), 64<<k
		assert.LessOrEqual(t, n*slice, slabBytesMaxPerClass, "class %d keeps %d slices of %d bytes", k, n, slice)
		if slice*slabsPerClassMin <= slabBytesMaxPerClass {
			assert.GreaterOrEqual(t, n, slabsPerClassMin, "class %d", k)
		}
	}
	assert.Equal(t, 0, slabsPerClass(64, 23), "a slice of 512 MiB is not kept")

	var off slabs[Ack]
	off.keep = true
	off.put(make([]Ack, 0, 4))
	assert.Empty(t, off.free[2], "with recycling off nothing is kept")
}
