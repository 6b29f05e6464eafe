package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdExplore is `simulate explore`: a scenario over seeds 1 to N, each with a fault mix
// drawn for it (scenarios.DrawFaultMix) and printed under it, its invariants checked and its
// liveness phase after the faults heal. With -seed it replays one seed as `run` would.
func cmdExplore(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("explore", stderr)
	seeds := fs.Int("seeds", 100, "explore seeds 1 to `N`")
	seed := fs.Uint64("seed", 0, "replay seed `N` alone, with its fault mix, and print its report (as run does)")
	swarm := fs.Bool("swarm", false, "turn each kind of fault on for about half the seeds (swarm testing), not all on every seed")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`; the output does not depend on it")
	out := fs.String("out", "", "`DIR` for seeds.jsonl, one line per seed as it finishes (default sbsim-results/explore-NAME); with -seed, the run's results")
	trace := fs.Bool("trace", false, "with -seed and -out, also write trace.jsonl")
	verbose := fs.Bool("v", false, "print every seed and its faults as it finishes, not only those that fail")
	quiet := fs.Bool("q", false, "with -seed, print only the replay line, the faults and the verdict")
	shrinkRuns := fs.Int("shrink-runs", results.DefaultExploreShrinkRuns, "shrink each kept failing seed into seed-N/card with at most `N` runs (0: no card)")
	sets := overridesFlag(fs)
	shard := shardFlag(fs)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	switch {
	case len(pos) != 1:
		fmt.Fprintln(stderr, "simulate explore: want one scenario, a file or a library name (simulate list)")
		return results.ExitUsage
	case *seeds < 1 || *nworkers < 1:
		fmt.Fprintln(stderr, "simulate explore: -seeds and -workers must be 1 or more")
		return results.ExitUsage
	case seedSet && shard.Sharded():
		fmt.Fprintln(stderr, "simulate explore: -shard splits the seeds of -seeds N: not with -seed")
		return results.ExitUsage
	case *trace && (!seedSet || *out == ""):
		fmt.Fprintln(stderr, "simulate explore: -trace writes trace.jsonl of one seed: give -seed and -out")
		return results.ExitUsage
	}
	if seedSet {
		return runScenario(ctx, pos[0], *sets, *seed, runOptions{out: *out, trace: *trace, verbose: *verbose, quiet: *quiet,
			explore: &results.ExploreSeed{Swarm: *swarm}}, stdout, stderr)
	}
	s, err := open(pos[0], *sets)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return results.ExitUsage
	}
	tick, finish := results.Progress(stderr, *seeds, "exploring")
	o := results.ExploreOptions{Arg: pos[0], Overrides: *sets, Seeds: *seeds, Swarm: *swarm, Shard: *shard, ShrinkRuns: *shrinkRuns,
		BatchOptions: results.BatchOptions{Out: *out, Workers: *nworkers, Verbose: *verbose, Progress: tick, Done: finish}}
	return results.Explore(ctx, stdout, stderr, s, o)
}
