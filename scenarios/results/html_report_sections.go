package results

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/plots/diagram"
)

// addExtra adds the report's sections that summary.json does not give: the scenario's
// parameters, the timeline of faults and changes, and the sequence charts, from
// report.json (a folder written before it existed has none); the figures the expectations
// name; and the scenario's copy.
func (page *reportPage) addExtra(dir string, s Summary) error {
	page.KeyFigures = keyFigures(s)
	if copies, _ := filepath.Glob(filepath.Join(dir, "*.yaml")); len(copies) == 1 {
		text, err := os.ReadFile(copies[0])
		if err != nil {
			return err
		}
		page.Source, page.SourceName = string(text), filepath.Base(copies[0])
	}
	var d ReportData
	err := readFile(filepath.Join(dir, ReportDataFile), func(r io.Reader) (err error) {
		d, err = ReadReportData(r)
		return err
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	page.HasData = true
	page.Parameters = d.Parameters
	page.Events = d.Timeline
	page.Timeline = template.HTML(diagram.TimelineSVG(timelineChart(d.Timeline, s)))
	for _, c := range d.Conversations {
		page.Conversations = append(page.Conversations, reportChart{c, template.HTML(diagram.SequenceSVG(sequenceChart(c)))})
	}
	return nil
}

// expectationSubject finds what an expectation's name says its metric is of.
var expectationSubject = regexp.MustCompile(`^(\S+)(?: of (workload|queue|instance) "([^"]*)"| at level (\d+))?`)

// keyFigures are the figures that answer the question: each the expectations name, with
// the same figure of the other subjects of its kind, then the whole run's latency and
// deliveries, once each.
func keyFigures(s Summary) []reportMetric {
	type key struct{ metric, subject string }
	var want []key
	for _, e := range s.Expectations {
		m := expectationSubject.FindStringSubmatch(e.Name)
		if m == nil {
			continue
		}
		k := key{m[1], "all"}
		switch {
		case m[2] != "":
			k.subject = m[2] + " " + m[3]
		case m[4] != "":
			k.subject = "level " + m[4]
		}
		want = append(want, k)
	}
	for _, m := range []string{"latency.p50", "latency.p99", "messages.delivered"} {
		want = append(want, key{m, "all"})
	}
	// An expectation on one subject (a level, a workload, a queue, an instance) brings the
	// same figure of the others of its kind, to compare with: level 10 beside level 1.
	var out []reportMetric
	for _, k := range want {
		kind, _, _ := strings.Cut(k.subject, " ")
		for _, m := range s.Metrics {
			r := metricRow(m)
			sameKind := k.subject != "all" && strings.HasPrefix(r.Subject, kind+" ")
			if r.Metric == k.metric && (r.Subject == k.subject || sameKind) && !slices.Contains(out, r) {
				if m.Unit == "hold/violated" { // a verdict, said in words here
					r.Unit, r.Value = "", map[bool]string{true: "hold", false: VerdictViolated}[m.Value != 0]
				}
				out = append(out, r)
			}
		}
	}
	return out
}

// timelineChart is the timeline's drawing: a track per entry's track, in the order they
// first appear.
func timelineChart(entries []TimelineEntry, s Summary) diagram.Timeline {
	t := diagram.Timeline{Title: fmt.Sprintf("faults and changes: %s, seed %d", s.Scenario, s.Seed)}
	// The axis runs a little past the last fault or change, not to the run's end, which
	// often comes long after (closed targets kept for their retention): the end is drawn
	// at the axis's end, and its label gives its time.
	for _, e := range entries {
		if e.Track != runTrack {
			t.End = max(t.End, fromSeconds(e.AtS))
			if e.UntilS != nil {
				t.End = max(t.End, fromSeconds(*e.UntilS))
			}
		}
	}
	t.End = t.End + t.End/8
	index := map[string]int{}
	for _, e := range entries {
		tip := ""
		if e.Track == runTrack && fromSeconds(e.AtS) > t.End && t.End > 0 {
			e.What = fmt.Sprintf("at %s: %s", roundDuration(fromSeconds(e.AtS)), e.What)
			tip = e.What + " (drawn at the axis's end)"
			e.AtS, e.UntilS = t.End.Seconds(), nil
		}
		i, ok := index[e.Track]
		if !ok {
			i = len(t.Tracks)
			index[e.Track] = i
			t.Tracks = append(t.Tracks, diagram.TimelineTrack{Name: e.Track})
		}
		m := diagram.TimelineMark{From: fromSeconds(e.AtS), Label: e.What, Tip: tip}
		if e.UntilS != nil {
			m.Until = fromSeconds(*e.UntilS)
		}
		t.Tracks[i].Marks = append(t.Tracks[i].Marks, m)
	}
	return t
}

// sequenceChart is a charted conversation's drawing.
func sequenceChart(c ChartedConversation) diagram.Sequence {
	title := "conversation " + c.Conversation + ": " + c.Why
	if r := []rune(title); len(r) > 150 {
		title = string(r[:149]) + "…"
	}
	q := diagram.Sequence{Title: title, Lanes: c.Lanes}
	for _, st := range c.Steps {
		step := diagram.SequenceStep{At: fromSeconds(st.AtS), Lane: st.Lane, To: -1, Label: st.What, Dashed: st.Ack}
		if st.To != nil {
			step.To, step.Arrive = *st.To, fromSeconds(st.ArriveS)
			switch st.Fate {
			case "lost", "partition", "capacity", "instance down":
				step.Fate = diagram.Lost
				step.Label += " — " + map[string]string{"lost": "lost", "partition": "dropped: link down (partition)",
					"capacity": "dropped: link full", "instance down": "dropped: its instance is down"}[st.Fate]
			case "corrupt":
				step.Fate = diagram.Corrupt
				step.Label += " — corrupt"
			case "duplicated":
				step.Again = fromSeconds(st.AgainS)
				step.Label += " — duplicated"
			}
		}
		q.Steps = append(q.Steps, step)
	}
	switch {
	case c.LeftOut > 0:
		q.Note = fmt.Sprintf("%d later steps are left out: the chart stops at %d", c.LeftOut, len(c.Steps))
	case c.StartsAtS > 0:
		q.Note = fmt.Sprintf("the chart shows the last %d steps, those that led to the failure: what came before %s is left out",
			len(c.Steps), roundDuration(fromSeconds(c.StartsAtS)))
	}
	return q
}

// sectionLinks lists the report's sections for its table of contents.
func (page *reportPage) SectionLinks() []string {
	links := []string{"verdict"}
	if page.HasData {
		links = append(links, "parameters")
	}
	links = append(links, "key-figures")
	if page.HasData {
		links = append(links, "conversations", "timeline")
	}
	return append(links, "plots", "all-figures")
}

// title of a section's link.
func sectionTitle(id string) string {
	return strings.ReplaceAll(strings.ToUpper(id[:1])+id[1:], "-", " ")
}
