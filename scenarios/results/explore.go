package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// ExploreOptions are what an exploration runs (simulate explore): the scenario as the
// command line named it (Arg, with its Overrides, for the replay lines), seeds 1 to Seeds
// (or the Shard of them), swarm or not, as the batch options say (seeds.jsonl in Out, by
// default sbsim-results/explore-NAME).
type ExploreOptions struct {
	Arg       string
	Overrides []file.Override
	Seeds     int
	Swarm     bool
	// Shard, when set, runs only its seeds (batch.Shard.Range) and writes shard.json
	// beside seeds.jsonl, for simulate merge.
	Shard batch.Shard
	// ShrinkRuns bounds the runs that shrink each kept failing seed into its counterexample
	// card (DIR/seed-N/card); zero makes no card.
	ShrinkRuns int
	BatchOptions
}

// DefaultExploreShrinkRuns is simulate explore's -shrink-runs.
const DefaultExploreShrinkRuns = 300

// Explore explores s (batch.Explore): each failing seed printed to stdout as it finishes,
// its faults under it, each seed a line of seeds.jsonl, then the verdict over the seeds. It
// returns the exit code: ExitFailed when a seed failed, ExitInterrupted when ctx ended it.
// A shard explores its seeds as the whole exploration would, and writes what a merge needs
// in shard.json (ShardManifest).
func Explore(ctx context.Context, stdout, stderr io.Writer, s *file.Scenario, o ExploreOptions) int {
	report, err := NewBatchReport(stdout, BatchDir(o.Out, "explore", o.Arg), o.Verbose)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitNotWritten
	}
	first, last := o.Shard.Range(o.Seeds)
	fmt.Fprint(stdout, exploreHeader(o.Arg, o.Seeds, o.Swarm, o.Shard))
	m := ShardManifest{Command: "explore", Scenario: o.Arg, Overrides: overrideStrings(o.Overrides), ScenarioHash: s.Hash, ShrinkRuns: o.ShrinkRuns,
		CodeVersion: CodeVersion(), Seeds: o.Seeds, Swarm: o.Swarm, Shard: o.Shard.String(), Index: o.Shard.Index,
		Count: o.Shard.Count, FirstSeed: first, LastSeed: last, Rules: map[string]int{}, Marks: &batch.MarkTally{},
		RequireMarks: batch.MarkNames(s.RequireMarks)}
	for e := range batch.Until(ctx, paired(batch.ExploreSeeds(s, first, last, o.Swarm, o.Workers, o.Progress))) {
		m.add(e)
		report.Explored(o.Arg, e, PinnedReplay(batch.ExploreReplay(o.Arg, o.Overrides, e.Seed, o.Swarm), s.Hash))
	}
	o.done()
	exploreVerdict(stdout, report, o.Arg, m.Rules, m.Marks, s.RequireMarks)
	for _, seed := range m.KeptSeeds {
		if ctx.Err() != nil {
			break
		}
		keepSeed(ctx, stdout, stderr, report.Folder.Dir(), s, o, seed)
	}
	if o.Shard.Sharded() && ctx.Err() == nil {
		m.Runs = report.Runs
		m.write(report)
	}
	return report.Close(int(last+1-first), ctx.Err() != nil, stderr) // the shard's seeds
}

// exploreHeader is the first line an exploration prints: of all its seeds, or of a shard's.
func exploreHeader(arg string, seeds int, swarm bool, shard batch.Shard) string {
	mode := "every kind of fault drawn for each seed"
	if swarm {
		mode = "swarm: each kind of fault on about half the seeds"
	}
	which := fmt.Sprintf("seeds 1 to %d", seeds)
	if first, last := shard.Range(seeds); shard.Sharded() {
		which = fmt.Sprintf("seeds %d to %d, shard %s of seeds 1 to %d", first, last, shard, seeds)
	}
	return fmt.Sprintf("exploring %s over %s, a fault mix drawn for each (%s), then the liveness phase\n", arg, which, mode)
}

// exploreVerdict prints an exploration's verdict over its seeds: PASS, or FAIL with the
// rules broken and on how many seeds (rules), or the marks required that no seed reached;
// then what the marks say.
func exploreVerdict(stdout io.Writer, report *BatchReport, arg string, rules map[string]int, marks *batch.MarkTally, required []model.Mark) {
	missing := marks.Missing(required)
	switch {
	case report.Failed == 0 && len(missing) == 0:
		fmt.Fprintf(stdout, "PASS  %s: every invariant held on %d seeds\n", arg, report.Runs)
	case report.Failed == 0:
		report.FailedVerdicts++
		fmt.Fprintf(stdout, "FAIL  %s: every invariant held on %d seeds, but not every mark it requires was reached\n", arg, report.Runs)
	default:
		var broken []string
		for rule, n := range rules {
			broken = append(broken, fmt.Sprintf("%s on %d", rule, n))
		}
		sort.Strings(broken)
		fmt.Fprintf(stdout, "FAIL  %s: %d of %d seeds failed (%s)\n", arg, report.Failed, report.Runs, strings.Join(broken, ", "))
	}
	fmt.Fprint(stdout, marks.Text(required))
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
	writeCard(stdout, stderr, scenarios.DrawFaultMix(&base, seed, o.Swarm).Apply(base), seed, out, o.ShrinkRuns)
	if _, err := os.Stat(filepath.Join(out, CardFolder, shrink.CardFile)); err == nil {
		cardLine(stdout, fmt.Sprintf("seed %d", seed), out)
	}
}

// writeCard shrinks the failing seed of cfg, with at most runs runs (none: no card), and
// writes its counterexample card into out's card folder; a seed that broke no invariant
// (an expectation, a design finding) gets none.
func writeCard(stdout, stderr io.Writer, cfg scenarios.Config, seed uint64, out string, runs int) {
	if runs <= 0 {
		return
	}
	shrunk, err := shrink.Shrink(cfg, seed, shrink.Options{MaxRuns: runs})
	if err != nil {
		if !errors.Is(err, shrink.ErrHolds) {
			fmt.Fprintf(stdout, "      seed %d: no counterexample card: %v\n", seed, err)
		}
		return
	}
	if _, err := shrunk.WriteCard(filepath.Join(out, CardFolder)); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
	} else if err := writeCardPage(filepath.Join(out, CardFolder)); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
	}
}

// CardFolder is the folder, in a kept failing seed's, of its counterexample card.
const CardFolder = "card"

// cardLine says where the counterexample card of a kept seed (what names it, as "seed
// 3") is, out being the seed's folder.
func cardLine(stdout io.Writer, what, out string) {
	page := filepath.Join(out, CardFolder, CardPageFile)
	if _, err := os.Stat(page); err == nil {
		fmt.Fprintf(stdout, "      %s: its counterexample card is %s (%s in a browser)\n", what, filepath.Join(out, CardFolder, shrink.CardFile), page)
		return
	}
	fmt.Fprintf(stdout, "      %s: its counterexample card is %s\n", what, filepath.Join(out, CardFolder, shrink.CardFile))
}
