package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
)

// maxSweepRows bounds the rows of sweep.csv the sweep's report shows: a sweep of many
// seeds has hundreds of thousands, which a page cannot hold; sweep.csv has every one.
const maxSweepRows = 5000

// sweepPage is what the sweep report's template shows.
type sweepPage struct {
	Record  SweepRecord
	Verdict string
	OK      bool
	// Seeds says which seeds every point ran: "seed 1", "seeds 1–5".
	Seeds string
	// Total is the runs the sweep meant to make, Runs those seeds.jsonl holds.
	Total, Runs int
	// Broken are the runs that broke an invariant (or could not run), FailedPoints the
	// points that failed an expectation.
	Broken       []SeedLine
	FailedPoints []sweepPoint
	Points       []sweepPoint
	// Expectations are the expectations of the points, in the scenario's order: the
	// columns of the points' table.
	Expectations []string
	Plots        []reportPlot
	Header       []string
	Rows         [][]string
	AllRows      int
}

// sweepPoint is a row of the points' table: the point, its verdict, how many of its runs
// held their invariants, and each expectation's verdict, in the page's columns.
type sweepPoint struct {
	Name  string
	OK    bool
	Held  string
	Cells []PointExpectation
	// Other are the reasons of its failed seeds that no expectation's cell says: an
	// invariant violated, a design finding not expected.
	Other []string
}

// WriteSweepReportFromFolder writes report.html for the sweep folder dir: the question and
// the verdict first (every run's invariants, from seeds.jsonl; every point's expectations,
// from sweep.json, those that failed with their values), the swept keys and their values,
// the plots inline and sweep.csv as a sortable table. It reads only the folder's files,
// so that simulate report DIR writes it again; it needs no network to open.
func WriteSweepReportFromFolder(w io.Writer, dir string) error {
	var rec SweepRecord
	if err := readFile(filepath.Join(dir, SweepRecordFile), func(r io.Reader) (err error) {
		rec, err = ReadSweepRecord(r)
		return err
	}); err != nil {
		return err
	}
	page := sweepPage{Record: rec, Seeds: seedsText(rec.Seeds), Total: rec.Seeds}
	for _, p := range rec.Params {
		page.Total *= len(p.Values)
	}
	var lines []SeedLine
	if err := readFile(filepath.Join(dir, SeedsFile), func(r io.Reader) (err error) {
		lines, err = readSeedLines(r)
		return err
	}); err != nil {
		return err
	}
	page.judge(lines)
	var err error
	if page.Plots, err = inlinePlots(dir); err != nil {
		return err
	}
	if err := readFile(filepath.Join(dir, SweepFile), func(r io.Reader) error {
		return page.readRows(r)
	}); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := sweepTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("sweep report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// judge fills the page's verdict from the record's points and the runs' lines of
// seeds.jsonl: the runs that broke an invariant, each point's row, those that failed.
func (page *sweepPage) judge(lines []SeedLine) {
	page.Runs = len(lines)
	held := map[string][2]int{} // by point, the runs that held their invariants and all its runs
	for _, l := range lines {
		n := held[pointName(l.Point)]
		n[1]++
		if l.OK {
			n[0]++
		} else {
			page.Broken = append(page.Broken, l)
		}
		held[pointName(l.Point)] = n
	}
	for _, p := range page.Record.Points {
		for _, e := range p.Expectations {
			if !slices.Contains(page.Expectations, e.Expectation) {
				page.Expectations = append(page.Expectations, e.Expectation)
			}
		}
	}
	for _, p := range page.Record.Points {
		row := pointRow(p, page.Expectations, held[pointName(p.Point)])
		page.Points = append(page.Points, row)
		if !p.OK {
			page.FailedPoints = append(page.FailedPoints, row)
		}
	}
	page.OK = len(page.Broken) == 0 && len(page.FailedPoints) == 0
	page.Verdict = sweepVerdict(*page)
}

// pointRow is the row of point p: its verdict, held (the runs that held their invariants,
// of its runs), the verdict of each expectation in columns, and the reasons of its failed
// seeds that no expectation's cell says.
func pointRow(p PointRecord, columns []string, held [2]int) sweepPoint {
	row := sweepPoint{Name: pointName(p.Point), OK: p.OK, Held: fmt.Sprintf("%d of %d", held[0], held[1])}
	for _, e := range columns {
		row.Cells = append(row.Cells, expectationAt(p, e))
	}
	for _, f := range p.Failures {
		for _, r := range f.Reasons {
			if !slices.ContainsFunc(p.Expectations, func(e PointExpectation) bool { return strings.HasPrefix(r, "FAILED: "+e.Expectation+" (got ") }) {
				row.Other = append(row.Other, fmt.Sprintf("seed %d: %s", f.Seed, r))
			}
		}
	}
	return row
}

// sweepVerdict says whether every run held its invariants and every point met its
// expectations, and how many did not, of how many.
func sweepVerdict(p sweepPage) string {
	var parts []string
	if p.Runs < p.Total {
		parts = append(parts, fmt.Sprintf("interrupted: %d of %d runs finished", p.Runs, p.Total))
	}
	if p.OK {
		verdict := "ok: every run held its invariants and every point met its expectations"
		undecided := 0
		for _, pt := range p.Points {
			for _, c := range pt.Cells {
				if strings.Contains(c.Got, batch.TooFewSeeds) {
					undecided++
				}
			}
		}
		if undecided > 0 {
			verdict += fmt.Sprintf(", %d of them only for want of seeds to refute them (more with -seeds: the table says how many)", undecided)
		}
		return strings.Join(append(parts, verdict), "; ")
	}
	if n := len(p.Broken); n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d runs broke an invariant", n, p.Runs))
	}
	if n := len(p.FailedPoints); n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d points failed their expectations or invariants", n, len(p.Points)))
	}
	return "FAILED: " + strings.Join(parts, "; ")
}

