package model

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dropFromA returns a filter that loses the first transmission of each listed message A
// sends (by sequence number), whatever packet carries it.
func dropFromA(numbers ...int) func(p *Packet, n int) action {
	lost := map[SequenceNumber]bool{}
	return func(p *Packet, n int) action {
		if p.From != instA {
			return deliver
		}
		// Lose the first copy of each numbered message, whatever block carries it: blocks
		// gather the messages sent while the wire was busy (G-10).
		p.Fragments = slices.DeleteFunc(p.Fragments, func(f Fragment) bool {
			if !slices.Contains(numbers, int(f.Sequence)) || lost[f.Sequence] {
				return false
			}
			lost[f.Sequence] = true
			return true
		})
		if len(p.Fragments) == 0 && len(p.Acks) == 0 {
			return drop
		}
		return deliver
	}
}

// dropAllFrom returns a filter that loses every packet instance i sends.
func dropAllFrom(i InstanceID) func(p *Packet, n int) action {
	return func(p *Packet, n int) action {
		if p.From == i {
			return drop
		}
		return deliver
	}
}

// rowsRemoved returns the sequence numbers of instance i's transmission queue rows removed
// for the reason.
func (w *world) rowsRemoved(i InstanceID, reason Reason) []SequenceNumber {
	var out []SequenceNumber
	for _, r := range w.records(i, TraceRowRemoved) {
		if r.Reason == reason {
			out = append(out, r.Sequence)
		}
	}
	return out
}

// Reference: END CONVERSATION; spec DLG-7 (the conversation's messages leave the queue, the
// handle becomes invalid, the peer is told) and DLG-11 (SEND or END on it fails).
func TestDLG7_EndRemovesQueuedMessages(t *testing.T) {
	w := newWorld(t, Config{})
	w.filter = dropFromA(2) // the third request is lost once: the fourth is held (status 2)
	d := establish(w)
	for range 3 {
		require.NoError(t, d.sendRequest())
	}
	w.runUntil(w.now + time.Second)
	tep, _ := d.target()
	require.Equal(t, 2, tep.ReadyMessages, "requests 0 and 1 are ready")
	require.Equal(t, 1, tep.HeldFragments, "request 3 is held until request 2 arrives")

	require.NoError(t, d.endTarget(EndOptions{}))
	assert.Zero(t, w.brokers[instB].ReadyMessages(w.queue("TargetQueue")))
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Empty(t, w.types(msgs), "nothing of the ended conversation can be received")
	if ep, ok := d.target(); assert.True(t, ok) {
		assert.Zero(t, ep.HeldFragments, "held fragments leave too")
	}
	assert.ErrorIs(t, w.send(instB, tep.ConversationHandle, "Reply", 1), ErrHandleNotFound, "SEND after END (DLG-11)")
	assert.ErrorIs(t, w.end(instB, tep.ConversationHandle, EndOptions{}), ErrHandleNotFound, "END after END")

	w.runUntil(w.now + time.Minute)
	assert.Equal(t, "DI", d.state(true), "the initiator is told (DLG-7)")
	init, err := w.receiveAll("InitiatorQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"EndDialog#0"}, w.types(init))
}

// Reference: spec DLG-8: the EndDialog goes after every earlier message of the
// conversation, and is received in arrival order; the ending side waits in DO until all of
// it is acknowledged (PROTO-9, INV-1), whatever the link loses or copies.
func TestDLG8_EndDialogFollowsEarlierMessages(t *testing.T) {
	tests := []struct {
		name   string
		filter func(p *Packet, n int) action
	}{
		{"perfect link", nil},
		{"a middle message lost once", dropFromA(2)},
		{"the EndDialog lost once", dropFromA(4)},
		{"every packet duplicated", func(*Packet, int) action { return duplicate }},
		{"a middle message overtaken", func(p *Packet, n int) action {
			if p.From == instA && n == 2 {
				return delayBy(time.Second)
			}
			return deliver
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			d := establish(w)
			w.filter = tt.filter
			for range 3 {
				require.NoError(t, d.sendRequest())
			}
			require.NoError(t, d.endInitiator(EndOptions{}))
			ep, ok := w.brokers[instA].Endpoint(d.initiator)
			require.True(t, ok)
			assert.Equal(t, SequenceNumber(4), ep.EndDialogSequence, "EndDialog takes the next sequence number")

			w.runUntil(w.now + 2*time.Minute)
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"Request#0", "Request#1", "Request#2", "Request#3", "EndDialog#4"}, w.types(msgs))
			assert.Equal(t, "DI", d.state(false))
			assert.Equal(t, "", d.state(true), "the initiator closes once everything is acknowledged")
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
			assert.Empty(t, w.rowsRemoved(instA, ReasonCleanup), "no row is dropped")
		})
	}
}

