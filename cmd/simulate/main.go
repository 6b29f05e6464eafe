package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/sbsim/sbsim/scenarios"
)

// defaultDuration is the virtual time during which the demonstration sends traffic.
const defaultDuration = time.Minute

// minDuration and maxDuration bound -duration: the partition windows are fractions of it,
// and the demonstration keeps every latency sample in memory.
const (
	minDuration = time.Millisecond
	maxDuration = time.Hour
)

// usageText is the help that -h prints; the flags themselves follow it.
const usageText = `Usage: go run ./cmd/simulate [SUBCOMMAND [arguments]] | [flags]

With no argument, simulate runs the showcase scenario "lossy-wan" on a new seed,
writes its results (summary.json, series.csv, plots) to a folder under
sbsim-results/ that it names, and says what to open.

With flags and no subcommand, simulate runs a built-in scenario and prints what
happened. By default it runs
"lossy-wan": two Service Broker instances, Lisbon and Tokyo, over a WAN that
loses, duplicates, reorders and corrupts, with request/reply dialogs whose
messages span several fragments. It prints the seed first, then the scenario,
per-link, per-instance and per-conversation figures (messages, fragments,
retransmissions, duplicates and corrupt fragments discarded, latency p50, p99
and max), and the verdict of every invariant checked while it ran.

The scenario "links" is the foundation's demonstration instead: three instances
joined by faulty links carrying plain traffic for -duration, then the verdict of
the link counters.

The same seed prints the same output, byte for byte, on any machine.

`

// examplesText follows the flags in the help.
const examplesText = `  -h
    	print this help and exit

Examples:
  go run ./cmd/simulate                                       a new seed, printed first
  go run ./cmd/simulate -seed 1                               replay the run of seed 1
  go run ./cmd/simulate -scenario links -seed 1 -duration 5s  the link demonstration, five virtual seconds

Exit status: 0 when every check passes, 1 when a check or an invariant fails,
2 on a bad flag.
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// options are the parsed flags.
type options struct {
	seed        uint64
	seedSet     bool // -seed was given; otherwise seed comes from the wall clock
	scenario    string
	duration    time.Duration
	durationSet bool
}

// linksScenario names the foundation's link demonstration.
const linksScenario = "links"

// newFlagSet returns the command's flags, bound to o, reporting errors to errOut.
func newFlagSet(o *options, errOut io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() {} // run prints the help itself, to stdout for -h and stderr on error
	fs.Uint64Var(&o.seed, "seed", 0,
		"seed `N` of every random stream, an unsigned 64-bit integer; without it, one is\n"+
			"picked from the wall clock and printed first, so that the run can be replayed")
	fs.StringVar(&o.scenario, "scenario", scenarios.DefaultScenario,
		"`name` of the built-in scenario to run: "+strings.Join(append(scenarios.BuiltinNames(), linksScenario), ", "))
	fs.DurationVar(&o.duration, "duration", defaultDuration,
		"for -scenario links only: virtual `time` during which traffic is sent, as a Go\n"+
			"duration (500ms, 90s, 2m); the links then drain what is in flight; from 1ms to 1h")
	return fs
}

// printUsage writes the help: what the command does, every flag, examples.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usageText)
	printSubcommands(w)
	fmt.Fprintln(w, "Flags without a subcommand (run a built-in scenario and print what happened):")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
	fmt.Fprint(w, examplesText)
}

// parseArgs reads the flags. It returns done when the command must exit with code at once.
func parseArgs(args []string, stdout, stderr io.Writer) (o options, code int, done bool) {
	fs := newFlagSet(&o, stderr)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout, fs)
		return o, 0, true
	case err != nil: // the flag package has printed the error
		printUsage(stderr, fs)
		return o, 2, true
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "unexpected argument %q: the subcommands are run, check, sweep, list, validate and plot,\n"+
			"and they come first (simulate run NAME -seed 1)\n", fs.Arg(0))
		printUsage(stderr, fs)
		return o, 2, true
	case o.duration < minDuration || o.duration > maxDuration:
		fmt.Fprintf(stderr, "invalid value %v for flag -duration: must be from 1ms to 1h\n", o.duration)
		return o, 2, true
	}
	fs.Visit(func(f *flag.Flag) {
		o.seedSet = o.seedSet || f.Name == "seed"
		o.durationSet = o.durationSet || f.Name == "duration"
	})
	if o.scenario != linksScenario {
		if _, err := scenarios.LookupBuiltin(o.scenario); err != nil {
			fmt.Fprintf(stderr, "invalid value %q for flag -scenario: %v\n", o.scenario, err)
			return o, 2, true
		}
		if o.durationSet {
			fmt.Fprintf(stderr, "flag -duration applies to -scenario links only\n")
			return o, 2, true
		}
	}
	return o, 0, false
}

// replayCommand returns the command line that repeats the run of o, byte for byte.
func replayCommand(o options) string {
	cmd := fmt.Sprintf("go run ./cmd/simulate -seed %d", o.seed)
	if o.scenario != scenarios.DefaultScenario {
		cmd += " -scenario " + o.scenario
	}
	if o.duration != defaultDuration {
		cmd += " -duration " + o.duration.String()
	}
	return cmd
}

// run is the command: it parses args, runs the demonstration and prints its summary to
// stdout. It returns the exit code: 0 when every check passes, 1 when one fails, 2 on a bad
// flag.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return showcase(stdout, stderr)
	}
	if code, ok := dispatch(args, stdout, stderr); ok {
		return code
	}
	o, code, done := parseArgs(args, stdout, stderr)
	if done {
		return code
	}
	if !o.seedSet {
		// The one use of the wall clock: choosing a seed that the user did not give. It is
		// printed first, so the run can still be replayed.
		o.seed = uint64(time.Now().UnixNano())
	}
	fmt.Fprintf(stdout, "seed: %d\n", o.seed)
	fmt.Fprintf(stdout, "replay: %s\n", replayCommand(o))
	if o.scenario != linksScenario {
		return runBuiltin(o, stdout, stderr)
	}
	w, err := newWorld(o.seed, o.duration)
	if err != nil {
		// The built-in configuration is ours: failing to wire it is a bug, reported as a
		// failed check rather than a bad flag.
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	printParameters(stdout, w)
	reason := w.engine.Run(w.limits)
	printResults(stdout, w, reason)
	if !printVerdict(stdout, w) {
		return 1
	}
	return 0
}

// runBuiltin runs a built-in scenario and prints its figures and invariant verdicts.
func runBuiltin(o options, stdout, stderr io.Writer) int {
	b, err := scenarios.LookupBuiltin(o.scenario)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 2
	}
	printScenario(stdout, b)
	res, err := scenarios.Run(b.Config, o.seed)
	if err != nil {
		// A built-in scenario that does not load is a bug of ours, not bad input.
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	printDialogResults(stdout, res)
	if !printInvariantVerdicts(stdout, res, replayCommand(o)) {
		return 1
	}
	return 0
}
