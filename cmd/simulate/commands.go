package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/sbsim/sbsim/cmd/simulate/output"
	"github.com/sbsim/sbsim/scenarios"
)

// subcommand is one of simulate's subcommands.
type subcommand struct {
	name, args, what, examples string
	run                        func(args []string, stdout, stderr io.Writer) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"run", "FILE|NAME [-seed N] [-out DIR] [-trace]", "run a scenario once, print its summary, and write its results",
			"  simulate run lossy-wan -seed 7\n  simulate run my-design.yaml -out results/ -trace\n", cmdRun},
		{"check", "FILE...|all [-seeds N] [-workers N]", "run scenarios over many seeds and report their expectations",
			"  simulate check all -seeds 5\n  simulate check my-design.yaml -seeds 100\n", cmdCheck},
		{"sweep", "FILE|NAME -set key=v1,v2,... [-set ...] [-seeds N] [-out DIR] [-workers N]",
			"run a grid of one or two parameters over many seeds", "  simulate sweep activation-burst -set procedures.0.top=1,2,5,10 -seeds 10\n", cmdSweep},
		{"list", "", "list the library's scenarios and the question each answers", "  simulate list\n", cmdList},
		{"validate", "FILE...", "check scenario files and report every error with its line and column",
			"  simulate validate my-design.yaml\n", cmdValidate},
		{"plot", "DIR", "draw the plots again from the results written in DIR", "  simulate plot results/lossy-wan-seed-7\n", cmdPlot},
	}
}

// dispatch runs the subcommand args name, when there is one; ok is false otherwise.
func dispatch(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	for _, c := range subcommands() {
		if args[0] == c.name {
			return c.run(args[1:], stdout, stderr), true
		}
	}
	return 0, false
}

// printSubcommands writes the list of subcommands for the main help.
func printSubcommands(w io.Writer) {
	fmt.Fprintln(w, "Subcommands (simulate SUBCOMMAND -h for each one's help):")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  %-9s %s\n            %s\n", c.name, c.args, c.what)
	}
	fmt.Fprintln(w)
}

// newSubFlags returns the flag set of a subcommand with its help.
func newSubFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simulate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, c := range subcommands() {
		if c.name == name {
			fs.Usage = func() {
				fmt.Fprintf(fs.Output(), "Usage: simulate %s %s\n\n%s.\n\nFlags:\n", c.name, c.args, upperFirst(c.what))
				fs.PrintDefaults()
				fmt.Fprintf(fs.Output(), "\nExamples:\n%s", c.examples)
			}
		}
	}
	return fs
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// parseInterleaved parses flags that may come before or after the positional arguments,
// as `simulate run FILE -seed 3` expects. It returns the positional arguments, or a code
// to exit with.
func parseInterleaved(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, done bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed once below, to stdout for -h and to stderr after an error
	defer func() { fs.Usage = usage }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				usage()
				return nil, 0, true
			}
			usage()
			return nil, 2, true
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, false
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// loadScenario loads FILE (a path, or anything ending in .yaml) or the library scenario NAME,
// and returns it with the hash of its text.
func loadScenario(arg string) (*scenarios.File, string, error) {
	data, name, err := scenarioText(arg)
	if err != nil {
		return nil, "", err
	}
	f, err := scenarios.Load(name, data)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(data)
	return f, hex.EncodeToString(sum[:8]), nil
}

// verdicts converts expectation verdicts for the summary.
func verdicts(vs []scenarios.ExpectationVerdict) []output.Verdict {
	out := make([]output.Verdict, len(vs))
	for i, v := range vs {
		out[i] = output.Verdict{Name: v.Expectation.String(), OK: v.OK, Detail: v.Got}
	}
	return out
}

// cmdRun is `simulate run`.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("run", stderr)
	seed := fs.Uint64("seed", 0, "seed `N` of every random stream; without it, one is picked from the wall clock and printed")
	out := fs.String("out", "", "`DIR` to write summary.json, series.csv, latency_cdf.csv, the plots (and trace.jsonl) into")
	trace := fs.Bool("trace", false, "also write every trace record, as trace.jsonl (with -out)")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "simulate run: want one scenario, a file or a library name (simulate list), got %d\n", len(pos))
		fs.Usage()
		return 2
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if !seedSet {
		*seed = uint64(time.Now().UnixNano()) // printed first, so the run can be replayed
	}
	return runScenario(pos[0], *seed, *out, *trace, stdout, stderr)
}

