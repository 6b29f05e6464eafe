package batch

import (
	"context"
	"iter"

	"github.com/sbsim/sbsim/sim"
)

// SeedResult is one seed of a check as soon as it finished: why it failed (nothing when it
// passed), why its run stopped, or the error of a run that could not start or panicked.
type SeedResult struct {
	Name    string
	Seed    uint64
	Reasons []string
	Stop    sim.StopReason
	Err     error
	// Record is the run's record, for a shard of a check (CheckShard with record).
	Record *CheckRecord
}

// OK reports whether the seed passed.
func (r SeedResult) OK() bool { return r.Err == nil && len(r.Reasons) == 0 }

func newSeedResult(name string, o Outcome[runJudgement]) SeedResult {
	return SeedResult{Name: name, Seed: o.Seed, Reasons: o.Kept.reasons, Stop: o.Kept.stop, Err: o.Err}
}

// Until yields the pairs of seq until ctx is done (a SIGINT, say), then returns at once:
// it does not wait for the run under way, whose result is dropped when it ends. The
// caller tells an interrupted iteration by ctx.Err. seq runs on a goroutine of its own,
// so that the caller can stop waiting for it.
func Until[K, V any](ctx context.Context, seq iter.Seq2[K, V]) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		type pair struct {
			k K
			v V
		}
		pairs := make(chan pair)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(pairs)
			for k, v := range seq {
				select {
				case pairs <- pair{k, v}:
				case <-stop:
					return
				}
			}
		}()
		for {
			select {
			case p, ok := <-pairs:
				if !ok || !yield(p.k, p.v) {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}
}

// Call runs f on a goroutine of its own and returns what it returns, or ctx's error as soon
// as ctx is done, without waiting for f (a single run, interrupted).
func Call[T any](ctx context.Context, f func() (T, error)) (T, error) {
	var t T
	err := ctx.Err()
	for v, e := range Until(ctx, func(yield func(T, error) bool) { yield(f()) }) {
		t, err = v, e
	}
	if ctx.Err() != nil {
		return t, ctx.Err()
	}
	return t, err
}
