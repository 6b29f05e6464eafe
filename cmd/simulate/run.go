package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// runOptions are the flags of simulate run besides the scenario, its overrides and seed.
type runOptions struct {
	out                                string
	trace, quiet, verbose, determinism bool
	// explore, when set, replays one seed of an exploration (simulate explore -seed).
	explore *exploreOptions
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
	var extra []string
	if o.trace {
		extra = append(extra, "-trace")
	}
	if o.determinism {
		extra = append(extra, "-check-determinism")
	}
	s, err := open(arg, sets)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return results.ExitUsage
	}
	var folder *results.Folder
	if o.out != "" {
		if folder, err = results.OpenFolder(o.out); err != nil { // before the run, not after
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return results.ExitNotWritten
		}
	}
	replayLine := results.PinnedReplay(file.Replay(arg, sets, seed, append(outFlag(o.out), extra...)...), s.Hash)
	cfg := s.Config
	var mix *scenarios.FaultMix
	if o.explore != nil {
		m := scenarios.DrawFaultMix(&cfg, seed, o.explore.swarm)
		mix, cfg = &m, m.Apply(cfg)
		replayLine = results.PinnedReplay(batch.ExploreReplay(arg, sets, seed, o.explore.swarm, append(outFlag(o.out), extra...)...), s.Hash)
	}
	if !o.quiet {
		fmt.Fprintf(stdout, "seed: %d\n", seed)
	}
	fmt.Fprintf(stdout, "replay: %s\n", replayLine)
	if mix != nil {
		fmt.Fprintf(stdout, "%s\n", mix)
	}
	if cfg.Trace { // the command never reads Result.Trace: count what the records give, keep none
		cfg.Trace, cfg.Conversations = false, true
	}
	if folder != nil {
		cfg.Conversations = true // summary.json's table, counted as the run goes
		if o.trace {
			if cfg.TraceSink, err = folder.StreamTrace(); err != nil { // trace.jsonl, written as the run goes
				folder.Abandon()
				fmt.Fprintf(stderr, "simulate: %v\n", err)
				return results.ExitNotWritten
			}
		}
	}
	res, err := batch.Call(ctx, func() (*scenarios.Result, error) { return scenarios.Run(cfg, seed) })
	switch {
	case ctx.Err() != nil:
		folder.Abandon()
		fmt.Fprintln(stderr, "simulate: interrupted before the run ended: nothing written")
		return results.ExitInterrupted
	case err != nil:
		folder.Abandon()
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return results.ExitUsage
	}
	r := results.Run{Name: s.Config.Name, Question: s.Question, Description: s.Description, Result: res,
		Replay: replayLine, Verbose: o.verbose}
	if mix == nil { // an exploration's seed is judged by its invariants alone
		r.Expectations = results.Verdicts(s, res)
	}
	var ok bool
	if o.quiet {
		ok = results.WriteVerdict(stdout, r)
	} else {
		ok = results.WriteReport(stdout, r)
	}
	if folder != nil {
		files, err := results.WriteRunFolder(folder, results.RunOf{Arg: arg, Overrides: sets, Seed: seed, Trace: o.trace,
			Scenario: s, Result: res}, r.Expectations)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return results.ExitNotWritten
		}
		if !o.quiet {
			results.SayWritten(stdout, folder.Dir(), files)
		}
	}
	code := results.RunExitCode(ok, res.StopReason)
	if o.determinism {
		code = results.Worst(code, results.RunDeterminism(ctx, batch.Job{Config: s.Config, Seed: seed}, replayLine, stdout, stderr))
	}
	switch {
	case code == results.ExitFailed && !o.quiet:
		fmt.Fprintf(stdout, "\nreplay: %s\n", replayLine)
	case code == results.ExitLimit:
		fmt.Fprintf(stderr, "simulate: the run stopped at a resource limit (%v) before its end: its results are partial\n", res.StopReason)
	}
	return code
}

// outFlag is -out DIR for a replay line, or nothing.
func outFlag(out string) []string {
	if out == "" {
		return nil
	}
	return []string{"-out", out}
}
