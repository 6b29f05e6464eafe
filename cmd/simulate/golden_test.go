package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden-seed1.sha256 from this run")

// goldenFile holds the SHA-256 of every file `simulate run NAME -seed 1 -out DIR` writes for
// each library scenario (and trace.jsonl of lossy-wan with -trace), one "hash  name/file" line
// each. It guards refactorings: moving code must not change a single byte of what a run
// leaves. Regenerate it with `go test ./cmd/simulate -run TestOutputsOfEveryLibraryScenarioAreUnchanged -update`
// and explain every changed line in the commit.
const goldenFile = "testdata/golden-seed1.sha256"

func TestOutputsOfEveryLibraryScenarioAreUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every library scenario")
	}
	root := t.TempDir()
	names := libraryNamesForGolden(t)
	var lines []string
	for _, name := range names {
		args := []string{"run", name, "-seed", "1", "-out", filepath.Join(root, name)}
		if name == "lossy-wan" {
			args = append(args, "-trace")
		}
		code, _, stderr := runCommand(args...)
		require.Equal(t, 0, code, "simulate %v: %s", args, stderr)
		checkReport(t, filepath.Join(root, name))
	}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(root, path)
		lines = append(lines, fmt.Sprintf("%s  %s", hex.EncodeToString(sum[:]), filepath.ToSlash(rel)))
		return nil
	})
	require.NoError(t, err)
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join(testdataDir(t), goldenFile)
	if *updateGolden {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden hashes: run with -update")
	wantLines, gotLines := strings.Split(string(want), "\n"), strings.Split(got, "\n")
	var changed []string
	for _, l := range gotLines {
		if !slices.Contains(wantLines, l) {
			changed = append(changed, "+ "+l)
		}
	}
	for _, l := range wantLines {
		if !slices.Contains(gotLines, l) {
			changed = append(changed, "- "+l)
		}
	}
	assert.Empty(t, changed, "a library scenario's results changed for seed 1; if on purpose, run with -update and explain each line")
}

// sourceDir is the package's directory: TestMain moves the tests into a directory of their own.
var sourceDir, _ = os.Getwd()

func testdataDir(t *testing.T) string {
	t.Helper()
	require.NotEmpty(t, sourceDir)
	return sourceDir
}

func libraryNamesForGolden(t *testing.T) []string {
	t.Helper()
	return file.LibraryNames()
}

// The command stays thin: flags in, library calls, files and an exit code out, in at most
// 600 lines without its tests (issue 11). What grows belongs in a library package.
func TestTheCommandIsAtMost600Lines(t *testing.T) {
	entries, err := os.ReadDir(sourceDir)
	require.NoError(t, err)
	lines := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			data, err := os.ReadFile(filepath.Join(sourceDir, e.Name()))
			require.NoError(t, err)
			lines += strings.Count(string(data), "\n")
		}
	}
	assert.LessOrEqual(t, lines, 600, "cmd/simulate has %d lines without its tests", lines)
}

// checkReport checks a run folder's report.html against its summary.json (issue 18): the
// same verdict, every expectation named, and a size a browser opens at once.
func checkReport(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	require.NoError(t, err)
	sum, err := results.ReadSummary(bytes.NewReader(data))
	require.NoError(t, err)
	page, err := os.ReadFile(filepath.Join(dir, results.ReportFile))
	require.NoError(t, err)
	verdict := "Verdict: ok"
	if !sum.OK {
		verdict = "Verdict: FAILED"
	}
	assert.Contains(t, string(page), verdict, dir)
	for _, e := range sum.Expectations {
		assert.Contains(t, string(page), html.EscapeString(e.Name), dir)
	}
	assert.Less(t, len(page), 8<<20, "%s: report.html under 8 MB", dir)
}
