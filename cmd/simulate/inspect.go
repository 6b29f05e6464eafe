package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdList is `simulate list`.
func cmdList(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("list", stderr)
	if _, code, done := parseInterleaved(fs, args, stdout); done {
		return code
	}
	for _, name := range file.LibraryNames() {
		s, err := file.Library(name)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: library scenario %s: %v\n", name, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n    %s\n", name, s.Question)
	}
	return 0
}

// cmdValidate is `simulate validate`.
func cmdValidate(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("validate", stderr)
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "simulate validate: want one or more scenario files")
		return results.ExitUsage
	}
	if !file.ValidateFiles(pos, stdout, stderr) {
		return results.ExitUsage
	}
	return 0
}

// cmdLint is `simulate lint`: validate's errors, then the design's diagnostics (docs/lint.md).
func cmdLint(_ context.Context, args []string, stdout, stderr io.Writer) int {
	pos, code, done := parseInterleaved(newSubFlags("lint", stderr), args, stdout)
	if done {
		return code
	}
	return results.Lint(pos, stdout, stderr)
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
