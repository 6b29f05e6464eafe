package results

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// Run is one run as the text report shows it: the scenario's words, its result and the
// verdicts of its expectations, and the command line that replays it.
type Run struct {
	Name, Question, Description string
	Result                      *scenarios.Result
	Expectations                []Verdict
	Replay                      string
	// Verbose lists every row of the long tables (conversations, a queue over time), which
	// otherwise show their top rows and a count.
	Verbose bool
}

// WriteReport writes the text report of a run: the scenario, the figures per link,
// instance, conversation and reader, every metric of scenarios.Metrics by subject, the
// verdict of every invariant of invariant.Rules and of every expectation. It reports
// whether the run passed: no invariant violated, every expectation held.
func WriteReport(w io.Writer, r Run) bool {
	fmt.Fprintf(w, "\nscenario: %s\n", r.Name)
	if r.Question != "" {
		fmt.Fprintf(w, "question: %s\n", r.Question)
	}
	if r.Description != "" {
		fmt.Fprintf(w, "design: %s\n", r.Description)
	}
	res := r.Result
	writeLinks(w, res)
	writeInstances(w, res)
	writeConversations(w, res, r.Verbose)
	writeReaders(w, res, r.Verbose)
	writeFigures(w, res)
	fmt.Fprintln(w)
	if m := res.MemoryLimit; m != nil {
		fmt.Fprintf(w, "engine: memory budget reached at virtual time %v after %d events: %v\n", res.EndTime, res.Events, m)
	} else {
		fmt.Fprintf(w, "engine: %v at virtual time %v after %d events\n", res.StopReason, res.EndTime, res.Events)
	}
	ok := writeInvariants(w, res, r.Replay)
	writeFindings(w, res, r.Expectations)
	return writeExpectations(w, r.Expectations) && ok
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
}

func writeLinks(w io.Writer, res *scenarios.Result) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "links, one row per direction:")
	tw := newTable(w)
	fmt.Fprintln(tw, "link\tpackets\tdelivered\tlost\tdup\tcorrupt\tpart-drop\tbytes\t")
	for _, l := range res.Links {
		c := l.Counters
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", l.Name, c.Sent, c.Delivered, c.Lost, c.Duplicated,
			c.Corrupted, c.DroppedPartition, c.Bytes)
	}
	tw.Flush()
}

func writeInstances(w io.Writer, res *scenarios.Result) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "instances:")
	tw := newTable(w)
	fmt.Fprintln(tw, "instance\tsent\tenqueued\tfragments\tretransmitted\tdup-discarded\tcorrupt-discarded\tacks\tpiggybacked\ttxq-left\t")
	for _, in := range res.Instances {
		c := in.Counters
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", in.Name, c.MessagesSent, c.MessagesEnqueued,
			c.FragmentsSent, c.FragmentsRetransmitted, c.DuplicatesDiscarded, c.CorruptDiscarded, c.AcksSent,
			c.AcksPiggybacked, in.TransmissionQueueRows)
	}
	tw.Flush()
}

// conversationRows is the most conversations the report lists: the slowest, by their
// longest latency; summary.json has them all.
const conversationRows = 20

func writeConversations(w io.Writer, res *scenarios.Result, verbose bool) {
	if len(res.Conversations) == 0 {
		return
	}
	rows := res.Conversations
	fmt.Fprintln(w)
	if len(rows) > conversationRows && !verbose {
		rows = slices.Clone(rows)
		slices.SortStableFunc(rows, func(a, b scenarios.ConversationResult) int { return cmp.Compare(b.Latency.Max, a.Latency.Max) })
		rows = rows[:conversationRows]
		slices.SortFunc(rows, func(a, b scenarios.ConversationResult) int { return cmp.Compare(a.Conversation, b.Conversation) })
		fmt.Fprintf(w, "conversations, the %d slowest of %d by their longest latency (summary.json has all; both directions;\n"+
			"latency from SEND commit to ready at the target; -v lists all):\n", conversationRows, len(res.Conversations))
	} else {
		fmt.Fprintln(w, "conversations (both directions; latency from SEND commit to ready at the target):")
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "conversation\tmessages\tdelivered\tfragments\tretransmitted\tdup-discarded\tp50\tp99\tmax\t")
	for _, c := range rows {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", c.Conversation, c.MessagesSent, c.MessagesDelivered,
			c.FragmentsSent, c.Retransmissions, c.DuplicatesDiscarded, ms(c.Latency.P50), ms(c.Latency.P99), ms(c.Latency.Max))
	}
	tw.Flush()
}

