package results

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/sbsim/sbsim/scenarios"
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
	reportExtra
}

// reportPage's sections from report.json and the scenario's copy.
type reportExtra struct {
	Parameters    []ReportParameter
	KeyFigures    []reportMetric
	Timeline      template.HTML
	Events        []TimelineEntry
	Conversations []reportChart
	Source        string
	SourceName    string
	HasData       bool
}

type reportChart struct {
	ChartedConversation
	SVG template.HTML
}

type reportPlot struct {
	Name string
	SVG  template.HTML
}

type reportMetric struct {
	Metric, Subject, Unit, Value string
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
	page := reportPage{Summary: s, Question: question, Verdict: "ok, every invariant and expectation held"}
	switch {
	case !s.OK:
		page.Verdict = "FAILED"
	case s.Invariants.FindingCount > 0 && expectsFinding(s):
		page.Verdict = "ok: the design fails as the scenario expects (the design findings below), and its expectations held"
	case s.Invariants.FindingCount > 0:
		page.Verdict += ", with design findings (below)"
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
		page.Metrics = append(page.Metrics, metricRow(m))
	}
	if err := page.addExtra(dir, s); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, &page); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

var reportTemplate = template.Must(template.Must(template.New("report").Funcs(template.FuncMap{"sectionTitle": sectionTitle, "detail": detail, "findings": findingsSentence, "missed": func(d string) bool { return strings.Contains(d, file.MissedOnOneSeed) }, "seconds": plainNumber,
	"invariantsHeld": func(inv Invariants) bool { return invariantsLineOf(inv).held }, "invariantsLine": func(inv Invariants) string { return invariantsLineOf(inv).text }}).Parse(pageShell)).Parse(`{{template "head" .Summary.Scenario}}, seed {{.Summary.Seed}}: {{.Verdict}}{{template "body"}}
<h1>{{.Summary.Scenario}}, seed {{.Summary.Seed}}</h1>
<nav>{{range .SectionLinks}}<a href="#{{.}}">{{sectionTitle .}}</a> {{end}}</nav>
{{if .Question}}<p class="question">{{.Question}}</p>{{end}}
<h2 id="verdict" class="{{if .Summary.OK}}ok{{else}}failed{{end}}">Verdict: {{.Verdict}}</h2>
{{if .Summary.StoppedAtLimit}}<p class="warn" id="stopped-at-limit"><b>The run stopped at a limit</b> ({{.Summary.StopReason}}) at {{seconds .Summary.EndTimeS}} s, before its end: its results are partial, and what it left undelivered may be the cut's, not the design's (limits: in the scenario file, or -set limits.max_events=..., limits.max_time=...).</p>
{{end}}{{range .Failed}}<p class="failed">{{.Name}}: got {{detail .Detail}}</p>{{end}}
{{with .Summary.Invariants.FindingCount}}<p class="warn" id="findings"><b>Design findings:</b> {{findings .}}: what Service Broker itself would do
with this design, whatever the invariants say; the expectations judge whether the scenario accepts it.</p>
<details><summary>The first {{len $.Summary.Invariants.Findings}}</summary><table id="findings-table"><thead><tr><th>Finding</th><th>At (s)</th><th>Conversation</th><th>What</th></tr></thead><tbody>
{{range $.Summary.Invariants.Findings}}<tr><td>{{.ID}}</td><td>{{seconds .TimeS}}</td><td>{{.Conversation}}</td><td>{{.Message}}</td></tr>
{{end}}</tbody></table></details>
{{end}}
<p id="invariants-summary" class="{{if invariantsHeld .Summary.Invariants}}ok{{else}}failed{{end}}">{{invariantsLine .Summary.Invariants}}</p>
<details><summary>Every invariant rule, with what it checks</summary><table id="invariants"><thead><tr><th>Rule</th><th>Verdict</th><th>What it checks</th><th>Detail</th></tr></thead><tbody>
{{range .Summary.Invariants.Rules}}<tr><td>{{.Rule}}</td><td class="{{if eq .Verdict "violated"}}failed{{else}}ok{{end}}">{{.Verdict}}</td><td>{{.Description}}</td><td>{{detail .Detail}}</td></tr>
{{end}}</tbody></table></details>
<table id="expectations"><thead><tr><th>Expectation</th><th>Held</th><th>Value</th></tr></thead><tbody>
{{range .Summary.Expectations}}<tr><td>{{.Name}}</td><td class="{{if .OK}}ok{{else}}failed{{end}}">{{if .OK}}yes{{if missed .Detail}}<br><small class="warn">this seed misses it: the share over the seeds decides</small>{{end}}{{else}}no{{end}}</td><td>{{detail .Detail}}</td></tr>
{{end}}</tbody></table>
<p>Ran to {{.Summary.EndTimeS}} s of simulated time in {{.Summary.Events}} events ({{.Summary.StopReason}}).</p>
{{if .HasData}}<h2 id="parameters">Parameters</h2>
<table id="parameters-table"><thead><tr><th>Of</th><th>Parameter</th><th>Value</th></tr></thead><tbody>
{{range .Parameters}}<tr><td>{{.Of}}</td><td>{{.Name}}</td><td>{{.Value}}</td></tr>
{{end}}</tbody></table>
{{end}}{{if .Source}}<details><summary>The scenario file, {{.SourceName}}</summary><pre>{{.Source}}</pre></details>
{{end}}<h2 id="key-figures">Key figures</h2>
<p>The figures the expectations name, and the run's latency and deliveries; every figure is in the table at the end.</p>
<table id="key-figures-table"><thead><tr><th>Metric</th><th>Of</th><th>Unit</th><th>Value</th></tr></thead><tbody>
{{range .KeyFigures}}<tr><td>{{.Metric}}</td><td>{{.Subject}}</td><td>{{.Unit}}</td><td>{{.Value}}</td></tr>
{{end}}</tbody></table>
{{if .HasData}}<h2 id="conversations">Conversations</h2>
{{if .Conversations}}<p>A sequence chart of each conversation chosen: any that failed, and the slowest. Time runs down the page, a row per step;
each arrow is a packet between instances, from when it left to when it arrived: blue when it arrived, red and crossed when it was
lost or dropped, orange when corrupt, dashed for acknowledgements alone. Hover an arrow for its times.</p>
{{range .Conversations}}<figure class="chart" id="conversation-{{.Conversation}}">{{.SVG}}<figcaption>{{.Conversation}}: {{.Why}}</figcaption></figure>
{{end}}{{else}}<p>No conversation delivered a message: nothing to chart.</p>
{{end}}<h2 id="timeline">Timeline of faults and changes</h2>
{{if .Events}}{{.Timeline}}
<table id="timeline-table"><thead><tr><th>At (s)</th><th>Until (s)</th><th>Of</th><th>What</th></tr></thead><tbody>
{{range .Events}}<tr><td>{{seconds .AtS}}</td><td>{{with .UntilS}}{{seconds .}}{{end}}</td><td>{{.Track}}</td><td>{{.What}}</td></tr>
{{end}}</tbody></table>
{{else}}<p>No fault and no change: the run went as configured.</p>
{{end}}{{end}}<h2 id="plots">Plots</h2>
{{range .Plots}}<figure id="plot-{{.Name}}">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}
<h2 id="all-figures">Figures</h2>
<table id="figures" class="sortable"><thead><tr><th>Metric</th><th>Of</th><th>Unit</th><th>Value</th></tr></thead><tbody>
{{range .Metrics}}<tr><td>{{.Metric}}</td><td>{{.Subject}}</td><td>{{.Unit}}</td><td>{{.Value}}</td></tr>
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
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}}{{end}}{{define "body"}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:84rem;margin:2rem auto;padding:0 1rem;color:#222}
.ok{color:#1a7f37}.failed{color:#cf222e}.warn{color:#9a6700}
table{border-collapse:collapse;margin:1rem 0}.wide{overflow-x:auto;max-width:100%}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left}
th{cursor:pointer;background:#f3f3f3}figure{display:inline-block;margin:1rem}svg{max-width:100%;height:auto}
pre{white-space:pre-wrap;font-size:.85em}nav a{margin-right:.6rem}
</style></head><body>{{end}}{{define "tail"}}<script>
document.querySelectorAll("table th").forEach(function(th){th.addEventListener("click",function(){
var t=th.closest("table"),b=t.tBodies[0],i=Array.prototype.indexOf.call(th.parentNode.children,th),d=th.dataset.desc==="1";
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var a=x.cells[i].textContent,c=y.cells[i].textContent,
na=parseFloat(a),nc=parseFloat(c);var r=(!isNaN(na)&&!isNaN(nc))?na-nc:a.localeCompare(c);return d?-r:r;});
rows.forEach(function(r){b.appendChild(r);});th.dataset.desc=d?"0":"1";});});
</script>
</body></html>
{{end}}`

// metricRow is a figure of summary.json as the report's tables show it: what it is of
// ("all", "queue StockQueue", ...) and its value, durations in seconds.
func metricRow(m MetricValue) reportMetric {
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
	unit := m.Unit
	if unit == "duration" {
		unit = "s"
	}
	return reportMetric{m.Metric, subject, unit, plainNumber(m.Value)}
}

// plainNumber prints a value of the report's tables to six significant digits, without an
// exponent: 4279600, 0.094719, 0.000001.
func plainNumber(v float64) string {
	rounded, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return strconv.FormatFloat(rounded, 'f', -1, 64)
}

// detail shows a verdict's detail: its first line, and the rest (a violation's records)
// folded under it.
func detail(text string) template.HTML {
	first, rest, ok := strings.Cut(text, "\n")
	h := template.HTMLEscapeString(first)
	if ok && strings.TrimSpace(rest) != "" {
		h += `<details><summary>the records</summary><pre>` + template.HTMLEscapeString(rest) + `</pre></details>`
	}
	return template.HTML(h)
}

// invariantsLine is what the report says of the invariants in one line: how many rules held,
// which were violated, which went unchecked.
type invariantsLine struct {
	text string
	held bool
}

func invariantsLineOf(inv Invariants) invariantsLine {
	var violated, unchecked []string
	held := 0
	for _, r := range inv.Rules {
		switch r.Verdict {
		case VerdictViolated:
			violated = append(violated, r.Rule)
		case VerdictUnchecked:
			unchecked = append(unchecked, r.Rule)
		default:
			held++
		}
	}
	switch {
	case !inv.Checked:
		return invariantsLine{"Invariants: not checked in this run (the checkers were off).", false}
	case len(violated) > 0:
		return invariantsLine{fmt.Sprintf("Invariants: %s violated; %d other rules held.", strings.Join(violated, ", "), held), false}
	case len(unchecked) > 0:
		return invariantsLine{fmt.Sprintf("Invariants: every one of the %d rules checked held; %s not checked.", held, strings.Join(unchecked, ", ")), true}
	}
	return invariantsLine{fmt.Sprintf("Invariants: every one of the %d rules held.", held), true}
}

// expectsFinding reports whether one of the run's expectations that held is on the design
// finding's metric: the scenario expects the design to fail so.
func expectsFinding(s Summary) bool {
	for _, e := range s.Expectations {
		if e.OK && strings.HasPrefix(e.Name, scenarios.MetricReopened+" ") {
			return true
		}
	}
	return false
}
