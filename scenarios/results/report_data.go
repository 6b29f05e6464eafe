package results

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// ReportDataFile holds what report.html shows that summary.json does not: the scenario's
// parameters, the timeline of faults and changes, and the sequence charts of the chosen
// conversations, so that `simulate report DIR` draws the page again without running.
const ReportDataFile = "report.json"

// ReportData is report.json.
type ReportData struct {
	Parameters    []ReportParameter     `json:"parameters"`
	Timeline      []TimelineEntry       `json:"timeline"`
	Conversations []ChartedConversation `json:"conversations"`
}

// ReportParameter is a row of the scenario's parameters: what it is of ("link
// Lisbon->Tokyo"), its name and its value.
type ReportParameter struct {
	Of    string `json:"of"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TimelineEntry is a fault or a change: on a track (a link's direction, a queue, an
// instance, the run), at a time, until another for a span (a partition, a queue OFF, a
// crash), and what it was.
type TimelineEntry struct {
	Track  string   `json:"track"`
	AtS    float64  `json:"at_s"`
	UntilS *float64 `json:"until_s,omitempty"`
	What   string   `json:"what"`
}

// ChartedConversation is a conversation the report draws: why it was chosen, its lanes (an
// instance each, or its two endpoints when both are on one instance) and its steps, in
// time order: what happened at an endpoint (a SEND committed, a message ready or received,
// a change of state) and each packet that carried its fragments or acknowledgements.
type ChartedConversation struct {
	Conversation string      `json:"conversation"`
	Why          string      `json:"why"`
	Lanes        []string    `json:"lanes"`
	Steps        []ChartStep `json:"steps"`
	// LeftOut counts the steps after the last one drawn. A failing conversation's chart
	// keeps its last steps instead, those that led to the failure: StartsAtS, when set, is
	// the time of its first step, what came before is left out.
	LeftOut   int     `json:"left_out,omitempty"`
	StartsAtS float64 `json:"starts_at_s,omitempty"`
}

// ChartStep is a step of a chart: at a lane, or, with To, a packet from Lane to To that
// arrived (or was due) at ArriveS; Fate says what the link did to it ("lost",
// "partition", "capacity", "corrupt", "duplicated"; empty when it arrived as sent).
type ChartStep struct {
	AtS     float64 `json:"at_s"`
	Lane    int     `json:"lane"`
	To      *int    `json:"to,omitempty"`
	ArriveS float64 `json:"arrive_s,omitempty"`
	AgainS  float64 `json:"again_s,omitempty"`
	What    string  `json:"what"`
	Fate    string  `json:"fate,omitempty"`
	Ack     bool    `json:"ack,omitempty"`
}

// Bounds of the report's charts: how many conversations it draws, how many steps each, and
// how many of a conversation's records and packets the recording run keeps.
const (
	chartedConversations = 4
	chartSteps           = 160
	chartKeep            = 4 * chartSteps
)

// NewReportData gives report.json of the run of cfg with seed whose result is res. The
// charts' conversations are chosen from res: the one an invariant broke on, those a design
// finding names, those that did not deliver every message, and the slowest. Their records
// and packets come from a second run of the same config and seed, which keeps only
// theirs; it must end as the first did, since runs are deterministic. A config's Go hooks
// (programs, workload hooks) run again in it.
func NewReportData(cfg scenarios.Config, seed uint64, res *scenarios.Result) (ReportData, error) {
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return ReportData{}, err
	}
	d := ReportData{Parameters: Parameters(cfg), Timeline: timelineOf(cfg, res), Conversations: []ChartedConversation{}}
	chosen := chooseConversations(res)
	if len(chosen) == 0 {
		return d, nil
	}
	rec := newChartRecorder(cat, res.Crashes, chosen)
	for principal, mirror := range failovers(cfg) { // one entry per failover; the order does not matter
		rec.answers[mirror] = principal
	}
	again := cfg
	again.Trace, again.Conversations, again.RecordFaults = false, false, false
	again.TraceSink, again.PacketSink = rec, rec
	second, err := scenarios.Run(again, seed)
	if err != nil {
		return ReportData{}, err
	}
	if second.Events != res.Events || second.EndTime != res.EndTime {
		return ReportData{}, fmt.Errorf("the run for the report's charts ended at %v after %d events, the run at %v after %d: the run is not deterministic",
			second.EndTime, second.Events, res.EndTime, res.Events)
	}
	for _, c := range chosen {
		d.Conversations = append(d.Conversations, rec.chart(c))
	}
	return d, nil
}

// WriteReportData writes d as indented JSON.
func WriteReportData(w io.Writer, d ReportData) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// ReadReportData reads report.json.
func ReadReportData(r io.Reader) (ReportData, error) {
	var d ReportData
	err := json.NewDecoder(r).Decode(&d)
	return d, err
}

// chosenConversation is a conversation to chart and why.
type chosenConversation struct {
	id      model.ConversationID
	why     string
	failing bool // its chart keeps its last steps
}

// chooseConversations picks at most chartedConversations: failing ones first, then the
// slowest, by its longest message latency.
func chooseConversations(res *scenarios.Result) []chosenConversation {
	var out []chosenConversation
	room := chartedConversations - 1 // the slowest always has its chart
	add := func(id model.ConversationID, why string) {
		if id == 0 || len(out) >= room || slices.ContainsFunc(out, func(c chosenConversation) bool { return c.id == id }) {
			return
		}
		out = append(out, chosenConversation{id, why, room < chartedConversations})
	}
	if v := res.Violation; v != nil {
		add(v.Conversation, fmt.Sprintf("%s broke on it: %s", v.Rule, v.Message))
	}
	for i, f := range res.Findings {
		if i < 2 { // the rest are usually more of the same
			add(f.Conversation, fmt.Sprintf("design finding %s: %s", f.ID, f.Message))
		}
	}
	undelivered := 0
	for _, c := range res.Conversations {
		if c.MessagesDelivered < c.MessagesSent && undelivered < 2 {
			undelivered++
			add(c.Conversation, fmt.Sprintf("%d of its %d messages were not delivered", c.MessagesSent-c.MessagesDelivered, c.MessagesSent))
		}
	}
	slow := slices.Clone(res.Conversations)
	slow = slices.DeleteFunc(slow, func(c scenarios.ConversationResult) bool { return c.Latency.Count == 0 || c.Latency.Max == 0 })
	slices.SortStableFunc(slow, func(a, b scenarios.ConversationResult) int { return cmp.Compare(b.Latency.Max, a.Latency.Max) })
	for i, c := range slow {
		if room = chartedConversations; i == 2 {
			break
		}
		what := "the slowest"
		if i == 1 {
			what = "the second slowest"
		}
		add(c.Conversation, fmt.Sprintf("%s: its longest user message took %s (p50 %s) from SEND to ready", what,
			roundDuration(c.Latency.Max), roundDuration(c.Latency.P50)))
	}
	return out
}

// chartRecorder is the second run's sink: it keeps the records and packets of the chosen
// conversations, at most chartKeep of each per conversation.
type chartRecorder struct {
	cat     *model.Catalog
	crashes []scenarios.CrashResult // an arrival while its instance is down is lost
	// answers maps a mirror to the instance whose broker answers there after its failover:
	// the mirror's packets go to that broker's lane.
	answers map[string]string
	records map[model.ConversationID][]model.TraceRecord
	packets map[model.ConversationID][]chartPacket
	// tail marks the failing conversations, whose last records and packets are kept; cut is
	// the time of the first one kept, once earlier ones were dropped.
	tail map[model.ConversationID]bool
	cut  map[model.ConversationID]time.Duration
	// retries counts, per fragment, the copies sent, to tell a retransmission.
	copies map[fragmentKey]int
}

type fragmentKey struct {
	from          string // the sender: a forwarder's copy is not a retry
	conv          model.ConversationID
	fromInitiator bool
	seq           model.SequenceNumber
	frag          int32
}

// chartPacket is a packet of a conversation: what the link did, and what of the
// conversation it carried.
type chartPacket struct {
	sent scenarios.SentPacket
	what string
	ack  bool
}

func newChartRecorder(cat *model.Catalog, crashes []scenarios.CrashResult, chosen []chosenConversation) *chartRecorder {
	r := &chartRecorder{cat: cat, crashes: crashes, answers: map[string]string{}, records: map[model.ConversationID][]model.TraceRecord{},
		packets: map[model.ConversationID][]chartPacket{}, copies: map[fragmentKey]int{},
		tail: map[model.ConversationID]bool{}, cut: map[model.ConversationID]time.Duration{}}
	for _, c := range chosen {
		r.records[c.id] = []model.TraceRecord{}
		r.tail[c.id] = c.failing
	}
	return r
}

// Record keeps the records of the chosen conversations that a chart draws at a lane.
func (r *chartRecorder) Record(t *model.TraceRecord) {
	kept, ok := r.records[t.Conversation]
	if !ok || len(kept) >= chartKeep && !r.tail[t.Conversation] {
		return
	}
	switch t.Kind {
	case model.TraceMessageSent, model.TraceMessageReady, model.TraceMessageReceived, model.TraceStateChanged,
		model.TraceDelayed, model.TraceRouted, model.TraceMessageHeld, model.TraceMessageReturned, model.TraceEndpointForgotten,
		model.TraceFragmentDiscarded, model.TraceRowRemoved:
		if t.Kind == model.TraceRowRemoved && !t.Reason.IsDiscard() {
			return
		}
		kept = append(kept, *t)
		if len(kept) > 2*chartKeep { // a failing one's: its last chartKeep records
			kept = append(kept[:0], kept[len(kept)-chartKeep:]...)
			r.cut[t.Conversation] = max(r.cut[t.Conversation], kept[0].At)
		}
		r.records[t.Conversation] = kept
	}
}

// Packet keeps, for each chosen conversation the packet carries fragments or
// acknowledgements of, what it carried of it.
func (r *chartRecorder) Packet(sent *scenarios.SentPacket, p *model.Packet) {
	var convs []model.ConversationID
	for i := range p.Fragments {
		if c := p.Fragments[i].Conversation; r.has(c) && !slices.Contains(convs, c) {
			convs = append(convs, c)
		}
	}
	for i := range p.Acks {
		if c := p.Acks[i].Conversation; r.has(c) && !slices.Contains(convs, c) {
			convs = append(convs, c)
		}
	}
	for _, c := range convs {
		if len(r.packets[c]) >= chartKeep && !r.tail[c] {
			continue
		}
		var parts []string
		for i := 0; i < len(p.Fragments); i++ {
			f := &p.Fragments[i]
			if f.Conversation != c {
				continue
			}
			// The fragments of one message that ride together are one part: "frag 1-3/5".
			last, retry := i, r.copied(sent.From, c, f)
			for last+1 < len(p.Fragments) {
				g := &p.Fragments[last+1]
				if g.Conversation != c || g.FromInitiator != f.FromInitiator || g.Sequence != f.Sequence || g.Index != p.Fragments[last].Index+1 {
					break
				}
				last++
				retry = max(retry, r.copied(sent.From, c, g))
			}
			part := fmt.Sprintf("%s %s", scenarios.Arrow(f.FromInitiator), r.messageName(f))
			switch {
			case last > i:
				part += fmt.Sprintf(" frag %d-%d/%d", f.Index+1, p.Fragments[last].Index+1, f.Count)
			case f.Count > 1:
				part += fmt.Sprintf(" frag %d/%d", f.Index+1, f.Count)
			}
			if retry > 1 {
				part += fmt.Sprintf(" (retry %d)", retry-1)
			}
			parts = append(parts, part)
			i = last
		}
		acks := 0
		for i := range p.Acks {
			a := &p.Acks[i]
			if a.Conversation != c {
				continue
			}
			if acks++; acks == 1 {
				parts = append(parts, ackText(a))
			}
		}
		if acks > 1 {
			parts[len(parts)-1] += fmt.Sprintf(" (+%d)", acks-1)
		}
		if len(parts) > 3 {
			parts = append(parts[:2], fmt.Sprintf("+%d more", len(parts)-2))
		}
		kept := append(r.packets[c], chartPacket{sent: *sent, what: strings.Join(parts, ", "), ack: acks > 0 && acks == len(parts)})
		if len(kept) > 2*chartKeep { // a failing one's: its last chartKeep packets
			kept = append(kept[:0], kept[len(kept)-chartKeep:]...)
			r.cut[c] = max(r.cut[c], kept[0].sent.At)
		}
		r.packets[c] = kept
	}
}

// copied counts a copy of the fragment sent and returns how many were.
func (r *chartRecorder) copied(from string, c model.ConversationID, f *model.Fragment) int {
	k := fragmentKey{from, c, f.FromInitiator, f.Sequence, f.Index}
	r.copies[k]++
	return r.copies[k]
}

// ackText says what an acknowledgement acknowledges: every fragment before its (Sequence,
// Fragment), and those out of order it lists (PROTO-8).
func ackText(a *model.Ack) string {
	text := "ack " + scenarios.Arrow(a.FromInitiator)
	switch {
	case a.Fragment > 0:
		text += fmt.Sprintf(" to seq %d frag %d", a.Sequence, a.Fragment)
	case a.Sequence > 0:
		text += fmt.Sprintf(" to seq %d", a.Sequence-1)
	default:
		text += " (none in order yet)"
	}
	switch n := len(a.Selective); {
	case n == 1:
		text += " and 1 range out of order"
	case n > 1:
		text += fmt.Sprintf(" and %d ranges out of order", n)
	}
	return text
}

// laneName is the lane of a packet's instance: a mirror's is the lane of the broker that
// fails over to it.
func (r *chartRecorder) laneName(instance string) string {
	if p, ok := r.answers[instance]; ok {
		return p
	}
	return instance
}

// down reports whether instance was down, crashed and not yet restarted, at t (G-13): the
// link's packets arriving then are dropped.
func (r *chartRecorder) down(instance string, t time.Duration) bool {
	return slices.ContainsFunc(r.crashes, func(c scenarios.CrashResult) bool {
		return c.Instance == instance && t >= c.CrashedAt && (t < c.RestartsAt || !c.Restarted && c.RestartsAt <= c.CrashedAt)
	})
}

func (r *chartRecorder) has(c model.ConversationID) bool {
	_, ok := r.records[c]
	return ok
}

// messageName names a fragment's message: "seq 3 OrderRequest", or the error or end of
// dialog it is.
func (r *chartRecorder) messageName(f *model.Fragment) string {
	if f.Sequence == model.Unsequenced {
		return "error (broker)"
	}
	return fmt.Sprintf("seq %d %s", f.Sequence, r.typeName(f.MessageType))
}

func (r *chartRecorder) typeName(t model.MessageTypeID) string {
	if int(t) < len(r.cat.MessageTypes) {
		name := r.cat.MessageTypes[t]
		if i := strings.LastIndexAny(name, "/"); i >= 0 && i < len(name)-1 {
			name = name[i+1:]
		}
		return name
	}
	return fmt.Sprint(t)
}

// chart draws the conversation's records and packets as a chart.
func (r *chartRecorder) chart(c chosenConversation) ChartedConversation {
	out := ChartedConversation{Conversation: c.id.String(), Why: c.why}
	records, packets := r.records[c.id], r.packets[c.id]
	// The endpoints' instances: the initiator's from its records (FromInitiator true on a
	// SEND it made or a state it changed), the target's likewise.
	initiator, target := -1, -1 // instance ids, -1 while unknown
	for _, t := range records {
		switch {
		case t.Kind == model.TraceMessageSent || t.Kind == model.TraceStateChanged:
			if t.FromInitiator && initiator < 0 {
				initiator = int(t.Instance)
			} else if !t.FromInitiator && target < 0 && t.Kind == model.TraceStateChanged {
				target = int(t.Instance)
			}
		case t.Kind == model.TraceMessageReady || t.Kind == model.TraceMessageReceived:
			if t.FromInitiator && target < 0 {
				target = int(t.Instance)
			} else if !t.FromInitiator && initiator < 0 {
				initiator = int(t.Instance)
			}
		}
	}
	name := func(id int) string { return r.cat.Instances[id].Name }
	endpointName := func(id int) string {
		if id < 0 {
			return ""
		}
		return name(id)
	}
	local := initiator >= 0 && initiator == target
	laneOf := map[string]int{}
	lane := func(instance string, role string) int {
		key := instance
		if local {
			key = instance + " (" + role + ")"
		}
		if i, ok := laneOf[key]; ok {
			return i
		}
		laneOf[key] = len(out.Lanes)
		out.Lanes = append(out.Lanes, key)
		return laneOf[key]
	}
	if initiator >= 0 {
		lane(name(initiator), "initiator")
	}
	// Forwarders between them, in the catalog's order (an instance that exchanged the
	// conversation's packets with two others or more), then the target, then the others
	// (a mirror that took the target's database over, say).
	var others []string
	for id := range r.cat.Instances {
		n := r.cat.Instances[id].Name
		if id == initiator || id == target || r.answers[n] != "" {
			continue
		}
		peers := map[string]bool{}
		for _, p := range packets {
			switch n {
			case p.sent.From:
				peers[p.sent.To] = true
			case p.sent.To:
				peers[p.sent.From] = true
			}
		}
		switch {
		case len(peers) >= 2:
			lane(n, "")
		case len(peers) == 1:
			others = append(others, n)
		}
	}
	if target >= 0 {
		lane(name(target), "target")
	}
	for _, n := range others {
		lane(n, "")
	}
	type step struct {
		at time.Duration
		ChartStep
	}
	// A dialog on one instance has no packet: an arrow goes from each SEND, right after its
	// note, to its message's ready.
	type msg struct {
		fromInitiator bool
		seq           model.SequenceNumber
	}
	readyAt := map[msg]time.Duration{}
	if local {
		for _, t := range records {
			if k := (msg{t.FromInitiator, t.Sequence}); t.Kind == model.TraceMessageReady && t.Sequence != model.Unsequenced {
				if _, seen := readyAt[k]; !seen {
					readyAt[k] = t.At
				}
			}
		}
	}
	var steps []step
	for _, t := range records {
		role := "target"
		atInitiator := t.FromInitiator
		if t.Kind == model.TraceMessageReady || t.Kind == model.TraceMessageReceived || t.Kind == model.TraceMessageHeld ||
			t.Kind == model.TraceFragmentDiscarded {
			atInitiator = !t.FromInitiator // the receiving endpoint
		}
		if atInitiator {
			role = "initiator"
		}
		steps = append(steps, step{t.At, ChartStep{AtS: t.At.Seconds(), Lane: lane(name(int(t.Instance)), role), What: r.recordText(&t)}})
		if ready, ok := readyAt[msg{t.FromInitiator, t.Sequence}]; ok && t.Kind == model.TraceMessageSent {
			from, to := lane(name(initiator), "initiator"), lane(name(target), "target")
			if !t.FromInitiator {
				from, to = to, from
			}
			steps = append(steps, step{t.At, ChartStep{AtS: t.At.Seconds(), Lane: from, To: &to, ArriveS: ready.Seconds(),
				What: fmt.Sprintf("%s seq %d %s, on the instance", scenarios.Arrow(t.FromInitiator), t.Sequence, r.typeName(t.MessageType))}})
		}
	}
	for _, p := range packets {
		from, to := lane(r.laneName(p.sent.From), ""), lane(r.laneName(p.sent.To), "")
		what := p.what
		if sender := r.laneName(p.sent.From); !local && sender != endpointName(initiator) && sender != endpointName(target) {
			// A forwarder never retries: it passes on each copy that reaches it.
			what = retryLabel.ReplaceAllStringFunc(what, func(m string) string {
				n, _ := strconv.Atoi(retryLabel.FindStringSubmatch(m)[1])
				return fmt.Sprintf("(copy %d forwarded)", n+1)
			})
		}
		s := ChartStep{AtS: p.sent.At.Seconds(), Lane: from, To: &to, ArriveS: p.sent.Arrival.Seconds(), What: what, Ack: p.ack}
		switch {
		case p.sent.Dropped == faulty.DroppedPartition || p.sent.Crossed:
			s.Fate = "partition"
		case p.sent.Dropped != faulty.NotDropped:
			s.Fate = "capacity"
		case p.sent.Fate.Lost:
			s.Fate = "lost"
		case r.down(p.sent.To, p.sent.Arrival):
			s.Fate = "instance down"
		case p.sent.Fate.Corrupt:
			s.Fate = "corrupt"
		case p.sent.Fate.Duplicate:
			s.Fate, s.AgainS = "duplicated", p.sent.DuplicateArrival.Seconds()
		}
		if s.Fate == "partition" || s.Fate == "capacity" || s.Fate == "lost" || s.Fate == "instance down" {
			s.ArriveS = 0
		}
		steps = append(steps, step{p.sent.At, s})
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	// What happened at one endpoint at one instant is one note.
	merged := steps[:0]
	for _, s := range steps {
		if n := len(merged); n > 0 && s.To == nil && merged[n-1].To == nil && merged[n-1].at == s.at && merged[n-1].Lane == s.Lane {
			merged[n-1].What += "; " + s.What
			continue
		}
		merged = append(merged, s)
	}
	steps = merged
	cut, dropped := r.cut[c.id]
	if dropped {
		steps = slices.DeleteFunc(steps, func(s step) bool { return s.at < cut })
	}
	switch {
	case len(steps) > chartSteps && c.failing:
		steps = steps[len(steps)-chartSteps:]
		cut, dropped = steps[0].at, true
	case len(steps) > chartSteps:
		out.LeftOut = len(steps) - chartSteps
		steps = steps[:chartSteps]
	}
	if dropped {
		out.StartsAtS = max(cut.Seconds(), 1e-9) // set, even for a cut at 0
	}
	for i, l := range out.Lanes {
		for mirror, principal := range r.answers { // at most a few failovers
			if l == principal {
				out.Lanes[i] = principal + " (then its mirror " + mirror + ")"
			}
		}
	}
	out.Steps = make([]ChartStep, len(steps))
	for i, s := range steps {
		out.Steps[i] = s.ChartStep
	}
	return out
}

// retryLabel finds the retry number in a packet's label.
var retryLabel = regexp.MustCompile(`\(retry (\d+)\)`)

// recordText says what a record did at its endpoint.
func (r *chartRecorder) recordText(t *model.TraceRecord) string {
	msg := fmt.Sprintf("seq %d %s", t.Sequence, r.typeName(t.MessageType))
	if t.Sequence == model.Unsequenced { // a dialog timer's message, a broker's error
		msg = r.typeName(t.MessageType)
		if t.Kind == model.TraceMessageReady {
			return "ready: " + msg
		}
	}
	switch t.Kind {
	case model.TraceMessageSent:
		if t.Fragments > 1 {
			return fmt.Sprintf("SEND %s (%d B, %d fragments)", msg, t.Bytes, t.Fragments)
		}
		return fmt.Sprintf("SEND %s (%d B)", msg, t.Bytes)
	case model.TraceMessageReady:
		return fmt.Sprintf("ready: %s, after %s", msg, roundDuration(t.At-t.SentAt))
	case model.TraceMessageReceived:
		return "RECEIVE " + msg
	case model.TraceStateChanged:
		if t.From == 0 {
			return "endpoint created: " + t.To.String()
		}
		return fmt.Sprintf("state %s → %s", t.From, t.To)
	case model.TraceDelayed:
		return "delayed: no route to the far service yet (RTE-2)"
	case model.TraceRouted:
		if int(t.Peer) < len(r.cat.Instances) {
			return "routed: its messages now go to " + r.cat.Instances[t.Peer].Name
		}
		return "routed"
	case model.TraceMessageHeld:
		return "held, the queue OFF: " + msg
	case model.TraceMessageReturned:
		return "rolled back onto the queue: " + msg
	case model.TraceFragmentDiscarded:
		return fmt.Sprintf("discarded a fragment of seq %d: %s", t.Sequence, reasonText(t.Reason))
	case model.TraceRowRemoved:
		return fmt.Sprintf("dropped seq %d from the transmission queue: %s", t.Sequence, reasonText(t.Reason))
	}
	return t.Kind.String()
}

// reasonWords say what a discard's reason means, after its name.
var reasonWords = map[model.Reason]string{
	model.ReasonEndWithError:   "END CONVERSATION WITH ERROR",
	model.ReasonCleanup:        "END CONVERSATION WITH CLEANUP",
	model.ReasonLifetime:       "the dialog's lifetime expired",
	model.ReasonErrorReceived:  "an Error arrived for the dialog",
	model.ReasonRemoteEnded:    "the far side ended",
	model.ReasonWindow:         "beyond the out-of-order window",
	model.ReasonClosedEndpoint: "for an endpoint closed or ended",
	model.ReasonUnknownDialog:  "for a dialog this side no longer knows",
	model.ReasonTargetRefused:  "the target service is unknown or refuses the contract",
	model.ReasonNoRoute:        "msdb has no route for it",
	model.ReasonNotForwarded:   "msdb routes it elsewhere and forwarding is off",
	model.ReasonForwardFull:    "the forwarder's MESSAGE_FORWARD_SIZE is full",
	model.ReasonHops:           "it made its last hop",
}

func reasonText(r model.Reason) string {
	if w, ok := reasonWords[r]; ok {
		return fmt.Sprintf("%s (%s)", r, w)
	}
	return r.String()
}

// Parameters are the scenario's parameters the report lists: the run's limits and
// liveness phase, each link's direction, each workload and each activation.
func Parameters(cfg scenarios.Config) []ReportParameter {
	var out []ReportParameter
	add := func(of, name, value string) { out = append(out, ReportParameter{of, name, value}) }
	run := "the run"
	if cfg.MaxTime > 0 {
		add(run, "max time", roundDuration(cfg.MaxTime))
	}
	if cfg.MaxEvents > 0 {
		add(run, "max events", strconv.FormatUint(cfg.MaxEvents, 10))
	}
	if cfg.Liveness.After > 0 {
		add(run, "every fault heals at", roundDuration(cfg.Liveness.After))
	}
	add(run, "invariants checked", strconv.FormatBool(cfg.CheckInvariants))
	names := make([]string, len(cfg.Instances))
	for i, in := range cfg.Instances {
		names[i] = in.Name
	}
	add(run, "instances", strings.Join(names, ", "))
	for _, l := range cfg.Links {
		for _, d := range directions(l) {
			add(d.track, "settings", linkText(d.c))
		}
	}
	for _, w := range cfg.Workloads {
		text := fmt.Sprintf("%s -> %s: %s from %s, each %s", w.From, w.To, plural(w.Dialogs, "dialog"), roundDuration(w.Start), plural(max(w.Messages, 1), "message"))
		if w.Interarrival.Kind != 0 || w.Interarrival.Mean > 0 {
			text += ", a dialog every " + w.Interarrival.String()
		}
		if b := w.Size.MeanBytes(); b > 0 {
			text += fmt.Sprintf(", of %d B on average", b)
		}
		if w.Replies {
			text += ", each answered"
		}
		text += ", ends: " + w.End.String() // who ends the dialogs (end: in the file)
		add("workload "+w.Name, "what it sends", text)
	}
	for _, in := range cfg.Instances {
		if f := in.Forwarding; f.Enabled {
			size := "10 MiB (the default)"
			if f.MaxBytes > 0 {
				size = fmt.Sprintf("%d B", f.MaxBytes)
			}
			add("instance "+in.Name, "message forwarding", "ON, MESSAGE_FORWARD_SIZE "+size)
		}
		for _, r := range in.Routes {
			add("instance "+in.Name, "msdb route "+r.Name, routeText(r))
		}
		for _, db := range in.Databases {
			where := in.Name + "/" + db.Name
			for _, q := range db.Queues {
				if a := q.Activation; a.Procedure != "" {
					add("queue "+in.Name+"/"+q.Name, "activation", fmt.Sprintf("%s, at most %d readers, status %s", a.Procedure, a.MaxQueueReaders, onOff(a.Status)))
				}
			}
			if db.HonorBrokerPriority {
				add("database "+where, "HONOR_BROKER_PRIORITY", "ON")
			}
			for _, p := range db.Priorities {
				add("database "+where, "broker priority "+p.Name, fmt.Sprintf("level %d for contract %s, local service %s, remote service %s",
					p.Level, anyName(p.Contract), anyName(p.LocalService), anyName(p.RemoteService)))
			}
			for _, r := range db.Routes {
				add("database "+where, "route "+r.Name, routeText(r))
			}
		}
	}
	for _, r := range cfg.Readers {
		add("queue "+r.Queue, "reader", readerText(r.Mode, r.Top, r.Sessions, r.ProcessingTime, r.RollbackRate))
	}
	for _, p := range cfg.Procedures {
		add("procedure "+p.Name, "program", readerText(p.Mode, p.Top, 0, p.ProcessingTime, p.RollbackRate))
	}
	for _, d := range brokerSettings(cfg.Broker) {
		add("the broker", d[0], d[1])
	}
	return out
}

func anyName(s string) string {
	if s == model.Any {
		return "ANY"
	}
	return s
}

func routeText(r model.Route) string {
	text := "SERVICE_NAME " + anyName(r.ServiceName) + ", ADDRESS " + r.Address
	if r.BrokerInstance != "" {
		text += ", BROKER_INSTANCE " + r.BrokerInstance
	}
	if r.MirrorAddress != "" {
		text += ", MIRROR_ADDRESS " + r.MirrorAddress
	}
	if r.Lifetime > 0 {
		text += ", LIFETIME " + roundDuration(r.Lifetime)
	}
	return text
}

// readerText says how a reader or a procedure reads: its mode, RECEIVE TOP, sessions and
// processing time per message.
func readerText(mode scenarios.ReaderMode, top, sessions int, processing sim.Distribution, rollback float64) string {
	text := mode.String()
	if top > 0 {
		text += fmt.Sprintf(", RECEIVE TOP (%d)", top)
	}
	if sessions > 1 {
		text += fmt.Sprintf(", %d sessions", sessions)
	}
	if processing.Kind != 0 || processing.Mean > 0 {
		text += ", processing " + processing.String()
	}
	if rollback > 0 {
		text += fmt.Sprintf(", rolls back %s%% of its transactions", strconv.FormatFloat(100*rollback, 'g', 4, 64))
	}
	return text
}

// brokerSettings are the broker's settings the scenario changed from their defaults, by
// the key a scenario file or -set gives them (broker.retry_interval_min), in the order
// model.Config declares them.
func brokerSettings(c model.Config) [][2]string {
	got, def := reflect.ValueOf(c.WithDefaults()), reflect.ValueOf(model.Config{}.WithDefaults())
	var out [][2]string
	for i := range got.NumField() {
		if f := got.Type().Field(i); f.IsExported() && !reflect.DeepEqual(got.Field(i).Interface(), def.Field(i).Interface()) {
			out = append(out, [2]string{"broker." + snake(f.Name), fmt.Sprint(got.Field(i).Interface())})
		}
	}
	return out
}

// plural writes n things: 1 dialog, 2 dialogs.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func onOff(on bool) string {
	if on {
		return "ON"
	}
	return "OFF"
}

// linkText says what a link's direction does, its faults named only when it has them.
func linkText(c faulty.Config) string {
	parts := []string{"latency " + roundDuration(c.LatencyFixed)}
	if c.LatencyJitter.Kind != 0 || c.LatencyJitter.Mean > 0 {
		parts = append(parts, "jitter "+c.LatencyJitter.String())
	}
	if c.Bandwidth > 0 {
		parts = append(parts, fmt.Sprintf("%d B/s", c.Bandwidth))
	}
	pct := func(name string, p float64) {
		if p > 0 {
			parts = append(parts, fmt.Sprintf("%s %s%%", name, strconv.FormatFloat(100*p, 'g', 4, 64)))
		}
	}
	pct("loss", c.LossProbability)
	if c.LossBurst.Enabled() {
		pct("bursty loss on average", c.LossBurst.MeanLoss())
	}
	pct("duplicates", c.DuplicateProbability)
	pct("corrupt", c.CorruptProbability)
	if c.Capacity > 0 {
		parts = append(parts, fmt.Sprintf("capacity %d packets", c.Capacity))
	}
	for _, w := range c.Down {
		parts = append(parts, fmt.Sprintf("down %s to %s", roundDuration(w.From), roundDuration(w.Until)))
	}
	return strings.Join(parts, ", ")
}

// failovers maps each instance that fails over in the timeline to its mirror.
func failovers(cfg scenarios.Config) map[string]string {
	out := map[string]string{}
	for _, ch := range cfg.Timeline {
		if ch.Crash != nil && ch.Crash.FailoverTo != "" {
			out[ch.Crash.Instance] = ch.Crash.FailoverTo
		}
	}
	return out
}

// runTrack is the timeline's track of the run itself.
const runTrack = "the run"

// timelineOf lists the faults and changes of the run: the links' down windows, the
// timeline's changes, the crashes and the queues' OFF spans as the run had them, and the
// start of the liveness phase, ordered by time.
func timelineOf(cfg scenarios.Config, res *scenarios.Result) []TimelineEntry {
	out := []TimelineEntry{}
	span := func(track string, from, until time.Duration, what string) {
		u := until.Seconds()
		out = append(out, TimelineEntry{Track: track, AtS: from.Seconds(), UntilS: &u, What: what})
	}
	at := func(track string, t time.Duration, what string) {
		out = append(out, TimelineEntry{Track: track, AtS: t.Seconds(), What: what})
	}
	for _, l := range cfg.Links {
		ab, ba := "link "+l.A+"->"+l.B, "link "+l.B+"->"+l.A
		for _, w := range l.AToB.Down {
			span(ab, w.From, w.Until, "down")
		}
		for _, w := range l.BToA.Down {
			span(ba, w.From, w.Until, "down")
		}
		for _, p := range l.Partitions {
			if p.Direction == faulty.Both || p.Direction == faulty.AToB {
				span(ab, p.From, p.Until, "partitioned")
			}
			if p.Direction == faulty.Both || p.Direction == faulty.BToA {
				span(ba, p.From, p.Until, "partitioned")
			}
		}
	}
	for _, ch := range cfg.Timeline {
		switch {
		case ch.Link != nil:
			for _, d := range []struct {
				from, to string
				c        *faulty.Config
			}{{ch.Link.A, ch.Link.B, ch.Link.AToB}, {ch.Link.B, ch.Link.A, ch.Link.BToA}} {
				if d.c != nil {
					at("link "+d.from+"->"+d.to, ch.At, "now "+linkText(*d.c))
					for _, w := range d.c.Down {
						span("link "+d.from+"->"+d.to, w.From, w.Until, "down")
					}
				}
			}
		case ch.Route != nil:
			where := ch.Route.Instance
			if ch.Route.Database != "" {
				where += "/" + ch.Route.Database
			}
			at("routes of "+where, ch.At, fmt.Sprintf("%s %s", ch.Route.Op, ch.Route.Route.Name))
		case ch.Crash != nil: // the crash itself is in res.Crashes, with its restart
			if ch.Crash.FailoverTo != "" {
				at("instance "+ch.Crash.Instance, ch.At+ch.Crash.RestartAfter, "its broker restarts on its mirror "+ch.Crash.FailoverTo+
					" (failover), which answers for it from then on")
			}
		case ch.Activation != nil:
			a := ch.Activation
			var parts []string
			if a.Status != nil {
				parts = append(parts, "STATUS "+onOff(*a.Status))
			}
			if a.MaxQueueReaders != nil {
				parts = append(parts, fmt.Sprintf("MAX_QUEUE_READERS %d", *a.MaxQueueReaders))
			}
			if a.Procedure != nil {
				parts = append(parts, "PROCEDURE_NAME "+*a.Procedure)
			}
			at(timelineQueue(res, ch.Queue), ch.At, "ALTER QUEUE ACTIVATION "+strings.Join(parts, ", "))
		default:
			at(timelineQueue(res, ch.Queue), ch.At, "ALTER QUEUE STATUS "+ch.Status.String())
		}
	}
	failover := failovers(cfg)
	for _, c := range res.Crashes {
		what := "crashed, restarts at " + roundDuration(c.RestartsAt)
		switch {
		case failover[c.Instance] != "":
			what = "crashed, fails over to " + failover[c.Instance]
		case c.Restarted:
			what = "crashed, then restarted"
		}
		span("instance "+c.Instance, c.CrashedAt, c.RestartsAt, what)
	}
	for _, q := range res.Queues {
		track := "queue " + q.Instance + "/" + q.Queue
		var off time.Duration = -1
		for _, s := range q.StatusChanges {
			switch {
			case s.Status == model.QueueOff && off < 0:
				off = s.At
			case s.Status == model.QueueOn && off >= 0:
				span(track, off, s.At, "OFF")
				off = -1
			}
		}
		if off >= 0 {
			span(track, off, res.EndTime, "OFF to the end")
		}
		if q.PoisonDisables > 0 {
			at(track, res.EndTime, fmt.Sprintf("poison detection turned it OFF %d times", q.PoisonDisables))
		}
	}
	if cfg.Liveness.After > 0 {
		at(runTrack, cfg.Liveness.After, "every fault heals: the liveness phase")
	}
	at(runTrack, res.EndTime, "ended: "+res.StopReason.String())
	slices.SortStableFunc(out, func(a, b TimelineEntry) int { return cmp.Compare(a.AtS, b.AtS) })
	return out
}

// roundDuration prints a duration of the report to 100 µs.
func roundDuration(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }

// linkDirection is one direction of a link, its down windows with the link's partitions.
type linkDirection struct {
	track string
	c     faulty.Config
}

// directions are a link's two directions, each with the partitions that cut it among its
// down windows, as the link applies them (faulty.NewPair).
func directions(l scenarios.Link) []linkDirection {
	ab, ba := l.AToB, l.BToA
	ab.Down, ba.Down = slices.Clone(ab.Down), slices.Clone(ba.Down)
	for _, p := range l.Partitions {
		if p.Direction == faulty.Both || p.Direction == faulty.AToB {
			ab.Down = append(ab.Down, p.Window)
		}
		if p.Direction == faulty.Both || p.Direction == faulty.BToA {
			ba.Down = append(ba.Down, p.Window)
		}
	}
	return []linkDirection{{"link " + l.A + "->" + l.B, ab}, {"link " + l.B + "->" + l.A, ba}}
}

// timelineQueue is the timeline's track of the queue a change names ("instance/database/queue"
// or a name unique in the world): the one the run's queue rows give it.
func timelineQueue(res *scenarios.Result, name string) string {
	for _, q := range res.Queues {
		if name == q.Queue || name == q.Instance+"/"+q.Database+"/"+q.Queue {
			return "queue " + q.Instance + "/" + q.Queue
		}
	}
	return "queue " + name
}

// snake writes a Go field name as a scenario file's key: RetryIntervalMin is
// retry_interval_min.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
