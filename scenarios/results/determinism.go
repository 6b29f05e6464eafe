package results

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// DeterminismUsage is the help of the -check-determinism flag of run and check.
const DeterminismUsage = "also run each seed twice more, the second time with another GOMAXPROCS (and, for\n" +
	"check, another number of workers), compare running hashes of their traces, and print the first trace record\n" +
	"that differs (docs/getting-started.md#the-determinism-check)"

// CheckDeterminism is check -check-determinism: it runs the seeds of the targets, with the
// overrides, twice more (batch.Determinism, on workers), prints each one whose runs differ,
// or that could not run, with the command that replays it, and sums up. It returns
// ExitFailed when a seed's runs differ or could not run, ExitInterrupted when ctx ended
// first. tick, when not nil, is called once per run finished.
func CheckDeterminism(ctx context.Context, targets []batch.Target, overrides []file.Override, workers int, tick func(), stdout, stderr io.Writer) int {
	jobs, replay := batch.Jobs(targets), CheckReplay(targets, overrides)
	return reportDeterminism(ctx, jobs, workers, tick, func(i int) string {
		return replay(batch.TargetOf(targets, i).Name, jobs[i].Seed, "-check-determinism")
	}, stdout, stderr)
}

// RunDeterminism is run -check-determinism: CheckDeterminism for the one job of a run,
// whose replay line is replay.
func RunDeterminism(ctx context.Context, job batch.Job, replay string, stdout, stderr io.Writer) int {
	return reportDeterminism(ctx, []batch.Job{job}, 1, nil, func(int) string { return replay }, stdout, stderr)
}

// reportDeterminism runs the jobs twice more and reports each divergence, with the
// command replay gives for its job's index, then the sum.
func reportDeterminism(ctx context.Context, jobs []batch.Job, workers int, tick func(), replay func(i int) string, stdout, stderr io.Writer) int {
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
		report := strings.ReplaceAll(d.Error(), "\n", "\n    ") // indented under the seed, as a check's details
		fmt.Fprintf(stdout, "%s  %s\n      replay: %s\n", label, report, replay(d.Index))
	}
	p := batch.DeterminismPasses(workers, len(jobs))
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "simulate: interrupted during the determinism check")
		return ExitInterrupted
	case differ > 0 || failed > 0:
		fmt.Fprintf(stdout, "determinism: %d of %s not deterministic, %d could not run (runs with %v, then %v)\n",
			differ, seedCount(len(jobs)), failed, p[0], p[1])
		return ExitFailed
	}
	fmt.Fprintf(stdout, "determinism: ok, %s, each run twice more (with %v, then %v): the same traces\n", seedCount(len(jobs)), p[0], p[1])
	return ExitOK
}

// seedCount is "1 seed" or "N seeds".
func seedCount(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", n)
}
