package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dbOf returns the database of a queue.
func (w *world) dbOf(queue string) DatabaseID { return w.cat.Queues[w.queue(queue)].Database }

// rowsOf returns instance i's transmission queue rows of one conversation.
func (w *world) rowsOf(i InstanceID, conv ConversationID) []TransmissionQueueRow {
	var rows []TransmissionQueueRow
	for _, r := range w.brokers[i].TransmissionQueue() {
		if ep, ok := w.brokers[i].Endpoint(r.ConversationHandle); ok && ep.ConversationID == conv {
			rows = append(rows, r)
		}
	}
	return rows
}

// sequences returns the rows' message sequence numbers.
func sequences(rows []TransmissionQueueRow) []SequenceNumber {
	out := make([]SequenceNumber, len(rows))
	for i, r := range rows {
		out[i] = r.MessageSequenceNumber
	}
	return out
}

// Reference: sys.transmission_queue, ALTER QUEUE ... STATUS; spec TXQ-4 ("if that queue is
// OFF they are held in the receiving database's TXQ"), TXQ-5, QUE-1 and G-18 (acked,
// moved into the queue in sequence order when it is ON again). The messages wait in the
// transmission queue of the database that holds the OFF queue: for a remote target B's,
// on the receiving side; for a same-instance target A's, where the SEND left them. While
// they wait they are not ready: neither the queue nor the endpoint counts them, the queue
// is not signalled and RECEIVE fails; when the queue is ON they are ready, in order.
func TestTXQ4_ArrivalsForAnOffQueueWaitInTheReceivingTransmissionQueue(t *testing.T) {
	tests := []struct {
		name, target, queue string
		at                  InstanceID // the instance of the queue
	}{
		{"remote target", "Target", "TargetQueue", instB},
		{"same-instance target", "LocalTarget", "LocalTargetQueue", instA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			w.alterQueue(tt.queue, QueueOff)
			d := beginDialog(w, tt.target, "RequestReply", BeginDialogOptions{})
			for range 3 {
				require.NoError(t, d.sendRequest())
			}
			w.runUntil(time.Minute)
			b, q := w.brokers[tt.at], w.queue(tt.queue)

			rows := w.rowsOf(tt.at, d.conv)
			require.Len(t, rows, 3, "the messages wait in the transmission queue of %v's database", tt.queue)
			assert.Equal(t, []SequenceNumber{0, 1, 2}, sequences(rows))
			for _, r := range rows {
				assert.Equal(t, TargetQueueDisabled, r.TransmissionStatus, "row %d", r.MessageSequenceNumber)
				assert.Equal(t, w.name(tt.target), r.ToService, "row %d", r.MessageSequenceNumber)
				from := w.service("Initiator") // the sender's row, on A
				if tt.at == instB {
					from = FromFarService // a row B holds for a message from A
				}
				assert.Equal(t, from, r.FromService, "row %d", r.MessageSequenceNumber)
			}
			assert.Equal(t, 3, b.TransmissionQueueRows(w.dbOf(tt.queue)), "the database's count agrees with the view")
			assert.Zero(t, b.ReadyMessages(q), "nothing is ready on an OFF queue")
			tep, ok := d.target()
			if tt.at == instB {
				require.True(t, ok)
				assert.Zero(t, tep.ReadyMessages, "the target endpoint counts nothing ready")
				assert.Equal(t, 3, tep.TransmissionRows, "the target endpoint's rows in the receiving transmission queue")
				assert.Equal(t, SequenceNumber(3), tep.ReceiveSequence, "all three arrived in order")
				assert.Empty(t, w.brokers[instA].TransmissionQueue(), "acknowledged: the sender's rows are gone")
				assert.Zero(t, countRetries(w, instA), "held messages are acknowledged")
				assert.Len(t, w.records(instB, TraceMessageHeld), 3)
			} else {
				assert.False(t, ok, "no target endpoint before the first message is delivered")
			}
			assert.NotContains(t, w.ready, q, "an OFF queue is not signalled")
			assert.Empty(t, w.records(tt.at, TraceMessageReady))
			_, err := w.receiveAll(tt.queue)
			assert.ErrorIs(t, err, ErrQueueDisabled)

			on := w.now
			w.alterQueue(tt.queue, QueueOn)
			assert.Contains(t, w.ready, q, "ALTER QUEUE ON signals the queue")
			assert.Empty(t, w.rowsOf(tt.at, d.conv), "the rows left the transmission queue")
			assert.Zero(t, b.TransmissionQueueRows(w.dbOf(tt.queue)))
			assert.Equal(t, 3, b.ReadyMessages(q))
			msgs, err := w.receiveAll(tt.queue)
			require.NoError(t, err)
			assert.Equal(t, []string{"Request#0", "Request#1", "Request#2"}, w.types(msgs))
			for _, m := range msgs {
				assert.Equal(t, on, m.EnqueuedAt, "message %d entered the queue when it was set ON", m.MessageSequenceNumber)
			}
		})
	}
}

