package batch

import (
	"iter"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// ExploredSeed is one seed of an exploration: its mix and what the run gave. Failure is
// empty when every invariant held and the run drained; otherwise the broken rule and
// what broke, or the error of a run that could not be made.
type ExploredSeed struct {
	Seed     uint64
	Mix      scenarios.FaultMix
	Events   uint64
	Stop     sim.StopReason
	Findings int
	Rule     string
	Failure  string
	Err      error
	// Marks counts the coverage marks the run reached (model.Mark).
	Marks model.MarkCounts
}

// OK reports whether the seed held every invariant.
func (s ExploredSeed) OK() bool { return s.Err == nil && s.Failure == "" }

// Explore runs scenario s on seeds 1 to n, each with its fault mix (scenarios.DrawFaultMix), on workers,
// and yields each seed's outcome in seed order. Only the outcomes are kept: memory does
// not grow with n.
func Explore(s *file.Scenario, n int, swarm bool, workers int, progress func()) iter.Seq[ExploredSeed] {
	return ExploreSeeds(s, 1, uint64(n), swarm, workers, progress)
}

// ExploreSeeds is Explore on the seeds first to last (none when first > last): a shard of
// an exploration (Shard.Range), whose seeds are the same runs as in the whole one.
func ExploreSeeds(s *file.Scenario, first, last uint64, swarm bool, workers int, progress func()) iter.Seq[ExploredSeed] {
	return func(yield func(ExploredSeed) bool) {
		if first > last {
			return
		}
		base := Judged(s.Config)
		mixOf := func(i int) scenarios.FaultMix { return scenarios.DrawFaultMix(&base, first+uint64(i), swarm) }
		job := func(i int) Job { return Job{Config: mixOf(i).Apply(base), Seed: first + uint64(i)} }
		keep := func(i int, res *scenarios.Result) ExploredSeed {
			e := ExploredSeed{Events: res.Events, Stop: res.StopReason, Findings: res.FindingCount, Marks: res.Marks}
			if v := res.Violation; v != nil { // a run stopped on a limit with messages undelivered fails INV-12
				e.Rule, e.Failure = v.Rule, strings.SplitN(v.Error(), "\n", 2)[0]
			}
			return e
		}
		for o := range mapJobs(int(last-first+1), job, workers, keptAheadPerWorker, keep, progress) {
			e := o.Kept
			e.Seed, e.Mix, e.Err = o.Seed, mixOf(o.Index), o.Err
			if !yield(e) {
				return
			}
		}
	}
}

// ExploreReplay is the command that replays seed of an exploration of arg.
func ExploreReplay(arg string, overrides []file.Override, seed uint64, swarm bool, extra ...string) string {
	line := strings.Replace(file.Replay(arg, overrides, seed, extra...), "go run ./cmd/simulate run ", "go run ./cmd/simulate explore ", 1)
	if swarm {
		line += " -swarm"
	}
	return line
}