// writeReaders writes one row per reader program that ran a transaction, the queue
// monitors, the readers over time of every queue that has a monitor, and the external
// activators.
func writeReaders(w io.Writer, res *scenarios.Result, verbose bool) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "reader programs (configured, activated by a queue monitor, or started by an external activator):")
	tw := newTable(w)
	fmt.Fprintln(tw, "queue\tprogram\tsessions\tpeak\ttransactions\tcommits\trollbacks\tdeadlocks\tmessages\tbusy\t")
	for _, r := range res.Readers {
		if r.Transactions == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", r.Queue, r.Mode, r.Sessions, r.PeakRunning,
			r.Transactions, r.Commits, r.Rollbacks, r.Deadlocks, r.Messages, ms(r.Busy))
	}
	tw.Flush()
	writePrograms(w, res)
	monitors := false
	for _, q := range res.Queues {
		monitors = monitors || q.Monitor != nil
	}
	if monitors {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "queue monitors at the end (sys.dm_broker_queue_monitors):")
		tw = newTable(w)
		fmt.Fprintln(tw, "queue\tstate\ttasks-started\ttasks-waiting\trunning\tfailed\t")
		for _, q := range res.Queues {
			if m := q.Monitor; m != nil {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%t\t\n", q.Queue, m.State, m.Started, m.TasksWaiting, m.Running, m.Failed)
			}
		}
		tw.Flush()
	}
	for _, q := range res.Queues {
		if q.Monitor != nil {
			writeQueueSeries(w, q, verbose)
		}
	}
	for _, a := range res.Activators {
		fmt.Fprintf(w, "  external activator on %s for %s: %d notifications, %d readers started, %d ignored\n",
			a.Queue, a.Target, a.Notifications, a.Started, a.Ignored)
	}
}

// writeQueueSeries writes a queue's readers over time: the samples where the number of
// activated tasks, readers or the monitor's state changed, at most seriesRows of them.
func writeQueueSeries(w io.Writer, q scenarios.QueueResult, verbose bool) {
	const seriesRows = 24
	var rows []scenarios.QueueSample
	for i, s := range q.Samples {
		if i == 0 || i == len(q.Samples)-1 {
			rows = append(rows, s)
			continue
		}
		p := q.Samples[i-1]
		if s.Activated != p.Activated || s.Readers != p.Readers || s.State != p.State {
			rows = append(rows, s)
		}
	}
	skipped := 0
	if len(rows) > seriesRows && !verbose {
		skipped = len(rows) - seriesRows
		rows = append(rows[:seriesRows/2], rows[len(rows)-seriesRows/2:]...)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "queue %s over time (when its activated tasks, readers or monitor state changed):\n", q.Queue)
	tw := newTable(w)
	fmt.Fprintln(tw, "time\tready\tactivated\treaders\twaiting\tmonitor\t")
	for i, s := range rows {
		if skipped > 0 && i == seriesRows/2 {
			fmt.Fprintf(tw, "(%d rows left out; -v lists all)\t\t\t\t\t\t\n", skipped)
		}
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%s\t\n", s.At, s.Ready, s.Activated, s.Readers, s.Waiting, s.State)
	}
	tw.Flush()
}

// ms rounds a duration for the tables.
func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(100 * time.Microsecond).String()
}

