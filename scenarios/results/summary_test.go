package results

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

func TestSummaryParsesBackWithTheRunsFigures(t *testing.T) {
	out := sharedOutput(t)
	data := readFileT(t, filepath.Join(out.dir, SummaryFile))

	var raw map[string]any
	require.NoError(t, json.Unmarshal(data, &raw))
	s, err := ReadSummary(bytes.NewReader(data))
	require.NoError(t, err)

	assert.EqualValues(t, 1, raw["schema_version"])
	assert.Equal(t, "small.yaml", s.Scenario)
	assert.Equal(t, "sha256:0123", s.ScenarioHash)
	assert.Equal(t, uint64(testSeed), s.Seed)
	assert.Equal(t, "drained", s.StopReason)
	assert.True(t, s.OK)
	assert.Equal(t, out.res.EndTime.Seconds(), s.EndTimeS)
	assert.Equal(t, out.res.Events, s.Events)
	assert.Equal(t, int64(48), s.Latency.Count, "3 messages and 3 replies on each of 8 dialogs")

	var levels []int
	for _, l := range s.Levels {
		levels = append(levels, l.Level)
	}
	assert.Equal(t, []int{10, 5, 1}, levels, "requests at 10 and 1, replies at the default 5, highest first")
	assert.Equal(t, int64(144000), s.Levels[0].Bytes, "12 requests of 12000 bytes at level 10")
	require.Len(t, s.Workloads, 2)
	for _, w := range s.Workloads {
		assert.Equal(t, int64(24), w.Latency.Count, "%s: 12 requests and 12 replies", w.Workload)
		assert.Equal(t, int64(12), w.RoundTrip.Count, "%s: a round trip per reply", w.Workload)
		assert.Greater(t, w.RoundTrip.MeanS, w.Latency.MeanS, "%s: a round trip takes two latencies and more", w.Workload)
		w.Latency, w.RoundTrip = Latency{}, Latency{}
		assert.Equal(t, Workload{Workload: w.Workload, DialogsBegun: 4, DialogsEnded: 4, MessagesSent: 12, RepliesReceived: 12}, w)
	}
	assert.Len(t, s.Conversations, 8, "a row per dialog: the run was traced")
	assert.Len(t, s.Links, 2)
	assert.Len(t, s.Instances, 2)
	require.Len(t, s.Queues, 2)
	assert.Nil(t, s.Queues[0].Monitor, "InitiatorQueue is not activated")
	require.NotNil(t, s.Queues[1].Monitor, "TargetQueue is activated")
	assert.Equal(t, 1, s.Queues[1].PeakActivated, "the run is over before a tick could start a second reader (G-5)")
	assert.Equal(t, out.res.Queues[1].PeakActivated, s.Queues[1].PeakActivated)
	assert.Equal(t, len(out.res.Queues[1].Samples), s.Queues[1].Samples)
	assert.Equal(t, testVerdicts, s.Expectations)
	assert.True(t, s.Invariants.Checked)
	assert.Nil(t, s.Invariants.Violation)
	for _, r := range s.Invariants.Rules {
		assert.Equal(t, VerdictOK, r.Verdict, "rule %s", r.Rule)
	}
}

// Every table is written [], never null, so that a reader can iterate it.
func TestSummaryWritesEmptyTablesAsEmptyArrays(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteSummary(&buf, NewSummary(&scenarios.Result{Instances: []scenarios.InstanceResult{{Name: "A"}},
		Queues: []scenarios.QueueResult{{Queue: "Q"}}}, "s", "h", nil)))

	assert.Equal(t, 2, strings.Count(buf.String(), "null"), "only the absent monitor and violation are null")
	for _, key := range []string{"levels", "readers", "activators", "links", "workloads", "conversations", "expectations",
		"endpoint_states", "connections", "activated_tasks"} {
		assert.Contains(t, buf.String(), `"`+key+`": []`, "table %s", key)
	}
	assert.Contains(t, buf.String(), `"monitor": null`, "a queue without a monitor")
}

func TestReadSummaryRefusesAnotherSchemaVersion(t *testing.T) {
	_, err := ReadSummary(strings.NewReader(`{"schema_version": 2}`))

	assert.ErrorContains(t, err, "schema_version 2")
}

func TestInvariantVerdicts(t *testing.T) {
	violation := &invariant.Violation{Rule: "INV-4", At: 1500 * time.Millisecond, Instance: 1, Tx: 7, Group: 3,
		Message: "transaction 7 took the lock of group g3, which transaction 6 holds",
		Records: []model.TraceRecord{{At: time.Second, Kind: model.TraceLockAcquired, Instance: 1, Tx: 6, Group: 3}}}
	tests := []struct {
		name      string
		res       scenarios.Result
		unchecked bool
		want      map[string]string // rule → verdict, the others ok
		wantOK    bool
	}{
		{"a clean run that drained", scenarios.Result{StopReason: sim.Drained}, false, nil, true},
		// Run checks INV-12 when a limit stops a run (the liveness phase): a result without a
		// violation delivered everything.
		{"a clean run stopped by its time limit", scenarios.Result{StopReason: sim.TimeLimit}, false, nil, true},
		{"a run stopped by its time limit that expects not to drain",
			scenarios.Result{StopReason: sim.TimeLimit, Liveness: scenarios.LivenessResult{Off: true}}, false,
			map[string]string{"INV-12": VerdictUnchecked}, true},
		// The rules after a violation held only until it stopped the run.
		{"a violation", scenarios.Result{StopReason: sim.Stopped, Violation: violation}, false,
			map[string]string{"INV-4": VerdictViolated, "*": VerdictNotToTheEnd}, false},
		{"a rule the list does not know yet", scenarios.Result{StopReason: sim.Stopped,
			Violation: &invariant.Violation{Rule: "INV-99", Message: "new"}}, false,
			map[string]string{"INV-99": VerdictViolated, "*": VerdictNotToTheEnd}, false},
		{"a run without checks", scenarios.Result{StopReason: sim.Drained}, true, map[string]string{"*": VerdictUnchecked}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSummary(&tt.res, "s", "h", nil)
			if tt.unchecked {
				s = s.WithoutInvariantChecks()
			}

			assert.Equal(t, tt.wantOK, s.OK)
			assert.Equal(t, !tt.unchecked, s.Invariants.Checked)
			var ids []string
			for _, r := range s.Invariants.Rules {
				ids = append(ids, r.Rule)
				want, ok := tt.want[r.Rule]
				if !ok {
					want, ok = tt.want["*"]
				}
				if !ok {
					want = VerdictOK
				}
				assert.Equal(t, want, r.Verdict, "rule %s", r.Rule)
				assert.Equal(t, want == VerdictOK, r.Detail == "", "rule %s: a detail exactly when not ok: %q", r.Rule, r.Detail)
			}
			for id := range tt.want {
				assert.True(t, id == "*" || slices.Contains(ids, id), "rule %s listed", id)
			}
		})
	}
}

