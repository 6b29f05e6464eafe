package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/results"
)

// determinismFlag adds -check-determinism, into on, to the flags of run and check.
func determinismFlag(fs *flag.FlagSet, on *bool) {
	fs.BoolVar(on, "check-determinism", false, "also run each seed twice more, the second time with another GOMAXPROCS (and, for\n"+
		"check, another number of workers), compare running hashes of their traces, and print the first trace record\n"+
		"that differs (docs/getting-started.md#the-determinism-check)")
}

// checkDeterminism runs the jobs twice more (batch.Determinism), prints each seed whose
// runs differ with the command that replays it (replay gives it for a job's index), and
// says how many seeds ran; it returns the exit code: ExitFailed when a seed's runs differ.
func checkDeterminism(ctx context.Context, jobs []batch.Job, workers int, replay func(i int) string, stdout, stderr io.Writer) int {
	tick, finish := progress(stderr, 2*len(jobs), "checking determinism")
	divergences := func(yield func(batch.Divergence, struct{}) bool) {
		for d := range batch.Determinism(jobs, workers, tick) {
			if !yield(d, struct{}{}) {
				return
			}
		}
	}
	differ, failed := 0, 0
	for d := range batch.Until(ctx, divergences) {
		label := "NOT DETERMINISTIC"
		if d.Err != nil {
			label, failed = "FAIL", failed+1
		} else {
			differ++
		}
		report := strings.ReplaceAll(d.Error(), "\n", "\n    ") // indented under the seed, as check's details
		fmt.Fprintf(stdout, "%s  %s\n      replay: %s\n", label, report, replay(d.Index))
	}
	finish()
	p := batch.DeterminismPasses(workers, len(jobs))
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "simulate: interrupted during the determinism check")
		return results.ExitInterrupted
	case differ > 0 || failed > 0:
		fmt.Fprintf(stdout, "determinism: %d of %s not deterministic, %d could not run (runs with %v, then %v)\n",
			differ, seedCount(len(jobs)), failed, p[0], p[1])
		return results.ExitFailed
	}
	fmt.Fprintf(stdout, "determinism: ok, %s, each run twice more (with %v, then %v): the same traces\n", seedCount(len(jobs)), p[0], p[1])
	return results.ExitOK
}

// seedCount is "1 seed" or "N seeds".
func seedCount(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", n)
}
