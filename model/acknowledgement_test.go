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
// messages beyond receive_sequence; a fragment beyond is dropped without an ack, and the
// sender's retry brings it when there is room.
func TestG21_FragmentBeyondReceiveWindowIsDroppedUnacked(t *testing.T) {
	w := newWorld(t, Config{ReceiveWindow: 2})
	d := establish(w) // receive_sequence is now 1
	w.filter = dropFromA(1)
	for range 4 {
		require.NoError(t, d.sendRequest()) // 1 (lost once), 2, 3, 4
	}
	w.runUntil(w.now + time.Second)

	var discarded []SequenceNumber
	for _, r := range w.records(instB, TraceFragmentDiscarded) {
		assert.Equal(t, ReasonWindow, r.Reason)
		discarded = append(discarded, r.Sequence)
	}
	assert.Contains(t, discarded, SequenceNumber(4), "request 4 is three beyond receive_sequence 1")
	assert.NotContains(t, discarded, SequenceNumber(2))
	rows := map[SequenceNumber]TransmissionQueueRow{}
	for _, r := range w.brokers[instA].TransmissionQueue() {
		rows[r.MessageSequenceNumber] = r
	}
	assert.NotContains(t, rows, SequenceNumber(2), "request 2 was held and acknowledged")
	if assert.Contains(t, rows, SequenceNumber(4), "request 4 was not acknowledged") {
		assert.Zero(t, rows[4].FragmentsAcked)
	}

	w.runUntil(w.now + time.Minute)
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1", "Request#2", "Request#3", "Request#4"}, w.types(msgs))
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