// runScenario runs one scenario once and prints, and writes with out, what happened.
func runScenario(arg string, seed uint64, out string, trace bool, stdout, stderr io.Writer) int {
	f, hash, err := loadScenario(arg)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	replay := fmt.Sprintf("go run ./cmd/simulate run %s -seed %d", quoteArg(arg), seed)
	if out != "" {
		replay += " -out " + out
	}
	if trace {
		replay += " -trace"
	}
	fmt.Fprintf(stdout, "seed: %d\nreplay: %s\n", seed, replay)
	cfg := f.Config
	if trace && out == "" {
		fmt.Fprintln(stderr, "simulate run: -trace writes trace.jsonl into the -out directory: give -out too")
		return 2
	}
	if trace || out != "" {
		cfg.Trace = true // the conversations table and trace.jsonl come from the trace
	}
	printFile(stdout, f)
	res, err := scenarios.Run(cfg, seed)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	printDialogResults(stdout, res)
	ok := printInvariantVerdicts(stdout, res, replay)
	vs := f.Check(res)
	ok = printExpectations(stdout, vs) && ok
	if out != "" {
		s := output.NewSummary(res, f.Config.Name, hash, verdicts(vs))
		if !cfg.CheckInvariants {
			s = s.WithoutInvariantChecks()
		}
		var records = res.Trace
		if !trace {
			records = nil
		}
		files, err := output.WriteAll(out, res, s, records)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "\nwrote %d files to %s:\n", len(files), out)
		for _, p := range files {
			fmt.Fprintf(stdout, "  %s\n", p)
		}
		first := "no plot: nothing was received"
		for _, p := range files {
			if strings.HasSuffix(p, ".png") {
				first = p + " first"
				break
			}
		}
		fmt.Fprintf(stdout, "\nopen %s for the figures, and the plots beside it (%s);\n"+
			"simulate list shows the other scenarios, simulate -h every command.\n",
			filepath.Join(out, "summary.json"), first)
	}
	if !ok {
		fmt.Fprintf(stdout, "\nreplay: %s\n", replay)
		return 1
	}
	return 0
}

// printFile writes the scenario's name, question and description.
func printFile(w io.Writer, f *scenarios.File) {
	fmt.Fprintf(w, "\nscenario: %s\n", f.Config.Name)
	if f.Question != "" {
		fmt.Fprintf(w, "question: %s\n", f.Question)
	}
	if f.Description != "" {
		fmt.Fprintf(w, "design: %s\n", f.Description)
	}
}

// printExpectations writes each expectation's verdict and reports whether all held.
func printExpectations(w io.Writer, vs []scenarios.ExpectationVerdict) bool {
	if len(vs) == 0 {
		return true
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "expectations:")
	ok := true
	for _, v := range vs {
		fmt.Fprintf(w, "  %v\n", v)
		ok = ok && v.OK
	}
	return ok
}

// cmdList is `simulate list`.
func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("list", stderr)
	if _, code, done := parseInterleaved(fs, args, stdout); done {
		return code
	}
	for _, name := range scenarios.LibraryNames() {
		f, err := scenarios.LoadLibrary(name)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: library scenario %s: %v\n", name, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n    %s\n", name, f.Question)
	}
	return 0
}

// cmdValidate is `simulate validate`.
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("validate", stderr)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "simulate validate: want one or more scenario files")
		return 2
	}
	code = 0
	for _, p := range pos {
		if _, _, err := loadScenario(p); err != nil {
			var ferrs scenarios.FileErrors
			if errors.As(err, &ferrs) {
				fmt.Fprintf(stdout, "%v\n", err) // the report: file:line:column of every error
			} else {
				fmt.Fprintf(stdout, "%s: %v\n", p, err) // the file could not be read
			}
			code = 2
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", p)
	}
	return code
}

// cmdPlot is `simulate plot`.
func cmdPlot(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("plot", stderr)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "simulate plot: want the directory a run wrote (simulate run ... -out DIR)")
		return 2
	}
	files, err := output.Replot(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return 0
}

// showcase is what `simulate` with no argument does: run the default scenario on a new
// seed, write everything to a folder it names, and say what to open.
func showcase(stdout, stderr io.Writer) int {
	seed := uint64(time.Now().UnixNano())
	dir := filepath.Join("sbsim-results", fmt.Sprintf("%s-seed-%d", scenarios.DefaultScenario, seed))
	return runScenario(scenarios.DefaultScenario, seed, dir, false, stdout, stderr)
}

// workers is the default number of parallel runs: one single-threaded run per core.
func workers() int { return runtime.GOMAXPROCS(0) }
