package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// G-20: the ranges a message holds, kept as they arrive, agree with the plainly correct
// version, one flag per fragment: which fragments are held, the prefix without a gap, and
// the selective ranges of the acknowledgement, after every fragment stored in any order.
func TestG20_HeldRangesAgreeWithOneFlagPerFragment(t *testing.T) {
	for _, count := range []int32{1, 2, 3, 7, 64, 65, 200} {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("count=%d seed=%d", count, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 0))
				order := rng.Perm(int(count))
				m := partialMessage{count: count}
				flags := make([]bool, count)
				for step, i := range order {
					f := int32(i)
					require.False(t, m.has(f), "step %d: fragment %d held before it arrived", step, f)
					m.set(f)
					flags[f] = true
					for g := range count {
						require.Equal(t, flags[g], m.has(g), "step %d: has(%d)", step, g)
					}
					prefix := int32(0)
					for prefix < count && flags[prefix] {
						prefix++
					}
					require.Equal(t, prefix, m.prefix(), "step %d: prefix", step)
					for _, start := range []int32{0, prefix} {
						ep := &endpoint{receiveSeq: 0, receiveFrag: start, in: &inbound{pending: []partialMessage{m}}}
						assert.Equal(t, flagRanges(flags, start), ep.ackFor(&slabs[FragmentRange]{}).Selective, "step %d: ranges from %d", step, start)
					}
				}
				assert.True(t, m.complete())
				assert.Len(t, m.held, min(1, int(count)-1), "a whole message is one range (none for one fragment)")
			})
		}
	}
}

// flagRanges lists the runs of held fragments from start on, as ackFor does.
func flagRanges(flags []bool, start int32) []FragmentRange {
	var out []FragmentRange
	for f := start; f < int32(len(flags)); f++ {
		if !flags[f] {
			continue
		}
		end := f
		for end < int32(len(flags)) && flags[end] {
			end++
		}
		out = append(out, FragmentRange{From: f, To: end})
		f = end
	}
	return out
}
