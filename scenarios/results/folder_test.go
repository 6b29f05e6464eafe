package results

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// filesIn lists the names in dir.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A full disk in the middle of a file (more than the buffer written, so bytes reached the
// temporary file) leaves neither a cut file nor the temporary one, and the file of that
// name from before stays whole.
func TestAFailedWriteLeavesNoCutFile(t *testing.T) {
	dir := t.TempDir()
	f, err := OpenFolder(dir)
	require.NoError(t, err)
	_, err = f.Write(SummaryFile, func(w io.Writer) error { _, err := w.Write([]byte("before\n")); return err })
	require.NoError(t, err)

	_, err = f.Write(SummaryFile, func(w io.Writer) error {
		_, _ = w.Write(bytes.Repeat([]byte("x"), 1<<17))
		return syscall.ENOSPC
	})

	assert.ErrorIs(t, err, syscall.ENOSPC)
	data, rerr := os.ReadFile(filepath.Join(dir, SummaryFile))
	require.NoError(t, rerr)
	assert.Equal(t, "before\n", string(data), "the failed write changed the file in place")
	for _, n := range filesIn(t, dir) {
		assert.False(t, strings.HasPrefix(n, tempPrefix), "temporary file %s left behind", n)
	}
}

// A second run into the folder of a first leaves only its own files: a plot the first
// drew and the second did not is removed, and the manifest lists what is there.
func TestASecondRunIntoAFolderLeavesNoFileOfTheFirst(t *testing.T) {
	dir := t.TempDir()
	res := runSmall(t, testSeed)
	_, err := WriteAll(dir, res, NewSummary(res, "small", "", nil), res.Trace)
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, TraceFile))
	require.FileExists(t, filepath.Join(dir, LatencyCDFPlot+".png"))

	empty := &scenarios.Result{}
	paths, err := WriteAll(dir, empty, NewSummary(empty, "empty", "", nil), nil)
	require.NoError(t, err)

	want := []string{ManifestFile}
	for _, p := range paths {
		want = append(want, filepath.Base(p))
	}
	assert.ElementsMatch(t, want, filesIn(t, dir))
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	require.NoError(t, err)
	assert.Equal(t, strings.Join(want[1:], "\n")+"\n", string(manifest))
}

// A folder that holds files no run wrote is refused, naming them, before anything is
// written; an empty one and one a run wrote are taken.
func TestOpenFolderRefusesADirectoryOfOtherFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))

	_, err := OpenFolder(dir)

	assert.ErrorIs(t, err, ErrForeignFolder)
	assert.ErrorContains(t, err, "notes.txt")
	assert.Equal(t, []string{"notes.txt"}, filesIn(t, dir))

	_, err = OpenFolder(t.TempDir())
	assert.NoError(t, err)
	written := t.TempDir()
	res := &scenarios.Result{}
	_, err = WriteAll(written, res, NewSummary(res, "", "", nil), nil)
	require.NoError(t, err)
	_, err = OpenFolder(written)
	assert.NoError(t, err)
}

// A manifest names files in its folder only: a path in it is not followed.
func TestAManifestCannotRemoveFilesOutsideItsFolder(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "keep.txt")
	require.NoError(t, os.WriteFile(outside, []byte("keep"), 0o644))
	dir := filepath.Join(root, "run")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ManifestFile), []byte("../keep.txt\n"+outside+"\n"), 0o644))

	f, err := OpenFolder(dir)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	assert.FileExists(t, outside)
}

// The temporary files of a run killed while it wrote are removed by the next run into the
// folder, and do not make the folder look foreign.
func TestOpenFolderRemovesTheTemporaryFilesOfAKilledRun(t *testing.T) {
	dir := t.TempDir()
	left := filepath.Join(dir, tempPrefix+"123-"+ManifestFile)
	require.NoError(t, os.WriteFile(left, []byte("half"), 0o644))

	f, err := OpenFolder(dir)

	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, []string{ManifestFile}, filesIn(t, dir))
}

// A run that stops before it writes (interrupted, or refused) leaves the folder as it found
// it: a directory OpenFolder created is removed, an empty one stays empty, and a previous
// run's files and manifest stay (review: an interrupted run said "nothing written" and left
// a manifest).
func TestAbandonLeavesTheFolderAsItWasFound(t *testing.T) {
	fresh := filepath.Join(t.TempDir(), "new")
	f, err := OpenFolder(fresh)
	require.NoError(t, err)
	f.Abandon()
	assert.NoDirExists(t, fresh)

	empty := t.TempDir()
	f, err = OpenFolder(empty)
	require.NoError(t, err)
	f.Abandon()
	entries, err := os.ReadDir(empty)
	require.NoError(t, err)
	assert.Empty(t, entries)

	used := t.TempDir()
	f, err = OpenFolder(used)
	require.NoError(t, err)
	_, err = f.Write("a.txt", func(w io.Writer) error { _, err := io.WriteString(w, "a"); return err })
	require.NoError(t, err)
	require.NoError(t, f.Close())
	f, err = OpenFolder(used)
	require.NoError(t, err)
	f.Abandon()
	assert.FileExists(t, filepath.Join(used, "a.txt"))
	assert.FileExists(t, filepath.Join(used, ManifestFile))

	var none *Folder
	none.Abandon() // a run without -out
}