// expectationAt is the verdict of the expectation named what at point p; a point whose
// scenario has no such expectation (a swept key changed it) shows none.
func expectationAt(p PointRecord, what string) PointExpectation {
	for _, e := range p.Expectations {
		if e.Expectation == what {
			return e
		}
	}
	return PointExpectation{Expectation: what, OK: true, Got: "not expected at this point"}
}

// seedsText says which seeds a sweep of n seeds ran, as the plots' titles do.
func seedsText(n int) string {
	if n == 1 {
		return "seed 1"
	}
	return fmt.Sprintf("seeds 1–%d", n)
}

// pointName writes a point as key=value, key=value.
func pointName(point []Setting) string {
	var parts []string
	for _, s := range point {
		parts = append(parts, s.Key+"="+s.Value)
	}
	return strings.Join(parts, ", ")
}

// readSeedLines reads every line of seeds.jsonl.
func readSeedLines(r io.Reader) ([]SeedLine, error) {
	var lines []SeedLine
	d := json.NewDecoder(r)
	for {
		var l SeedLine
		err := d.Decode(&l)
		if errors.Is(err, io.EOF) {
			return lines, nil
		}
		if err != nil {
			return lines, err
		}
		lines = append(lines, l)
	}
}

// readRows reads sweep.csv: its header, and up to maxSweepRows rows.
func (page *sweepPage) readRows(r io.Reader) error {
	c := csv.NewReader(r)
	c.ReuseRecord = false
	header, err := c.Read()
	if err != nil {
		return err
	}
	page.Header = header
	for {
		row, err := c.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if page.AllRows++; len(page.Rows) < maxSweepRows {
			page.Rows = append(page.Rows, row)
		}
	}
}

// inlinePlots reads the folder's SVG plots, in the order of their names, for inline SVG:
// without the XML declaration and doctype they start with.
func inlinePlots(dir string) ([]reportPlot, error) {
	svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		return nil, err
	}
	var out []reportPlot
	for _, p := range svgs {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		inline := svgHead.ReplaceAll(data, []byte("$1"))
		out = append(out, reportPlot{Name: strings.TrimSuffix(filepath.Base(p), ".svg"), SVG: template.HTML(inline)})
	}
	return out, nil
}

