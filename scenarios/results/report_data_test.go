package results

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// reportDataOf runs a library scenario on seed 1 with sets applied, as the command does,
// and returns its config, result and report.json.
func reportDataOf(t *testing.T, name string, sets ...string) (scenarios.Config, *scenarios.Result, ReportData) {
	t.Helper()
	s := libraryWith(t, name, sets...)
	cfg := s.Config
	cfg.Conversations = true
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	d, err := NewReportData(cfg, 1, res)
	require.NoError(t, err)
	return cfg, res, d
}

// The report charts the slowest conversation of lossy-wan: every SEND and every message
// made ready, each at its endpoint, and its packets with what the link did to them, as a
// run that records every packet saw them.
func TestTheReportChartsTheSlowestConversation(t *testing.T) {
	cfg, res, d := reportDataOf(t, "lossy-wan")
	require.NotEmpty(t, d.Conversations)
	slowest := slices.MaxFunc(res.Conversations, func(a, b scenarios.ConversationResult) int {
		return int(a.Latency.Max - b.Latency.Max)
	})
	c := d.Conversations[0]
	require.Equal(t, slowest.Conversation.String(), c.Conversation, "the slowest first, as nothing failed")
	assert.Contains(t, c.Why, "the slowest")
	assert.Contains(t, c.Why, roundDuration(slowest.Latency.Max))
	assert.Equal(t, []string{"Lisbon", "Tokyo"}, c.Lanes)
	require.Zero(t, c.LeftOut, "the whole conversation fits")

	count := func(word string) int64 {
		n := 0
		for _, st := range c.Steps {
			if st.To == nil {
				n += strings.Count(st.What, word)
			}
		}
		return int64(n)
	}
	assert.Equal(t, slowest.MessagesSent, count("SEND seq"), "every SEND, END included")
	assert.Equal(t, slowest.MessagesDelivered, count("ready: seq"), "every message made ready")

	rec := cfg
	rec.RecordFaults = true
	recorded, err := scenarios.Run(rec, 1)
	require.NoError(t, err)
	type key struct {
		from, to string
		at       float64
	}
	steps := map[key]ChartStep{}
	for _, st := range c.Steps {
		if st.To != nil {
			steps[key{c.Lanes[st.Lane], c.Lanes[*st.To], st.AtS}] = st
			if st.Fate == "" || st.Fate == "corrupt" || st.Fate == "duplicated" {
				assert.GreaterOrEqual(t, st.ArriveS, st.AtS, "an arrow arrives after it left: %+v", st)
			}
		}
	}
	lost := 0
	for _, p := range recorded.Packets {
		if p.Conversation.String() != c.Conversation {
			continue
		}
		st, ok := steps[key{p.From, p.To, p.At.Seconds()}]
		require.True(t, ok, "the packet %s copy %d at %v is in the chart", p.Key, p.Copy, p.At)
		switch {
		case p.Fate.Lost:
			lost++
			assert.Equal(t, "lost", st.Fate, "%s at %v", p.Key, p.At)
		case p.Fate.Corrupt:
			assert.Equal(t, "corrupt", st.Fate, "%s at %v", p.Key, p.At)
		case p.Fate.Duplicate:
			assert.Equal(t, "duplicated", st.Fate, "%s at %v", p.Key, p.At)
			assert.Equal(t, p.DuplicateArrival.Seconds(), st.AgainS)
		default:
			assert.Empty(t, st.Fate, "%s at %v", p.Key, p.At)
			assert.Equal(t, p.Arrival.Seconds(), st.ArriveS, "%s at %v", p.Key, p.At)
		}
	}
	assert.Positive(t, lost, "the slowest conversation lost a packet on the lossy WAN")
}

// Conversations that failed are charted before the slowest: those a design finding names,
// and those that did not deliver every message when the run stopped.
func TestTheReportChartsFailingConversationsFirst(t *testing.T) {
	_, res, d := reportDataOf(t, "fire-and-forget-outage")
	require.NotEmpty(t, res.Findings)
	require.NotEmpty(t, d.Conversations)
	assert.Equal(t, res.Findings[0].Conversation.String(), d.Conversations[0].Conversation)
	assert.Contains(t, d.Conversations[0].Why, "design finding "+res.Findings[0].ID)
	slowest := slices.MaxFunc(res.Conversations, func(a, b scenarios.ConversationResult) int {
		return int(a.Latency.Max - b.Latency.Max)
	})
	assert.True(t, slices.ContainsFunc(d.Conversations, func(c ChartedConversation) bool { return c.Conversation == slowest.Conversation.String() }),
		"the slowest still has its chart")

	_, res, d = reportDataOf(t, "lossy-wan", "limits.max_time=12s")
	require.NotEmpty(t, d.Conversations)
	first := d.Conversations[0]
	i := slices.IndexFunc(res.Conversations, func(c scenarios.ConversationResult) bool { return c.Conversation.String() == first.Conversation })
	require.GreaterOrEqual(t, i, 0)
	if res.Violation == nil || res.Violation.Conversation == 0 {
		assert.Less(t, res.Conversations[i].MessagesDelivered, res.Conversations[i].MessagesSent)
		assert.Contains(t, first.Why, "were not delivered")
	} else {
		assert.Contains(t, first.Why, res.Violation.Rule+" broke on it")
	}
}

