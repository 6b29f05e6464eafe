package results

import (
	"context"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// CheckOptions are what a check runs (simulate check): the scenarios as the command line
// named them (Args: files, library names, all), their Overrides, seeds 1 to Seeds of each
// (0: each file's own), or the Shard of those runs, with the determinism check or not, as
// the batch options say (seeds.jsonl in Out, by default sbsim-results/check-NAME).
type CheckOptions struct {
	Args        []string
	Overrides   []file.Override
	Seeds       int
	Shard       batch.Shard
	Determinism bool
	// ShrinkRuns bounds the runs that shrink each kept failing seed that broke an
	// invariant into its counterexample card (NAME-seed-N/card); zero makes no card.
	ShrinkRuns int
	// Bar, when not nil, makes the progress bar of total runs (BatchOptions' Progress and
	// Done), for the check and for the determinism check.
	Bar func(total int, what string) (tick, done func())
	BatchOptions
}

// RecordsFile is the file of a shard of a check beside its seeds.jsonl: one
// batch.CheckRecord per run, what the merge judges the scenarios again from.
const RecordsFile = "records.jsonl"

// Check checks the scenarios (batch.CheckSeeds): each seed reported as it finishes, to the
// console when it fails and to seeds.jsonl, each scenario's verdict once its seeds ran, the
// first failing seed of the first KeptFailingSeeds failing scenarios kept in a folder of
// its own; then, asked, the determinism check. It returns the exit code. A shard of the
// check runs its part of the runs (batch.CheckShard), keeps the first failing seed of every
// scenario that failed in it, and writes records.jsonl and shard.json for simulate merge.
func Check(ctx context.Context, stdout, stderr io.Writer, o CheckOptions) int {
	targets, total, err := batch.Targets(o.Args, o.Overrides, o.Seeds)
	if err == nil && o.Shard.Sharded() && o.Determinism {
		err = fmt.Errorf("-check-determinism checks every seed of the check: not with -shard")
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitUsage
	}
	replay := CheckReplay(targets, o.Overrides)
	first, last := o.Shard.Range(total)
	o.Progress, o.Done = o.bar(int(last+1-first), "checking")
	report, err := NewBatchReport(stdout, BatchDir(o.Out, "check", o.Args[0]), o.Verbose)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitNotWritten
	}
	m := checkManifest(o, targets, total)
	var records *Lines
	if o.Shard.Sharded() {
		if records, err = report.Folder.Lines(RecordsFile); err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return ExitNotWritten
		}
	}
	runs := batch.CheckShard(targets, o.Shard, o.Workers, o.Progress, records != nil)
	reportCheck(report, batch.Until(ctx, runs), replay, records)
	o.done()
	limit := KeptFailingSeeds
	if o.Shard.Sharded() {
		limit = len(targets) // the merge keeps the first five of all the shards'
	}
	m.KeptFolders = report.KeepFailingSeeds(ctx, stderr, limit, func(name string, seed uint64, out string) bool {
		ro := RunOptions{Arg: name, Overrides: o.Overrides, Seed: seed, Out: out, Trace: true, Quiet: true}
		code := RunOne(ctx, io.Discard, stderr, ro)
		if code == ExitNotWritten || code == ExitUsage || code == ExitInterrupted {
			return false
		}
		for _, tg := range targets {
			if tg.Name == name {
				writeCard(stdout, stderr, batch.Judged(tg.Scenario.Config), seed, out, o.ShrinkRuns)
				break
			}
		}
		return true
	})
	if records != nil {
		if err := records.Close(); err != nil && report.err == nil {
			report.err = err
		}
	}
	if o.Shard.Sharded() && ctx.Err() == nil {
		m.Runs = report.Runs
		m.write(report)
	}
	code := report.Close(int(last+1-first), ctx.Err() != nil, stderr) // the shard's runs
	if o.Determinism && code != ExitInterrupted {
		tick, done := o.bar(2*total, "checking determinism")
		code = Worst(code, CheckDeterminism(ctx, targets, o.Overrides, o.Workers, tick, stdout, stderr))
		done()
	}
	return code
}

// bar is o.Bar, or no progress bar.
func (o CheckOptions) bar(total int, what string) (tick, done func()) {
	if o.Bar == nil {
		return nil, func() {}
	}
	return o.Bar(total, what)
}

// reportCheck reports each seed of a check and each scenario's verdict, and writes each
// seed's record to records when it is not nil.
func reportCheck(report *BatchReport, runs iter.Seq2[batch.SeedResult, *batch.Verdict], replay func(name string, seed uint64, extra ...string) string, records *Lines) {
	for r, v := range runs {
		if v == nil {
			report.Seed(r, replay(r.Name, r.Seed))
			if records != nil && r.Record != nil && report.err == nil {
				report.err = records.Add(r.Record)
			}
			continue
		}
		report.Verdict(*v, func(seed uint64) string { return replay(r.Name, seed) })
	}
}

