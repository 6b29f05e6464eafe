package shrink

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/plots/diagram"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// Files a card writes into its folder (WriteCard).
const (
	CardFile     = "card.txt"
	ChartFile    = "chart.svg"
	CaseFile     = "counterexample.yaml"
	ReplayFile   = "replay.sh"
	maxChartRows = 80
)

// Card renders the counterexample as text: the rule and what broke, how far it shrank, the
// command that replays it, the workload and the fault plan, the ledger of the records
// that led to the failure with the packets of its conversation, the messages of that
// conversation, and a sequence chart of its packets between the instances. replay is the
// command line that replays the case ("" for none).
func (o *Outcome) Card(replay string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "COUNTEREXAMPLE  %s\n", o.Failure)
	if o.Seed != o.FirstSeed {
		fmt.Fprintf(&b, "seed %d failed (%s); the shrunk case fails on seed %d\n", o.FirstSeed, o.First.What, o.Seed)
	} else {
		fmt.Fprintf(&b, "seed %d\n", o.Seed)
	}
	fmt.Fprintf(&b, "shrunk from %v to %v in %d runs\n", o.Before, o.After, o.Runs)
	if o.AtBound {
		b.WriteString("shrinking stopped at its bound of runs: a smaller case may exist (more runs: -shrink-runs, Options.MaxRuns)\n")
	}
	if !o.Replayable {
		b.WriteString("the links keep their random streams: the failure did not show with its fault plan alone\n")
	}
	if replay != "" {
		fmt.Fprintf(&b, "replay: %s\n", replay)
	}
	b.WriteString("\nworkload\n")
	for _, w := range o.Config.Workloads {
		fmt.Fprintf(&b, "  %s: %s x %s of %d B, %s -> %s", w.Name, plural(w.Dialogs, "dialog"), plural(max(w.Messages, 1), "message"),
			w.Size.MeanBytes(), w.From, w.To)
		if w.Replies {
			b.WriteString(", each answered")
		}
		if w.GroupSize > 1 {
			fmt.Fprintf(&b, ", groups of %d", w.GroupSize)
		}
		b.WriteString("\n")
	}
	for _, r := range o.Config.Readers {
		if r.Sessions > 1 || r.RollbackRate > 0 || r.TouchRate > 0 {
			fmt.Fprintf(&b, "  reader of %s: %s, %s, rollbacks %.0f%%, touches %.0f%%\n", r.Queue, plural(max(r.Sessions, 1), "session"), r.Mode,
				100*r.RollbackRate, 100*r.TouchRate)
		}
	}
	for _, p := range o.Config.Procedures {
		if p.RollbackRate > 0 {
			fmt.Fprintf(&b, "  procedure %s: rollbacks %.0f%%\n", p.Name, 100*p.RollbackRate)
		}
	}
	if d := o.Config.Broker.Defects; d != 0 {
		fmt.Fprintf(&b, "  broker defects (deliberately broken): %v\n", d)
	}
	b.WriteString("\nfault plan\n")
	o.writePlan(&b)
	b.WriteString("\nledger")
	v := o.Result.Violation
	if v != nil && v.Conversation != 0 {
		fmt.Fprintf(&b, " of conversation %v", v.Conversation)
	}
	if v != nil && v.Tx != 0 {
		fmt.Fprintf(&b, ", transaction %d of instance %d", v.Tx, v.Instance)
	}
	if v != nil && v.Group != 0 {
		fmt.Fprintf(&b, ", group %v", v.Group)
	}
	b.WriteString(" (records and the packets of the conversation, oldest first)\n")
	for _, line := range o.ledger() {
		b.WriteString("  " + line + "\n")
	}
	if o.Failure.Rule == "INV-12" { // why the next step did not come in time
		bc := o.Config.Broker.WithDefaults()
		within := "within its default bound"
		if w := o.Result.Liveness.Within; w > 0 {
			within = fmt.Sprintf("%v", w)
		}
		fmt.Fprintf(&b, "  why nothing came in time: an unacknowledged fragment is sent again %v after it left, then at most every %v "+
			"(broker.retry_interval_min, retry_interval_max); the run had to finish %s after the faults healed (liveness.within)\n",
			bc.RetryIntervalMin, bc.RetryIntervalMax, within)
	}
	if v != nil && v.Conversation != 0 {
		b.WriteString("\nmessages of the conversation\n")
		for _, line := range o.messages(v.Conversation) {
			b.WriteString("  " + line + "\n")
		}
	}
	b.WriteString("\nsequence chart\n")
	b.WriteString(o.textChart())
	return b.String()
}