// WriteVerdict writes the verdict of a run on one line, for simulate run -q: ok, or FAILED
// and why (the invariant violated, each expectation that failed). It reports whether the
// run passed, as WriteReport does.
func WriteVerdict(w io.Writer, r Run) bool {
	var why []string
	if v := r.Result.Violation; v != nil {
		why = append(why, fmt.Sprintf("%s violated at %v", v.Rule, v.At))
	}
	for _, e := range r.Expectations {
		if !e.OK {
			detail, _, _ := strings.Cut(e.Detail, "\n") // without the records of a violation
			if v := r.Result.Violation; v != nil && strings.Contains(detail, v.Message) {
				detail = "violated" // said once, above
			}
			why = append(why, fmt.Sprintf("%s (got %s)", e.Name, detail))
		}
	}
	if len(why) > 0 {
		fmt.Fprintf(w, "verdict: FAILED: %s\n", strings.Join(why, "; "))
		return false
	}
	if n := r.Result.FindingCount; n > 0 {
		fmt.Fprintf(w, "verdict: ok, with the design finding the scenario expects: %d dialogs run twice (%s)\n", n,
			invariant.FindingReopened)
		return true
	}
	fmt.Fprintln(w, "verdict: ok")
	return true
}

// writeInvariants writes the verdict of every rule of invariant.Rules, and the violation
// with the records that led to it; it reports whether all held.
func writeInvariants(w io.Writer, res *scenarios.Result, replay string) bool {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "invariants:")
	if !res.InvariantsChecked {
		fmt.Fprintln(w, "  not checked: the scenario turns check_invariants off")
		fmt.Fprintln(w, "verdict: no invariant was checked")
		return true
	}
	v := res.Violation
	for _, r := range invariant.Rules() {
		verdict := "ok"
		switch {
		case v != nil && v.Rule == r.ID:
			verdict = "VIOLATED"
		case v != nil && res.StopReason == sim.Stopped:
			verdict = "not checked to the end"
		case r.AtEnd && res.StopReason != sim.Drained && res.Liveness.Off:
			verdict = "unchecked (the run did not drain, as its scenario expects: liveness: off)"
		}
		fmt.Fprintf(w, "  %-8s%-9s%s\n", r.ID, verdict+" ", r.Description)
	}
	if v != nil && res.StopReason == sim.Stopped {
		fmt.Fprintf(w, "\nnot checked to the end: %s; the rules marked so held until then\n", StoppedAt(v))
	}
	if v != nil {
		fmt.Fprintf(w, "\n%v\n", v)
		if replay != "" {
			fmt.Fprintf(w, "\nreplay: %s\n", replay)
		}
		fmt.Fprintln(w, "verdict: FAILED")
		return false
	}
	if res.StopReason != sim.Drained && res.Liveness.Off {
		fmt.Fprintln(w, "verdict: ok, every invariant held, INV-12 unchecked: the run did not drain, as its scenario expects (liveness: off)")
		return true
	}
	fmt.Fprintln(w, "verdict: ok, every invariant held")
	return true
}

// findingsSentence says what n design findings mean, for the text report and the page.
func findingsSentence(n int) string {
	return fmt.Sprintf("%d dialogs re-created after their closed target was forgotten: Service Broker delivers them again (%s)",
		n, invariant.FindingReopened)
}

// writeFindings writes the design findings of the checkers, if any: what Service Broker
// itself would do wrong with the design. Whether they fail the run is the expectations'
// business (file.Scenario.Check).
func writeFindings(w io.Writer, res *scenarios.Result, vs []Verdict) {
	if res.FindingCount == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "design findings: %s, docs/dialog-protocol.md#design-findings)\n", strings.TrimSuffix(findingsSentence(res.FindingCount), ")"))
	for i, f := range res.Findings {
		if i == 3 {
			fmt.Fprintf(w, "  ... and %d more (summary.json lists the first %d)\n", res.FindingCount-i, len(res.Findings))
			break
		}
		fmt.Fprintf(w, "  %v\n", &f)
	}
	if res.StopReason != sim.Drained {
		fmt.Fprintln(w, "  the run did not drain: a re-created dialog may wait, or its initiator retry, for ever; INV-12 leaves them to this finding")
	}
	expected, allHeld := false, true
	for _, v := range vs {
		expected = expected || (v.ExpectsFinding && v.OK)
		allHeld = allHeld && v.OK
	}
	switch {
	case expected && allHeld:
		fmt.Fprintln(w, "verdict: ok: the design fails as the scenario expects, and its expectations held")
	case expected:
		fmt.Fprintln(w, "verdict: FAILED: the scenario expects the finding, but other expectations failed (below)")
	default:
		fmt.Fprintln(w, "verdict: FAILED, by the design: Service Broker itself would run these dialogs twice")
	}
}

