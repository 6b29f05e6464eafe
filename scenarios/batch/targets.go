package batch

import "github.com/sbsim/sbsim/scenarios/file"

// Targets opens the scenarios that the arguments of simulate check name (paths, library
// names, or all for the whole library), each with the overrides, on seeds 1 to seeds (0:
// each one's own, Seeds). It also returns how many runs they make.
func Targets(args []string, overrides []file.Override, seeds int) (targets []Target, runs int, err error) {
	for _, a := range args {
		names := []string{a}
		if a == "all" {
			names = file.LibraryNames()
		}
		for _, name := range names {
			s, err := file.Open(name)
			if err == nil {
				s, err = s.With(overrides...)
			}
			if err != nil {
				return nil, 0, err
			}
			n := seeds
			if n == 0 {
				n = Seeds(s)
			}
			targets, runs = append(targets, Target{Name: name, Scenario: s, Seeds: n}), runs+n
		}
	}
	return targets, runs, nil
}

// Jobs returns the runs a check of the targets makes, each target on its seeds, in the
// order Check runs them, with the scenarios' configs as they are.
func Jobs(targets []Target) []Job {
	var jobs []Job
	for _, tg := range targets {
		for s := 1; s <= tg.Seeds; s++ {
			jobs = append(jobs, Job{Config: tg.Scenario.Config, Seed: uint64(s)})
		}
	}
	return jobs
}

// TargetOf returns the target of job i of Jobs(targets).
func TargetOf(targets []Target, i int) Target {
	k := 0
	for ; i >= targets[k].Seeds; k++ {
		i -= targets[k].Seeds
	}
	return targets[k]
}
