package results

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sbsim/sbsim/scenarios/shrink"
)

// otherPage is the page simulate report writes again in dir when dir is not a run's
// folder: a sweep's report.html (its folder has sweep.json; one with sweep.csv alone is an
// error that says why) or a counterexample card's
// card.html (its folder has card.txt, or the files of a card without it, which is an
// error WriteCardPageFromFolder says). write is nil for a run's folder.
func otherPage(dir string) (name string, write func(io.Writer) error) {
	has := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	switch {
	case has(SweepRecordFile):
		return ReportFile, func(w io.Writer) error { return WriteSweepReportFromFolder(w, dir) }
	case has(SweepFile):
		return ReportFile, func(io.Writer) error {
			return fmt.Errorf("sweep %s: no %s, which a sweep's report is drawn from (a sweep before it wrote none): sweep again", dir, SweepRecordFile)
		}
	case has(shrink.CardFile) || has(shrink.ChartFile) || has(shrink.CaseFile) && !has(SummaryFile):
		return CardPageFile, func(w io.Writer) error { return WriteCardPageFromFolder(w, dir) }
	}
	return "", nil
}

// rebuildPage writes the page name in dir again with write, all of it or nothing, and
// prints its path.
func rebuildPage(dir, name string, write func(io.Writer) error, stdout, stderr io.Writer) int {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		fmt.Fprintf(stderr, "simulate report: %v\n", err)
		return ExitUsage
	}
	path := filepath.Join(dir, name)
	if err := writeAtomic(path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		fmt.Fprintf(stderr, "simulate report: %v\n", err)
		return ExitNotWritten
	}
	fmt.Fprintln(stdout, path)
	return ExitOK
}
