package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdCheck is `simulate check`: every named scenario (or the whole library with `all`) on
// seeds 1 to N; a scenario passes when the invariants and every expectation hold on every
// seed. Each seed is reported as it finishes, to the console when it fails and to
// seeds.jsonl, so that an interrupt keeps what was done.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("check", stderr)
	seeds := fs.Int("seeds", 0, "run seeds 1 to `N`; 0 takes each file's own seeds (10 when it says none)")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`; the output does not depend on it")
	out := fs.String("out", "", "`DIR` for seeds.jsonl, one line per seed as it finishes (default sbsim-results/check-NAME)")
	verbose := fs.Bool("v", false, "print every seed as it finishes, not only those that fail")
	determinism := fs.Bool("check-determinism", false, results.DeterminismUsage)
	shrinkRuns := fs.Int("shrink-runs", results.DefaultExploreShrinkRuns, "shrink each kept seed that broke an invariant into NAME-seed-N/card with at most `N` runs (0: no card)")
	sets := overridesFlag(fs)
	shard := shardFlag(fs)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		fmt.Fprintln(stderr, "simulate check: want scenario files or library names, or all")
		return results.ExitUsage
	case *seeds < 0 || *nworkers < 1:
		fmt.Fprintln(stderr, "simulate check: -seeds must be 0 or more and -workers 1 or more")
		return results.ExitUsage
	}
	o := results.CheckOptions{Args: pos, Overrides: *sets, Seeds: *seeds, Shard: *shard, Determinism: *determinism, ShrinkRuns: *shrinkRuns,
		Bar:          func(n int, what string) (func(), func()) { return results.Progress(stderr, n, what) },
		BatchOptions: results.BatchOptions{Out: *out, Workers: *nworkers, Verbose: *verbose}}
	return results.Check(ctx, stdout, stderr, o)
}
