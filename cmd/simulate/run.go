package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdRun is `simulate run`.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("run", stderr)
	seed := fs.Uint64("seed", 0, "seed `N` of every random stream; without it, one is picked from the wall clock and printed")
	out := fs.String("out", "", "`DIR` to write summary.json, series.csv, latency_cdf.csv, the plots (and trace.jsonl) into")
	trace := fs.Bool("trace", false, "also write every trace record, as trace.jsonl (with -out)")
	sets := overridesFlag(fs)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintf(stderr, "simulate run: want one scenario, a file or a library name (simulate list), got %d: %s\n"+
			"(flags alone run %s: to run another, simulate run NAME -seed N)\n", len(pos), strings.Join(pos, " "), file.Showcase)
		fs.Usage()
		return 2
	case *trace && *out == "":
		fmt.Fprintln(stderr, "simulate run: -trace writes trace.jsonl into the -out directory: give -out too")
		return 2
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if !seedSet {
		*seed = uint64(time.Now().UnixNano()) // printed first, so the run can be replayed
	}
	return runScenario(pos[0], *sets, *seed, *out, *trace, stdout, stderr)
}

// showcase is what `simulate` with no argument does: run the showcase scenario on a new
// seed, write everything to a folder it names, and say what to open.
func showcase(stdout, stderr io.Writer) int {
	seed := uint64(time.Now().UnixNano())
	dir := filepath.Join("sbsim-results", fmt.Sprintf("%s-seed-%d", file.Showcase, seed))
	return runScenario(file.Showcase, nil, seed, dir, false, stdout, stderr)
}

// runScenario runs one scenario once, prints its report and, with out, writes its results.
func runScenario(arg string, sets []file.Override, seed uint64, out string, trace bool, stdout, stderr io.Writer) int {
	var extra []string
	if out != "" {
		extra = append(extra, "-out", out)
	}
	if trace {
		extra = append(extra, "-trace")
	}
	s, err := open(arg, sets)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	replayLine := file.Replay(arg, sets, seed, extra...)
	fmt.Fprintf(stdout, "seed: %d\nreplay: %s\n", seed, replayLine)
	cfg := s.Config
	if out != "" {
		cfg.Trace = true // the conversations table and trace.jsonl come from the trace
	}
	res, err := scenarios.Run(cfg, seed)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	verdicts := expectationVerdicts(s, res)
	ok := results.WriteReport(stdout, results.Run{Name: s.Config.Name, Question: s.Question, Description: s.Description,
		Result: res, Expectations: verdicts, Replay: replayLine})
	if out != "" && !writeResults(out, s, res, verdicts, trace, stdout, stderr) {
		return 1
	}
	if !ok {
		fmt.Fprintf(stdout, "\nreplay: %s\n", replayLine)
		return 1
	}
	return 0
}

// expectationVerdicts checks the scenario's expectations on res.
func expectationVerdicts(s *file.Scenario, res *scenarios.Result) []results.Verdict {
	var out []results.Verdict
	for _, v := range s.Check(res) {
		out = append(out, results.Verdict{Name: v.Expectation.String(), OK: v.OK, Detail: v.Got})
	}
	return out
}

// writeResults writes the run's files to out and says what it wrote and what to open.
func writeResults(out string, s *file.Scenario, res *scenarios.Result, vs []results.Verdict, trace bool, stdout, stderr io.Writer) bool {
	sum := results.NewSummary(res, s.Config.Name, s.Hash, vs)
	if !s.Config.CheckInvariants {
		sum = sum.WithoutInvariantChecks()
	}
	records := res.Trace
	if !trace {
		records = nil
	}
	files, err := results.WriteAll(out, res, sum, records)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return false
	}
	fmt.Fprintf(stdout, "\nwrote %d files to %s:\n", len(files), out)
	first := "no plot: nothing was received"
	for _, p := range files {
		fmt.Fprintf(stdout, "  %s\n", p)
		if strings.HasSuffix(p, ".png") && strings.HasPrefix(first, "no plot") {
			first = p + " first"
		}
	}
	fmt.Fprintf(stdout, "\nopen %s for the figures, and the plots beside it (%s);\n"+
		"simulate list shows the other scenarios, simulate -h every command.\n",
		filepath.Join(out, results.SummaryFile), first)
	return true
}