// checkManifest is the shard.json of a shard of a check of targets, total runs in all.
func checkManifest(o CheckOptions, targets []batch.Target, total int) ShardManifest {
	first, last := o.Shard.Range(total)
	m := ShardManifest{Command: "check", Scenario: strings.Join(o.Args, " "), Args: o.Args, Overrides: overrideStrings(o.Overrides),
		CodeVersion: CodeVersion(), Seeds: o.Seeds, Shard: o.Shard.String(), Index: o.Shard.Index, Count: o.Shard.Count,
		FirstSeed: first, LastSeed: last, ShrinkRuns: o.ShrinkRuns}
	for _, tg := range targets {
		m.Targets = append(m.Targets, ShardTarget{Name: tg.Name, ScenarioHash: tg.Scenario.Hash, Seeds: tg.Seeds})
	}
	return m
}

// ShardTarget is a scenario of a check, in shard.json: its name, the hash of its text
// with the overrides, its seeds.
type ShardTarget struct {
	Name         string `json:"name"`
	ScenarioHash string `json:"scenario_hash"`
	Seeds        int    `json:"seeds"`
}

// mergeCheck is Merge of the shards of a check: the scenarios loaded again (their texts
// must be those the shards ran), judged from the shards' records in the order of the runs,
// reported as the one check reports them, the kept failing seeds copied from their shards.
func mergeCheck(ctx context.Context, stdout, stderr io.Writer, out string, shards []shardDir, verbose bool) int {
	m := shards[0].ShardManifest
	overrides, err := parseOverrides(m.Overrides)
	var targets []batch.Target
	if err == nil {
		targets, _, err = batch.Targets(m.Args, overrides, m.Seeds)
	}
	if err == nil {
		err = sameTargets(targets, m.Targets)
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		return ExitUsage
	}
	report, err := NewBatchReport(stdout, out, verbose)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitNotWritten
	}
	var paths []string
	for _, s := range shards {
		paths = append(paths, filepath.Join(s.dir, RecordsFile))
	}
	var readErr error
	next, stop := pullRecords(paths, &readErr)
	defer stop()
	interruptible := func() (batch.CheckRecord, error) {
		if err := ctx.Err(); err != nil {
			return batch.CheckRecord{}, err
		}
		return next()
	}
	reportCheck(report, batch.CheckRecords(targets, interruptible, &readErr), CheckReplay(targets, overrides), nil)
	if readErr != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", readErr)
		report.Close(report.Runs, false, stderr)
		return ExitNotWritten
	}
	report.KeepFailingSeeds(ctx, stderr, KeptFailingSeeds, func(name string, seed uint64, dst string) bool {
		folder := filepath.Base(dst)
		for _, s := range shards {
			if src := filepath.Join(s.dir, folder); slices.Contains(s.KeptFolders, folder) {
				if err := copyDir(src, dst); err != nil {
					fmt.Fprintf(stderr, "simulate merge: the kept folder of %s seed %d: %v\n", name, seed, err)
					return false
				}
				return true
			}
		}
		fmt.Fprintf(stderr, "simulate merge: no shard kept the folder of %s seed %d\n", name, seed)
		return false
	})
	return report.Close(checkRunsOf(m.Targets), ctx.Err() != nil, stderr)
}

// sameTargets says how the scenarios loaded again differ from those the shards checked.
func sameTargets(targets []batch.Target, ran []ShardTarget) error {
	for i := range max(len(targets), len(ran)) {
		switch {
		case i >= len(targets) || i >= len(ran) || targets[i].Name != ran[i].Name:
			return fmt.Errorf("the scenarios are not those the shards checked (%d now, %d then)", len(targets), len(ran))
		case targets[i].Scenario.Hash != ran[i].ScenarioHash || targets[i].Seeds != ran[i].Seeds:
			return fmt.Errorf("%s is not the scenario the shards checked (its text %s with %d seeds now, %s with %d then): merge with the files they ran",
				ran[i].Name, targets[i].Scenario.Hash, targets[i].Seeds, ran[i].ScenarioHash, ran[i].Seeds)
		}
	}
	return nil
}

// checkRunsOf is how many runs a check of the targets makes.
func checkRunsOf(targets []ShardTarget) int {
	n := 0
	for _, t := range targets {
		n += t.Seeds
	}
	return n
}

// parseOverrides reads overrides as -set takes them.
func parseOverrides(list []string) ([]file.Override, error) {
	var out []file.Override
	for _, s := range list {
		o, err := file.ParseOverride(s)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}