// Reference: spec DLG-9 (END WITH ERROR sends an Error and drops the conversation's other
// transmission queue rows), G-17 (the Error is enqueued as soon as it arrives, despite
// missing earlier messages; later arrivals are discarded and acknowledged), DLG-13 (Error
// is received before other messages), DLG-12 (SEND after an Error arrived fails, queued
// messages can still be received).
func TestDLG9_EndWithErrorOvertakesMissingMessages(t *testing.T) {
	tests := []struct {
		name   string
		filter func(p *Packet, n int) action
	}{
		{"earlier messages lost", dropFromA(2, 3)},
		{"earlier messages arrive after the Error", func(p *Packet, n int) action {
			if p.From == instA && (n == 2 || n == 3) {
				return delayBy(time.Second)
			}
			return deliver
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			d := establish(w)
			w.filter = tt.filter
			// Each request leaves in a block of its own: the wire frees between them (G-10).
			require.NoError(t, d.sendRequest()) // packet 1: arrives
			w.runUntil(w.now)
			require.NoError(t, d.sendRequest()) // packet 2
			w.runUntil(w.now)
			require.NoError(t, d.sendRequest()) // packet 3
			w.runUntil(w.now)
			endAt := w.now
			require.NoError(t, d.endInitiator(EndOptions{WithError: true, ErrorCode: 42}))
			// Requests 1 to 3 are sent and not yet acknowledged: END WITH ERROR drops them all.
			assert.Equal(t, []SequenceNumber{1, 2, 3}, w.rowsRemoved(instA, ReasonEndWithError), "unacknowledged rows dropped")
			if rows := w.brokers[instA].TransmissionQueue(); assert.Len(t, rows, 1) {
				assert.True(t, rows[0].IsConversationError)
				assert.Equal(t, SequenceNumber(4), rows[0].MessageSequenceNumber)
			}

			w.runUntil(endAt + latency + time.Millisecond)
			assert.Equal(t, "ER", d.state(false), "the Error puts the target in ER at once")
			tep, _ := d.target()
			assert.ErrorIs(t, w.send(instB, tep.ConversationHandle, "Reply", 1), ErrConversationNotSending, "SEND after an Error arrived (DLG-12)")

			w.runUntil(endAt + time.Minute)
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"Error#4", "Request#0", "Request#1"}, w.types(msgs))
			if assert.NotEmpty(t, msgs) {
				assert.Equal(t, int32(42), msgs[0].ErrorCode)
			}
			assert.Zero(t, countRetries(w, instA), "the dropped rows are never sent again")
			assert.Equal(t, "", d.state(true), "the ending initiator closes on the Error's ack")
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
		})
	}
}

func countRetries(w *world, i InstanceID) int {
	n := 0
	for _, r := range w.records(i, TraceFragmentSent) {
		if r.Retry {
			n++
		}
	}
	return n
}

// Reference: spec DLG-9: "If the remote already ended, nothing is sent"; the local side
// ends and its queue messages are removed.
func TestDLG9_EndWithErrorAfterRemoteEndedSendsNothing(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	require.NoError(t, d.endInitiator(EndOptions{}))
	w.runUntil(w.now + time.Second)
	require.Equal(t, "DI", d.state(false))

	from := w.now
	require.NoError(t, d.endTarget(EndOptions{WithError: true, ErrorCode: 9}))
	w.runUntil(w.now + time.Minute)
	assert.Zero(t, w.fragmentsSentBy(instB, from))
	assert.Equal(t, "CD", d.state(false))
	assert.Zero(t, w.brokers[instB].ReadyMessages(w.queue("TargetQueue")))
}

