package model

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultyScenario runs two dialogs between A and B and one on A over a link that loses,
// copies, corrupts and delays packets by their numbers, with fragmentation; every step is
// traced. lossEvery sets which of A's packets are lost.
func faultyScenario(t *testing.T, lossEvery int) *world {
	w := newWorld(t, Config{FragmentSize: 256})
	w.filter = func(p *Packet, n int) action {
		switch {
		case p.From == instA && n%lossEvery == 1:
			return drop
		case n%7 == 3:
			return duplicate
		case n%11 == 5:
			return corrupt
		case p.From == instB && n%5 == 2:
			return delayBy(30 * time.Millisecond)
		}
		return deliver
	}
	remote1 := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	remote2 := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: time.Hour})
	local := beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{})
	for i := range 5 {
		for _, d := range []*dialog{remote1, remote2, local} {
			require.NoError(t, w.send(instA, d.initiator, "Request", int64(100+300*i)))
		}
		w.runUntil(w.now + 20*time.Millisecond)
	}
	w.runUntil(time.Minute)
	require.NoError(t, remote1.sendReply())
	require.NoError(t, remote1.endTarget(EndOptions{}))
	require.NoError(t, remote2.endInitiator(EndOptions{WithError: true, ErrorCode: 3}))
	require.NoError(t, local.endInitiator(EndOptions{}))
	w.runUntil(10 * time.Minute)
	w.inject(w.now+time.Second, &w.sent[0].packet) // a late copy for a closed target
	w.runUntil(11 * time.Minute)
	for _, q := range []string{"TargetQueue", "InitiatorQueue", "LocalTargetQueue"} {
		_, err := w.receiveAll(q)
		require.NoError(t, err)
	}
	return w
}

// Reference: spec INV-11 and G-1: the same inputs and the same fault schedule give the same
// trace, record for record.
func TestINV11_TraceIsDeterministic(t *testing.T) {
	first := faultyScenario(t, 4).traceLines()
	second := faultyScenario(t, 4).traceLines()
	require.Greater(t, len(first), 100, "the scenario does something")
	assert.Equal(t, strings.Join(first, "\n"), strings.Join(second, "\n"))

	other := faultyScenario(t, 3).traceLines()
	assert.NotEqual(t, strings.Join(first, "\n"), strings.Join(other, "\n"), "another fault schedule, another trace")
}

// Reference: STYLE.md section 6 ("a trace line holds only virtual time, event number and
// domain facts"): every record renders in Service Broker words, never as a Go fallback such
// as EndpointState(0).
func TestTrace_RecordsRenderInDomainWords(t *testing.T) {
	w := faultyScenario(t, 4)
	kinds := map[TraceKind]bool{}
	var bad []string
	for _, r := range w.trace {
		kinds[r.Kind] = true
		line := r.String()
		if !strings.HasPrefix(line, "t=") || strings.Contains(line, "%!") || strings.Contains(line, "EndpointState(") ||
			strings.Contains(line, "TraceKind(") || strings.Contains(line, "Reason(") {
			bad = append(bad, line)
		}
	}
	assert.Empty(t, bad, "trace lines with a Go fallback rendering")
	for k := TraceMessageSent; k <= TraceAckSent; k++ {
		assert.True(t, kinds[k], "the scenario produces a %v record", k)
	}
}

// Reference: Broker.SetTracing: with tracing off, no record is produced.
func TestTrace_OffRecordsNothing(t *testing.T) {
	w := newWorld(t, Config{})
	for _, b := range w.brokers {
		b.SetTracing(false)
	}
	d := establish(w)
	require.NoError(t, d.endInitiator(EndOptions{}))
	w.runUntil(time.Minute)
	assert.Empty(t, w.trace)
	assert.Equal(t, "DI", d.state(false), "the dialog ran")
}
