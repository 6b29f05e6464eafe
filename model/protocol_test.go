package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loseFragmentsOnce returns a filter that removes from A's nth packet the fragments whose
// index lose reports, and drops the packet if nothing is left.
func loseFragmentsOnce(nth int, lose func(index int32) bool) func(p *Packet, n int) action {
	return func(p *Packet, n int) action {
		if p.From != instA || n != nth {
			return deliver
		}
		p.Fragments = slices.DeleteFunc(p.Fragments, func(f Fragment) bool { return lose(f.Index) })
		if len(p.Fragments) == 0 {
			return drop
		}
		return deliver
	}
}

// retried returns the (sequence, fragment) of every retransmission by instance i, and when.
func (w *world) retried(i InstanceID) (seqs []SequenceNumber, frags []int32, at []time.Duration) {
	for _, r := range w.records(i, TraceFragmentSent) {
		if r.Retry {
			seqs, frags, at = append(seqs, r.Sequence), append(frags, r.Fragment), append(at, r.At)
		}
	}
	return seqs, frags, at
}

// Reference: spec PROTO-2: the originating instance numbers the sequenced messages of each
// direction from 0 (message_sequence_number).
func TestPROTO2_SequenceNumbersStartAtZeroInEachDirection(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	for range 3 {
		require.NoError(t, d.sendRequest())
	}
	var seqs []SequenceNumber
	for _, r := range w.brokers[instA].TransmissionQueue() {
		seqs = append(seqs, r.MessageSequenceNumber)
	}
	assert.Equal(t, []SequenceNumber{0, 1, 2}, seqs, "the transmission queue rows")
	w.runUntil(time.Second)
	require.NoError(t, d.sendReply())
	require.NoError(t, d.sendReply())
	w.runUntil(2 * time.Second)

	tgt, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1", "Request#2"}, w.types(tgt))
	init, err := w.receiveAll("InitiatorQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Reply#0", "Reply#1"}, w.types(init))
}

// Reference: spec PROTO-6 and G-9: a message is split into fragments of FragmentSize bytes
// (a small one is one fragment) and reassembled whole at the target.
func TestG9_FragmentationAndReassembly(t *testing.T) {
	tests := []struct {
		bytes         int64
		wantFragments int32
	}{{0, 1}, {1, 1}, {256, 1}, {257, 2}, {2577, 11}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d bytes", tt.bytes), func(t *testing.T) {
			w := newWorld(t, Config{FragmentSize: 256})
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", tt.bytes))
			sent := w.records(instA, TraceMessageSent)
			require.Len(t, sent, 1)
			assert.Equal(t, tt.wantFragments, sent[0].Fragments, "fragments of a %d-byte message", tt.bytes)

			var indexes []int32
			var total int64
			for _, p := range w.sent {
				for _, f := range p.packet.Fragments {
					indexes = append(indexes, f.Index)
					total += int64(f.Bytes)
					assert.LessOrEqual(t, f.Bytes, int32(256), "fragment %d", f.Index)
					assert.Equal(t, tt.wantFragments, f.Count)
				}
			}
			want := make([]int32, tt.wantFragments)
			for i := range want {
				want[i] = int32(i)
			}
			assert.Equal(t, want, indexes, "fragment indexes on the wire")
			assert.Equal(t, tt.bytes, total, "payload bytes on the wire")

			w.runUntil(time.Second)
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			if assert.Len(t, msgs, 1) {
				assert.Equal(t, tt.bytes, msgs[0].Bytes)
			}
		})
	}
}

// Reference: spec PROTO-7 and QUE-2: a partial message is stored (status 2) but cannot be
// received; it becomes receivable when its last fragment arrives.
func TestPROTO7_PartialMessageIsNotReceivable(t *testing.T) {
	w := newWorld(t, Config{FragmentSize: 256})
	d := establish(w)
	_, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	w.ready = nil
	w.filter = loseFragmentsOnce(1, func(i int32) bool { return i == 9 })
	require.NoError(t, w.send(instA, d.initiator, "Request", 2560))
	w.runUntil(w.now + time.Second)

	tep, _ := d.target()
	assert.Equal(t, 9, tep.HeldFragments, "nine of ten fragments held")
	assert.Zero(t, tep.ReadyMessages)
	assert.Zero(t, w.brokers[instB].ReadyMessages(w.queue("TargetQueue")))
	assert.Empty(t, w.ready, "the queue is not signalled")
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Empty(t, w.types(msgs), "a partial message cannot be received")

	w.runUntil(w.now + 10*time.Second)
	assert.Equal(t, []QueueID{w.queue("TargetQueue")}, w.ready)
	msgs, err = w.receiveAll("TargetQueue")
	require.NoError(t, err)
	if assert.Len(t, msgs, 1) {
		assert.Equal(t, int64(2560), msgs[0].Bytes)
		assert.Equal(t, SequenceNumber(1), msgs[0].MessageSequenceNumber)
	}
}

