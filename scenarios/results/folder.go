package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"github.com/sbsim/sbsim/plots"
)

// ManifestFile is the file, in a folder of results, that lists the files the run wrote
// there, one name a line. The next run into the folder reads it to remove what it does not
// write again, so that the folder holds one run only.
const ManifestFile = "manifest.txt"

// tempPrefix begins the name of a file being written; it is renamed into place once whole.
const tempPrefix = ".sbsim-tmp-"

// ErrForeignFolder is the error of OpenFolder for a directory that holds files no run of
// sbsim wrote: it is refused rather than mixed with, or cleared of, the user's files.
var ErrForeignFolder = errors.New("holds files that no run of simulate wrote")

// Folder is a directory of results that holds the files of one run (or one check, or one
// sweep) only. Every file is written to a temporary name in the directory and renamed into
// place once whole, so a reader never sees half a file and an error (a full disk) leaves
// the previous file, or none. Close removes the files of a previous run into the folder
// that this one did not write again, and writes the manifest.
type Folder struct {
	dir string
	// previous are the files the manifest of the previous run listed; written, this run's.
	previous, written []string
	// unlisted is set for a folder that keeps no manifest (WritePlots, Replot).
	unlisted bool
	// created is set when OpenFolder made the directory.
	created bool
	// stream is trace.jsonl being written while the run goes (StreamTrace), or nil.
	stream *traceStream
}

// OpenFolder creates dir (and its parents) if needed and makes sure that files can be
// written in it, before anything runs: an error then says so at once, rather than after a
// long run. A directory that is not empty must hold a previous run's manifest, else the
// error is ErrForeignFolder, naming a few of its files.
func OpenFolder(dir string) (*Folder, error) {
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output %s: %w", dir, err)
	}
	all, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("output %s: %w", dir, err)
	}
	var entries []os.DirEntry
	for _, e := range all {
		if strings.HasPrefix(e.Name(), tempPrefix) { // left by a run that was killed while it wrote
			os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		entries = append(entries, e)
	}
	f := &Folder{dir: dir, created: errors.Is(statErr, os.ErrNotExist)}
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	switch {
	case err == nil:
		for _, name := range strings.Split(strings.TrimSpace(string(manifest)), "\n") {
			if name != "" && name == filepath.Base(name) && name != "." && name != ".." {
				f.previous = append(f.previous, name) // a plain name in dir, nothing else
			}
		}
	case len(entries) > 0 && !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("output %s: %w", dir, err)
	case len(entries) > 0:
		var names []string
		for _, e := range entries[:min(3, len(entries))] {
			names = append(names, e.Name())
		}
		return nil, fmt.Errorf("output %s %w (%s...): give a new or empty directory, or one a run wrote (it has a %s)",
			dir, ErrForeignFolder, strings.Join(names, ", "), ManifestFile)
	}
	probe, err := os.CreateTemp(dir, tempPrefix+"probe-*")
	if err != nil {
		return nil, fmt.Errorf("output %s: cannot write there: %w", dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	// The manifest lists every file that may be there while this run writes, so that a run
	// stopped half way still leaves a folder the next run can clear.
	return f, f.writeManifest(f.previous, false)
}

// Abandon undoes OpenFolder for a run that stopped before it wrote anything (interrupted,
// or refused): a folder that held no run is left as it was found, without the manifest
// OpenFolder wrote, and removed when OpenFolder created it. A nil Folder does nothing.
func (f *Folder) Abandon() {
	if f == nil {
		return
	}
	f.abortTrace()
	if len(f.previous) > 0 || len(f.written) > 0 {
		return
	}
	os.Remove(filepath.Join(f.dir, ManifestFile))
	if f.created {
		os.Remove(f.dir) // only when empty
	}
}

// Dir is the folder's directory.
func (f *Folder) Dir() string { return f.dir }

// Write writes name in the folder with what write produces, through a buffer, to a
// temporary name renamed into place once whole. On an error, the temporary file is
// removed and a file of that name from before is left as it was. It returns the path.
func (f *Folder) Write(name string, write func(io.Writer) error) (string, error) {
	path := filepath.Join(f.dir, name)
	if err := f.expect(name); err != nil {
		return "", err
	}
	if err := writeAtomic(path, write); err != nil {
		return "", err
	}
	f.written = append(f.written, name)
	return path, nil
}

// expect adds name to the manifest before its file is written, when the manifest does not
// list it yet.
func (f *Folder) expect(name string) error {
	if f.unlisted || slices.Contains(f.previous, name) || slices.Contains(f.written, name) {
		return nil
	}
	return f.writeManifest(append(append(slices.Clone(f.previous), f.written...), name), false)
}

// savePlot writes p as base.png and base.svg, each whole or not at all.
func (f *Folder) savePlot(p *plot.Plot, base string) ([]string, error) {
	var paths []string
	for _, ext := range []string{".png", ".svg"} {
		name := base + ext
		if err := f.expect(name); err != nil {
			return paths, err
		}
		path := filepath.Join(f.dir, name)
		tmp, err := os.CreateTemp(f.dir, tempPrefix+"*-"+name) // Save takes the format from the extension
		if err != nil {
			return paths, fmt.Errorf("write %s: %w", path, err)
		}
		tmp.Close()
		err = plots.Save(p, tmp.Name(), plots.DefaultWidth, plots.DefaultHeight)
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644) // as the other files: a temporary file is 0600
		}
		if err != nil {
			os.Remove(tmp.Name())
			return paths, err
		}
		if err := os.Rename(tmp.Name(), path); err != nil {
			os.Remove(tmp.Name())
			return paths, fmt.Errorf("write %s: %w", path, err)
		}
		f.written = append(f.written, name)
		paths = append(paths, path)
	}
	return paths, nil
}

