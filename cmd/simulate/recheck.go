package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdRecheck is `simulate recheck`: every invariant checker over a saved trace.jsonl (a
// results folder, or the file), its verdict printed and compared with the run's
// summary.json beside it.
func cmdRecheck(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newSubFlags("recheck", stderr)
	pos, code, done := parseInterleaved(fl, args, stdout)
	if done {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "simulate recheck: want one results folder (run -out DIR -trace) or trace.jsonl")
		return results.ExitUsage
	}
	return results.RecheckPath(pos[0], stdout, stderr)
}
