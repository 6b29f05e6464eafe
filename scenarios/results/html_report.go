package results

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/sbsim/sbsim/scenarios/file"
)

// ReportFile is the run's report for people: one self-contained HTML file.
const ReportFile = "report.html"

// reportPage is what the report's template shows.
type reportPage struct {
	Summary  Summary
	Question string
	Verdict  string
	Failed   []Verdict
	Plots    []reportPlot
	Metrics  []reportMetric
}

type reportPlot struct {
	Name string
	SVG  template.HTML
}

type reportMetric struct {
	Metric, Subject, Value string
}

// svgHead finds the XML declaration and doctype an SVG file starts with, which inline SVG
// leaves out.
var svgHead = regexp.MustCompile(`(?s)^.*?(<svg)`)

// WriteReportFromFolder writes report.html for the run folder dir (issue 18, begun): the
// question and the verdict first (every invariant and expectation), then the plots,
// inline, and the table of figures, sortable, from summary.json and the SVGs the run
// wrote. It needs no network to open: no script, style or image comes from elsewhere.
func WriteReportFromFolder(w io.Writer, dir, question string) error {
	var s Summary
	if err := readFile(filepath.Join(dir, SummaryFile), func(r io.Reader) (err error) {
		s, err = ReadSummary(r)
		return err
	}); err != nil {
		return err
	}
	page := reportPage{Summary: s, Question: question, Verdict: "ok: every invariant and expectation held"}
	if !s.OK {
		page.Verdict = "FAILED"
	}
	for _, v := range s.Expectations {
		if !v.OK {
			page.Failed = append(page.Failed, v)
		}
	}
	var err error
	if page.Plots, err = inlinePlots(dir); err != nil {
		return err
	}
	for _, m := range s.Metrics {
		subject := "all"
		switch {
		case m.Level != 0:
			subject = "level " + strconv.Itoa(m.Level)
		case m.Queue != "":
			subject = "queue " + m.Queue
		case m.Workload != "":
			subject = "workload " + m.Workload
		case m.Instance != "":
			subject = "instance " + m.Instance
		}
		value := strconv.FormatFloat(m.Value, 'g', 6, 64)
		if m.Unit == "duration" {
			value += " s"
		}
		page.Metrics = append(page.Metrics, reportMetric{m.Metric, subject, value})
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

var reportTemplate = template.Must(template.Must(template.New("report").Parse(pageShell)).Parse(`{{template "head" .Summary.Scenario}}, seed {{.Summary.Seed}}: {{.Verdict}}{{template "body"}}
<h1>{{.Summary.Scenario}}, seed {{.Summary.Seed}}</h1>
{{if .Question}}<p class="question">{{.Question}}</p>{{end}}
<h2 id="verdict" class="{{if .Summary.OK}}ok{{else}}failed{{end}}">Verdict: {{.Verdict}}</h2>
{{range .Failed}}<p class="failed">{{.Name}}: got {{.Detail}}</p>{{end}}
<table id="invariants"><thead><tr><th>Rule</th><th>Verdict</th><th>What it checks</th><th>Detail</th></tr></thead><tbody>
{{range .Summary.Invariants.Rules}}<tr><td>{{.Rule}}</td><td class="{{if eq .Verdict "VIOLATED"}}failed{{else}}ok{{end}}">{{.Verdict}}</td><td>{{.Description}}</td><td>{{.Detail}}</td></tr>
{{end}}</tbody></table>
<table id="expectations"><thead><tr><th>Expectation</th><th>Held</th><th>Value</th></tr></thead><tbody>
{{range .Summary.Expectations}}<tr><td>{{.Name}}</td><td class="{{if .OK}}ok{{else}}failed{{end}}">{{if .OK}}yes{{else}}no{{end}}</td><td>{{.Detail}}</td></tr>
{{end}}</tbody></table>
<p>Ran to {{.Summary.EndTimeS}} s of simulated time in {{.Summary.Events}} events ({{.Summary.StopReason}}).</p>
<h2>Plots</h2>
{{range .Plots}}<figure id="plot-{{.Name}}">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}
<h2>Figures</h2>
<table id="figures" class="sortable"><thead><tr><th>Metric</th><th>Of</th><th>Value</th></tr></thead><tbody>
{{range .Metrics}}<tr><td>{{.Metric}}</td><td>{{.Subject}}</td><td>{{.Value}}</td></tr>
{{end}}</tbody></table>
{{template "tail"}}`))

// Report is `simulate report DIR`: report.html written again from the run folder DIR, the
// question from the scenario's copy there, or the page of a sweep's folder or of a card's
// (otherPage); the exit code ExitUsage when DIR holds no run.
func Report(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "simulate report: want the directory a run, a sweep or a counterexample card wrote (simulate run ... -out DIR)")
		return ExitUsage
	}
	dir := args[0]
	if name, write := otherPage(dir); write != nil {
		return rebuildPage(dir, name, write, stdout, stderr)
	}
	question := ""
	if copies, _ := filepath.Glob(filepath.Join(dir, "*.yaml")); len(copies) == 1 {
		if s, err := file.LoadFile(copies[0]); err == nil {
			question = s.Question
		}
	}
	return rebuildPage(dir, ReportFile, func(w io.Writer) error { return WriteReportFromFolder(w, dir, question) }, stdout, stderr)
}

// pageShell is the frame every HTML page of sbsim shares (report.html, a sweep's, a
// counterexample card's): "head" opens the page and its <title> with its argument, "body"
// closes the head with the style sheet, and "tail" ends the page with the script that
// sorts a table by the column heading clicked. Nothing of it comes from the network.
const pageShell = `{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.}}{{end}}{{define "body"}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}
.ok{color:#1a7f37}.failed{color:#cf222e}
table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
th{cursor:pointer;background:#f3f3f3}figure{display:inline-block;margin:1rem}svg{max-width:100%;height:auto}
</style></head><body>{{end}}{{define "tail"}}<script>
document.querySelectorAll("table th").forEach(function(th){th.addEventListener("click",function(){
var t=th.closest("table"),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),d=th.dataset.desc==="1";
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var a=x.cells[i].textContent,c=y.cells[i].textContent,
na=parseFloat(a),nc=parseFloat(c);var r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return d?-r:r;});
rows.forEach(function(r){b.appendChild(r);});th.dataset.desc=d?"0":"1";});});
</script>
</body></html>
{{end}}`