// Close removes the files of the previous run that this one did not write, and writes the
// manifest of this run's files.
func (f *Folder) Close() error {
	f.abortTrace()
	for _, name := range f.previous {
		if !slices.Contains(f.written, name) && name != ManifestFile {
			if err := os.Remove(filepath.Join(f.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("output %s: remove the previous run's %s: %w", f.dir, name, err)
			}
		}
	}
	f.previous = nil
	return f.writeManifest(f.written, true)
}

// writeManifest writes the manifest listing names; synced, for the last one only, which
// costs a disk flush.
func (f *Folder) writeManifest(names []string, sync bool) error {
	return writeFileAtomic(filepath.Join(f.dir, ManifestFile), sync, func(w io.Writer) error {
		for _, n := range names {
			if _, err := fmt.Fprintln(w, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeAtomic writes what write produces to a temporary file beside path, through a
// buffer (a large trace is not held in memory twice), and renames it to path once written
// and synced. A failed write removes the temporary file and leaves path as it was.
func writeAtomic(path string, write func(io.Writer) error) error {
	return writeFileAtomic(path, true, write)
}

// writeFileAtomic is writeAtomic, syncing the file before the rename when sync is set.
func writeFileAtomic(path string, sync bool, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*-"+filepath.Base(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// pendingFile is a file being written under a temporary name, for a writer that streams
// (sweep.csv): commit renames it into place, abort removes it.
type pendingFile struct {
	*os.File
	path string
}

// create starts writing name in the folder under a temporary name.
func (f *Folder) create(name string) (*pendingFile, error) {
	if err := f.expect(name); err != nil {
		return nil, err
	}
	return f.createUnlisted(name)
}

// createUnlisted is create for a file that the manifest lists only once it is committed
// (expect, then commit): trace.jsonl, which a run writes from its start but lists in the
// order of WriteRun.
func (f *Folder) createUnlisted(name string) (*pendingFile, error) {
	path := filepath.Join(f.dir, name)
	tmp, err := os.CreateTemp(f.dir, tempPrefix+"*-"+name)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &pendingFile{File: tmp, path: path}, nil
}

// commit closes the file and renames it into place; on an error it removes it.
func (p *pendingFile) commit(f *Folder, name string) error {
	err := p.Chmod(0o644)
	if err == nil {
		err = p.Sync()
	}
	if cerr := p.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.Name(), p.path)
	}
	if err != nil {
		os.Remove(p.Name())
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	f.written = append(f.written, name)
	return nil
}

// abort closes and removes the file.
func (p *pendingFile) abort() {
	p.File.Close()
	os.Remove(p.Name())
}

// Lines is a JSON Lines file that a check or a sweep appends to as each run finishes, so
// that it can be followed while they run and keeps what was done when they are stopped.
// It is the one file written in place rather than renamed: each line is written by one
// call, and a line that could not be written whole is cut off again, so every line in the
// file is whole.
type Lines struct {
	f    *os.File
	path string
	size int64
}

// Lines creates (or empties) name in the folder for Add.
func (f *Folder) Lines(name string) (*Lines, error) {
	path := filepath.Join(f.dir, name)
	if err := f.expect(name); err != nil {
		return nil, err
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	f.written = append(f.written, name)
	return &Lines{f: file, path: path}, nil
}

// Add appends v as one JSON line.
func (l *Lines) Add(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	n, err := l.f.Write(append(line, '\n'))
	if err != nil {
		if n > 0 {
			_ = l.f.Truncate(l.size) // no half line
			_, _ = l.f.Seek(l.size, io.SeekStart)
		}
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	l.size += int64(n)
	return nil
}

// Path is the file's path.
func (l *Lines) Path() string { return l.path }

// Close syncs and closes the file.
func (l *Lines) Close() error {
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	return nil
}
