package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simulate report DIR writes a sweep's report.html again from its folder, byte for byte
// what the sweep wrote.
func TestReportRebuildsTheSweepsReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	code, out, stderr := runCommand("sweep", "poison-message", "-set", "readers.0.rollback_rate=0,1", "-seeds", "2", "-out", dir)
	require.Equal(t, 0, code, out+stderr)
	report := filepath.Join(dir, "report.html")
	assert.Contains(t, out, "open "+report+" in a browser")
	want, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, os.Remove(report))
	code, out, stderr = runCommand("report", dir)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, report+"\n", out)
	got, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
}