var sweepTemplate = template.Must(template.Must(template.New("sweep").Funcs(template.FuncMap{"pointName": pointName}).Parse(pageShell)).Parse(`{{template "head" .Record.Scenario}} sweep, {{.Seeds}}: {{.Verdict}}{{template "body"}}
<h1>{{.Record.Scenario}}: a sweep of {{range $i, $p := .Record.Params}}{{if $i}} and {{end}}{{$p.Key}}{{end}}, {{.Seeds}}</h1>
{{if .Record.Question}}<p class="question">{{.Record.Question}}</p>{{end}}
<h2 id="verdict" class="{{if .OK}}ok{{else}}failed{{end}}">Verdict: {{.Verdict}}</h2>
{{range .FailedPoints}}<p class="failed">{{.Name}}:{{range .Cells}}{{if not .OK}} {{.Expectation}}: {{.Got}};{{end}}{{end}}{{range .Other}} {{.}};{{end}}</p>
{{end}}{{range .Broken}}<p class="failed">{{pointName .Point}}, seed {{.Seed}}: {{range $i, $r := .Reasons}}{{if $i}}; {{end}}{{$r}}{{end}}{{.Error}}<br>replay: <code>{{.Replay}}</code></p>
{{end}}<div class="wide"><table id="points" class="sortable"><thead><tr><th>Point</th><th>Verdict</th><th>Runs that held their invariants</th>{{range .Expectations}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Points}}<tr><td>{{.Name}}</td><td class="{{if .OK}}ok{{else}}failed{{end}}">{{if .OK}}ok{{else}}FAILED{{end}}</td><td>{{.Held}}</td>{{range .Cells}}<td class="{{if .OK}}ok{{else}}failed{{end}}">{{.Got}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
<p>{{.Runs}} of {{.Total}} runs finished; {{len .Points}} points judged. A statistical expectation is judged over a point's seeds, the others on each seed.</p>
<h2>Parameters</h2>
<table id="parameters"><thead><tr><th>Key</th><th>Values</th></tr></thead><tbody>
{{range .Record.Params}}<tr><td>{{.Key}}</td><td>{{range $i, $v := .Values}}{{if $i}}, {{end}}{{$v}}{{end}}</td></tr>
{{end}}<tr><td>seeds</td><td>{{.Seeds}} at every point</td></tr>
</tbody></table>
<h2>Plots</h2>
{{range .Plots}}<figure id="plot-{{.Name}}">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{else}}<p>No plots: the values of the first key are not numbers or durations.</p>
{{end}}<h2>Figures</h2>
{{if gt .AllRows (len .Rows)}}<p>The first {{len .Rows}} of {{.AllRows}} rows of sweep.csv, which has them all.</p>
{{end}}<div class="wide"><table id="figures" class="sortable"><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{template "tail"}}`))

// writeReport writes sweep.json, then report.html from the folder, and adds their paths
// to files.
func (w *SweepWriter) writeReport(files []string) ([]string, error) {
	path, err := w.folder.Write(SweepRecordFile, func(out io.Writer) error { return writeSweepRecord(out, w.record) })
	if err != nil {
		return files, err
	}
	files = append(files, path)
	path, err = w.folder.Write(ReportFile, func(out io.Writer) error { return WriteSweepReportFromFolder(out, w.folder.dir) })
	if err != nil {
		return files, err
	}
	return append(files, path), nil
}

// sayReport names the sweep's report.html, when files hold it, as a run's closing lines
// name the run's.
func sayReport(w io.Writer, files []string) {
	for _, p := range files {
		if filepath.Base(p) == ReportFile {
			fmt.Fprintf(w, "open %s in a browser: the question, the verdict of every point, the plots and sweep.csv\n", p)
		}
	}
}
