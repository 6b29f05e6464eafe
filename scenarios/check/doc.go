// Package check runs a design's seeds from a user's own go test, and fails the test on
// the first seed that breaks a rule, with what a designer needs to see it: the rule, the
// checker's message, the trace records that led to it, and the command and the Go call
// that replay that seed.
//
// Seeds checks a Go config (scenarios.Config), File a scenario file (scenarios/file).
// Options say which seeds: a fixed list, seeds 1 to N, or a swarm, in which each seed
// runs in a world of its own, the design with the fault mix simulate explore -swarm draws
// for that seed (gen.Swarm, docs/explore.md: loss, bursts, duplication, corruption,
// reordering, slow links, partitions, crashes, queue outages, rollbacks, until the faults
// heal, then the liveness phase). The seeds run on several workers through batch.Map, in order and in
// constant memory: only a failing seed's verdict is kept, never a result.
//
// A seed fails when its run cannot start or panics, when an invariant checker reports a
// violation (INV-1, INV-4, ...; the rules are docs/rules.md's), when it has a design
// finding (G-16), or, for a file run without a swarm, when one of the file's per-seed
// expectations does not hold. Once every seed passed, a file's statistical expectations
// (file.OverSeeds: in 95 % of the seeds, a mean) are judged over them, as simulate check
// judges them (batch.OverSeeds), and the test fails when one does not hold.
//
// SBSIM_SEEDS (a comma-separated list of seeds) replaces the seeds of every check in the
// test binary: the replay line a failure prints sets it.
//
// Usage:
//
//	func TestOrdersSurviveEveryFaultMix(t *testing.T) {
//		check.File(t, "orders.yaml", check.Options{N: 200, Swarm: true})
//	}
package check