// Reference: the seed on message fragmentation ("while a message is being reassembled,
// the partial message is stored in the target queue; if the target queue is not
// available, it is stored in the transmission queue"), spec TXQ-4 and G-18. A message whose
// second fragment was lost shows, while the queue is OFF, as a row of the receiving
// transmission queue with the fragments it holds; once complete it is held whole, and it
// enters the queue when the queue is ON. The same partial message on an ON queue is no
// transmission queue row.
func TestTXQ4_PartialMessageForAnOffQueueWaitsInTheTransmissionQueue(t *testing.T) {
	w := newWorld(t, Config{FragmentSize: 1000})
	lost := false
	w.filter = func(p *Packet, n int) action {
		for i, f := range p.Fragments {
			if p.From == instA && f.Index == 1 && !lost {
				lost = true
				p.Fragments = append(p.Fragments[:i:i], p.Fragments[i+1:]...)
				break
			}
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, d.initiator, "Request", 3000)) // 3 fragments
	w.runUntil(time.Second)
	b, db := w.brokers[instB], w.dbOf("TargetQueue")
	assert.Empty(t, w.rowsOf(instB, d.conv), "on an ON queue the partial message is in the queue (status 2)")
	assert.Zero(t, b.TransmissionQueueRows(db))

	w.alterQueue("TargetQueue", QueueOff)
	rows := w.rowsOf(instB, d.conv)
	if assert.Len(t, rows, 1) {
		assert.Equal(t, TargetQueueDisabled, rows[0].TransmissionStatus)
		assert.Equal(t, int32(2), rows[0].FragmentsAcked, "fragments 0 and 2 held")
		assert.Equal(t, int32(3), rows[0].Fragments)
	}
	assert.Equal(t, 1, b.TransmissionQueueRows(db))
	tep, ok := d.target()
	require.True(t, ok)
	assert.Equal(t, 1, tep.TransmissionRows)
	assert.Equal(t, 2, tep.HeldFragments, "still status 2")

	w.runUntil(time.Minute) // the retry brings fragment 1: the message is complete, and held
	require.NotZero(t, countRetries(w, instA))
	rows = w.rowsOf(instB, d.conv)
	if assert.Len(t, rows, 1) {
		assert.Equal(t, int32(3), rows[0].FragmentsAcked)
	}
	assert.Zero(t, b.ReadyMessages(w.queue("TargetQueue")))
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "acknowledged")

	w.alterQueue("TargetQueue", QueueOn)
	assert.Zero(t, b.TransmissionQueueRows(db))
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0"}, w.types(msgs))
}

// Reference: spec G-18 ("moved into the queue in sequence order when it is ON again") and
// ACT-3 (ALTER QUEUE is an event of the queue monitor). Messages of two dialogs that arrive
// interleaved while the queue is OFF enter it in the order they arrived, so each dialog's
// in sequence order, with increasing queuing orders; activation starts a reader only then.
func TestG18_HeldArrivalsMoveIntoTheQueueInArrivalOrder(t *testing.T) {
	in := testInstances()
	in[1].Databases[0].Queues[0].Activation = Activation{Status: true, Procedure: "dbo.Reader", MaxQueueReaders: 1}
	w := newWorldOf(t, Config{}, in)
	w.alterQueue("TargetQueue", QueueOff)
	d1 := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	d2 := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	for i := range 6 {
		d := d1
		if i%2 == 1 {
			d = d2
		}
		require.NoError(t, d.sendRequest())
		w.runUntil(w.now + 100*time.Millisecond)
	}
	w.runUntil(time.Minute)
	require.Empty(t, w.activations, "no activation while the queue is OFF")
	held := w.records(instB, TraceMessageHeld)
	require.Len(t, held, 6)

	on := w.now
	w.alterQueue("TargetQueue", QueueOn)
	ready := w.records(instB, TraceMessageReady)
	require.Len(t, ready, 6)
	for i := range held {
		assert.Equal(t, held[i].Conversation, ready[i].Conversation, "message %d", i)
		assert.Equal(t, held[i].Sequence, ready[i].Sequence, "message %d", i)
	}
	w.runUntil(w.now + 10*time.Second)
	if started := w.records(instB, TraceTaskStarted); assert.NotEmpty(t, started, "activation once the messages are in the queue") {
		assert.GreaterOrEqual(t, started[0].At, on)
	}

	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	require.Len(t, msgs, 6)
	last := map[ConversationID]SequenceNumber{d1.conv: -1, d2.conv: -1}
	for i, m := range msgs {
		assert.Greater(t, m.MessageSequenceNumber, last[m.ConversationID], "row %d", i)
		last[m.ConversationID] = m.MessageSequenceNumber
		if i > 0 && msgs[i-1].ConversationID == m.ConversationID {
			assert.Greater(t, m.QueuingOrder, msgs[i-1].QueuingOrder, "row %d", i)
		}
	}
}

