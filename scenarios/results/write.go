package results

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// The names of the files WriteAll writes, besides the plots.
const (
	SummaryFile    = "summary.json"
	SeriesFile     = "series.csv"
	LatencyCDFFile = "latency_cdf.csv"
	TraceFile      = "trace.jsonl"
)

// WriteAll writes everything about one run to dir, creating it (and its parents) if
// needed: summary.json from s, series.csv and latency_cdf.csv from res, trace.jsonl from
// trace when it holds records (pass res.Trace, or nil for no trace file), and the plots.
// Existing files of those names are replaced; other files are left alone. It returns the
// paths it wrote, in that order; on an error, the paths written before it.
func WriteAll(dir string, res *scenarios.Result, s Summary, trace []model.TraceRecord) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	files := []outputFile{
		{SummaryFile, func(w io.Writer) error { return WriteSummary(w, s) }},
		{SeriesFile, func(w io.Writer) error { return WriteSeries(w, res) }},
		{LatencyCDFFile, func(w io.Writer) error { return WriteLatencyCDF(w, res) }},
	}
	if len(trace) > 0 {
		files = append(files, outputFile{TraceFile, func(w io.Writer) error { return WriteTrace(w, trace) }})
	}
	var paths []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := writeFile(path, f.write); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	written, err := WritePlots(dir, res)
	paths = append(paths, written...)
	if err != nil {
		return paths, fmt.Errorf("output: %w", err)
	}
	return paths, nil
}

// outputFile is a file WriteAll writes: its name and what writes its content.
type outputFile struct {
	name  string
	write func(io.Writer) error
}

// Replot draws again, in dir, the plots of the series.csv and latency_cdf.csv that WriteAll
// wrote there: the same files, byte for byte. It returns the files it wrote.
func Replot(dir string) ([]string, error) {
	var rows []SeriesRow
	var cdf []CDFRow
	err := readFile(filepath.Join(dir, SeriesFile), func(r io.Reader) (err error) {
		rows, err = ReadSeries(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = readFile(filepath.Join(dir, LatencyCDFFile), func(r io.Reader) (err error) {
		cdf, err = ReadLatencyCDF(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	paths, err := writePlots(dir, cdf, rows)
	if err != nil {
		return paths, fmt.Errorf("replot %s: %w", dir, err)
	}
	return paths, nil
}

// writeFile writes what write produces to path, through a buffer, so that a large trace
// is not held in memory twice. A failed write removes the file, leaving no half file behind.
func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// readFile opens path and hands it to read.
func readFile(path string, read func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if err := read(f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
