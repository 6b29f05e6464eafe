package results

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// A trace line reads back to the record it was written from: written again, it is the
// same line, byte for byte, over records of every kind with every field drawn at random,
// at times up to fifty days (DefaultMaxTime is 41 days and 16 hours).
func TestTraceLinesReadBackToTheirRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const fiftyDays = 50 * 24 * time.Hour
	for i := range 100_000 {
		rec := randomTraceRecord(r)
		if rec.Kind > model.TraceInstanceRestarted || rec.Kind == model.TraceStateChanged && rec.To == 0 ||
			rec.At > fiftyDays || rec.SentAt > fiftyDays || rec.SinceEmpty > fiftyDays {
			continue // not a record the model writes (a kind, a change to no state), or a time no run reaches
		}
		var line bytes.Buffer
		require.NoError(t, WriteTrace(&line, []model.TraceRecord{rec}))
		var back []model.TraceRecord
		for got, err := range ReadTrace(bytes.NewReader(line.Bytes())) {
			require.NoError(t, err, "record %d: %s", i, line.String())
			back = append(back, got)
		}
		require.Len(t, back, 1)
		var again bytes.Buffer
		require.NoError(t, WriteTrace(&again, back))
		require.Equal(t, line.String(), again.String(), "record %d", i)
	}
}

// A line that is not a trace record stops the reading and names its line.
func TestReadTraceNamesTheLineItCannotRead(t *testing.T) {
	for _, bad := range []string{`{"time_s":1,"kind":"nonsense","instance":0}`, `{"time_s":1,"kind":"sent","conversation":"x1"}`, `not json`} {
		var err error
		for _, e := range ReadTrace(bytes.NewReader([]byte(`{"time_s":0,"kind":"ack-sent","instance":0,"peer":1}` + "\n" + bad + "\n"))) {
			err = e
		}
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "trace line 2")
	}
}

// INV-11's offline side: the checkers over every library scenario's saved trace (seed 1)
// give the verdict the run gave, INV-12 at the end included; and over a run that broke a
// rule, the same rule at the same time on the same conversation.
func TestRecheckOfTheLibrarysTracesGivesTheRunsVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every library scenario")
	}
	for _, name := range file.LibraryNames() {
		s, err := file.Open(name)
		require.NoError(t, err)
		recheckAgrees(t, name, s.Config, 1)
	}
	// A broker that retries once in a thousand hours, cut off for a minute: INV-12 fails.
	s, err := file.Open("lossy-wan")
	require.NoError(t, err)
	s, err = s.With(file.Override{Key: "broker.retry_interval_min", Value: "1000h"},
		file.Override{Key: "broker.retry_interval_max", Value: "1000h"},
		file.Override{Key: "broker.closed_target_retention", Value: "2001h"},
		file.Override{Key: "liveness", Value: "{within: 10m}"})
	require.NoError(t, err)
	rc := recheckAgrees(t, "broken lossy-wan", s.Config, 1)
	require.NotNil(t, rc.Violation)
	assert.Equal(t, "INV-12", rc.Violation.Rule)
}

func recheckAgrees(t *testing.T, name string, cfg scenarios.Config, seed uint64) Recheck {
	t.Helper()
	cfg.Trace, cfg.TraceSink = false, nil
	var trace bytes.Buffer
	w := NewTraceWriter(&trace)
	cfg.TraceSink = w
	res, err := scenarios.Run(cfg, seed)
	require.NoError(t, err, name)
	require.NoError(t, w.Flush())
	summary := NewSummary(res, name, "", nil)
	rc, err := RecheckTrace(bytes.NewReader(trace.Bytes()), &summary)
	require.NoError(t, err, name)
	assert.Empty(t, rc.Differs, "%s: %d records", name, rc.Records)
	return rc
}
