package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// newPendingScheduler fills a scheduler with n dialogs spread over the ten levels, as a
// broker does: they become ready one after the other over the last minute.
func newPendingScheduler(n int) (*scheduler, *rand.Rand) {
	r := rand.New(rand.NewPCG(1, 2))
	s := newScheduler()
	for i := range n {
		ep := &endpoint{conv: ConversationID(i + 1), isInitiator: true, txLevel: PriorityLevel(1 + r.IntN(10)),
			readySince: time.Duration(i) * time.Minute / time.Duration(n)}
		s.push(ep)
	}
	return s, r
}

// BenchmarkScheduler measures one scheduling decision and the re-keying of the chosen
// dialog, with 1,000 to 1,000,000 dialogs waiting over ten levels, aging on, for two
// patterns of keys. "idle": the chosen dialog waits again from now on (its next message
// comes later), so it joins the back of its level's list, and one in fifty has a
// retransmission due in the past instead. "backlog": every dialog has a backlog and its
// next message was sent a few milliseconds after the one that just left, so almost every
// re-key lands in the heap, as on the priority-flood world. Target: O(log n) — the cost
// at 1,000,000 at most twice the cost at 1,000.
//
//	go test ./model -run '^$' -bench BenchmarkScheduler -benchmem
func BenchmarkScheduler(b *testing.B) {
	cfg := DefaultConfig()
	for _, keys := range []string{"idle", "backlog"} {
		for _, n := range []int{1_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("keys=%s/pending=%d", keys, n), func(b *testing.B) {
				s, r := newPendingScheduler(n)
				now := time.Minute
				decide := func(i int) {
					ep := s.pick(&cfg, now)
					switch {
					case keys == "backlog":
						ep.readySince += time.Duration(r.Int64N(int64(20 * time.Millisecond)))
					case i%50 == 0:
						ep.readySince = now - time.Duration(r.Int64N(int64(time.Minute)))
					default:
						ep.readySince = now
					}
					s.rekey(ep, true)
					now += time.Microsecond
				}
				// Reach the steady state first: every dialog served once or twice.
				for i := range 2 * n {
					decide(i)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					decide(i)
				}
			})
		}
	}
}
