// Package batch runs many runs of scenarios: a check of scenarios over seeds, and a sweep
// of a scenario over a grid of parameter values and seeds, on several workers.
//
// Each run is single-threaded and deterministic; the workers only run several at once.
// Results come out as an iterator, in the order of the jobs whatever the number of workers
// and whatever finishes first, so that what follows them does not depend on it. A result
// is dropped as soon as it has been yielded and only a few runs ahead of the one awaited
// are kept (twice the workers), so the memory of a batch does not grow with its number of
// seeds: a check keeps each seed's verdict, a sweep each run's metrics
// (scenarios.Measures), never the results themselves. An expectation judged over the seeds
// (file.OverSeeds) keeps a few numbers, counts and a running mean and variance, and is
// judged once its seeds are in: over all of a check's, over each point's in a sweep.
// CheckSeeds yields each seed of a check as soon as it and those before it finished, and
// Until stops an iteration at once when its context is done (a SIGINT), so that a command
// keeps and says what finished.
//
// Determinism checks that claim: it runs each job twice, the second time at another
// GOMAXPROCS among another number of workers, compares running hashes of their traces
// (TraceDigest), and runs a job whose hashes differ twice more side by side to name the
// first trace record that differs (SideBySide). A user's Go hooks can break determinism
// (a map ranged over, the clock read); CheckDeterminism(job) says so from their tests.
//
// Usage:
//
//	f, err := file.Library("priority-flood")
//	...
//	for v := range batch.Check([]batch.Target{{Name: "priority-flood", Scenario: f, Seeds: 100}}, runtime.GOMAXPROCS(0), nil) {
//		if !v.OK() { /* v.Failures: the seeds that failed and why */ }
//	}
package batch
