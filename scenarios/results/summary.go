package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// SchemaVersion is the version of the summary.json schema that WriteSummary writes. It
// changes when a field is renamed or removed or changes meaning; adding a field does not
// change it.
const SchemaVersion = 1

// Summary is the content of summary.json: one run's figures and verdicts. docs/outputs.md
// documents every field. Build it with NewSummary; every slice is non-nil, so that an empty
// table is written [] rather than null.
type Summary struct {
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	ScenarioHash  string `json:"scenario_hash"`
	// CodeVersion names the code that ran (CodeVersion): with the hash and the seed, what
	// pins a replay.
	CodeVersion string `json:"code_version"`
	Seed        uint64 `json:"seed"`
	// OK is true when no invariant was violated and every expectation held: the run's
	// verdict, which the command's exit status follows.
	OK         bool   `json:"ok"`
	StopReason string `json:"stop_reason"`
	// StoppedAtLimit is set when the run stopped at a resource limit (StoppedAtLimit) before
	// its end: its figures are partial, and the command exits ExitLimit.
	StoppedAtLimit bool `json:"stopped_at_limit"`
	// MemoryLimit says what grew when the run outgrew its memory budget (stop_reason
	// memory_limit); absent otherwise.
	MemoryLimit *MemoryLimit `json:"memory_limit,omitempty"`
	EndTimeS    float64      `json:"end_time_s"`
	Events      uint64       `json:"events"`
	// Latency is from SEND commit to ready at the target, over every user message received
	// in a committed transaction.
	Latency             Latency `json:"latency"`
	StatementErrors     int64   `json:"statement_errors"`
	FirstStatementError string  `json:"first_statement_error"`

	Levels        []Level        `json:"levels"`
	Queues        []Queue        `json:"queues"`
	Readers       []Reader       `json:"readers"`
	Activators    []Activator    `json:"activators"`
	Links         []Link         `json:"links"`
	Instances     []Instance     `json:"instances"`
	Workloads     []Workload     `json:"workloads"`
	Conversations []Conversation `json:"conversations"`
	// Crashes lists the crashes of instances (G-13); left out in a world without.
	Crashes []Crash `json:"crashes,omitempty"`

	Invariants   Invariants `json:"invariants"`
	Expectations []Verdict  `json:"expectations"`
	// Metrics are the values of every metric of scenarios.Metrics on every subject of the
	// run that has one: the figures an expectation may name.
	Metrics []MetricValue `json:"metrics"`
}

// MetricValue is one metric's value on one subject: the whole run when no subject key is
// set. Value is in the metric's unit, seconds for a duration, 1 (hold) or 0 (violated)
// for a verdict.
type MetricValue struct {
	Metric   string  `json:"metric"`
	Unit     string  `json:"unit"`
	Level    int     `json:"level,omitempty"`
	Queue    string  `json:"queue,omitempty"`
	Workload string  `json:"workload,omitempty"`
	Instance string  `json:"instance,omitempty"`
	Value    float64 `json:"value"`
}

// MetricValues converts measures for summary.json: durations in seconds, as sweep.csv
// writes them too (measureValue).
func MetricValues(ms []scenarios.Measure) []MetricValue {
	out := make([]MetricValue, 0, len(ms))
	for _, m := range ms {
		out = append(out, MetricValue{Metric: m.Metric, Unit: m.Unit.String(), Level: m.Subject.Level, Queue: m.Subject.Queue,
			Workload: m.Subject.Workload, Instance: m.Subject.Instance, Value: measureValue(m)})
	}
	return out
}

// Verdict is the outcome of one expectation of a scenario: its name (the assertion as the
// scenario states it), whether it held, and what was measured.
type Verdict struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// ExpectsFinding is set on a verdict of an expectation the scenario wrote on the metric
	// of the design finding (scenarios.MetricReopened): the report reads it, summary.json
	// does not carry it.
	ExpectsFinding bool `json:"-"`
}

// Latency summarises a latency distribution, in seconds. Every field is zero when Count
// is.
type Latency struct {
	Count int64   `json:"count"`
	MeanS float64 `json:"mean_s"`
	P50S  float64 `json:"p50_s"`
	P90S  float64 `json:"p90_s"`
	P99S  float64 `json:"p99_s"`
	MaxS  float64 `json:"max_s"`
}

// NewSummary builds the summary of res, a run of the scenario called name whose content
// hashes to hash, with the verdicts of its expectations in the scenario's order. An empty
// name takes res.Name. It assumes the run checked invariants (Config.CheckInvariants), as
// every run of the command does; for one that did not, call WithoutInvariantChecks.
func NewSummary(res *scenarios.Result, name, hash string, verdicts []Verdict) Summary {
	if name == "" {
		name = res.Name
	}
	s := Summary{
		SchemaVersion: SchemaVersion, Scenario: name, ScenarioHash: hash, CodeVersion: CodeVersion(), Seed: res.Seed,
		StopReason: stopReason(res.StopReason), StoppedAtLimit: StoppedAtLimit(res.StopReason),
		MemoryLimit: memoryLimit(res.MemoryLimit), EndTimeS: seconds(res.EndTime), Events: res.Events,
		Latency: latency(res.Latency), StatementErrors: res.StatementErrors, FirstStatementError: res.FirstStatementError,
		Levels: levels(res.Levels), Queues: queues(res.Queues), Readers: readers(res.Readers),
		Activators: activators(res.Activators), Links: links(res.Links), Instances: instances(res),
		Workloads: workloads(res.Workloads), Conversations: conversations(res.Conversations), Crashes: crashes(res.Crashes),
		Invariants: invariants(res), Expectations: append([]Verdict{}, verdicts...),
		Metrics: MetricValues(scenarios.Measures(res)),
	}
	s.OK = s.verdict()
	return s
}

