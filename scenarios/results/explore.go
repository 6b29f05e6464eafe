package results

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// ExploreOptions are what an exploration runs (simulate explore): the scenario as the
// command line named it (Arg, with its Overrides, for the replay lines), seeds 1 to Seeds,
// swarm or not, as the batch options say (seeds.jsonl in Out, by default
// sbsim-results/explore-NAME).
type ExploreOptions struct {
	Arg       string
	Overrides []file.Override
	Seeds     int
	Swarm     bool
	BatchOptions
}

// Explore explores s (batch.Explore): each failing seed printed to stdout as it finishes,
// its faults under it, each seed a line of seeds.jsonl, then the verdict over the seeds. It
// returns the exit code: ExitFailed when a seed failed, ExitInterrupted when ctx ended it.
func Explore(ctx context.Context, stdout, stderr io.Writer, s *file.Scenario, o ExploreOptions) int {
	report, err := NewBatchReport(stdout, BatchDir(o.Out, "explore", o.Arg), o.Verbose)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitNotWritten
	}
	mode := "every kind of fault drawn for each seed"
	if o.Swarm {
		mode = "swarm: each kind of fault on about half the seeds"
	}
	fmt.Fprintf(stdout, "exploring %s over seeds 1 to %d, a fault mix drawn for each (%s), then the liveness phase\n",
		o.Arg, o.Seeds, mode)
	rules := map[string]int{}
	var marks batch.MarkTally
	var kept []uint64 // the failing seeds whose runs the folder keeps
	for e := range batch.Until(ctx, paired(batch.Explore(s, o.Seeds, o.Swarm, o.Workers, o.Progress))) {
		if !e.OK() {
			rules[cmp.Or(e.Rule, "an error")]++
			if e.Err == nil && len(kept) < KeptFailingSeeds {
				kept = append(kept, e.Seed)
			}
		}
		if e.Err == nil {
			marks.Add(&e.Marks)
		}
		report.Explored(o.Arg, e, PinnedReplay(batch.ExploreReplay(o.Arg, o.Overrides, e.Seed, o.Swarm), s.Hash))
	}
	o.done()
	missing := marks.Missing(s.RequireMarks)
	switch {
	case report.Failed == 0 && len(missing) == 0:
		fmt.Fprintf(stdout, "PASS  %s: every invariant held on %d seeds\n", o.Arg, report.Runs)
	case report.Failed == 0:
		report.FailedVerdicts++
		fmt.Fprintf(stdout, "FAIL  %s: every invariant held on %d seeds, but not every mark it requires was reached\n", o.Arg, report.Runs)
	default:
		var broken []string
		for rule, n := range rules {
			broken = append(broken, fmt.Sprintf("%s on %d", rule, n))
		}
		sort.Strings(broken)
		fmt.Fprintf(stdout, "FAIL  %s: %d of %d seeds failed (%s)\n", o.Arg, report.Failed, report.Runs, strings.Join(broken, ", "))
	}
	fmt.Fprint(stdout, marks.Text(s.RequireMarks))
	for _, seed := range kept {
		if ctx.Err() != nil {
			break
		}
		keepSeed(ctx, stdout, stderr, report.Folder.Dir(), s, o, seed)
	}
	return report.Close(o.Seeds, ctx.Err() != nil, stderr)
}

// paired makes seq an iter.Seq2, for batch.Until.
func paired[T any](seq iter.Seq[T]) iter.Seq2[T, struct{}] {
	return func(yield func(T, struct{}) bool) {
		for v := range seq {
			if !yield(v, struct{}{}) {
				return
			}
		}
	}
}

// KeptFailingSeeds is how many failing seeds an exploration keeps the whole results of,
// trace included, each in a folder seed-N of its own.
const KeptFailingSeeds = 5

// keepSeed runs seed of the exploration again into dir/seed-N, as explore -seed N -out
// -trace writes it (summary.json, trace.jsonl, the scenario's copy, replay.sh), and says
// where: the folder simulate recheck reads, and replays by itself.
func keepSeed(ctx context.Context, stdout, stderr io.Writer, dir string, s *file.Scenario, o ExploreOptions, seed uint64) {
	out := filepath.Join(dir, fmt.Sprintf("seed-%d", seed))
	ro := RunOptions{Arg: o.Arg, Overrides: o.Overrides, Seed: seed, Out: out, Trace: true, Quiet: true,
		Explore: &ExploreSeed{Swarm: o.Swarm}}
	if code := RunOne(ctx, io.Discard, stderr, ro); code == ExitNotWritten || code == ExitUsage || code == ExitInterrupted {
		return
	}
	fmt.Fprintf(stdout, "      seed %d: its results and trace are in %s (simulate recheck %s)\n", seed, out, out)
	base := batch.Judged(s.Config)
	shrunk, err := shrink.Shrink(scenarios.DrawFaultMix(&base, seed, o.Swarm).Apply(base), seed, shrink.Options{MaxRuns: ExploreShrinkRuns})
	if err != nil {
		fmt.Fprintf(stdout, "      seed %d: no counterexample card: %v\n", seed, err)
		return
	}
	cardDir := filepath.Join(out, "card")
	if _, err := shrunk.WriteCard(cardDir); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return
	}
	fmt.Fprintf(stdout, "      seed %d: shrunk to %v: counterexample card in %s\n", seed, shrunk.After, filepath.Join(cardDir, shrink.CardFile))
}

// ExploreShrinkRuns bounds the runs that shrink each failing seed explore keeps.
const ExploreShrinkRuns = 300
