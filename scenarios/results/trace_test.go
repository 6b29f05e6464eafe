package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

func TestTraceLinesParseOnePerRecord(t *testing.T) {
	out := sharedOutput(t)
	sc := bufio.NewScanner(bytes.NewReader(readFileT(t, filepath.Join(out.dir, TraceFile))))
	sc.Buffer(nil, 1<<20)

	n := 0
	kinds := map[string]bool{}
	for sc.Scan() {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &obj), "line %d: %s", n+1, sc.Text())
		r := out.res.Trace[n]
		n++
		assert.Equal(t, r.Kind.String(), obj["kind"], "line %d", n)
		assert.Equal(t, r.At.Seconds(), obj["time_s"], "line %d", n)
		assert.EqualValues(t, r.Event, obj["event"], "line %d", n)
		assert.EqualValues(t, r.Instance, obj["instance"], "line %d", n)
		var keys []string
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := wantKeys(r)
		assert.Equal(t, want, keys, "line %d: %s", n, sc.Text())
		kinds[r.Kind.String()] = true
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, len(out.res.Trace), n, "a line per record")
	for _, k := range []string{"sent", "fragment-sent", "fragment-stored", "fragment-duplicate", "ready", "received",
		"row-removed", "state", "lock-acquired", "committed", "task-started", "task-exited", "monitor-receive"} {
		assert.True(t, kinds[k], "the run traced %s", k)
	}
}

// wantKeys returns the keys the line of r has: always time_s, event, kind and instance,
// then the fields of its kind.
func wantKeys(r model.TraceRecord) []string {
	keys := []string{"time_s", "event", "kind", "instance"}
	f := kindFields[r.Kind]
	names := []struct {
		f    field
		keys []string
	}{{fPeer, []string{"peer"}}, {fConversation, []string{"conversation"}}, {fFromInitiator, []string{"from_initiator"}},
		{fSequence, []string{"sequence"}}, {fFragment, []string{"fragment"}}, {fFragments, []string{"fragments"}},
		{fMessageType, []string{"message_type"}}, {fBytes, []string{"bytes"}}, {fRetry, []string{"retry"}},
		{fReason, []string{"reason"}}, {fStates, []string{"from_state", "to_state"}}, {fSentAt, []string{"sent_at_s"}},
		{fPriority, []string{"priority"}}, {fScheduling, []string{"effective", "best_waiting"}}, {fTx, []string{"tx"}},
		{fStatement, []string{"statement"}}, {fGroup, []string{"group"}}, {fHolderTx, []string{"holder_tx"}},
		{fQueue, []string{"queue"}}, {fTask, []string{"task"}}, {fRunning, []string{"running"}},
		{fMaxReaders, []string{"max_readers"}}, {fReady, []string{"ready"}}, {fWaiting, []string{"waiting"}},
		{fSinceEmpty, []string{"since_empty_s"}}, {fCause, []string{"cause"}}}
	for _, n := range names {
		if f&n.f != 0 {
			keys = append(keys, n.keys...)
		}
	}
	keys = slices.DeleteFunc(keys, func(k string) bool {
		return (k == "from_state" && r.From == 0) || (k == "since_empty_s" && r.SinceEmpty < 0)
	})
	slices.Sort(keys)
	return keys
}

func TestTraceRecordFieldsByKind(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		in   model.TraceRecord
		want string
	}{
		{"a first fragment sent, not a retry, to instance 0",
			model.TraceRecord{At: 1500 * ms, Event: 4, Kind: model.TraceFragmentSent, Instance: 1, Peer: 0, Conversation: 0x1000000000002,
				FromInitiator: false, Sequence: 0, Fragment: 0},
			`{"time_s":1.5,"event":4,"kind":"fragment-sent","instance":1,"peer":0,"conversation":"c1000000000002","from_initiator":false,"sequence":0,"fragment":0,"retry":false}`},
		{"an endpoint created: no from_state",
			model.TraceRecord{Kind: model.TraceStateChanged, Conversation: 2, FromInitiator: true, To: model.StartedOutbound},
			`{"time_s":0,"kind":"state","instance":0,"conversation":"c2","from_initiator":true,"to_state":"SO","priority":5}`},
		{"an endpoint ending",
			model.TraceRecord{Kind: model.TraceStateChanged, Conversation: 2, From: model.Conversing, To: model.DisconnectedOutbound, Priority: 10},
			`{"time_s":0,"kind":"state","instance":0,"conversation":"c2","from_initiator":false,"from_state":"CO","to_state":"DO","priority":10}`},
		{"a lock wait",
			model.TraceRecord{At: ms, Kind: model.TraceLockWait, Tx: 7, Group: 0x1f, Statement: 3, HolderTx: 6},
			`{"time_s":0.001,"kind":"lock-wait","instance":0,"tx":7,"statement":3,"group":"g1f","holder_tx":6}`},
		{"a row removed once acknowledged",
			model.TraceRecord{Kind: model.TraceRowRemoved, Conversation: 2, FromInitiator: true, Sequence: 4, Reason: model.ReasonAcked},
			`{"time_s":0,"kind":"row-removed","instance":0,"conversation":"c2","from_initiator":true,"sequence":4,"message_type":0,"reason":"acked"}`},
		{"a task started before any empty RECEIVE",
			model.TraceRecord{Kind: model.TraceTaskStarted, Queue: 1, Task: 2, Running: 0, MaxReaders: 2, Ready: 4, SinceEmpty: -1, Cause: 1},
			`{"time_s":0,"kind":"task-started","instance":0,"queue":1,"task":2,"running":0,"max_readers":2,"ready":4,"waiting":0,"cause":1}`},
		{"a notification sent 2s after an empty RECEIVE",
			model.TraceRecord{Kind: model.TraceNotificationSent, Queue: 1, SinceEmpty: 2 * time.Second, Cause: 2},
			`{"time_s":0,"kind":"notification-sent","instance":0,"queue":1,"running":0,"ready":0,"waiting":0,"since_empty_s":2,"cause":2}`},
		{"a kind this package does not know: every field not zero",
			model.TraceRecord{Kind: 200, Conversation: 2, Bytes: 10, Queue: 3},
			`{"time_s":0,"kind":"TraceKind(200)","instance":0,"conversation":"c2","from_initiator":false,"bytes":10,"queue":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer

			require.NoError(t, WriteTrace(&buf, []model.TraceRecord{tt.in}))

			assert.Equal(t, tt.want+"\n", buf.String())
		})
	}
}

// Every kind the model defines has its fields listed.
func TestEveryTraceKindHasItsFields(t *testing.T) {
	for k := model.TraceMessageSent; !strings.HasPrefix(k.String(), "TraceKind("); k++ {
		require.Less(t, int(k), len(kindFields), "kind %v", k)
		assert.NotZero(t, kindFields[k], "kind %v", k)
	}
}

func TestWriteTraceOfNoRecordsWritesNothing(t *testing.T) {
	var buf bytes.Buffer

	require.NoError(t, WriteTrace(&buf, nil))

	assert.Empty(t, buf.String())
}
