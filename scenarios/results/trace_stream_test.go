package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// A run that streams its trace to the folder (Config.TraceSink from StreamTrace) and counts
// its conversations as it goes (Config.Conversations), keeping no record in memory, writes
// the same files, byte for byte and in the same order, as one that kept its trace
// (Config.Trace) and handed it to WriteRun (issue 15: -out needs no trace in memory).
func TestAStreamedTraceWritesWhatAKeptTraceWrites(t *testing.T) {
	kept := sharedOutput(t)
	cfg := smallConfig()
	cfg.Trace, cfg.Conversations = false, true
	dir := filepath.Join(t.TempDir(), "streamed")
	folder, err := OpenFolder(dir)
	require.NoError(t, err)
	sink, err := folder.StreamTrace()
	require.NoError(t, err)
	cfg.TraceSink = sink
	res, err := scenarios.Run(cfg, testSeed)
	require.NoError(t, err)
	assert.Nil(t, res.Trace, "no record kept in memory")
	assert.Equal(t, kept.res.Conversations, res.Conversations, "the conversations table, counted as the run goes")
	paths, err := folder.WriteRun(res, NewSummary(res, "small.yaml", "sha256:0123", testVerdicts), nil)
	require.NoError(t, err)
	require.NoError(t, folder.Close())
	require.Len(t, paths, len(kept.paths))
	for i, p := range paths {
		require.Equal(t, filepath.Base(kept.paths[i]), filepath.Base(p), "file %d", i)
		if filepath.Ext(p) == ".png" || filepath.Ext(p) == ".svg" {
			continue // drawn from series.csv and latency_cdf.csv, compared above
		}
		want, err := os.ReadFile(kept.paths[i])
		require.NoError(t, err)
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s differs from the kept trace's", filepath.Base(p))
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), tempPrefix, "no temporary file left")
	}
}

// A folder abandoned while it streams its trace (an interrupted run) keeps no temporary
// trace file, and a new folder is removed again.
func TestAnAbandonedFolderRemovesItsStreamedTrace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "abandoned")
	folder, err := OpenFolder(dir)
	require.NoError(t, err)
	sink, err := folder.StreamTrace()
	require.NoError(t, err)
	cfg := smallConfig()
	cfg.Trace, cfg.TraceSink = false, sink
	_, err = scenarios.Run(cfg, testSeed)
	require.NoError(t, err)
	folder.Abandon()
	assert.NoDirExists(t, dir)
}
