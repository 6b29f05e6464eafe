package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recheck runs the checkers over a results folder's trace.jsonl and finds the verdict of
// its summary.json; a trace changed by hand (a fragment stored twice) breaks INV-2, and
// the verdict then differs from the run's.
func TestRecheckGivesTheRunsVerdictAndCatchesAnEditedTrace(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCommand("run", "lossy-wan", "-seed", "1", "-out", dir, "-trace", "-q")
	require.Equal(t, 0, code, out+errOut)

	code, out, _ = runCommand("recheck", dir)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "verdict: every invariant held")
	assert.Contains(t, out, "the run's summary.json gives the same verdict")

	data, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"kind":"fragment-stored"`) {
			lines = append(lines[:i+1], lines[i:]...) // the same fragment stored twice
			break
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trace.jsonl"), []byte(strings.Join(lines, "")), 0o644))
	code, out, _ = runCommand("recheck", dir)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "verdict: FAILED: INV-2 violated")
	assert.Contains(t, out, "DIFFERS from the run's summary.json: the trace breaks INV-2, where the run held every invariant")

	// An empty trace beside the summary of a run that fired events is not that run's.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trace.jsonl"), nil, 0o644))
	code, out, _ = runCommand("recheck", dir)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "DIFFERS from the run's summary.json: the trace has no record, where the run fired")

	code, _, errOut = runCommand("recheck", filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "missing.jsonl")
}