// Reference: spec PROTO-6: only lost fragments are retransmitted.
func TestPROTO6_OnlyLostFragmentsAreRetransmitted(t *testing.T) {
	tests := []struct {
		name string
		lost []int32
	}{
		{"the first", []int32{0}},
		{"the last", []int32{9}},
		{"two in the middle", []int32{2, 5}},
		{"all of them", []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{FragmentSize: 256})
			w.filter = loseFragmentsOnce(0, func(i int32) bool { return slices.Contains(tt.lost, i) })
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", 2560))
			w.runUntil(time.Minute)

			_, frags, _ := w.retried(instA)
			assert.Equal(t, tt.lost, frags, "fragments retransmitted")
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"Request#0"}, w.types(msgs))
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
		})
	}
}

// Reference: spec PROTO-4: messages that arrive out of order are held (status 2) until
// they are in order; the application receives the lowest sequence number first.
func TestPROTO4_OutOfOrderMessagesAreHeldUntilInOrder(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	w.filter = dropFromA(1)
	for range 3 {
		require.NoError(t, d.sendRequest())
	}
	w.runUntil(w.now + time.Second)
	tep, _ := d.target()
	assert.Equal(t, 2, tep.HeldFragments, "requests 2 and 3 are held")
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0"}, w.types(msgs))

	w.runUntil(w.now + time.Minute)
	msgs, err = w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#1", "Request#2", "Request#3"}, w.types(msgs))
	seqs, _, _ := w.retried(instA)
	assert.Equal(t, []SequenceNumber{1}, seqs, "only the lost message is retransmitted")
}

// Reference: spec PROTO-4, DLG-4 (SI: "first message not yet completely received —
// fragmented or out of order") and INV-1: a message that overtakes the dialog's first
// message must be held, not lost, and must not cost the first message its delivery.
func TestPROTO4_MessageOvertakingTheFirstMessage(t *testing.T) {
	tests := []struct {
		name   string
		filter func(p *Packet, n int) action
	}{
		{"first message lost once", dropFromA(0)},
		{"first message delayed", func(p *Packet, n int) action {
			if p.From == instA && n == 0 {
				return delayBy(100 * time.Millisecond)
			}
			return deliver
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			w.filter = tt.filter
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, d.sendRequest())
			require.NoError(t, d.sendRequest())
			w.runUntil(time.Minute)

			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"Request#0", "Request#1"}, w.types(msgs))
			assert.Equal(t, int64(1), w.brokers[instB].Counters().EndpointsCreated)
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
		})
	}
}

// Reference: spec PROTO-5: a copy of a message or fragment already stored is acknowledged
// but not enqueued again.
func TestPROTO5_DuplicateIsAckedNotEnqueued(t *testing.T) {
	tests := []struct {
		name           string
		fragmentSize   int
		bytes          int64
		late           bool // the copy comes a second after the original, not with it
		wantDuplicates int64
		wantAcks       int64 // dedicated acks B sends
	}{
		{"a copy arrives with the original", 0, 100, false, 1, 1},
		{"a copy arrives a second later", 0, 100, true, 1, 2},
		{"a copy of every fragment of a partial message", 256, 1024, false, 4, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{FragmentSize: tt.fragmentSize})
			if !tt.late {
				w.filter = func(p *Packet, n int) action {
					if p.From == instA && n == 0 {
						return duplicate
					}
					return deliver
				}
			}
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", tt.bytes))
			if tt.late {
				w.inject(time.Second, &w.sent[0].packet)
			}
			w.runUntil(time.Minute)

			b := w.brokers[instB].Counters()
			assert.Equal(t, tt.wantDuplicates, b.DuplicatesDiscarded)
			assert.Len(t, w.records(instB, TraceFragmentDuplicate), int(tt.wantDuplicates))
			assert.Equal(t, tt.wantAcks, b.AcksSent)
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"Request#0"}, w.types(msgs), "enqueued once")
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
		})
	}
}

