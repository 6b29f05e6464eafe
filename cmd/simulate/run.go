package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// runOptions are the flags of simulate run besides the scenario, its overrides and seed.
type runOptions struct {
	out                                string
	trace, quiet, verbose, determinism bool
	// explore, when set, replays one seed of an exploration (simulate explore -seed).
	explore *results.ExploreSeed
}

// cmdRun is `simulate run`.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("run", stderr)
	seed := fs.Uint64("seed", 0, "seed `N` of every random stream; without it, one is picked from the wall clock and printed")
	var o runOptions
	fs.StringVar(&o.out, "out", "", "`DIR` to write summary.json, series.csv, latency_cdf.csv, the plots, the scenario and replay.sh into")
	fs.BoolVar(&o.trace, "trace", false, "also write every trace record, as trace.jsonl (with -out)")
	fs.BoolVar(&o.quiet, "q", false, "print only the replay line and the verdict")
	fs.BoolVar(&o.verbose, "v", false, "list every row of the long tables (conversations, queues over time)")
	fs.BoolVar(&o.determinism, "check-determinism", false, results.DeterminismUsage)
	sets := overridesFlag(fs)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintf(stderr, "simulate run: want one scenario, a file or a library name (simulate list), got %d: %s\n"+
			"(flags alone run %s: to run another, simulate run NAME -seed N)\n", len(pos), strings.Join(pos, " "), file.Showcase)
		fs.Usage()
		return results.ExitUsage
	case o.trace && o.out == "":
		fmt.Fprintln(stderr, "simulate run: -trace writes trace.jsonl into the -out directory: give -out too")
		return results.ExitUsage
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if !seedSet {
		*seed = uint64(time.Now().UnixNano()) // printed first, so the run can be replayed
	}
	return runScenario(ctx, pos[0], *sets, *seed, o, stdout, stderr)
}

// showcase is what `simulate` with no argument does: run the showcase scenario on a new
// seed, write everything to a folder it names, and say what to open.
func showcase(ctx context.Context, stdout, stderr io.Writer) int {
	seed := uint64(time.Now().UnixNano())
	dir := filepath.Join("sbsim-results", fmt.Sprintf("%s-seed-%d", file.Showcase, seed))
	return runScenario(ctx, file.Showcase, nil, seed, runOptions{out: dir}, stdout, stderr)
}

// runScenario runs one scenario once, prints its report and, with out, writes its results.
func runScenario(ctx context.Context, arg string, sets []file.Override, seed uint64, o runOptions, stdout, stderr io.Writer) int {
	ro := results.RunOptions{Arg: arg, Overrides: sets, Seed: seed, Out: o.out, Trace: o.trace, Quiet: o.quiet,
		Verbose: o.verbose, Determinism: o.determinism, Explore: o.explore}
	return results.RunOne(ctx, stdout, stderr, ro)
}
