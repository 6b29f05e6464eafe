package main

import (
	"context"
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
	pos, code, done := parseInterleaved(newSubFlags("plot", stderr), args, stdout)
	if done {
		return code
	}
	return results.Plot(pos, stdout, stderr)
}

// cmdReport is `simulate report`.
func cmdReport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	pos, code, done := parseInterleaved(newSubFlags("report", stderr), args, stdout)
	if done {
		return code
	}
	return results.Report(pos, stdout, stderr)
}