// Reference: spec PROTO-9 and TXQ-1: the sender keeps a message in the transmission queue
// until every fragment is acknowledged; the dedicated ack leaves AckDelay after the
// arrival (G-20), so with 10 ms each way it reaches A at 70 ms.
func TestPROTO9_RowStaysInTransmissionQueueUntilAcked(t *testing.T) {
	const ackAt = latency + 50*time.Millisecond + latency
	tests := []struct {
		name       string
		cfg        Config
		bytes      int64
		filter     func(p *Packet, n int) action
		wantStatus string
		wantAcked  int32
		wantGoneAt time.Duration
	}{
		{"one fragment", Config{}, 100, nil, "", 0, ackAt},
		{"one of four fragments lost", Config{FragmentSize: 256}, 1024,
			loseFragmentsOnce(0, func(i int32) bool { return i == 3 }), "3 of 4 fragments acknowledged", 3, 4*time.Second + ackAt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg)
			w.filter = tt.filter
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", tt.bytes))
			w.runUntil(ackAt - time.Nanosecond)
			rows := w.brokers[instA].TransmissionQueue()
			require.Len(t, rows, 1, "the row waits for its ack")
			assert.Equal(t, "sent, waiting for acknowledgement", rows[0].TransmissionStatus)

			w.runUntil(ackAt)
			rows = w.brokers[instA].TransmissionQueue()
			if tt.wantStatus != "" && assert.Len(t, rows, 1) {
				assert.Equal(t, tt.wantStatus, rows[0].TransmissionStatus)
				assert.Equal(t, tt.wantAcked, rows[0].FragmentsAcked)
			}
			w.runUntil(time.Minute)
			removed := w.records(instA, TraceRowRemoved)
			if assert.Len(t, removed, 1) {
				assert.Equal(t, ReasonAcked, removed[0].Reason)
				assert.Equal(t, tt.wantGoneAt, removed[0].At, "the row leaves when its last ack arrives")
			}
		})
	}
}

// Reference: spec PROTO-10 and G-8: an unacknowledged fragment is resent RetryIntervalMin
// after it was sent, then after doubling intervals capped at RetryIntervalMax; once the
// link heals it arrives and the retries stop.
func TestPROTO10_RetryBackOffDoublesToTheMaximum(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		cfg       Config
		healAt    time.Duration
		wantTimes []time.Duration
	}{
		{"defaults 4 s to 64 s", Config{}, 150 * s,
			[]time.Duration{4 * s, 12 * s, 28 * s, 60 * s, 124 * s, 188 * s}},
		{"1 s to 4 s", Config{RetryIntervalMin: s, RetryIntervalMax: 4 * s}, 18 * s,
			[]time.Duration{1 * s, 3 * s, 7 * s, 11 * s, 15 * s, 19 * s}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg)
			w.filter = dropAllFrom(instA)
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, d.sendRequest())
			w.runUntil(tt.healAt)
			w.filter = nil
			w.runUntil(tt.healAt + 10*time.Minute)

			_, _, at := w.retried(instA)
			assert.Equal(t, tt.wantTimes, at, "retransmission times")
			assert.Empty(t, w.brokers[instA].TransmissionQueue())
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"Request#0"}, w.types(msgs))
		})
	}
}

// Reference: spec PROTO-11 and G-19: a packet that fails the integrity check is discarded
// without an ack and counted; the sender's retry brings the fragment later.
func TestPROTO11_CorruptPacketIsDiscardedNotAcked(t *testing.T) {
	w := newWorld(t, Config{FragmentSize: 256})
	w.filter = func(p *Packet, n int) action {
		if p.From == instA && n == 0 {
			return corrupt
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, d.initiator, "Request", 1000))
	w.runUntil(time.Second)

	b := w.brokers[instB]
	assert.Equal(t, int64(4), b.Counters().CorruptDiscarded, "the block's four fragments")
	assert.Len(t, w.records(instB, TracePacketCorrupt), 1)
	assert.Empty(t, b.Endpoints(), "nothing of the corrupt block is used")
	for _, p := range w.sent {
		assert.NotEqual(t, instB, p.packet.From, "B acknowledged something at %v", p.at)
	}
	require.Len(t, w.brokers[instA].TransmissionQueue(), 1)

	w.runUntil(time.Minute)
	_, frags, at := w.retried(instA)
	assert.Equal(t, []int32{0, 1, 2, 3}, frags)
	assert.Equal(t, []time.Duration{4 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}, at)
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0"}, w.types(msgs))
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
}

