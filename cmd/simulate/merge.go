package main

import (
	"context"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdMerge is `simulate merge`: the folders of every shard of an exploration or a check
// (-shard i/n) combined into the folder, the report and the exit code of the one run of
// all its seeds.
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("merge", stderr)
	out := fs.String("out", "", "`DIR` for the merged results, as the one explore or check -out DIR of all the seeds writes them (required)")
	verbose := fs.Bool("v", false, "print every seed and its faults, not only those that fail")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	return results.Merge(ctx, stdout, stderr, *out, pos, *verbose)
}