// The timeline holds the faults and changes: partitions both ways, a queue set OFF and ON
// by the timeline with its OFF span, a crash until its restart, and the end of the run.
func TestTheReportsTimelineHasTheFaultsAndChanges(t *testing.T) {
	entry := func(d ReportData, track, what string, at float64) (TimelineEntry, bool) {
		for _, e := range d.Timeline {
			if e.Track == track && e.What == what && e.AtS == at {
				return e, true
			}
		}
		return TimelineEntry{}, false
	}
	until := func(e TimelineEntry) float64 {
		if e.UntilS == nil {
			return -1
		}
		return *e.UntilS
	}
	_, res, d := reportDataOf(t, "partition-heals")
	for _, track := range []string{"link East->West", "link West->East"} {
		e, ok := entry(d, track, "partitioned", 20)
		require.True(t, ok, "the partition cuts %s: %+v", track, d.Timeline)
		assert.Equal(t, 60.0, until(e))
	}
	last := d.Timeline[len(d.Timeline)-1]
	assert.Equal(t, "the run", last.Track)
	assert.Equal(t, res.EndTime.Seconds(), last.AtS)

	_, _, d = reportDataOf(t, "queue-off-on")
	_, ok := entry(d, "queue Warehouse/OrderQueue", "ALTER QUEUE STATUS OFF", 10)
	assert.True(t, ok, "%+v", d.Timeline)
	_, ok = entry(d, "queue Warehouse/OrderQueue", "ALTER QUEUE STATUS ON", 40)
	assert.True(t, ok, "%+v", d.Timeline)
	e, ok := entry(d, "queue Warehouse/OrderQueue", "OFF", 10)
	require.True(t, ok, "%+v", d.Timeline)
	assert.Equal(t, 40.0, until(e))

	_, _, d = reportDataOf(t, "mirror-failover")
	e, ok = entry(d, "instance Warehouse", "crashed, fails over to WarehouseMirror", 20)
	require.True(t, ok, "%+v", d.Timeline)
	assert.Equal(t, 30.0, until(e))
	for i := 1; i < len(d.Timeline); i++ {
		assert.LessOrEqual(t, d.Timeline[i-1].AtS, d.Timeline[i].AtS, "in time order")
	}
}