// writePlan lists the case's faults: packets, the timeline, down windows and partitions.
func (o *Outcome) writePlan(b *strings.Builder) {
	n := 0
	if p := o.Config.FaultPlan; p != nil {
		for _, f := range p.Packets {
			fmt.Fprintf(b, "  t=%v %s->%s %s copy %d: %s\n", f.At, f.From, f.To, f.Key, f.Copy, fateText(f.Fate))
			n++
		}
	}
	for _, ch := range o.Config.Timeline {
		fmt.Fprintf(b, "  t=%v %s\n", ch.At, changeText(ch))
		n++
	}
	for _, l := range o.Config.Links {
		for _, w := range l.AToB.Down {
			fmt.Fprintf(b, "  %s->%s down from %v until %v\n", l.A, l.B, w.From, w.Until)
			n++
		}
		for _, w := range l.BToA.Down {
			fmt.Fprintf(b, "  %s->%s down from %v until %v\n", l.B, l.A, w.From, w.Until)
			n++
		}
		for _, p := range l.Partitions {
			fmt.Fprintf(b, "  %s<->%s partitioned (%v) from %v until %v\n", l.A, l.B, p.Direction, p.From, p.Until)
			n++
		}
	}
	if len(o.Config.Crashes.Instances) > 0 {
		fmt.Fprintf(b, "  random crashes of %s\n", strings.Join(o.Config.Crashes.Instances, ", "))
		n++
	}
	for _, r := range o.Config.Readers {
		if r.RollbackRate > 0 {
			fmt.Fprintf(b, "  the reader of %s rolls back %.0f%% of its transactions%s\n", r.Queue, 100*r.RollbackRate, until(r.RollbackUntil))
			n++
		}
	}
	for _, p := range o.Config.Procedures {
		if p.RollbackRate > 0 {
			fmt.Fprintf(b, "  procedure %s rolls back %.0f%% of its transactions%s\n", p.Name, 100*p.RollbackRate, until(p.RollbackUntil))
			n++
		}
	}
	if n == 0 {
		b.WriteString("  none: the failure needs no fault\n")
	}
}

func until(t time.Duration) string {
	if t == 0 {
		return ""
	}
	return fmt.Sprintf(" until %v", t)
}

// plural says n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func fateText(f faulty.Fate) string {
	var parts []string
	if f.Lost {
		parts = append(parts, "lost")
	}
	if f.Corrupt {
		parts = append(parts, "corrupted")
	}
	if f.Duplicate {
		parts = append(parts, fmt.Sprintf("duplicated (copy +%v)", f.DuplicateJitter))
	}
	if f.Jitter != 0 {
		parts = append(parts, fmt.Sprintf("delayed +%v", f.Jitter))
	}
	if len(parts) == 0 {
		return "delivered"
	}
	return strings.Join(parts, ", ")
}

func changeText(ch scenarios.Change) string {
	switch {
	case ch.Crash != nil:
		return fmt.Sprintf("crash of %s, restarted after %v", ch.Crash.Instance, ch.Crash.RestartAfter)
	case ch.Link != nil:
		var parts []string
		for _, d := range []struct {
			from, to string
			c        *faulty.Config
		}{{ch.Link.A, ch.Link.B, ch.Link.AToB}, {ch.Link.B, ch.Link.A, ch.Link.BToA}} {
			if c := d.c; c != nil {
				parts = append(parts, fmt.Sprintf("%s->%s latency %v, loss %g, duplicates %g, corrupt %g, %d B/s", d.from, d.to,
					c.LatencyFixed, c.LossProbability, c.DuplicateProbability, c.CorruptProbability, c.Bandwidth))
			}
		}
		return fmt.Sprintf("link %s<->%s changes: %s", ch.Link.A, ch.Link.B, strings.Join(parts, "; "))
	case ch.Route != nil:
		return "a route changes"
	case ch.Activation != nil:
		return fmt.Sprintf("ALTER QUEUE %s WITH ACTIVATION", ch.Queue)
	}
	return fmt.Sprintf("ALTER QUEUE %s WITH STATUS = %v", ch.Queue, ch.Status)
}