// Reference: spec DLG-10: END WITH CLEANUP drops the endpoint, its transmission queue rows
// and its queue messages, and tells nobody.
func TestDLG10_EndWithCleanupTellsNobody(t *testing.T) {
	t.Run("initiator with an unacknowledged row", func(t *testing.T) {
		w := newWorld(t, Config{})
		d := establish(w)
		w.filter = dropFromA(1)
		require.NoError(t, d.sendRequest())
		w.runUntil(w.now + time.Second)
		require.Len(t, w.brokers[instA].TransmissionQueue(), 1)

		from := w.now
		require.NoError(t, d.endInitiator(EndOptions{WithCleanup: true}))
		assert.Empty(t, w.brokers[instA].TransmissionQueue())
		assert.Equal(t, []SequenceNumber{1}, w.rowsRemoved(instA, ReasonCleanup))
		_, ok := w.brokers[instA].Endpoint(d.initiator)
		assert.False(t, ok, "the endpoint is gone at once")
		w.runUntil(w.now + 5*time.Minute)
		for _, p := range w.sent {
			assert.False(t, p.at >= from && p.packet.From == instA, "A sent a packet at %v after the cleanup", p.at)
		}
		assert.Equal(t, "CO", d.state(false), "the target is not told")
		assert.ErrorIs(t, d.sendRequest(), ErrHandleNotFound)
	})
	t.Run("target with queued messages", func(t *testing.T) {
		w := newWorld(t, Config{})
		d := establish(w)
		require.NoError(t, d.sendRequest())
		w.runUntil(w.now + time.Second)
		from := w.now
		require.NoError(t, d.endTarget(EndOptions{WithCleanup: true}))
		assert.Zero(t, w.brokers[instB].ReadyMessages(w.queue("TargetQueue")))
		assert.Equal(t, "", d.state(false))
		w.runUntil(w.now + 5*time.Minute)
		assert.Zero(t, w.fragmentsSentBy(instB, from))
		assert.Equal(t, "CO", d.state(true), "the initiator is not told")
	})
}

// Reference: spec DLG-11: after END, messages arriving for the conversation are discarded
// (and acknowledged, G-16), and the far side drops its unsent ones when the EndDialog
// arrives.
func TestDLG11_ArrivalsAfterEndAreDiscarded(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	require.NoError(t, d.endInitiator(EndOptions{}))
	require.NoError(t, d.sendReply()) // crosses the EndDialog
	w.runUntil(w.now + time.Minute)

	discarded := w.records(instA, TraceFragmentDiscarded)
	if assert.Len(t, discarded, 1) {
		assert.Equal(t, ReasonClosedEndpoint, discarded[0].Reason)
	}
	msgs, err := w.receiveAll("InitiatorQueue")
	require.NoError(t, err)
	assert.Empty(t, w.types(msgs), "the initiator receives nothing after END")
	assert.Equal(t, "", d.state(true), "the initiator closed")
	assert.Equal(t, "DI", d.state(false))
	tep, _ := d.target()
	assert.Zero(t, tep.TransmissionRows, "the reply was acknowledged or dropped")
	assert.Zero(t, countRetries(w, instB))
}

// Reference: spec DLG-5 and G-15: when the lifetime expires each side puts an Error with
// the lifetime code on its own queue, goes to ER and drops its transmission queue rows;
// later arrivals are discarded.
func TestDLG5_LifetimeExpiry(t *testing.T) {
	const lifetime = 5 * time.Second
	w := newWorld(t, Config{})
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: lifetime})
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Second)
	w.filter = dropFromA(1, 2, 3, 4, 5) // from now on A's requests are lost
	require.NoError(t, d.sendRequest())
	require.NoError(t, d.sendReply())
	require.Len(t, w.brokers[instA].TransmissionQueue(), 1)

	tep, _ := d.target()
	iep, _ := w.brokers[instA].Endpoint(d.initiator)
	assert.Equal(t, lifetime, iep.Lifetime, "the lifetime is an absolute expiry")
	assert.Equal(t, iep.Lifetime, tep.Lifetime, "both sides track the same expiry")

	w.runUntil(lifetime - time.Nanosecond)
	require.Equal(t, "CO", d.state(true))
	w.runUntil(lifetime)
	assert.Equal(t, "ER", d.state(true))
	assert.Equal(t, "ER", d.state(false))
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	assert.Equal(t, []SequenceNumber{1}, w.rowsRemoved(instA, ReasonLifetime))

	w.runUntil(lifetime + time.Minute)
	assert.Zero(t, w.fragmentsSentBy(instA, lifetime), "no retry after the expiry")
	init, err := w.receiveAll("InitiatorQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Error#-1", "Reply#0"}, w.types(init))
	tgt, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Error#-1", "Request#0"}, w.types(tgt))
	for _, m := range append(init[:1], tgt[:1]...) {
		assert.Equal(t, ErrorCodeLifetimeExpired, m.ErrorCode)
	}
}

