package batch

import (
	"fmt"
	"iter"

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
// the expectations that did not hold.
type SeedFailure struct {
	Seed    uint64
	Reasons []string
}

// Verdict is a scenario's check: it passes when, on every seed, no invariant was violated
// and every expectation held. Err is set when a run could not start or panicked (a
// PanicError): a bug of the simulator, on seed ErrSeed.
type Verdict struct {
	Name     string
	Seeds    int
	Failures []SeedFailure
	Err      error
	// ErrSeed is the seed whose run gave Err.
	ErrSeed uint64
}

// OK reports whether the scenario passed on every seed.
func (v Verdict) OK() bool { return v.Err == nil && len(v.Failures) == 0 }

// Check runs each target on its seeds, on workers, and yields each target's verdict once
// all its seeds ran, in the targets' order. Only the verdicts are kept, never the results.
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
	return func(yield func(SeedResult, *Verdict) bool) {
		var jobs []Job
		var owner []*file.Scenario // the scenario of each job
		for _, tg := range targets {
			for s := 1; s <= tg.Seeds; s++ {
				jobs = append(jobs, Job{Config: tg.Scenario.Config, Seed: uint64(s)})
				owner = append(owner, tg.Scenario)
			}
		}
		keep := func(i int, res *scenarios.Result) seedKept { return seedKept{failures(owner[i], res), res.StopReason} }
		next, stop := iter.Pull(Map(jobs, workers, keep, progress))
		defer stop()
		for _, tg := range targets {
			v := Verdict{Name: tg.Name, Seeds: tg.Seeds}
			for range tg.Seeds {
				o, _ := next()
				switch {
				case o.Err != nil && v.Err == nil:
					v.Err, v.ErrSeed = fmt.Errorf("%s seed %d: %w", tg.Name, o.Seed, o.Err), o.Seed
				case len(o.Kept.reasons) > 0:
					v.Failures = append(v.Failures, SeedFailure{Seed: o.Seed, Reasons: o.Kept.reasons})
				}
				if !yield(newSeedResult(tg.Name, o), nil) {
					return
				}
			}
			if !yield(SeedResult{Name: tg.Name}, &v) {
				return
			}
		}
	}
}

// failures says why a run failed its scenario: the invariant violated, each expectation
// that did not hold.
func failures(s *file.Scenario, res *scenarios.Result) []string {
	var why []string
	if v := res.Violation; v != nil {
		why = append(why, v.Rule+" violated")
	}
	for _, e := range s.Check(res) {
		if !e.OK {
			why = append(why, e.String())
		}
	}
	return why
}