// packetsOf returns the packets of conversation conv, all of them when conv is zero.
func (o *Outcome) packetsOf(conv model.ConversationID) []scenarios.SentPacket {
	var out []scenarios.SentPacket
	for _, p := range o.Result.Packets {
		if conv == 0 || p.Conversation == conv {
			out = append(out, p)
		}
	}
	return out
}

// ledger merges the violation's records and the packets of its conversation by time.
func (o *Outcome) ledger() []string {
	v := o.Result.Violation
	if v == nil {
		return nil
	}
	type line struct {
		at   time.Duration
		text string
	}
	var lines []line
	for _, r := range v.Records {
		lines = append(lines, line{r.At, r.String()})
	}
	if v.Conversation != 0 {
		for _, p := range o.packetsOf(v.Conversation) {
			lines = append(lines, line{p.At, "t=" + p.At.String() + " link " + packetText(p)})
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.at, b.at) })
	out := make([]string, 0, len(lines)+1)
	for _, l := range lines {
		out = append(out, l.text)
	}
	return append(out, fmt.Sprintf("t=%v %s violated: %s", v.At, v.Rule, v.Message))
}

// packetText says what a link did with a packet.
func packetText(p scenarios.SentPacket) string {
	what := fmt.Sprintf("%s->%s %s copy %d", p.From, p.To, p.Key, p.Copy)
	switch {
	case p.Dropped == faulty.DroppedPartition:
		return what + ": dropped, the link was down"
	case p.Dropped == faulty.DroppedCapacity:
		return what + ": dropped, the link was full"
	case p.Fate.Lost:
		return what + ": lost"
	case p.Crossed:
		return what + ": cut in flight by a down window"
	}
	s := fmt.Sprintf("%s: %s, due at %v", what, fateText(p.Fate), p.Arrival)
	if p.Fate.Duplicate {
		s += fmt.Sprintf(", its copy at %v", p.DuplicateArrival)
	}
	return s
}

// messages summarises each message of conversation conv from the traced run: when it was
// sent, how often its fragments left, what the links did, and whether it was stored,
// acknowledged, made ready and received.
func (o *Outcome) messages(conv model.ConversationID) []string {
	type msg struct {
		dir                                 bool
		seq                                 model.SequenceNumber
		sentAt                              time.Duration
		sends, retries, stored, dups, ready int
		received                            int
		fates                               []string
	}
	var msgs []*msg
	find := func(dir bool, seq model.SequenceNumber) *msg {
		for _, m := range msgs {
			if m.dir == dir && m.seq == seq {
				return m
			}
		}
		m := &msg{dir: dir, seq: seq, sentAt: -1}
		msgs = append(msgs, m)
		return m
	}
	for _, r := range o.Result.Trace {
		if r.Conversation != conv {
			continue
		}
		switch r.Kind {
		case model.TraceMessageSent:
			find(r.FromInitiator, r.Sequence).sentAt = r.At
		case model.TraceFragmentSent:
			m := find(r.FromInitiator, r.Sequence)
			m.sends++
			if r.Retry {
				m.retries++
			}
		case model.TraceFragmentStored:
			find(r.FromInitiator, r.Sequence).stored++
		case model.TraceFragmentDuplicate:
			find(r.FromInitiator, r.Sequence).dups++
		case model.TraceMessageReady:
			find(r.FromInitiator, r.Sequence).ready++
		case model.TraceMessageReceived:
			find(r.FromInitiator, r.Sequence).received++
		}
	}
	for _, p := range o.packetsOf(conv) {
		if p.Fragments == 0 {
			continue
		}
		if t := packetText(p); !strings.Contains(t, ": delivered") {
			m := find(p.FromInitiator, p.Sequence)
			m.fates = append(m.fates, fmt.Sprintf("copy %d %s", p.Copy, t[strings.LastIndex(t, ": ")+2:]))
		}
	}
	var out []string
	for _, m := range msgs {
		if m.seq == model.Unsequenced {
			continue
		}
		line := fmt.Sprintf("%s seq=%d sent at %v: %d fragments sent (%d retransmitted), %d stored, %d duplicates, ready %d, received %d",
			scenarios.Arrow(m.dir), m.seq, m.sentAt, m.sends, m.retries, m.stored, m.dups, m.ready, m.received)
		if len(m.fates) > 0 {
			line += "; links: " + strings.Join(m.fates, "; ")
		}
		out = append(out, line)
	}
	return out
}