// Reference: spec DLG-10 (END WITH CLEANUP: the other side is not told) and G-16 ("arrivals
// for an unknown dialog that are not an initiator's first message are discarded and
// acked"): messages the initiator sends after the target cleaned up must not leave a new
// target endpoint behind, stuck in SI for ever.
func TestDLG10_MessagesAfterTargetCleanupLeaveNoEndpoint(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	require.NoError(t, d.endTarget(EndOptions{WithCleanup: true}))
	require.Empty(t, w.brokers[instB].Endpoints())
	require.NoError(t, d.sendRequest())
	w.runUntil(w.now + time.Hour)
	assert.Empty(t, w.brokers[instB].Endpoints(), "endpoints left on B")
	assert.Equal(t, int64(1), w.brokers[instB].Counters().EndpointsCreated)
}

// Reference: spec ENT-3 ("unknown contract ⇒ error message on the conversation"), PROTO-3
// (a broker-generated Error is unsequenced and regenerated when the original is retried)
// and G-15 (symbolic codes): a target service that does not accept the contract answers
// with an Error; the initiator goes to ER and drops its rows; the target keeps nothing.
func TestG15_TargetRefusesAContractItDoesNotAccept(t *testing.T) {
	tests := []struct {
		name   string
		filter func(p *Packet, n int) action
	}{
		{"the Error arrives", nil},
		{"the Error is lost once", func(p *Packet, n int) action {
			if p.From == instB && n == 0 {
				return drop
			}
			return deliver
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			w.filter = tt.filter
			d := beginDialog(w, "Target", "Unaccepted", BeginDialogOptions{})
			require.NoError(t, d.sendRequest())
			w.runUntil(time.Minute)

			assert.Equal(t, "ER", d.state(true))
			assert.Empty(t, w.brokers[instB].Endpoints())
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
			msgs, err := w.receiveAll("InitiatorQueue")
			require.NoError(t, err)
			if assert.Equal(t, []string{"Error#-1"}, w.types(msgs)) {
				assert.Equal(t, ErrorCodeContractNotAccepted, msgs[0].ErrorCode)
			}
			assert.ErrorIs(t, d.sendRequest(), ErrConversationNotSending)
			require.NoError(t, d.endInitiator(EndOptions{}))
			assert.Equal(t, "", d.state(true))
		})
	}
}

// Reference: spec DLG-10: END WITH CLEANUP removes an endpoint that waits in DO for an
// acknowledgement that never comes (here every packet from B is lost), without sending
// anything; a plain END on it fails, the handle having been ended already (DLG-11).
func TestDLG10_CleanupRemovesAnEndpointStuckInDO(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	w.filter = dropAllFrom(instB)
	require.NoError(t, d.endInitiator(EndOptions{}))
	w.runUntil(w.now + 10*time.Minute)
	require.Equal(t, "DO", d.state(true))
	assert.ErrorIs(t, d.endInitiator(EndOptions{}), ErrHandleNotFound)

	require.NoError(t, d.endInitiator(EndOptions{WithCleanup: true}))
	_, ok := w.brokers[instA].Endpoint(d.initiator)
	assert.False(t, ok)
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	retries := len(w.records(instA, TraceFragmentSent))
	w.runUntil(w.now + 10*time.Minute)
	assert.Equal(t, retries, len(w.records(instA, TraceFragmentSent)), "nothing is sent after the cleanup")
}