// The report shows what report.json holds: the parameters, a sequence chart per charted
// conversation and the timeline, each drawn inline, and report.json reads back as written.
func TestTheReportShowsTheChartsTheTimelineAndTheParameters(t *testing.T) {
	s, err := file.Library("partition-heals")
	require.NoError(t, err)
	cfg := s.Config
	cfg.Conversations = true
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	dir := t.TempDir()
	_, err = WriteAll(dir, res, NewSummary(res, s.Config.Name, s.Hash, Verdicts(s, res)), nil)
	require.NoError(t, err)
	d, err := NewReportData(cfg, 1, res)
	require.NoError(t, err)
	var js bytes.Buffer
	require.NoError(t, WriteReportData(&js, d))
	back, err := ReadReportData(bytes.NewReader(js.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, d, back)
	require.NoError(t, writeAtomic(filepath.Join(dir, ReportDataFile), func(w io.Writer) error {
		_, err := w.Write(js.Bytes())
		return err
	}))
	var b bytes.Buffer
	require.NoError(t, WriteReportFromFolder(&b, dir, s.Question))
	page := b.String()
	svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	assert.Equal(t, len(svgs)+len(d.Conversations)+1, strings.Count(page, "<svg"), "the plots, a chart per conversation and the timeline")
	for _, c := range d.Conversations {
		assert.Contains(t, page, fmt.Sprintf(`<figure class="chart" id="conversation-%s"><svg`, c.Conversation))
	}
	assert.Contains(t, page, `<h2 id="timeline">`)
	assert.Contains(t, page, "<td>link East-&gt;West</td><td>partitioned</td>")
	for _, p := range d.Parameters {
		assert.Contains(t, page, "<td>"+html.EscapeString(p.Of)+"</td>")
	}
	for _, id := range []string{"verdict", "parameters", "key-figures", "conversations", "timeline", "plots", "all-figures"} {
		assert.Contains(t, page, `href="#`+id+`"`, id)
		assert.Contains(t, page, `id="`+id+`"`, id)
	}
}

// Every reason a fragment or a row is discarded for has its words in the charts, so that a
// new reason cannot reach a chart as a bare name.
func TestEveryDiscardReasonHasItsWords(t *testing.T) {
	n := 0
	for r := model.Reason(1); !strings.HasPrefix(r.String(), "Reason("); r++ {
		if r.IsDiscard() {
			n++
			assert.Contains(t, reasonWords, r, "%s", r)
		}
	}
	assert.Equal(t, len(reasonWords), n, "no words for a reason that is no discard")
}

// A long conversation's chart keeps its first steps when it is charted for being slow,
// and its last ones, those that led to the failure, when it failed; the chart says which
// it left out.
func TestALongChartKeepsTheEndThatExplainsIt(t *testing.T) {
	cat, err := model.Compile(libraryWith(t, "lossy-wan").Config.Instances)
	require.NoError(t, err)
	for _, failing := range []bool{false, true} {
		c := chosenConversation{id: 7, why: "test", failing: failing}
		r := newChartRecorder(cat, nil, []chosenConversation{c})
		const n = 5000
		for i := range n {
			r.Record(&model.TraceRecord{At: time.Duration(i) * time.Millisecond, Kind: model.TraceMessageSent, Conversation: 7,
				FromInitiator: true, Sequence: model.SequenceNumber(i)})
		}
		chart := r.chart(c)
		require.Len(t, chart.Steps, chartSteps)
		if failing {
			assert.Zero(t, chart.LeftOut)
			assert.Equal(t, float64(n-1)/1000, chart.Steps[chartSteps-1].AtS, "the last step kept")
			assert.Equal(t, float64(n-chartSteps)/1000, chart.StartsAtS)
			assert.Contains(t, sequenceChart(chart).Note, "the last 160 steps")
		} else {
			assert.Zero(t, chart.StartsAtS)
			assert.Equal(t, 0.0, chart.Steps[0].AtS, "the first step kept")
			assert.Equal(t, chartKeep-chartSteps, chart.LeftOut, "of those it kept")
		}
	}
}

// A packet that reaches an instance while it is down is drawn as dropped there (G-13), and
// a forwarder's copy of a fragment is not its sender's retry.
func TestTheChartsDropWhatACrashedInstanceMissesAndDoNotCountForwardsAsRetries(t *testing.T) {
	_, res, d := reportDataOf(t, "target-crash")
	require.NotEmpty(t, res.Crashes)
	crash := res.Crashes[0]
	down := 0
	for _, c := range d.Conversations {
		for _, st := range c.Steps {
			if st.To == nil || c.Lanes[*st.To] != crash.Instance {
				continue
			}
			if st.Fate == "instance down" {
				down++
			}
		}
	}
	assert.Positive(t, down, "packets sent to %s while it was down", crash.Instance)

	_, _, d = reportDataOf(t, "branch-gateway")
	for _, c := range d.Conversations {
		require.Contains(t, c.Lanes, "Gateway")
		first := map[string]bool{}
		for _, st := range c.Steps {
			if st.To == nil || c.Lanes[st.Lane] != "Gateway" {
				continue
			}
			assert.NotContains(t, st.What, "(retry", "a forwarder passes copies on, it does not retry")
			for _, part := range strings.Split(st.What, ", ") {
				msg, _, again := strings.Cut(part, " (copy ")
				if !again && !strings.HasPrefix(part, "ack ") && !strings.HasPrefix(part, "+") {
					// a label shows at most three parts: a first forward may hide in "+n more"
					assert.False(t, first[msg], "%s: forwarded twice, and the second no copy", msg)
					first[msg] = true
				}
			}
		}
		assert.NotEmpty(t, first, "the gateway forwarded")
	}
}

// The parameters name what the design is made of beyond its links and workloads: the
// priorities and HONOR_BROKER_PRIORITY, the routes and forwarding, the readers and the
// procedures, the broker settings changed; the timeline names a failover.
func TestTheParametersNameTheDesign(t *testing.T) {
	has := func(d ReportData, of, name, value string) bool {
		return slices.ContainsFunc(d.Parameters, func(p ReportParameter) bool {
			return p.Of == of && p.Name == name && strings.Contains(p.Value, value)
		})
	}
	_, _, d := reportDataOf(t, "branch-gateway")
	assert.True(t, has(d, "database Branch1/Shop1", "HONOR_BROKER_PRIORITY", "ON"), "%+v", d.Parameters)
	assert.True(t, has(d, "database Branch1/Shop1", "broker priority urgent", "level 10"), "%+v", d.Parameters)
	assert.True(t, has(d, "instance Gateway", "message forwarding", "ON"), "%+v", d.Parameters)
	assert.True(t, has(d, "instance Gateway", "msdb route Orders", "ADDRESS HQ"), "%+v", d.Parameters)
	assert.True(t, has(d, "queue OrdersQueue", "reader", "RECEIVE TOP (20)"), "%+v", d.Parameters)

	_, _, d = reportDataOf(t, "lossy-wan", "broker.retry_interval_min=2s")
	assert.True(t, has(d, "the broker", "broker.retry_interval_min", "2s"), "by its key in a file: %+v", d.Parameters)
	assert.True(t, has(d, "procedure ProcessStock", "program", "150ms"), "%+v", d.Parameters)
	assert.False(t, slices.ContainsFunc(d.Parameters, func(p ReportParameter) bool { return p.Of == "the broker" && p.Name != "broker.retry_interval_min" }),
		"only the settings changed: %+v", d.Parameters)

	_, _, d = reportDataOf(t, "mirror-failover")
	assert.True(t, has(d, "database Shop/Shop", "route Warehouse", "MIRROR_ADDRESS WarehouseMirror"), "%+v", d.Parameters)
	assert.True(t, slices.ContainsFunc(d.Timeline, func(e TimelineEntry) bool {
		return e.Track == "instance Warehouse" && e.AtS == 30 && strings.HasPrefix(e.What, "its broker restarts on its mirror WarehouseMirror")
	}), "the failover when the mirror takes over: %+v", d.Timeline)
}

// A run with design findings says so under its verdict, and a statistical expectation its
// one seed misses is marked as judged over the seeds.
func TestTheReportSaysItsFindingsAndWhatOneSeedCannotJudge(t *testing.T) {
	_, sum, page := reportOf(t, "fire-and-forget-outage")
	require.Positive(t, sum.Invariants.FindingCount)
	require.True(t, sum.OK)
	assert.Contains(t, page, "Verdict: ok: the design fails as the scenario expects (the design findings below), and its expectations held",
		"the scenario expects the finding (dialogs.reopened)")
	assert.Contains(t, page, "<b>Design findings:</b> "+html.EscapeString(findingsSentence(sum.Invariants.FindingCount)))

	_, sum, page = reportOf(t, "lossy-wan", "links.0.both.latency=2s")
	missed := 0
	for _, e := range sum.Expectations {
		if e.OK && strings.Contains(e.Detail, file.MissedOnOneSeed) {
			missed++
		}
	}
	require.Positive(t, missed, "an expectation over the seeds that this seed misses: %+v", sum.Expectations)
	assert.Equal(t, missed, strings.Count(page, "this seed misses it: the share over the seeds decides"))
}

// The invariants are said in one line above their folded table: every rule held, or which
// were violated.
func TestTheReportSaysTheInvariantsInOneLine(t *testing.T) {
	_, sum, page := reportOf(t, "lossy-wan")
	assert.NotContains(t, page, `id="stopped-at-limit"`)
	assert.Contains(t, page, fmt.Sprintf(`<p id="invariants-summary" class="ok">Invariants: every one of the %d rules held.</p>`, len(sum.Invariants.Rules)))
	_, sum, page = reportOf(t, "lossy-wan", "limits.max_events=100")
	require.False(t, sum.OK)
	assert.Contains(t, page, fmt.Sprintf(`<p id="invariants-summary" class="failed">Invariants: INV-12 violated; %d other rules held.</p>`, len(sum.Invariants.Rules)-1))
	require.True(t, sum.StoppedAtLimit)
	assert.Contains(t, page, `<p class="warn" id="stopped-at-limit"><b>The run stopped at a limit</b> (event_limit)`,
		"a run cut short says so before what failed")
}

// The key figures put a figure an expectation names for one subject beside the same
// figure of the others of its kind: branch-gateway's level 10 beside level 1.
func TestTheKeyFiguresCompareWhatTheExpectationsName(t *testing.T) {
	_, sum, page := reportOf(t, "branch-gateway")
	require.True(t, slices.ContainsFunc(sum.Expectations, func(v Verdict) bool { return strings.Contains(v.Name, "at level 10") }))
	i := strings.Index(page, `id="key-figures-table"`)
	require.Positive(t, i)
	table := page[i : i+strings.Index(page[i:], "</table>")]
	for _, level := range []string{"level 10", "level 1"} {
		assert.Contains(t, table, "<td>latency.p50</td><td>"+level+"</td>", "latency.p50 of %s among the key figures", level)
	}
}
