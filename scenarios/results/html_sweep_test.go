package results

import (
	"bytes"
	"context"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// readersKey is activation-burst's MAX_QUEUE_READERS, which its expectations fix at 4.
const readersKey = "instances.Warehouse.databases.Warehouse.queues.OrderQueue.activation.max_queue_readers"

// sweepReportOf sweeps a library scenario over param on seeds 1 to seeds into a new
// folder, as simulate sweep does, and returns the folder, what it printed and its
// report.html.
func sweepReportOf(t *testing.T, name, param string, seeds int) (string, string, string) {
	t.Helper()
	return sweepReportExiting(t, ExitOK, name, param, seeds)
}

// sweepReportExiting is sweepReportOf for a sweep that exits with code.
func sweepReportExiting(t *testing.T, code int, name, param string, seeds int) (string, string, string) {
	t.Helper()
	s, err := file.Library(name)
	require.NoError(t, err)
	p, err := batch.ParseParam(param)
	require.NoError(t, err)
	sw, err := batch.NewSweep(s, []batch.Param{p}, seeds)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "sweep")
	var out, errOut bytes.Buffer
	got := RunSweep(context.Background(), &out, &errOut, name, sw, BatchOptions{Out: dir, Workers: 1})
	require.Equal(t, code, got, "%s%s", out.String(), errOut.String())
	page, err := os.ReadFile(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	return dir, out.String(), string(page)
}

// A sweep's report puts the question and the verdict first, names every point and every
// expectation, inlines every plot the sweep drew, holds sweep.csv as a sortable table, and
// needs nothing from the network; the sweep's closing lines name it, and the manifest
// lists it.
func TestTheSweepReportSaysItsVerdictFirstAndHoldsItsPlots(t *testing.T) {
	dir, out, page := sweepReportOf(t, "activation-burst", "procedures.0.top=1,2,5", 2)
	verdict := strings.Index(page, `<h2 id="verdict" class="ok">Verdict: ok: every run held its invariants and every point met its expectations</h2>`)
	require.Positive(t, verdict, page[:min(len(page), 2000)])
	assert.Less(t, strings.Index(page, `<p class="question">Does activation absorb a burst`), verdict, "the question first")
	for _, later := range []string{`<table id="points"`, "<h2>Parameters</h2>", "<h2>Plots</h2>", `<table id="figures" class="sortable">`} {
		assert.Less(t, verdict, strings.Index(page, later), "the verdict comes before %s", later)
	}
	assert.Contains(t, page, "<title>activation-burst sweep, seeds 1–2: ok")
	for _, v := range []string{"1", "2", "5"} {
		assert.Contains(t, page, "<tr><td>procedures.0.top="+v+"</td><td class=\"ok\">ok</td><td>2 of 2</td>", "point %s", v)
	}
	assert.Contains(t, page, "<tr><td>procedures.0.top</td><td>1, 2, 5</td></tr>", "the parameters")
	for _, e := range []string{"invariants hold", `activated_tasks.peak of queue "OrderQueue" equals 4`, "messages.delivered equals 501"} {
		assert.Contains(t, page, "<th>"+html.EscapeString(e)+"</th>", "every expectation")
	}
	svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	require.Len(t, svgs, 5, "latency p99, readers, and the three metrics the expectations name")
	assert.Equal(t, len(svgs), strings.Count(page, "<svg"), "every plot inline")
	for _, p := range svgs {
		assert.Contains(t, page, `<figure id="plot-`+strings.TrimSuffix(filepath.Base(p), ".svg")+`">`)
	}
	assert.NotContains(t, page, "<?xml")
	for _, external := range []string{`src="http`, `href="http`, `@import`, `url(http`, "<link"} {
		assert.NotContains(t, page, external)
	}
	csv, err := os.ReadFile(filepath.Join(dir, SweepFile))
	require.NoError(t, err)
	rows := strings.Count(string(csv), "\n") - 1
	assert.Equal(t, rows, strings.Count(page[strings.Index(page, `<table id="figures"`):], "<tr>")-1, "every row of sweep.csv")
	assert.Less(t, len(page), 1<<20, "a report under 1 MB")

	report := filepath.Join(dir, ReportFile)
	assert.Contains(t, out, "open "+report+" in a browser")
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(manifest), "sweep.json\nreport.html\n"), "report.html written last:\n%s", manifest)
}

