package batch

import (
	"fmt"
	"iter"
	"strings"

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
		var jobs []Job
		var owner []*file.Scenario // the scenario of each job
		for _, tg := range targets {
			for s := 1; s <= tg.Seeds; s++ {
				jobs = append(jobs, Job{Config: tg.Scenario.Config, Seed: uint64(s)})
				owner = append(owner, tg.Scenario)
			}
		}
		keep := func(i int, res *scenarios.Result) []string { return failures(owner[i], res) }
		next, stop := iter.Pull(Map(jobs, workers, keep, progress))
		defer stop()
		for _, tg := range targets {
			v := Verdict{Name: tg.Name, Seeds: tg.Seeds}
			for range tg.Seeds {
				o, _ := next()
				switch {
				case o.Err != nil && v.Err == nil:
					v.Err, v.ErrSeed = fmt.Errorf("%s seed %d: %w", tg.Name, o.Seed, o.Err), o.Seed
				case len(o.Kept) > 0:
					v.Failures = append(v.Failures, SeedFailure{Seed: o.Seed, Reasons: o.Kept})
				}
			}
			if !yield(v) {
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
		line, _, _ := strings.Cut(v.Error(), "\n") // rule, time, place and why, without the records
		why = append(why, line)
	}
	for _, e := range s.Check(res) {
		if !e.OK {
			why = append(why, e.String())
		}
	}
	return why
}