// WithoutInvariantChecks returns the summary of a run that did not check invariants:
// every rule is "unchecked".
func (s Summary) WithoutInvariantChecks() Summary {
	s.Invariants = uncheckedInvariants()
	s.OK = s.verdict()
	return s
}

// verdict reports whether no invariant was violated and every expectation held.
func (s Summary) verdict() bool {
	if s.Invariants.Violation != nil {
		return false
	}
	for _, v := range s.Expectations {
		if !v.OK {
			return false
		}
	}
	return true
}

// WriteSummary writes s as indented JSON, ending with a newline. The conversations, a row
// per dialog (a million in a long run), are written one at a time, so that the text of the
// whole summary is never in memory (writeConversations); the bytes are those of one
// json.Encoder call.
func WriteSummary(w io.Writer, s Summary) error {
	if err := writeSummary(w, s); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}

// conversationsKey is the conversations field of an indented summary with none.
const conversationsKey = "\n  \"conversations\": [],\n"

// writeSummary is WriteSummary: the summary without its conversations, then, where the
// empty array was, each conversation indented as the encoder nests it.
func writeSummary(w io.Writer, s Summary) error {
	rows := s.Conversations
	s.Conversations = []Conversation{}
	var head bytes.Buffer
	if err := indentedEncoder(&head, "").Encode(s); err != nil {
		return err
	}
	text := head.Bytes()
	at := bytes.Index(text, []byte(conversationsKey))
	if len(rows) == 0 || at < 0 || bytes.Count(text, []byte(conversationsKey)) != 1 {
		if len(rows) > 0 { // not the summary this was written for: encode it whole
			s.Conversations = rows
			return indentedEncoder(w, "").Encode(s)
		}
		_, err := w.Write(text)
		return err
	}
	open := at + len(conversationsKey) - len("],\n")
	if _, err := w.Write(text[:open]); err != nil {
		return err
	}
	var row bytes.Buffer
	enc := indentedEncoder(&row, "    ")
	for i := range rows {
		row.Reset()
		row.WriteString("\n    ")
		if err := enc.Encode(rows[i]); err != nil {
			return err
		}
		row.Truncate(row.Len() - 1) // the encoder's newline
		if i < len(rows)-1 {
			row.WriteByte(',')
		}
		if _, err := w.Write(row.Bytes()); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "\n  "); err != nil {
		return err
	}
	_, err := w.Write(text[open:])
	return err
}

// indentedEncoder is the encoder of summary.json onto w, its lines after the first
// beginning with prefix.
func indentedEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// ReadSummary reads a summary WriteSummary wrote. It refuses another schema version.
func ReadSummary(r io.Reader) (Summary, error) {
	var s Summary
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return Summary{}, fmt.Errorf("summary: %w", err)
	}
	if s.SchemaVersion != SchemaVersion {
		return Summary{}, fmt.Errorf("summary: schema_version %d: want %d", s.SchemaVersion, SchemaVersion)
	}
	return s, nil
}

// MemoryLimit is scenarios.MemoryLimit in summary.json: the budget, the estimate when the
// run stopped, and its parts, largest first (the first is what grew).
type MemoryLimit struct {
	BudgetBytes   int64       `json:"budget_bytes"`
	EstimateBytes int64       `json:"estimate_bytes"`
	Message       string      `json:"message"`
	Uses          []MemoryUse `json:"uses"`
}

// MemoryUse is one part of a memory estimate.
type MemoryUse struct {
	What  string `json:"what"`
	Count int64  `json:"count"`
	Bytes int64  `json:"bytes"`
}

func memoryLimit(m *scenarios.MemoryLimit) *MemoryLimit {
	if m == nil {
		return nil
	}
	out := &MemoryLimit{BudgetBytes: m.Budget, EstimateBytes: m.Estimate, Message: m.String(), Uses: []MemoryUse{}}
	for _, u := range m.Uses {
		out.Uses = append(out.Uses, MemoryUse(u))
	}
	return out
}

// stopReason is the code of why a run stopped.
func stopReason(r sim.StopReason) string {
	switch r {
	case sim.Drained:
		return "drained"
	case sim.TimeLimit:
		return "time_limit"
	case sim.EventLimit:
		return "event_limit"
	case sim.Stopped:
		return "stopped"
	case sim.MemoryLimit:
		return "memory_limit"
	}
	return fmt.Sprintf("unknown_%d", int(r))
}

// seconds converts a virtual time or duration to seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// optionalSeconds converts a time that is negative when it never happened: nil then.
func optionalSeconds(d time.Duration) *float64 {
	if d < 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}

func latency(l scenarios.LatencySummary) Latency {
	return Latency{Count: l.Count, MeanS: seconds(l.Mean), P50S: seconds(l.P50), P90S: seconds(l.P90),
		P99S: seconds(l.P99), MaxS: seconds(l.Max)}
}