// Reference: spec PROTO-6 ("a fragment holding a whole small message may be sent between
// fragments of a large one") and G-11 (per-dialog send window): a small message on another
// dialog does not wait for a large message to be sent whole.
func TestPROTO6_SmallMessageInterleavesWithLargeMessage(t *testing.T) {
	w := newWorld(t, Config{FragmentSize: 256})
	large := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	small := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, large.initiator, "Request", 100*256))
	require.NoError(t, w.send(instA, small.initiator, "Request", 10))
	w.runUntil(time.Minute)

	var order []string // the dialog of each fragment A sent
	for _, r := range w.records(instA, TraceFragmentSent) {
		if r.Conversation == small.conv {
			order = append(order, "small")
		} else {
			order = append(order, "large")
		}
	}
	i := slices.Index(order, "small")
	require.GreaterOrEqual(t, i, 0)
	assert.Less(t, i, len(order)-1, "the small message's fragment leaves before the large message's last one")

	var ready []ConversationID
	for _, r := range w.records(instB, TraceMessageReady) {
		ready = append(ready, r.Conversation)
	}
	assert.Equal(t, []ConversationID{small.conv, large.conv}, ready, "the small message is receivable first")
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Len(t, msgs, 2)
}

// Reference: spec PROTO-10 and G-8: each fragment keeps its own back-off. A message sent
// while an earlier one is deep in its back-off is first retried RetryIntervalMin after it
// was sent, not when the earlier one's timer fires.
func TestPROTO10_NewFragmentDoesNotWaitForAnEarlierFragmentsBackOff(t *testing.T) {
	s := time.Second
	w := newWorld(t, Config{})
	w.filter = dropAllFrom(instA)
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest()) // retried at 4, 12, 28, 60, 124 s
	w.at(70*s, func() { require.NoError(t, d.sendRequest()) })
	w.runUntil(100 * s)

	seqs, _, at := w.retried(instA)
	var second []time.Duration
	for i, seq := range seqs {
		if seq == 1 {
			second = append(second, at[i])
		}
	}
	assert.Equal(t, []time.Duration{74 * s, 82 * s, 98 * s}, second, "retries of message 1")
}

// Reference: spec G-15 and G-16: a broker Error refusing the dialog (here: a contract the
// target does not accept) that reaches an initiator already in DO closes it, rather than
// leaving it to retry its EndDialog for ever.
func TestG16_RefusalReachingAnEndedInitiatorClosesIt(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "Target", "Unaccepted", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	require.NoError(t, d.endInitiator(EndOptions{}))
	w.runUntil(10 * time.Minute)

	_, ok := w.endpointOf(instA, d.conv, true)
	assert.False(t, ok, "the initiator endpoint is closed and deleted")
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	_, _, at := w.retried(instA)
	assert.Empty(t, at, "nothing is retried once the refusal arrived")
}

// Reference: spec PROTO-10 and PROTO-12: a fragment is retried for as long as it takes, at
// RetryIntervalMax once its back-off reached it; the back-off never starts over, however
// many retries a long partition needs.
func TestPROTO10_BackOffStaysAtTheMaximumForEver(t *testing.T) {
	const min, most = time.Millisecond, 8 * time.Millisecond
	w := newWorld(t, Config{RetryIntervalMin: min, RetryIntervalMax: most})
	w.filter = dropAllFrom(instA)
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	w.runUntil(400 * most)

	_, _, at := w.retried(instA)
	require.Greater(t, len(at), 300, "enough retries to pass any 8-bit counter")
	for i := 4; i < len(at); i++ {
		require.Equal(t, most, at[i]-at[i-1], "gap before retry %d", i)
	}
}