// chartRows are the packets a chart draws, at most maxChartRows of them: the failing
// conversation's; for a failure of no conversation (a lock's), those of the conversations
// its records name; else every packet.
func (o *Outcome) chartRows() ([]scenarios.SentPacket, []string) {
	var rows []scenarios.SentPacket
	switch v := o.Result.Violation; {
	case v != nil && v.Conversation != 0:
		rows = o.packetsOf(v.Conversation)
	case v != nil: // a lock's or a monitor's: the conversations its records name
		var convs []model.ConversationID
		for _, r := range v.Records {
			if r.Conversation != 0 && !slices.Contains(convs, r.Conversation) {
				convs = append(convs, r.Conversation)
			}
		}
		for _, p := range o.Result.Packets {
			if slices.Contains(convs, p.Conversation) {
				rows = append(rows, p)
			}
		}
	default:
		rows = o.packetsOf(0)
	}
	if v := o.Result.Violation; v != nil { // what came after the failure explains nothing
		rows = slices.DeleteFunc(rows, func(p scenarios.SentPacket) bool { return p.At > v.At })
	}
	if len(rows) > maxChartRows {
		rows = rows[:maxChartRows]
	}
	var lanes []string
	for _, in := range o.Config.Instances {
		for _, p := range rows {
			if (p.From == in.Name || p.To == in.Name) && !slices.Contains(lanes, in.Name) {
				lanes = append(lanes, in.Name)
			}
		}
	}
	return rows, lanes
}

// textChart draws the packets as rows between the instances' lanes.
func (o *Outcome) textChart() string {
	rows, lanes := o.chartRows()
	if len(rows) == 0 {
		return "  no packet crossed a link\n"
	}
	var b strings.Builder
	b.WriteString("  " + strings.Join(lanes, "  |  ") + "\n")
	for _, p := range rows {
		left, right, arrow := p.From, p.To, "-->"
		if slices.Index(lanes, p.From) > slices.Index(lanes, p.To) {
			left, right, arrow = p.To, p.From, "<--"
		}
		mark := ""
		switch {
		case p.Dropped != faulty.NotDropped || p.Fate.Lost || p.Crossed:
			mark = " x"
		case p.Fate.Corrupt:
			mark = " !"
		case p.Fate.Duplicate:
			mark = " x2"
		}
		fmt.Fprintf(&b, "  t=%-14v %s %s %s%-3s  %s\n", p.At, left, arrow, right, mark, packetText(p))
	}
	if len(rows) == maxChartRows {
		fmt.Fprintf(&b, "  ... the chart stops at %d packets\n", maxChartRows)
	}
	return b.String()
}

