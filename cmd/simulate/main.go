package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// usageText is the help that -h prints.
const usageText = `Usage: go run ./cmd/simulate [SUBCOMMAND] [arguments]

sbsim simulates SQL Server Service Broker designs, deterministically: the same code,
scenario and seed print and write the same bytes on any machine (PNGs: on one platform).
A scenario is a YAML file, or a name from the library of scenarios (simulate list).

With no argument, simulate runs the showcase scenario "lossy-wan" on a new seed, writes its
results (summary.json, series.csv, plots) to a folder under sbsim-results/ that it names,
and says what to open. With flags only, it runs lossy-wan with them: "simulate -seed 7" is
"simulate run lossy-wan -seed 7".

`

// examplesText follows the subcommands in the help.
const examplesText = `Examples:
  go run ./cmd/simulate                                  the showcase on a new seed, results written
  go run ./cmd/simulate -seed 1                          lossy-wan on seed 1, printed
  go run ./cmd/simulate run priority-flood -seed 3 -out results/
  go run ./cmd/simulate check all -seeds 20
  go run ./cmd/simulate sweep activation-burst -set procedures.0.top=1,5,10 -seeds 10

Every run prints its seed first and the command that replays it second. Exit status: 0
when every invariant and expectation holds, 1 when one fails, 2 on bad input, 3 when the
results could not be written, 4 when a run stopped at a resource limit, 130 when
interrupted (docs/outputs.md#exit-codes).
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: it returns the exit code. SIGINT and SIGTERM stop it cleanly.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case len(args) == 0:
		return showcase(ctx, stdout, stderr)
	case args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help":
		printUsage(stdout)
		return 0
	case strings.HasPrefix(args[0], "-"):
		return cmdRun(ctx, append([]string{file.Showcase}, args...), stdout, stderr)
	}
	for _, c := range subcommands() {
		if args[0] == c.name {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "simulate: unknown subcommand %q\n\n", args[0])
	printUsage(stderr)
	return results.ExitUsage
}

// subcommand is one of simulate's subcommands.
type subcommand struct {
	name, args, what, examples string
	run                        func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

func subcommands() []subcommand {
	return []subcommand{
		{"run", "FILE|NAME [-seed N] [-set key=value ...] [-out DIR] [-trace] [-q|-v] [-check-determinism]", "run a scenario once, print its report, and write its results",
			"  simulate run lossy-wan -seed 7\n  simulate run my-design.yaml -out results/ -trace\n  simulate run lossy-wan -set broker.retry_interval_min=1s\n", cmdRun},
		{"check", "FILE...|all [-seeds N] [-set key=value ...] [-shard i/n|auto/n] [-out DIR] [-workers N] [-v] [-check-determinism]", "run scenarios over many seeds and report their invariants and expectations",
			"  simulate check all -seeds 5\n  simulate check my-design.yaml -seeds 100\n  simulate check all -seeds 100 -shard 0/4 -out shard-0/\n", cmdCheck},
		{"explore", "FILE|NAME [-seeds N] [-swarm] [-shard i/n|auto/n] [-seed N [-trace] [-q]] [-set key=value ...] [-out DIR] [-workers N] [-v]",
			"run a scenario's invariants over many seeds, a fault mix drawn for each, then the liveness phase",
			"  simulate explore lossy-wan -seeds 1000\n  simulate explore my-design.yaml -seeds 10000 -swarm\n  simulate explore lossy-wan -seed 17 -out results/ -trace\n" +
				"  simulate explore lossy-wan -seeds 1000000 -swarm -shard 3/100 -out shard-3/\n", cmdExplore},
		{"merge", "-out DIR [-v] SHARD_DIR...", "combine the shards of an exploration or a check (-shard i/n) into the results of the one run of all its seeds",
			"  simulate merge -out results/ shard-0/ shard-1/ shard-2/\n", cmdMerge},
		{"recheck", "DIR|trace.jsonl", "run every invariant checker over a saved trace, and compare the verdict with the run's summary.json",
			"  simulate run lossy-wan -seed 1 -out results/ -trace\n  simulate recheck results/\n", cmdRecheck},
		{"sweep", "FILE|NAME -set key=v1,v2,... [-set ...] [-seeds N] [-out DIR] [-workers N] [-v]",
			"run a grid of one or two parameters over many seeds", "  simulate sweep activation-burst -set procedures.0.top=1,2,5,10 -seeds 10\n", cmdSweep},
		{"list", "", "list the library's scenarios and the question each answers", "  simulate list\n", cmdList},
		{"validate", "FILE...", "check scenario files and report every error with its line and column",
			"  simulate validate my-design.yaml\n", cmdValidate},
		{"import", "FILE.sql|DIR... [-map DATABASE=INSTANCE ...] [-var NAME=VALUE ...] [-db NAME] [-o FILE]",
			"read Service Broker T-SQL scripts into a commented scenario file (docs/import.md)",
			"  simulate import deploy.sql -var DbName=Orders -o orders.yaml\n  simulate import initiator.sql target.sql -map Orders=A -map Stock=B -o design.yaml\n", cmdImport},
		{"lint", "FILE|FILE.sql|DIR... [-map ...] [-var ...] [-db NAME]", "validate scenario files or T-SQL scripts, then diagnose their designs: stable IDs, line and column, severity and a fix (docs/lint.md)",
			"  simulate lint my-design.yaml\n  simulate lint deploy.sql -var DbName=Orders\n", cmdLint},
		{"plot", "DIR", "draw the plots again from the results written in DIR", "  simulate plot results/lossy-wan-seed-7\n", cmdPlot},
		{"report", "DIR", "write report.html (of a run or a sweep) or card.html (of a counterexample card) again from the files in DIR (docs/outputs.md#reporthtml)", "  simulate report results/lossy-wan-seed-7\n  simulate report sbsim-results/explore-lossy-wan/seed-3/card\n", cmdReport},
	}
}

// printUsage writes the help: what the command does, its subcommands, examples.
func printUsage(w io.Writer) {
	fmt.Fprint(w, usageText)
	fmt.Fprintln(w, "Subcommands (simulate SUBCOMMAND -h for each one's flags):")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "%s\n            %s\n", strings.TrimRight(fmt.Sprintf("  %-9s %s", c.name, c.args), " "), c.what)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, examplesText)
}
