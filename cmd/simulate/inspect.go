package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdList is `simulate list`.
func cmdList(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if _, code, done := parseInterleaved(newSubFlags("list", stderr), args, stdout); done {
		return code
	}
	return results.List(stdout, stderr)
}

// cmdValidate is `simulate validate`.
func cmdValidate(_ context.Context, args []string, stdout, stderr io.Writer) int {
	pos, code, done := parseInterleaved(newSubFlags("validate", stderr), args, stdout)
	if done {
		return code
	}
	return results.Validate(pos, stdout, stderr)
}

// cmdLint is `simulate lint`: validate's errors, then the design's diagnostics (docs/lint.md).
func cmdLint(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("lint", stderr)
	opts := scriptFlags(fs)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	return results.Lint(pos, *opts, stdout, stderr)
}

// cmdPlot is `simulate plot`.
func cmdPlot(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("plot", stderr)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "simulate plot: want the directory a run wrote (simulate run ... -out DIR)")
		return results.ExitUsage
	}
	files, err := results.Replot(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return results.ExitUsage // a directory that holds no results is bad input
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return 0
}