// writeExpectations writes each expectation's verdict and reports whether all held.
func writeExpectations(w io.Writer, vs []Verdict) bool {
	if len(vs) == 0 {
		return true
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "expectations:")
	ok := true
	for _, v := range vs {
		verdict := "ok"
		if !v.OK {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "  %s: %s (got %s)\n", verdict, v.Name, v.Detail)
		ok = ok && v.OK
	}
	return ok
}

// figureGroups are the tables of figures: the metrics that take a key, by that key, then
// those of the whole run.
var figureGroups = []struct {
	key   scenarios.Keys
	title string
}{
	{scenarios.LevelKey, "by priority level (of the sending endpoint)"},
	{scenarios.QueueKey, "by queue"},
	{scenarios.WorkloadKey, "by workload"},
	{scenarios.InstanceKey, "by instance"},
	{0, "of the whole run"},
}

// writeFigures writes every metric of scenarios.Metrics, one table per key it takes: a row
// per metric, a column per subject ("all" for the whole run). "-" marks a subject the
// metric has no value on (no message was received at that level); a metric with no value
// on any subject (the CPU figures of a run without costs) is only named, below its table.
func writeFigures(w io.Writer, res *scenarios.Result) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "figures (each row a metric an expectation can name, docs/scenario-files.md#metrics):")
	for _, g := range figureGroups {
		var rows []scenarios.Metric
		for _, m := range scenarios.Metrics() {
			if m.Takes&g.key != 0 || m.Takes == g.key { // a metric that takes several keys is in each of their tables
				rows = append(rows, m)
			}
		}
		subjects := figureSubjects(res, rows, g.key)
		if len(rows) == 0 || len(subjects) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s:\n", g.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		header := []string{"    metric"}
		for _, s := range subjects {
			header = append(header, subjectColumn(s))
		}
		fmt.Fprintln(tw, strings.Join(header, "\t"))
		var empty []string
		for _, m := range rows {
			cells := []string{"    " + m.Name}
			valued := false
			for _, s := range subjects {
				c := figure(res, m, s)
				valued = valued || c != "-"
				cells = append(cells, c)
			}
			if !valued {
				empty = append(empty, m.Name)
				continue
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		tw.Flush()
		if len(empty) > 0 {
			fmt.Fprintf(w, "    (no value in this run: %s)\n", strings.Join(empty, ", "))
		}
	}
}

// figureSubjects returns the columns of the table of key: the subjects of that key any of
// its metrics has, the whole run first.
func figureSubjects(res *scenarios.Result, ms []scenarios.Metric, key scenarios.Keys) []scenarios.Subject {
	var out []scenarios.Subject
	for _, m := range ms {
		if m.Needs == 0 {
			out = append(out, scenarios.Subject{})
			break
		}
	}
	for _, m := range ms {
		for _, s := range m.Subjects(res) {
			if s.Keys() != key && s.Keys() != 0 {
				continue
			}
			seen := false
			for _, o := range out {
				seen = seen || o == s
			}
			if !seen {
				out = append(out, s)
			}
		}
	}
	return out
}

// subjectColumn is a subject's column header: "all", "level 10", or the queue's, the
// workload's or the instance's name.
func subjectColumn(s scenarios.Subject) string {
	switch {
	case s.Level != 0:
		return fmt.Sprintf("level %d", s.Level)
	case s.Queue != "":
		return s.Queue
	case s.Workload != "":
		return s.Workload
	case s.Instance != "":
		return s.Instance
	}
	return "all"
}

// figure is a metric's value on a subject, for a table; "-" when it has none.
func figure(res *scenarios.Result, m scenarios.Metric, s scenarios.Subject) string {
	v, _, ok := m.Value(res, s)
	if !ok {
		return "-"
	}
	switch m.Unit {
	case scenarios.Duration:
		if d := time.Duration(v).Round(100 * time.Microsecond); d == 0 {
			return "0"
		}
		return ms(time.Duration(v))
	case scenarios.Fraction:
		return fmt.Sprintf("%.3g", v)
	}
	return m.Unit.Format(v)
}