// ChartSVG draws the sequence chart with the report's renderer (diagram.SequenceSVG): a
// lane per instance, an arrow per packet from its send to when it was due, red and crossed
// half way when it was lost or dropped, orange when corrupted, a second line for a
// duplicate's copy.
func (o *Outcome) ChartSVG() []byte {
	rows, lanes := o.chartRows()
	title := []rune(fmt.Sprintf("%s, seed %d", o.Failure, o.Seed))
	if len(title) > 150 { // the card's text has the failure whole
		title = append(title[:149], '…')
	}
	chart := diagram.Sequence{Title: string(title), Lanes: lanes}
	for _, p := range rows {
		st := diagram.SequenceStep{At: p.At, Lane: slices.Index(lanes, p.From), To: slices.Index(lanes, p.To), Arrive: p.Arrival,
			Label: p.Key + " #" + fmt.Sprint(p.Copy)}
		switch {
		case p.Dropped != faulty.NotDropped || p.Fate.Lost || p.Crossed:
			st.Fate = diagram.Lost
		case p.Fate.Corrupt:
			st.Fate = diagram.Corrupt
		case p.Fate.Duplicate:
			st.Again = p.DuplicateArrival
		}
		chart.Steps = append(chart.Steps, st)
	}
	if v := o.Result.Violation; v != nil && len(rows) > 0 && int(v.Instance) < len(o.Config.Instances) {
		// Where and when it broke, on the lane of the instance that saw it.
		if lane := slices.Index(lanes, o.Config.Instances[v.Instance].Name); lane >= 0 {
			chart.Steps = append(chart.Steps, diagram.SequenceStep{At: v.At, Lane: lane, To: -1, Label: "✗ " + o.Failure.String()})
		}
	}
	switch len(rows) {
	case maxChartRows:
		chart.Note = fmt.Sprintf("the chart stops at %d packets", maxChartRows)
	case 0:
		chart.Note = "no packet of the failure crossed a link: it happened within an instance (the ledger says what)"
	}
	return diagram.SequenceSVG(chart)
}

// WriteCard writes the card into dir and returns its text: card.txt, chart.svg, and
// counterexample.yaml, the case as a scenario file, with replay.sh, which runs `simulate
// run` on the file beside it. The folder holds no path of the machine that wrote it, so it
// replays wherever it is moved. A case the file format cannot hold (a Go hook, say) gets
// no file, and the card says so.
func (o *Outcome) WriteCard(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cfg := o.Config
	cfg.Name = o.Config.Name + " (counterexample)"
	replay := ""
	text, err := (&file.Scenario{Config: cfg,
		Question: fmt.Sprintf("Does the counterexample still fail %s? (shrunk by sbsim from seed %d; it fails on seed %d)", o.Failure.Rule, o.FirstSeed, o.Seed)}).Marshal()
	if err == nil {
		if err := os.WriteFile(filepath.Join(dir, CaseFile), text, 0o644); err != nil {
			return "", err
		}
		script := fmt.Sprintf("#!/bin/sh\n# Replays the counterexample beside this script. From the root of sbsim's source:\n#   sh path/to/this/folder/%s\nhere=$(dirname \"$0\")\nexec go run ./cmd/simulate run \"$here\"/%s -seed %d \"$@\"\n",
			ReplayFile, CaseFile, o.Seed)
		if err := os.WriteFile(filepath.Join(dir, ReplayFile), []byte(script), 0o755); err != nil {
			return "", err
		}
		replay = fmt.Sprintf("sh path/to/this/folder/%s, from the root of sbsim's source (%s)", ReplayFile, file.Replay(CaseFile, nil, o.Seed))
	}
	if err != nil { // no file: none of an earlier card may stay
		for _, f := range []string{CaseFile, ReplayFile} {
			if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
		}
	}
	card := o.Card(replay)
	if err != nil {
		card += fmt.Sprintf("\nno scenario file (%v): replay it from Go, shrink.Shrink(cfg, %d, shrink.Options{}) and scenarios.Run(outcome.Config, outcome.Seed), or the first run, scenarios.Run(cfg, %d)\n",
			err, o.FirstSeed, o.FirstSeed)
	}
	if err := os.WriteFile(filepath.Join(dir, CardFile), []byte(card), 0o644); err != nil {
		return "", err
	}
	return card, os.WriteFile(filepath.Join(dir, ChartFile), o.ChartSVG(), 0o644)
}
