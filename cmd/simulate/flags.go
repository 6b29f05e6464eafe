package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// newSubFlags returns the flag set of a subcommand with its help.
func newSubFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("simulate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, c := range subcommands() {
		if c.name == name {
			fs.Usage = func() {
				fmt.Fprintf(fs.Output(), "Usage: simulate %s %s\n\n%s.\n\nFlags:\n", c.name, c.args, strings.ToUpper(c.what[:1])+c.what[1:])
				fs.PrintDefaults()
				fmt.Fprintf(fs.Output(), "\nExamples:\n%s", c.examples)
			}
		}
	}
	return fs
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

// overridesFlag adds the repeatable -set key=value flag to fs.
func overridesFlag(fs *flag.FlagSet) *[]file.Override {
	var sets []file.Override
	fs.Func("set", setUsage, func(v string) error {
		o, err := file.ParseOverride(v)
		sets = append(sets, o)
		return err
	})
	return &sets
}

// setUsage explains -set for run and check.
const setUsage = "set a key of the scenario to a value (`key=value`), the key a dotted path of its keys such as\n" +
	"broker.retry_interval_min or workloads.orders.dialogs (a list's item by index or by name); repeatable"

// open loads the scenario an argument names, with the overrides.
func open(arg string, overrides []file.Override) (*file.Scenario, error) {
	s, err := file.Open(arg)
	if err != nil {
		return nil, err
	}
	return s.With(overrides...)
}

// shardFlag adds -shard i/n (or auto/n, i from a Kubernetes Indexed Job's index) to fs.
func shardFlag(fs *flag.FlagSet) *batch.Shard {
	var s batch.Shard
	fs.Func("shard", batch.ShardUsage, func(v string) (err error) {
		s, err = batch.ParseShard(v, os.Getenv(batch.ShardIndexVariable))
		return err
	})
	return &s
}

// workers is the default number of parallel runs: one single-threaded run per core.
func workers() int { return runtime.GOMAXPROCS(0) }
