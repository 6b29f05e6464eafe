package results

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// RunOptions are one run of the command (simulate run, and explore -seed): the scenario
// as the command line named it, with its overrides, the seed, the folder to write (none
// when Out is empty) with the trace or not, the report's length, and the determinism
// check. Explore, when set, replays one seed of an exploration: its fault mix is drawn,
// applied and printed, and only the invariants are judged.
type RunOptions struct {
	Arg                                string
	Overrides                          []file.Override
	Seed                               uint64
	Out                                string
	Trace, Quiet, Verbose, Determinism bool
	Explore                            *ExploreSeed
}

// ExploreSeed says which exploration a run replays a seed of: swarm or not.
type ExploreSeed struct{ Swarm bool }

// RunOne runs one scenario once, prints its seed, replay line and report to stdout and,
// with Out, writes its results folder; it returns the exit code.
func RunOne(ctx context.Context, stdout, stderr io.Writer, o RunOptions) int {
	var extra []string
	if o.Out != "" {
		extra = append(extra, "-out", o.Out)
	}
	if o.Trace {
		extra = append(extra, "-trace")
	}
	if o.Determinism {
		extra = append(extra, "-check-determinism")
	}
	s, err := file.Open(o.Arg)
	if err == nil {
		s, err = s.With(o.Overrides...)
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitUsage
	}
	var folder *Folder
	if o.Out != "" {
		if folder, err = OpenFolder(o.Out); err != nil { // before the run, not after
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return ExitNotWritten
		}
	}
	replayLine := PinnedReplay(file.Replay(o.Arg, o.Overrides, o.Seed, extra...), s.Hash)
	cfg := s.Config
	var mix *scenarios.FaultMix
	if o.Explore != nil {
		m := scenarios.DrawFaultMix(&cfg, o.Seed, o.Explore.Swarm)
		mix, cfg = &m, m.Apply(cfg)
		replayLine = PinnedReplay(batch.ExploreReplay(o.Arg, o.Overrides, o.Seed, o.Explore.Swarm, extra...), s.Hash)
	}
	if !o.Quiet {
		fmt.Fprintf(stdout, "seed: %d\n", o.Seed)
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
		if o.Trace {
			if cfg.TraceSink, err = folder.StreamTrace(); err != nil { // trace.jsonl, written as the run goes
				folder.Abandon()
				fmt.Fprintf(stderr, "simulate: %v\n", err)
				return ExitNotWritten
			}
		}
	}
	res, err := batch.Call(ctx, func() (*scenarios.Result, error) { return scenarios.Run(cfg, o.Seed) })
	switch {
	case ctx.Err() != nil:
		folder.Abandon()
		fmt.Fprintln(stderr, "simulate: interrupted before the run ended: nothing written")
		return ExitInterrupted
	case err != nil:
		folder.Abandon()
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitUsage
	}
	r := Run{Name: s.Config.Name, Question: s.Question, Description: s.Description, Result: res,
		Replay: replayLine, Verbose: o.Verbose}
	if mix == nil { // an exploration's seed is judged by its invariants alone
		r.Expectations = Verdicts(s, res)
	}
	var ok bool
	if o.Quiet {
		ok = WriteVerdict(stdout, r)
	} else {
		ok = WriteReport(stdout, r)
	}
	if folder != nil {
		files, err := WriteRunFolder(folder, RunOf{Arg: o.Arg, Overrides: o.Overrides, Seed: o.Seed, Trace: o.Trace,
			Scenario: s, Result: res, Explore: o.Explore, Config: &cfg}, r.Expectations)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return ExitNotWritten
		}
		if !o.Quiet {
			SayWritten(stdout, folder.Dir(), files)
		}
	}
	code := RunExitCode(ok, res.StopReason)
	if o.Determinism {
		code = Worst(code, RunDeterminism(ctx, batch.Job{Config: s.Config, Seed: o.Seed}, replayLine, stdout, stderr))
	}
	switch {
	case code == ExitFailed && !o.Quiet:
		fmt.Fprintf(stdout, "\nreplay: %s\n", replayLine)
	case code == ExitLimit:
		fmt.Fprintf(stderr, "simulate: the run stopped at a resource limit (%v) before its end: its results are partial\n", res.StopReason)
	}
	return code
}
