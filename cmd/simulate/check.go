package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/schollz/progressbar/v3"

	"github.com/sbsim/sbsim/scenarios"
)

// job is one run of a check or a sweep: a scenario's config and a seed.
type job struct {
	cfg  scenarios.Config
	seed uint64
}

// runAll runs the jobs on n workers, one single-threaded run each, and returns the results
// in the jobs' order, so that what follows does not depend on n. tick is called after each
// run, from one goroutine at a time.
func runAll(jobs []job, n int, tick func()) ([]*scenarios.Result, []error) {
	results := make([]*scenarios.Result, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range max(1, min(n, len(jobs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = scenarios.Run(jobs[i].cfg, jobs[i].seed)
				mu.Lock()
				tick()
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return results, errs
}

// progress returns a progress bar on stderr when it is a terminal, else nothing.
func progress(stderr io.Writer, total int, what string) (tick func(), finish func()) {
	f, ok := stderr.(*os.File)
	if !ok {
		return func() {}, func() {}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return func() {}, func() {}
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(f), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
	return func() { _ = bar.Add(1) }, func() { _ = bar.Finish() }
}

// cmdCheck is `simulate check`: every named scenario (or the whole library with `all`) on
// seeds 1 to N; a scenario passes when the invariants and every expectation hold on every
// seed.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("check", stderr)
	seeds := fs.Int("seeds", 0, "run seeds 1 to `N`; 0 takes each file's own seeds (10 when it says none)")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "simulate check: want scenario files or library names, or all")
		return 2
	}
	var expanded []string
	for _, p := range pos {
		if p == "all" {
			expanded = append(expanded, scenarios.LibraryNames()...)
		} else {
			expanded = append(expanded, p)
		}
	}
	pos = expanded
	if *seeds < 0 || *nworkers < 1 {
		fmt.Fprintln(stderr, "simulate check: -seeds must be 0 or more and -workers 1 or more")
		return 2
	}
	type entry struct {
		name  string
		file  *scenarios.File
		first int // its first job
		n     int
	}
	var entries []entry
	var jobs []job
	for _, p := range pos {
		f, _, err := loadScenario(p)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 2
		}
		n := *seeds
		if n == 0 {
			n = f.Seeds
		}
		if n == 0 {
			n = 10
		}
		entries = append(entries, entry{p, f, len(jobs), n})
		for s := 1; s <= n; s++ {
			jobs = append(jobs, job{f.Config, uint64(s)})
		}
	}
	tick, finish := progress(stderr, len(jobs), "checking")
	results, errs := runAll(jobs, *nworkers, tick)
	finish()
	failed := 0
	for _, e := range entries {
		var bad []string
		firstBad := uint64(0)
		for k := range e.n {
			i := e.first + k
			seed := jobs[i].seed
			if errs[i] != nil {
				fmt.Fprintf(stderr, "simulate: %s seed %d: %v\n", e.name, seed, errs[i])
				return 2
			}
			var why []string
			if v := results[i].Violation; v != nil {
				why = append(why, v.Rule+" violated")
			}
			for _, v := range e.file.Check(results[i]) {
				if !v.OK {
					why = append(why, v.String())
				}
			}
			if len(why) > 0 {
				if len(bad) == 0 {
					firstBad = seed
				}
				bad = append(bad, fmt.Sprintf("seed %d: %s", seed, strings.Join(why, "; ")))
			}
		}
		if len(bad) == 0 {
			fmt.Fprintf(stdout, "PASS  %s (%d seeds)\n", e.name, e.n)
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL  %s (%d of %d seeds)\n", e.name, len(bad), e.n)
		for _, b := range bad {
			fmt.Fprintf(stdout, "      %s\n", b)
		}
		fmt.Fprintf(stdout, "      replay one: go run ./cmd/simulate run %s -seed %d\n", quoteArg(e.name), firstBad)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// quoteArg quotes a command-line argument for a shell when it needs it.
func quoteArg(a string) string {
	if strings.ContainsAny(a, " \t'\"$`\\") {
		return strconv.Quote(a)
	}
	return a
}