// Reference: spec DLG-7, DLG-10, DLG-12, G-15 and G-18. Messages held for an OFF queue are
// already this side's: they go when the conversation leaves the queue (END CONVERSATION,
// with or without CLEANUP), as its queue's rows would; an Error arriving, or the lifetime
// expiring, leaves them there, to be received after the Error once the queue is ON
// (DLG-12, DLG-13).
func TestG18_HeldArrivalsShareTheFateOfTheQueuesRows(t *testing.T) {
	tests := []struct {
		name string
		// act ends or fails the dialog while its three messages are held on B.
		act func(w *world, d *dialog)
		// left is how many held rows stay; received what RECEIVE returns once the queue is
		// ON, nil when the target endpoint is gone.
		left     int
		received []string
	}{
		{"END CONVERSATION", func(w *world, d *dialog) { require.NoError(w.t, d.endTarget(EndOptions{})) }, 0, nil},
		{"END WITH CLEANUP", func(w *world, d *dialog) { require.NoError(w.t, d.endTarget(EndOptions{WithCleanup: true})) }, 0, nil},
		{"an Error arrives", func(w *world, d *dialog) {
			require.NoError(w.t, d.endInitiator(EndOptions{WithError: true, ErrorCode: 50000}))
		}, 4, []string{"Error#3", "Request#0", "Request#1", "Request#2"}},
		{"the lifetime expires", func(w *world, d *dialog) {}, 3, []string{"Error#-1", "Request#0", "Request#1", "Request#2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			w.alterQueue("TargetQueue", QueueOff)
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: 2 * time.Minute})
			for range 3 {
				require.NoError(t, d.sendRequest())
			}
			w.runUntil(time.Minute)
			db := w.dbOf("TargetQueue")
			require.Equal(t, 3, w.brokers[instB].TransmissionQueueRows(db))
			tt.act(w, d)
			w.runUntil(3 * time.Minute)
			assert.Len(t, w.rowsOf(instB, d.conv), tt.left)
			assert.Equal(t, tt.left, w.brokers[instB].TransmissionQueueRows(db))

			w.alterQueue("TargetQueue", QueueOn)
			assert.Zero(t, w.brokers[instB].TransmissionQueueRows(db))
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			if tt.received == nil {
				assert.Empty(t, msgs)
				return
			}
			assert.Equal(t, tt.received, w.types(msgs))
		})
	}
}

// Reference: spec TXQ-6 ("created at the first request (sending through a TXQ, or receiving
// a remote/TXQ-originated message) ... not used for direct same-instance enqueue") and
// G-13. A same-instance dialog whose target queue is OFF sends through the transmission
// queue: its initiator gets a transmission object when its message starts waiting, and its
// target one when it receives that message from the transmission queue; a same-instance
// dialog delivered directly gets none. A remote dialog's target has one for what it holds
// in the receiving transmission queue. Closing frees them all.
func TestTXQ6_SendingOrReceivingThroughTheTransmissionQueueUsesATransmissionObject(t *testing.T) {
	const size = 1000
	w := newWorld(t, Config{TransmissionObjectBytes: size})
	a, b := w.brokers[instA], w.brokers[instB]
	direct := beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{})
	require.NoError(t, direct.sendRequest())
	assert.Zero(t, a.TransmissionObjectBytes(), "direct same-instance delivery uses none")

	w.alterQueue("LocalTargetQueue", QueueOff)
	w.alterQueue("TargetQueue", QueueOff)
	held := beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{})
	require.NoError(t, held.sendRequest())
	assert.Equal(t, int64(size), a.TransmissionObjectBytes(), "the initiator that sends through the transmission queue")
	require.NoError(t, held.sendRequest())
	assert.Equal(t, int64(size), a.TransmissionObjectBytes(), "one per endpoint, reused")
	remote := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, remote.sendRequest())
	w.runUntil(time.Second)
	assert.Equal(t, int64(size), b.TransmissionObjectBytes(), "the remote target that holds the message")
	assert.Equal(t, int64(2*size), a.TransmissionObjectBytes(), "and the remote initiator")

	w.alterQueue("LocalTargetQueue", QueueOn)
	assert.Equal(t, int64(3*size), a.TransmissionObjectBytes(), "the same-instance target that received from the transmission queue")
	require.NoError(t, direct.sendRequest())
	assert.Equal(t, int64(3*size), a.TransmissionObjectBytes(), "direct delivery still uses none")
	w.alterQueue("TargetQueue", QueueOn)

	for _, d := range []*dialog{direct, held, remote} {
		require.NoError(t, d.endInitiator(EndOptions{}))
	}
	w.runUntil(2 * time.Second)
	for _, d := range []*dialog{direct, held, remote} {
		require.NoError(t, d.endTarget(EndOptions{}))
	}
	w.runUntil(3 * time.Second)
	assert.Zero(t, a.TransmissionObjectBytes(), "on A once closed")
	assert.Zero(t, b.TransmissionObjectBytes(), "on B once closed")
}
