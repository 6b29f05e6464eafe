package gen

import (
	"fmt"
	mathrand "math/rand"

	"github.com/leanovate/gopter"

	"github.com/sbsim/sbsim/scenarios"
)

// Swarm is cfg with the fault mix of seed, the one simulate explore -swarm draws for the
// same seed (scenarios.DrawFaultMix): each kind of fault (loss, bursts, duplication,
// corruption, reordering, slow links, partitions, crashes, queue outages, rollbacks) on
// for about half the seeds, at a strength drawn for it, until the faults heal; then the
// liveness phase (docs/explore.md). The seed alone gives the mix, so that a seed names both
// the mix and the run: Swarm(cfg, seed), run with seed, is explore -swarm's seed.
func Swarm(cfg scenarios.Config, seed uint64) (scenarios.Config, scenarios.FaultMix) {
	m := scenarios.DrawFaultMix(&cfg, seed, true)
	return m.Apply(cfg), m
}

// Draw draws one value from g, a generator of T (Worlds, Lives, Programs, ...), with a gopter
// generator seeded with seed: the same seed gives the same value. It panics when g draws
// none (a generator with a sieve that refused it), or a value that is not a T.
func Draw[T any](g gopter.Gen, seed uint64) T {
	params := &gopter.GenParameters{MaxSize: 100, MaxShrinkCount: 1000, Rng: mathrand.New(gopter.NewLockedSource(int64(seed)))}
	v, ok := g(params).Retrieve()
	if !ok {
		panic(fmt.Sprintf("gen.Draw: the generator drew no value for seed %d", seed))
	}
	return v.(T)
}
