package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// cmdCheck is `simulate check`: every named scenario (or the whole library with `all`) on
// seeds 1 to N; a scenario passes when the invariants and every expectation hold on every
// seed.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("check", stderr)
	seeds := fs.Int("seeds", 0, "run seeds 1 to `N`; 0 takes each file's own seeds (10 when it says none)")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`; the output does not depend on it")
	sets := overridesFlag(fs)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) == 0:
		fmt.Fprintln(stderr, "simulate check: want scenario files or library names, or all")
		return 2
	case *seeds < 0 || *nworkers < 1:
		fmt.Fprintln(stderr, "simulate check: -seeds must be 0 or more and -workers 1 or more")
		return 2
	}
	var targets []batch.Target
	for _, p := range pos {
		names := []string{p}
		if p == "all" {
			names = file.LibraryNames()
		}
		for _, name := range names {
			s, err := open(name, *sets)
			if err != nil {
				fmt.Fprintf(stderr, "simulate: %v\n", err)
				return 2
			}
			n := *seeds
			if n == 0 {
				n = batch.Seeds(s)
			}
			targets = append(targets, batch.Target{Name: name, Scenario: s, Seeds: n})
		}
	}
	total := 0
	for _, t := range targets {
		total += t.Seeds
	}
	tick, finish := progress(stderr, total, "checking")
	failed := 0
	for v := range batch.Check(targets, *nworkers, tick) {
		if v.Err != nil { // a run that could not start, or panicked: a bug, with its replay line
			failed++
			fmt.Fprintf(stdout, "FAIL  %s: %v\n      replay: %s\n", v.Name, v.Err, file.Replay(v.Name, *sets, v.ErrSeed))
			continue
		}
		if v.OK() {
			fmt.Fprintf(stdout, "PASS  %s (%d seeds)\n%s", v.Name, v.Seeds, v.OverSeedsText())
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL  %s (%d of %d seeds)\n%s", v.Name, len(v.Failures), v.Seeds, v.OverSeedsText())
		for _, f := range v.Failures {
			fmt.Fprintf(stdout, "      seed %d: %s\n", f.Seed, strings.Join(f.Reasons, "; "))
		}
		fmt.Fprintf(stdout, "      replay one: %s\n", file.Replay(v.Name, *sets, v.ReplaySeed()))
	}
	finish()
	if failed > 0 {
		return 1
	}
	return 0
}
