package batch

import (
	"fmt"
	"iter"

	"github.com/sbsim/sbsim/model"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// Target is a scenario to check, by the name the caller gave it, on seeds 1 to Seeds.
type Target struct {
	Name     string
	Scenario *file.Scenario
	Seeds    int
}

// Seeds returns how many seeds a check of the scenario runs when not told: the file's own
// seeds, else 10.
func Seeds(s *file.Scenario) int {
	if s.Seeds > 0 {
		return s.Seeds
	}
	return 10
}

// SeedFailure is one seed on which a scenario failed, and why: the invariant violated,
// the per-seed expectations that did not hold.
type SeedFailure struct {
	Seed    uint64
	Reasons []string
}

// Verdict is a scenario's check: it passes when, on every seed, no invariant was violated
// and every per-seed expectation held, and every statistical expectation held over the
// seeds (OverSeeds). Err is set when a run could not start or panicked (a PanicError): a
// bug of the simulator, on seed ErrSeed.
type Verdict struct {
	Name     string
	Seeds    int
	Failures []SeedFailure
	// OverSeeds are the scenario's statistical expectations (file.OverSeeds), each judged
	// over all the seeds, in the file's order.
	OverSeeds []OverSeedsVerdict
	Err       error
	// ErrSeed is the seed whose run gave Err.
	ErrSeed uint64
	// Marks tallies the coverage marks the seeds reached; MissingMarks are the marks of
	// the scenario's require_marks that none of them reached, which fails the check.
	Marks        MarkTally
	MissingMarks []model.Mark
}

// OK reports whether the scenario passed on every seed and over the seeds.
func (v Verdict) OK() bool {
	return v.Err == nil && len(v.Failures) == 0 && OverSeedsHeld(v.OverSeeds) && len(v.MissingMarks) == 0
}

// MarksText writes what the seeds' marks say, as MarkTally.Text does for the scenario's
// require_marks.
func (v Verdict) MarksText() string { return v.Marks.Text(v.MissingMarks) }

// ReplaySeed is a seed to replay a failure with: the first seed that failed, else the first
// on which a failed statistical expectation missed its comparison, else 1.
func (v Verdict) ReplaySeed() uint64 {
	if len(v.Failures) > 0 {
		return v.Failures[0].Seed
	}
	return firstMiss(v.OverSeeds)
}

// OverSeedsText writes each statistical expectation's verdict on a line of its own, indented
// as the command prints a check's details: "      ok: ... (got 983 of 1000 seeds (98.3%), ...)".
func (v Verdict) OverSeedsText() string { return overSeedsText(v.OverSeeds) }

// Check runs each target on its seeds, on workers, and yields each target's verdict once
// all its seeds ran, in the targets' order. Only the verdicts are kept, never the results,
// and a statistical expectation keeps a few numbers, whatever the number of seeds.
func Check(targets []Target, workers int, progress func()) iter.Seq[Verdict] {
	return func(yield func(Verdict) bool) {
		for _, v := range CheckSeeds(targets, workers, progress) {
			if v != nil && !yield(*v) {
				return
			}
		}
	}
}

// CheckSeeds is Check that also yields each seed's result as soon as it and the seeds
// before it finished: the seeds of a target (with a nil verdict), then its verdict.
func CheckSeeds(targets []Target, workers int, progress func()) iter.Seq2[SeedResult, *Verdict] {
	return CheckShard(targets, Shard{}, workers, progress, false)
}

// CheckShard is CheckSeeds over the runs of a shard of the check: Shard.Range of all its
// runs, numbered in their order (each target's seeds, target after target). A target gets
// a verdict over those of its seeds the shard runs, when it runs any. With record, each
// seed's result carries its run's CheckRecord, for CheckRecords to judge the targets
// again over the runs of every shard.
func CheckShard(targets []Target, shard Shard, workers int, progress func(), record bool) iter.Seq2[SeedResult, *Verdict] {
	return func(yield func(SeedResult, *Verdict) bool) {
		first, last := shard.Range(checkRuns(targets))
		var jobs []Job
		var owner []*file.Scenario // the scenario of each job
		run := 0
		for _, tg := range targets {
			for s := 1; s <= tg.Seeds; s++ {
				if run++; uint64(run) >= first && uint64(run) <= last {
					jobs = append(jobs, Job{Config: Judged(tg.Scenario.Config), Seed: uint64(s)})
					owner = append(owner, tg.Scenario)
				}
			}
		}
		keep := func(i int, res *scenarios.Result) runJudgement { return judgeRun(owner[i], res) }
		next, stop := iter.Pull(Map(jobs, workers, keep, progress))
		defer stop()
		judgeRuns(targets, first, last, record, func(int, string) (Outcome[runJudgement], bool) { return next() }, yield)
	}
}

// CheckRecords judges the targets as CheckSeeds does, from the records of their runs
// (CheckShard's, of every shard, in the order of the runs) instead of running them: the
// same seed results and verdicts. next returns the next record; a record that is not of
// the run wanted, or next's error, ends the iteration, and *errp says why.
func CheckRecords(targets []Target, next func() (CheckRecord, error), errp *error) iter.Seq2[SeedResult, *Verdict] {
	return func(yield func(SeedResult, *Verdict) bool) {
		judgeRuns(targets, 1, uint64(checkRuns(targets)), false, func(run int, name string) (Outcome[runJudgement], bool) {
			r, err := next()
			if err == nil && (r.Run != run || r.Scenario != name) {
				err = fmt.Errorf("the record of run %d is of %s seed %d, where run %d is of %s", r.Run, r.Scenario, r.Seed, run, name)
			}
			if err != nil {
				*errp = err
				return Outcome[runJudgement]{}, false
			}
			return r.outcome(), true
		}, yield)
	}
}

// checkRuns is how many runs a check of the targets makes.
func checkRuns(targets []Target) int {
	n := 0
	for _, tg := range targets {
		n += tg.Seeds
	}
	return n
}

// judgeRuns yields the seed results of the runs first to last (numbered from 1 over the
// targets' seeds), each outcome from next (with its record, when record is set), and each
// target's verdict over those of its seeds among them. It stops when next has no outcome.
func judgeRuns(targets []Target, first, last uint64, record bool, next func(run int, name string) (Outcome[runJudgement], bool), yield func(SeedResult, *Verdict) bool) {
	run := 0
	for _, tg := range targets {
		v := Verdict{Name: tg.Name}
		over := NewOverSeeds(tg.Scenario)
		for range tg.Seeds {
			if run++; uint64(run) < first || uint64(run) > last {
				continue
			}
			o, ok := next(run, tg.Name)
			if !ok {
				return
			}
			v.Seeds++
			switch {
			case o.Err != nil && v.Err == nil:
				v.Err, v.ErrSeed = fmt.Errorf("%s seed %d: %w", tg.Name, o.Seed, o.Err), o.Seed
			case o.Err == nil && len(o.Kept.reasons) > 0:
				v.Failures = append(v.Failures, SeedFailure{Seed: o.Seed, Reasons: o.Kept.reasons})
			}
			r := newSeedResult(tg.Name, o)
			if record {
				rec := recordOf(run, tg.Name, o)
				r.Record = &rec
			}
			if !yield(r, nil) {
				return
			}
			over.Add(o.Seed, o.Kept.samples)
			if o.Err == nil {
				v.Marks.Add(&o.Kept.marks)
			}
		}
		if v.Seeds == 0 && tg.Seeds > 0 {
			continue // none of its seeds in the shard
		}
		if v.Err == nil {
			v.OverSeeds = over.Verdicts()
			v.MissingMarks = v.Marks.Missing(tg.Scenario.RequireMarks)
		}
		if !yield(SeedResult{Name: tg.Name}, &v) {
			return
		}
	}
}
