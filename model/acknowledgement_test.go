package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reference: spec PROTO-8 and G-20: an ack rides on a fragment going back on the same
// dialog when there is one within AckDelay; otherwise a dedicated ack leaves AckDelay
// after the arrival.
func TestG20_AcksPiggybackOnReverseTraffic(t *testing.T) {
	tests := []struct {
		name            string
		replyAt         time.Duration // 0: no reply
		wantPiggybacked int64
		wantDedicated   int64
		wantAckedAt     time.Duration // when A's row leaves
	}{
		{"reply within AckDelay", 20 * time.Millisecond, 1, 0, 30 * time.Millisecond},
		{"no reverse traffic", 0, 0, 1, 70 * time.Millisecond},
		{"reply after AckDelay", 100 * time.Millisecond, 0, 1, 70 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, d.sendRequest())
			if tt.replyAt > 0 {
				w.at(tt.replyAt, func() { require.NoError(t, d.sendReply()) })
			}
			w.runUntil(time.Minute)

			c := w.brokers[instB].Counters()
			assert.Equal(t, tt.wantPiggybacked, c.AcksPiggybacked, "acks piggybacked by B")
			assert.Equal(t, tt.wantDedicated, c.AcksSent, "dedicated acks sent by B")
			if tt.wantDedicated > 0 {
				sent := w.records(instB, TraceAckSent)
				if assert.NotEmpty(t, sent) {
					assert.Equal(t, latency+50*time.Millisecond, sent[0].At)
				}
			}
			removed := w.records(instA, TraceRowRemoved)
			if assert.NotEmpty(t, removed) {
				assert.Equal(t, tt.wantAckedAt, removed[0].At)
			}
		})
	}
}

// Reference: spec G-21: the receiver holds out-of-order messages only up to ReceiveWindow
// messages beyond receive_sequence; a fragment beyond is dropped without being stored or
// acked. The sender never sends that far ahead (next test), so the copy beyond the window
// is forged here from a captured request.
func TestG21_FragmentBeyondReceiveWindowIsDroppedUnacked(t *testing.T) {
	w := newWorld(t, Config{ReceiveWindow: 2})
	d := establish(w) // receive_sequence is now 1
	var captured *Packet
	w.filter = func(p *Packet, n int) action {
		if p.From == instA && len(p.Fragments) > 0 && captured == nil {
			captured = clonePacket(p)
		}
		return deliver
	}
	require.NoError(t, d.sendRequest()) // request 1
	w.runUntil(w.now + time.Second)
	require.NotNil(t, captured)
	w.filter = nil

	beyond := clonePacket(captured)
	beyond.Fragments[0].Sequence = 5 // receive_sequence is 2, the window holds 3 and 4
	beyond.Fragments[0].Ack = Ack{}
	within := clonePacket(captured)
	within.Fragments[0].Sequence = 4
	within.Fragments[0].Ack = Ack{}
	w.inject(w.now, beyond)
	w.inject(w.now, within)
	w.runUntil(w.now + time.Second)

	var discarded []SequenceNumber
	for _, r := range w.records(instB, TraceFragmentDiscarded) {
		assert.Equal(t, ReasonWindow, r.Reason)
		discarded = append(discarded, r.Sequence)
	}
	assert.Equal(t, []SequenceNumber{5}, discarded, "only the copy beyond the window is dropped")
	tep, _ := d.target()
	assert.Equal(t, 1, tep.HeldFragments, "message 4 is held out of order, message 5 is not")
	for _, r := range w.records(instB, TraceFragmentStored) {
		assert.NotEqual(t, SequenceNumber(5), r.Sequence, "message 5 must not be stored")
	}
}

// Reference: spec G-21 and G-11: the sender first sends a message only while it lies within
// the receiver's window beyond the receive_sequence the latest ack reported. After one
// lost message it holds the later ones back instead of sending them to be dropped, so
// nothing is discarded and nothing but the lost message is retried.
func TestG21_SenderHoldsMessagesBeyondTheReceiveWindow(t *testing.T) {
	w := newWorld(t, Config{ReceiveWindow: 2})
	d := establish(w) // receive_sequence is now 1
	w.filter = dropFromA(1)
	for range 4 {
		require.NoError(t, d.sendRequest()) // 1 (lost once), 2, 3, 4
	}
	w.runUntil(w.now + time.Second)
	sent := map[SequenceNumber]int{}
	for _, r := range w.records(instA, TraceFragmentSent) {
		sent[r.Sequence]++
	}
	assert.Zero(t, sent[4], "request 4 waits: the receiver's window ends at 1+2")
	assert.Equal(t, 1, sent[3])

	w.runUntil(w.now + time.Minute)
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1", "Request#2", "Request#3", "Request#4"}, w.types(msgs))
	assert.Empty(t, w.records(instB, TraceFragmentDiscarded), "nothing was sent beyond the window")
	seqs, _, _ := w.retried(instA)
	assert.Equal(t, []SequenceNumber{1}, seqs, "only the lost request is retried")
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
}

// Reference: spec G-21 ("up to 64 messages beyond receive_sequence") and the doc comment of
// Config.ReceiveWindow ("how many messages beyond receive_sequence the receiver holds out of
// order"): with a window of 2 and receive_sequence missing, the two messages after it are
// both held.
func TestG21_ReceiveWindowHoldsThatManyMessagesBeyondReceiveSequence(t *testing.T) {
	w := newWorld(t, Config{ReceiveWindow: 2})
	d := establish(w)
	w.filter = dropFromA(1)
	for range 3 {
		require.NoError(t, d.sendRequest()) // 1 (lost once), 2, 3
	}
	w.runUntil(w.now + time.Second)
	tep, _ := d.target()
	assert.Equal(t, 2, tep.HeldFragments, "requests 2 and 3, one and two beyond receive_sequence 1")
	assert.Empty(t, w.records(instB, TraceFragmentDiscarded))
}

// Reference: spec PROTO-8 ("every received message is acknowledged") and G-20 (a dedicated
// ack leaves AckDelay after the arrival): an ack owed by an endpoint that the application
// ends, and the broker deletes, before AckDelay has passed is still sent, so that the far
// side in DO closes without retransmitting.
func TestPROTO8_AckOwedByAnEndpointDeletedBeforeAckDelayIsSent(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	require.NoError(t, d.endTarget(EndOptions{}))
	// The EndDialog reaches A after one latency; A's application ends at once.
	w.at(w.now+latency, func() {
		msgs, err := w.receiveAll("InitiatorQueue")
		require.NoError(t, err)
		require.Equal(t, []string{"EndDialog#0"}, w.types(msgs))
		require.NoError(t, d.endInitiator(EndOptions{}))
	})
	endAt := w.now
	w.runUntil(w.now + time.Minute)
	assert.Equal(t, "", d.state(true))
	assert.Equal(t, "CD", d.state(false))
	assert.Zero(t, countRetries(w, instB), "B retransmitted its EndDialog")
	var closedAt time.Duration
	for _, r := range w.records(instB, TraceStateChanged) {
		if r.To == Closed {
			closedAt = r.At
		}
	}
	assert.Equal(t, endAt+2*latency+50*time.Millisecond, closedAt, "B closes when A's ack arrives")
}