func TestViolationIsWrittenWithItsRecords(t *testing.T) {
	res := &scenarios.Result{StopReason: sim.Stopped, Violation: &invariant.Violation{Rule: "INV-4",
		At: 1500 * time.Millisecond, Instance: 1, Tx: 7, Group: 3, Message: "two holders",
		Records: []model.TraceRecord{{At: time.Second, Event: 9, Kind: model.TraceLockAcquired, Instance: 1, Tx: 6, Group: 3}}}}
	var buf bytes.Buffer

	require.NoError(t, WriteSummary(&buf, NewSummary(res, "s", "h", []Verdict{{Name: "e", OK: true}})))

	s, err := ReadSummary(&buf)
	require.NoError(t, err)
	require.NotNil(t, s.Invariants.Violation)
	v := s.Invariants.Violation
	assert.Equal(t, Violation{Rule: "INV-4", TimeS: 1.5, Instance: 1, Tx: 7, Group: "g3", Message: "two holders",
		Records: []TraceRecord{{TimeS: 1, Event: 9, Kind: "lock-acquired", Instance: 1, Tx: ptr(uint64(6)), Group: "g3"}}}, *v)
	i := slices.IndexFunc(s.Invariants.Rules, func(r RuleVerdict) bool { return r.Rule == "INV-4" })
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, "INV-4 violated at t=1.5s in transaction 7 of instance 1 on group g3: two holders", s.Invariants.Rules[i].Detail)
	assert.False(t, s.OK, "a violation fails the run even when every expectation holds")
}

func TestAFailedExpectationFailsTheRun(t *testing.T) {
	s := NewSummary(&scenarios.Result{StopReason: sim.Drained}, "s", "h",
		[]Verdict{{Name: "a", OK: true}, {Name: "no more than 2 readers on queue Q", OK: false, Detail: "3 readers at t=4s"}})

	assert.False(t, s.OK)
}

func TestStopReasonCodes(t *testing.T) {
	for reason, want := range map[sim.StopReason]string{sim.Drained: "drained", sim.TimeLimit: "time_limit",
		sim.EventLimit: "event_limit", sim.Stopped: "stopped", 0: "unknown_0"} {
		assert.Equal(t, want, stopReason(reason), "reason %d", reason)
	}
}

// The summary's counter tables and series.csv's link metrics copy every field of the
// counters they come from: a field added there must be added here.
func TestCounterTablesCopyEveryField(t *testing.T) {
	assert.Equal(t, reflect.TypeFor[model.Counters]().NumField(), reflect.TypeFor[InstanceCounters]().NumField(),
		"InstanceCounters against model.Counters")
	assert.Equal(t, reflect.TypeFor[faulty.Counters]().NumField()+1, reflect.TypeFor[Link]().NumField(),
		"Link against faulty.Counters, plus the link's name")
	assert.Equal(t, reflect.TypeFor[model.QueueMonitor]().NumField(), reflect.TypeFor[Monitor]().NumField(),
		"Monitor against model.QueueMonitor")
	assert.Equal(t, reflect.TypeFor[model.ConnectionStats]().NumField(), reflect.TypeFor[Connection]().NumField(),
		"Connection against model.ConnectionStats")
	assert.Equal(t, reflect.TypeFor[model.TraceRecord]().NumField(), reflect.TypeFor[TraceRecord]().NumField(),
		"TraceRecord against model.TraceRecord")
	res := &scenarios.Result{Series: scenarios.Series{Links: []scenarios.LinkSample{{Link: "A->B"}}}}
	assert.Len(t, seriesRows(res), reflect.TypeFor[faulty.Counters]().NumField(), "a series row per link counter")
}

// WriteSummary writes the conversations one at a time (a long run has a million), and the
// bytes are those of encoding the whole summary at once, with none, one or several rows.
func TestWriteSummaryStreamsTheConversationsWithTheSameBytes(t *testing.T) {
	whole := func(s Summary) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(s))
		return b.String()
	}
	base := NewSummary(sharedOutput(t).res, "small.yaml", "sha256:0123", testVerdicts)
	require.NotEmpty(t, base.Conversations)
	for _, n := range []int{0, 1, 3, len(base.Conversations)} {
		s := base
		s.Conversations = base.Conversations[:n]
		var got bytes.Buffer
		require.NoError(t, WriteSummary(&got, s))
		assert.Equal(t, whole(s), got.String(), "%d conversations", n)
	}
}
