package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// The Perfetto trace parses as the trace event format (a traceEvents array of events
// with name, ph, ts, pid, tid), and holds the JSON Lines trace: one event per record, in
// order, at its time, its args the record; a process per instance named after it, and
// every track named: a fragment is on the link to its peer, a task's start and exit open
// and close its reader's slice, a monitor's record is on its queue's track.
func TestThePerfettoTraceIsTheJSONLinesTrace(t *testing.T) {
	s, err := file.Library("lossy-wan")
	require.NoError(t, err)
	cfg := s.Config
	cfg.Trace = true
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	var jsonl bytes.Buffer
	require.NoError(t, WriteTrace(&jsonl, res.Trace))
	var out bytes.Buffer
	require.NoError(t, WritePerfetto(&out, bytes.NewReader(jsonl.Bytes()), res))

	var doc struct {
		TraceEvents []struct {
			Name, Cat, Ph string
			Ts            float64
			Pid, Tid      int
			S             string
			Args          json.RawMessage
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc))
	type track struct{ pid, tid int }
	threads, processes := map[track]string{}, map[int]string{}
	var events []int
	for i, e := range doc.TraceEvents {
		require.NotEmpty(t, e.Name)
		require.Contains(t, []string{"i", "B", "E", "M"}, e.Ph, "event %d", i)
		require.Positive(t, e.Pid)
		if e.Ph != "M" {
			events = append(events, i)
			continue
		}
		var a struct{ Name string }
		require.NoError(t, json.Unmarshal(e.Args, &a))
		if e.Name == "process_name" {
			processes[e.Pid] = a.Name
		} else {
			threads[track{e.Pid, e.Tid}] = a.Name
		}
	}
	lines := strings.Split(strings.TrimSpace(jsonl.String()), "\n")
	require.Len(t, events, len(lines), "one event per record")
	require.Greater(t, len(lines), 1000)
	last := map[track]float64{}
	counts := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(jsonl.Bytes()))
	sc.Buffer(nil, 1<<20)
	for i := 0; sc.Scan(); i++ {
		e := doc.TraceEvents[events[i]]
		var rec map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		var args map[string]any
		require.NoError(t, json.Unmarshal(e.Args, &args))
		require.Equal(t, rec, args, "event %d's args are record %d", events[i], i)
		assert.InDelta(t, rec["time_s"].(float64)*1e6, e.Ts, 1e-3)
		inst := int(rec["instance"].(float64))
		require.Equal(t, res.Instances[inst].Name, processes[e.Pid], "the process is the record's instance")
		k := track{e.Pid, e.Tid}
		name := threads[k]
		require.NotEmpty(t, name, "track %v is named", k)
		assert.GreaterOrEqual(t, e.Ts, last[k], "time runs forward on track %q", name)
		last[k] = e.Ts
		kind := rec["kind"].(string)
		counts[kind+"/"+e.Ph]++
		switch {
		case kind == "fragment-sent":
			assert.Equal(t, "link to "+res.Instances[int(rec["peer"].(float64))].Name, name)
		case kind == "task-started" || kind == "task-exited":
			assert.True(t, strings.HasPrefix(name, fmt.Sprintf("reader task %d (", int(rec["task"].(float64)))), name)
		case strings.HasPrefix(kind, "monitor-"):
			assert.True(t, strings.HasPrefix(name, "queue "), name)
		case kind == "committed" || kind == "sent":
			assert.Equal(t, "broker", name)
		}
	}
	assert.Positive(t, counts["task-started/B"])
	assert.Zero(t, counts["task-started/i"]+counts["task-exited/i"], "tasks are slices")
	assert.Positive(t, counts["fragment-sent/i"])
	assert.LessOrEqual(t, counts["task-exited/E"], counts["task-started/B"])
	assert.False(t, math.IsNaN(last[track{1, 1}]))
}
