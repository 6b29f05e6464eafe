package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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
	path := pos[0]
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, results.TraceFile)
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return results.ExitUsage
	}
	defer f.Close()
	var summary *results.Summary
	sumPath := filepath.Join(filepath.Dir(path), results.SummaryFile)
	switch sf, err := os.Open(sumPath); {
	case err == nil:
		s, err := results.ReadSummary(sf)
		sf.Close()
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %s: %v\n", sumPath, err)
			return results.ExitUsage
		}
		summary = &s
	case !errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return results.ExitUsage
	}
	rc, err := results.RecheckTrace(f, summary)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %s: %v\n", path, err)
		return results.ExitUsage
	}
	fmt.Fprintf(stdout, "rechecked %d trace records of %s\n", rc.Records, path)
	switch {
	case rc.Violation != nil:
		fmt.Fprintf(stdout, "verdict: FAILED: %v\n", rc.Violation)
	default:
		fmt.Fprintf(stdout, "verdict: every invariant held (%d design findings)\n", rc.Findings)
	}
	if !rc.Finished {
		fmt.Fprintln(stdout, "INV-12 (everything delivered at the end) was not checked: no summary.json beside the trace, or the run did not drain, as its scenario expects")
	}
	switch {
	case summary == nil:
		fmt.Fprintf(stdout, "no %s beside the trace: nothing to compare the verdict with\n", results.SummaryFile)
	case rc.Differs != "":
		fmt.Fprintf(stdout, "DIFFERS from the run's %s: %s\n", results.SummaryFile, rc.Differs)
		return results.ExitFailed
	default:
		fmt.Fprintf(stdout, "the run's %s gives the same verdict\n", results.SummaryFile)
	}
	if rc.Violation != nil {
		return results.ExitFailed
	}
	return results.ExitOK
}
