package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
)

// The names of the files WriteAll writes, besides the plots.
const (
	SummaryFile    = "summary.json"
	SeriesFile     = "series.csv"
	LatencyCDFFile = "latency_cdf.csv"
	TraceFile      = "trace.jsonl"
)

// WriteAll writes everything about one run to dir, a Folder (created if needed, holding
// no other run afterwards): summary.json from s, series.csv and latency_cdf.csv from res,
// round_trip_cdf.csv when a workload had replies, snapshots.json,
// trace.jsonl from trace when it holds records (pass res.Trace, or nil for no trace file)
// and trace.perfetto.json from it (WritePerfetto),
// the plots, and the manifest. (A run too long to keep its trace streams it instead:
// Folder.StreamTrace.) It returns the paths it wrote, in that order; on an error,
// the paths written before it.
func WriteAll(dir string, res *scenarios.Result, s Summary, trace []model.TraceRecord) ([]string, error) {
	f, err := OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	paths, err := f.WriteRun(res, s, trace)
	if err != nil {
		return paths, err
	}
	return paths, f.Close()
}

// WriteRun writes the files of WriteAll into the folder, without closing it: the caller
// may write more (the scenario it ran) before Close. With trace empty, the trace the folder
// streamed during the run (StreamTrace), if any, takes its place, when it holds records.
func (f *Folder) WriteRun(res *scenarios.Result, s Summary, trace []model.TraceRecord) ([]string, error) {
	defer f.abortTrace() // a streamed trace not put into place by the end: an error came first
	files := []outputFile{
		{SummaryFile, func(w io.Writer) error { return WriteSummary(w, s) }},
		{SeriesFile, func(w io.Writer) error { return WriteSeries(w, res) }},
		{LatencyCDFFile, func(w io.Writer) error { return WriteLatencyCDF(w, res) }},
	}
	if len(res.Snapshots) > 0 {
		files = append(files, outputFile{SnapshotsFile, func(w io.Writer) error { return WriteSnapshots(w, NewSnapshots(res)) }})
	}
	roundTrips := roundTripRows(res)
	if len(roundTrips) > 0 {
		files = append(files, outputFile{RoundTripCDFFile, func(w io.Writer) error { return writeRoundTripRows(w, roundTrips) }})
	}
	if len(trace) > 0 {
		files = append(files, outputFile{TraceFile, func(w io.Writer) error { return WriteTrace(w, trace) }})
	}
	var paths []string
	tracePath := ""
	for _, o := range files {
		path, err := f.Write(o.name, o.write)
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
		if o.name == TraceFile {
			tracePath = path
		}
	}
	if len(trace) == 0 {
		path, err := f.commitTrace()
		if err != nil {
			return paths, err
		}
		if path != "" {
			paths = append(paths, path)
			tracePath = path
		}
	}
	if tracePath != "" { // the same records for trace viewers (Perfetto), read back from the file
		path, err := f.Write(PerfettoFile, func(w io.Writer) error {
			return readFile(tracePath, func(r io.Reader) error { return WritePerfetto(w, r, res) })
		})
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	written, err := writePlots(f, plotData{cdfRows(res), roundTrips, seriesRows(res), s.Scenario, s.Seed})
	paths = append(paths, written...)
	if err != nil {
		return paths, fmt.Errorf("output: %w", err)
	}
	return paths, nil
}

// Plot is `simulate plot DIR`: the plots drawn again (Replot), their paths printed.
func Plot(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "simulate plot: want the directory a run wrote (simulate run ... -out DIR)")
		return ExitUsage
	}
	files, err := Replot(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitUsage // a directory that holds no results is bad input
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return ExitOK
}

// outputFile is a file WriteAll writes: its name and what writes its content.
type outputFile struct {
	name  string
	write func(io.Writer) error
}

// Replot draws again, in dir, the plots of the series.csv, latency_cdf.csv and (when there
// is one) round_trip_cdf.csv that WriteAll wrote there, titled with the scenario and seed
// of its summary.json: the same files, byte for byte. It returns the files it wrote.
func Replot(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, SeriesFile)); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, SweepFile)); err == nil {
			return nil, fmt.Errorf("replot %s: it holds a sweep (%s), whose plots only simulate sweep draws: run the sweep again", dir, SweepFile)
		}
	}
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
	var roundTrips []RoundTripRow
	if _, err := os.Stat(filepath.Join(dir, RoundTripCDFFile)); err == nil { // written when a workload had replies
		err = readFile(filepath.Join(dir, RoundTripCDFFile), func(r io.Reader) (err error) {
			roundTrips, err = ReadRoundTripCDF(r)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	d := plotData{cdf: cdf, roundTrips: roundTrips, rows: rows}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err == nil { // the titles name its scenario and seed
		err = readFile(filepath.Join(dir, SummaryFile), func(r io.Reader) error {
			s, err := ReadSummary(r)
			d.scenario, d.seed = s.Scenario, s.Seed
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	paths, err := writePlots(&Folder{dir: dir, unlisted: true}, d)
	if err != nil {
		return paths, fmt.Errorf("replot %s: %w", dir, err)
	}
	return paths, nil
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

// SayWritten tells, after a run wrote files to dir, what it wrote and what to open.
func SayWritten(w io.Writer, dir string, files []string) {
	fmt.Fprintf(w, "\nwrote %d files to %s:\n", len(files), dir)
	first := "no plot: nothing was received"
	for _, p := range files {
		fmt.Fprintf(w, "  %s\n", p)
		if strings.HasSuffix(p, ".png") && strings.HasPrefix(first, "no plot") {
			first = p + " first"
		}
	}
	report := filepath.Join(dir, ReportFile)
	if !slices.Contains(files, report) {
		fmt.Fprintf(w, "\nopen %s for the figures, and the plots beside it (%s);\n"+
			"%s replays the run; simulate list shows the other scenarios, simulate -h every command.\n",
			filepath.Join(dir, SummaryFile), first, filepath.Join(dir, ReplayScriptFile))
		return
	}
	fmt.Fprintf(w, "\nopen %s in a browser: the question, the verdict, the parameters, sequence charts of the slowest (and any failing) conversations, a timeline of faults, the plots and the figures;\n"+
		"%s holds every figure, %s replays the run; simulate list shows the other scenarios, simulate -h every command.\n",
		report, filepath.Join(dir, SummaryFile), filepath.Join(dir, ReplayScriptFile))
}

// SaySwept tells, after a sweep, how many runs it made, the files it wrote and how many
// runs broke an invariant.
func SaySwept(w io.Writer, sw *batch.Sweep, runs, failed int, files []string) {
	fmt.Fprintf(w, "%d points x %d seeds = %d runs; wrote %s\n", len(sw.Points), sw.Seeds, runs, strings.Join(files, ", "))
	if !slices.ContainsFunc(files, func(p string) bool { return strings.HasSuffix(p, ".svg") }) {
		fmt.Fprintf(w, "no plots: the values of %s are not numbers or durations\n", sw.Params[0].Key)
	}
	if failed > 0 {
		fmt.Fprintf(w, "%d runs broke an invariant\n", failed)
	}
	sayReport(w, files)
}