// A point whose expectation fails makes the sweep's verdict FAILED, and the report names
// that point, the expectation and what each seed gave, and no other point.
func TestTheSweepReportNamesThePointThatFailed(t *testing.T) {
	_, out, page := sweepReportOf(t, "activation-burst", readersKey+"=2,4", 2)
	require.Contains(t, out, "expectations or invariants failed with "+readersKey+"=2 on 2 of 2 seeds")
	assert.Contains(t, page, `<h2 id="verdict" class="failed">Verdict: FAILED: 1 of 2 points failed their expectations or invariants</h2>`)
	assert.Contains(t, page, `<p class="failed">`+readersKey+`=2: `+html.EscapeString(`activated_tasks.peak of queue "OrderQueue" equals 4`)+
		`: failed on 2 of 2 seeds; seed 1 got 2; seed 2 got 2;</p>`)
	assert.NotContains(t, page, `<p class="failed">`+readersKey+`=4`, "the point that met its expectations")
	assert.Contains(t, page, "<tr><td>"+readersKey+"=4</td><td class=\"ok\">ok</td>")
	assert.Contains(t, page, "<title>activation-burst sweep, seeds 1–2: FAILED")
}

// A statistical expectation is judged over a point's seeds: the report shows each verdict
// with what the seeds gave, from sweep.json, and one that failed in the verdict.
func TestTheSweepReportShowsTheExpectationsOverTheSeeds(t *testing.T) {
	dir, _, page := sweepReportOf(t, "honor-priority-off", "workloads.0.dialogs=20", 2)
	var rec SweepRecord
	require.NoError(t, readFile(filepath.Join(dir, SweepRecordFile), func(r io.Reader) (err error) {
		rec, err = ReadSweepRecord(r)
		return err
	}))
	require.Len(t, rec.Points, 1)
	var over []PointExpectation
	for _, e := range rec.Points[0].Expectations {
		if e.OverSeeds {
			over = append(over, e)
		}
	}
	require.Len(t, over, 2, "honor-priority-off judges latency.p50 at level 10 over the seeds, twice")
	for _, e := range over {
		assert.Contains(t, page, "<th>"+html.EscapeString(e.Expectation)+"</th>")
		assert.Contains(t, page, ">"+html.EscapeString(e.Got)+"</td>")
	}
	require.False(t, over[0].OK, "a share of 90%% of 2 seeds that neither met: %s", over[0].Got)
	assert.Contains(t, page, `<p class="failed">workloads.0.dialogs=20: `+html.EscapeString(over[0].Expectation+": "+over[0].Got)+";")
}

// A run that breaks an invariant makes the sweep's verdict FAILED, and the report names the
// run, the rule and the command that replays it, with the first line of the violation in
// its point's column of invariants; a sweep of values that are not numbers has no plot,
// and says so.
func TestTheSweepReportNamesTheRunThatBrokeAnInvariant(t *testing.T) {
	_, _, page := sweepReportExiting(t, ExitFailed, "how-many-readers", "broker.defects=[activate-beyond-max],[]", 1)
	assert.Contains(t, page, `Verdict: FAILED: 1 of 2 runs broke an invariant; 1 of 2 points failed their expectations or invariants</h2>`)
	assert.Contains(t, page, `<p class="failed">broker.defects=[activate-beyond-max], seed 1: INV-8 violated<br>replay: <code>go run ./cmd/simulate run how-many-readers -set &#39;broker.defects=[activate-beyond-max]&#39; -seed 1`)
	assert.Regexp(t, `<td class="failed">failed on 1 of 1 seeds; seed 1 got violated: INV-8 violated at t=\S+: [^<\n]* \.\.\.</td>`, page,
		"the violation's first line, not its records")
	assert.Contains(t, page, "<tr><td>broker.defects=[]</td><td class=\"ok\">ok</td><td>1 of 1</td>")
	assert.Contains(t, page, "<p>No plots: the values of the first key are not numbers or durations.</p>")
}

// simulate report DIR on a sweep's folder without sweep.json (written before it) says what
// is missing rather than looking for a run's summary.json.
func TestReportOfASweepWithoutItsRecordSaysSo(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, SweepFile), []byte("seed,subject,metric,unit,value\n"), 0o644))
	var stderr bytes.Buffer
	assert.Equal(t, ExitUsage, Report([]string{dir}, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "no sweep.json, which a sweep's report is drawn from")
	assert.NoFileExists(t, filepath.Join(dir, ReportFile))
}

// A sweep whose expectations over the seeds hold only because too few seeds ran to refute
// them says so in its verdict, with how many.
func TestTheSweepVerdictSaysWhatTooFewSeedsCouldNotRefute(t *testing.T) {
	_, _, page := sweepReportOf(t, "lossy-wan", "broker.retry_interval_min=1s,2s", 2)
	undecided := strings.Count(page, batch.TooFewSeeds)
	require.Positive(t, undecided, "lossy-wan's expectations over the seeds on 2 seeds")
	assert.Contains(t, page, "every point met its expectations, ")
	assert.Regexp(t, `every point met its expectations, \d+ of them only for want of seeds to refute them`, page)
}
