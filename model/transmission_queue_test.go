package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connectionTo returns instance i's connection counters towards peer.
func (w *world) connectionTo(i, peer InstanceID) ConnectionStats {
	for _, c := range w.brokers[i].Connections() {
		if c.Peer == peer {
			return c
		}
	}
	w.t.Fatalf("instance %d has no connection to %d", i, peer)
	return ConnectionStats{}
}

// Reference: sys.transmission_queue; spec TXQ-1 (a message to another instance waits in
// the sending database's transmission queue until acknowledged) and TXQ-5
// (transmission_status is blank until a send is attempted).
func TestTXQ1_RemoteSendGoesThroughTheTransmissionQueue(t *testing.T) {
	const connectDelay = 100 * time.Millisecond
	w := newWorld(t, Config{})
	w.brokers[instA].SetConnectDelay(instB, connectDelay)
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())

	rows := w.brokers[instA].TransmissionQueue()
	require.Len(t, rows, 1)
	assert.Equal(t, TransmissionQueueRow{
		ConversationHandle: d.initiator, ToService: w.name("Target"), FromService: w.service("Initiator"),
		Contract: w.contract("RequestReply"), EnqueueTime: 0, MessageSequenceNumber: 0,
		MessageType: w.messageType("Request"), Bytes: 100, TransmissionStatus: "", Priority: DefaultPriority,
		Fragments: 1,
	}, rows[0])
	assert.Empty(t, w.sent, "nothing leaves before the connection logs in")

	w.runUntil(connectDelay)
	require.Len(t, w.sent, 1)
	assert.Equal(t, connectDelay, w.sent[0].at)
	rows = w.brokers[instA].TransmissionQueue()
	if assert.Len(t, rows, 1) {
		assert.Equal(t, "sent, waiting for acknowledgement", rows[0].TransmissionStatus)
	}
	w.runUntil(time.Second)
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
}

// Reference: spec TXQ-2: a SEND to a service of the same instance goes straight into the
// target queue: no packet, no transmission object, receivable within the same input.
func TestTXQ2_SameInstanceSendIsDeliveredInTheSameInput(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{})
	for range 3 {
		require.NoError(t, d.sendRequest())
	}
	assert.Empty(t, w.sent, "no packet for a same-instance dialog")
	assert.Contains(t, w.ready, w.queue("LocalTargetQueue"))
	msgs, err := w.receiveAll("LocalTargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1", "Request#2"}, w.types(msgs))
	assert.Zero(t, w.brokers[instA].TransmissionObjectBytes())

	require.NoError(t, w.send(instA, msgs[0].ConversationHandle, "Reply", 10))
	replies, err := w.receiveAll("InitiatorQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Reply#0"}, w.types(replies), "the reply too, at the same instant")

	require.NoError(t, d.endInitiator(EndOptions{}))
	ends, err := w.receiveAll("LocalTargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"EndDialog#3"}, w.types(ends))
	require.NoError(t, d.endTarget(EndOptions{}))
	w.settle()
	assert.Empty(t, w.sent, "no packet for a same-instance dialog")
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	assert.Empty(t, w.brokers[instA].Endpoints(), "both endpoints closed and gone after retention")
}

// Reference: spec TXQ-2 ("no TXQ, no TO"): after a same-instance SEND that nothing
// prevents, sys.transmission_queue holds no row for it.
func TestTXQ2_SameInstanceSendLeavesNoTransmissionQueueRow(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	ep, _ := w.brokers[instA].Endpoint(d.initiator)
	assert.Zero(t, ep.TransmissionRows)
}

// Reference: spec G-18: "Local SEND to an OFF queue ⇒ TXQ row with transmission_status
// 'queue disabled'", moved into the queue when ALTER QUEUE sets it ON.
func TestG18_LocalSendToDisabledQueueWaitsInTransmissionQueue(t *testing.T) {
	w := newWorld(t, Config{})
	w.alterQueue("LocalTargetQueue", QueueOff)
	d := beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Minute)
	rows := w.brokers[instA].TransmissionQueue()
	if assert.Len(t, rows, 1) {
		assert.Contains(t, rows[0].TransmissionStatus, "disabled")
	}
	w.alterQueue("LocalTargetQueue", QueueOn)
	w.runUntil(2 * time.Minute)
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
}

// Reference: sys.dm_broker_connections; spec TXQ-7 and G-12: a connection opens on demand,
// after the connect delay, and closes after ConnectionIdleClose without traffic; the peer
// accepts it when the first packet arrives.
func TestTXQ7_ConnectionOpensWithConnectDelayAndClosesWhenIdle(t *testing.T) {
	const (
		connectDelay = 20 * time.Millisecond
		idle         = 90 * time.Second
	)
	w := newWorld(t, Config{ConnectionIdleClose: idle})
	w.brokers[instA].SetConnectDelay(instB, connectDelay)
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	assert.Equal(t, ConnectionClosed, w.connectionTo(instA, instB).State, "BEGIN opens nothing (DLG-1)")
	require.NoError(t, d.sendRequest())
	assert.Equal(t, ConnectionConnecting, w.connectionTo(instA, instB).State)

	w.runUntil(connectDelay + latency)
	a, b := w.connectionTo(instA, instB), w.connectionTo(instB, instA)
	assert.Equal(t, ConnectionLoggedIn, a.State)
	assert.False(t, a.IsAccept)
	assert.Equal(t, int64(1), a.Opened)
	assert.Equal(t, ConnectionLoggedIn, b.State)
	assert.True(t, b.IsAccept, "B accepted the connection A opened")

	// A's last traffic is the ack arriving at 90 ms; B's is that ack leaving at 80 ms.
	lastA := connectDelay + 2*latency + 50*time.Millisecond
	lastB := lastA - latency
	w.runUntil(lastB + idle - time.Nanosecond)
	assert.Equal(t, ConnectionLoggedIn, w.connectionTo(instB, instA).State)
	w.runUntil(lastB + idle)
	assert.Equal(t, ConnectionClosed, w.connectionTo(instB, instA).State, "B closes when idle")
	w.runUntil(lastA + idle - time.Nanosecond)
	assert.Equal(t, ConnectionLoggedIn, w.connectionTo(instA, instB).State)
	w.runUntil(lastA + idle)
	assert.Equal(t, ConnectionClosed, w.connectionTo(instA, instB).State, "A closes when idle")

	// The next SEND opens it again, with the connect delay again.
	w.runUntil(100 * time.Second)
	require.NoError(t, d.sendRequest())
	w.runUntil(w.now + time.Second)
	require.Len(t, w.sent, 4, "two requests and their acks")
	assert.Equal(t, 100*time.Second+connectDelay, w.sent[2].at)
	assert.Equal(t, int64(2), w.connectionTo(instA, instB).Opened)
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1"}, w.types(msgs))
}

// Reference: spec G-12 ("one connection per unordered instance pair, used both ways"): when
// the peer's connection arrives while this side is still connecting, what waits for the
// connection leaves over it, and nothing is stuck.
func TestG12_ConnectionAcceptedWhileConnectingCarriesWaitingMessages(t *testing.T) {
	w := newWorld(t, Config{})
	w.brokers[instA].SetConnectDelay(instB, 100*time.Millisecond)
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest()) // A starts connecting
	fromB := w.begin("Target", "LocalTarget", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instB, fromB, "Request", 10)) // B connects at once: A accepts at 10 ms

	w.runUntil(time.Minute)
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0"}, w.types(msgs), "A's request reached B")
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	local, err := w.receiveAll("LocalTargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0"}, w.types(local), "B's request reached A")
}

// Reference: spec TXQ-6 and G-13: an endpoint of a dialog between instances gets a
// transmission object (TransmissionObjectBytes each) at its first use, on both sides; a
// same-instance dialog gets none; closing the endpoint frees it.
func TestTXQ6_TransmissionObjectsForRemoteEndpointsOnly(t *testing.T) {
	const size = 1000
	tests := []struct {
		name          string
		remote, local int
	}{
		{"remote dialogs", 3, 0},
		{"same-instance dialogs", 0, 3},
		{"both", 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{TransmissionObjectBytes: size})
			var dialogs []*dialog
			for range tt.remote {
				dialogs = append(dialogs, beginDialog(w, "Target", "RequestReply", BeginDialogOptions{}))
			}
			for range tt.local {
				dialogs = append(dialogs, beginDialog(w, "LocalTarget", "RequestReply", BeginDialogOptions{}))
			}
			assert.Zero(t, w.brokers[instA].TransmissionObjectBytes(), "BEGIN creates no transmission object")
			for _, d := range dialogs {
				require.NoError(t, d.sendRequest())
			}
			w.runUntil(time.Second)
			assert.Equal(t, int64(tt.remote*size), w.brokers[instA].TransmissionObjectBytes(), "on A")
			assert.Equal(t, int64(tt.remote*size), w.brokers[instB].TransmissionObjectBytes(), "on B")

			for _, d := range dialogs {
				require.NoError(t, d.endInitiator(EndOptions{}))
			}
			w.runUntil(2 * time.Second)
			for _, d := range dialogs {
				require.NoError(t, d.endTarget(EndOptions{}))
			}
			w.runUntil(3 * time.Second)
			assert.Zero(t, w.brokers[instA].TransmissionObjectBytes(), "on A once closed")
			assert.Zero(t, w.brokers[instB].TransmissionObjectBytes(), "on B once closed")
		})
	}
}

// Reference: spec TXQ-6 (a transmission object is about 1 KB): once a burst has drained,
// an idle endpoint does not keep the room its buffers needed during the burst.
func TestTXQ6_IdleEndpointReleasesTheRoomOfItsLastBurst(t *testing.T) {
	w := newWorld(t, Config{ReceiveWindow: 8})
	d := establish(w)
	w.filter = dropFromA(1) // one loss makes the target hold messages out of order
	for range 2000 {
		require.NoError(t, d.sendRequest())
	}
	w.runUntil(w.now + time.Minute)
	require.Empty(t, w.brokers[instA].TransmissionQueue())

	iep := w.brokers[instA].endpoints.get(uint64(d.initiator))
	tep := w.brokers[instB].dialogs[side(false)].get(uint64(d.conv))
	assert.LessOrEqual(t, cap(iep.out.rows), idleCapacity)
	assert.LessOrEqual(t, cap(tep.in.pending), idleCapacity)
}

// Reference: spec G-10 and TXQ-8: a block holds at most BlockBytesMax bytes of fragments, and acks
// travel in packets no larger; a fragment that would overflow a block starts the next.
func TestG10_BlocksAndAckPacketsStayWithinBlockBytesMax(t *testing.T) {
	const limit = 64 << 10
	w := newWorld(t, Config{})
	var blocks, ackPackets []int
	w.filter = func(p *Packet, n int) action {
		bytes := 0
		for _, f := range p.Fragments {
			bytes += fragmentHeaderBytes + int(f.Bytes)
		}
		if len(p.Fragments) > 0 {
			blocks = append(blocks, bytes)
		} else {
			ackPackets = append(ackPackets, p.Size())
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, d.initiator, "Request", 64<<10)) // 8 fragments of 8 KiB
	for range 3000 {
		e := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
		require.NoError(t, e.sendRequest())
	}
	w.runUntil(time.Second)

	require.NotEmpty(t, blocks)
	for i, b := range blocks {
		assert.LessOrEqual(t, b, limit, "block %d", i)
	}
	require.Greater(t, len(ackPackets), 1, "3001 acks do not fit one packet")
	for i, s := range ackPackets {
		assert.LessOrEqual(t, s, limit, "ack packet %d", i)
	}
}

// Reference: spec PRI-13: levels do not affect same-instance delivery, but they apply
// whenever a message sits in a transmission queue, as while its target queue is OFF: when
// ALTER QUEUE sets it ON, the held dialogs leave highest level first.
func TestPRI13_MessagesHeldForAnOffQueueLeaveByLevel(t *testing.T) {
	w := newWorld(t, Config{})
	a := w.brokers[instA]
	require.NoError(t, a.SetHonorBrokerPriority(0, 0, true))
	w.alterQueue("LocalTargetQueue", QueueOff)
	for _, level := range []PriorityLevel{3, 9, 5} {
		h := w.begin("Initiator", "LocalTarget", "RequestReply", BeginDialogOptions{})
		a.endpoints.get(uint64(h)).priority = level
		require.NoError(t, w.send(instA, h, "Request", 100))
	}
	w.alterQueue("LocalTargetQueue", QueueOn)

	var levels []PriorityLevel
	for _, r := range w.records(instA, TraceMessageReady) {
		for _, ep := range a.Endpoints() {
			if ep.ConversationID == r.Conversation && ep.IsInitiator {
				levels = append(levels, ep.Priority)
			}
		}
	}
	assert.Equal(t, []PriorityLevel{9, 5, 3}, levels)
}

// The paired assertion on transmission queue rows (STYLE.md §5): a row is checked when it
// is queued and again when it is removed, and the endpoint's count of live rows against its
// rows. Each case breaks one thing in a healthy state and calls the check.
func TestTransmissionQueueRowAssertionsFireOnACorruptedState(t *testing.T) {
	tests := []struct {
		name    string
		corrupt func(ep *endpoint, r *txqRow)
		check   func(now time.Duration, ep *endpoint, r *txqRow)
		want    string // in the panic; "" for none
	}{
		{"a healthy row passes every check", func(*endpoint, *txqRow) {},
			func(now time.Duration, ep *endpoint, r *txqRow) {
				checkRowQueued(now, ep, r.seq+1)
				checkRowRemoved(now, ep, r, ReasonCleanup, 1)
				checkShare(now, ep)
			}, ""},
		{"a row queued out of sequence", func(*endpoint, *txqRow) {},
			func(now time.Duration, ep *endpoint, r *txqRow) { checkRowQueued(now, ep, r.seq+2) },
			"row 2 queued after row 0 at t=50ms"},
		{"a row removed twice", func(_ *endpoint, r *txqRow) { r.removed = true },
			func(now time.Duration, ep *endpoint, r *txqRow) { checkRowRemoved(now, ep, r, ReasonCleanup, 1) },
			"row 0 removed twice (cleanup) at t=50ms"},
		{"a row removed that its endpoint does not count", func(ep *endpoint, _ *txqRow) { ep.out.live = 0 },
			func(now time.Duration, ep *endpoint, r *txqRow) { checkRowRemoved(now, ep, r, ReasonCleanup, 1) },
			"row 0 removed (cleanup) while the endpoint counts 0 live rows and its database 1 at t=50ms"},
		{"a row removed that its database does not count", func(*endpoint, *txqRow) {},
			func(now time.Duration, ep *endpoint, r *txqRow) { checkRowRemoved(now, ep, r, ReasonCleanup, 0) },
			"row 0 removed (cleanup) while the endpoint counts 1 live rows and its database 0 at t=50ms"},
		{"a row removed as acknowledged with a fragment unacknowledged", func(*endpoint, *txqRow) {},
			func(now time.Duration, ep *endpoint, r *txqRow) { checkRowRemoved(now, ep, r, ReasonAcked, 1) },
			"row 0 removed as acknowledged with 0 of 1 fragments acknowledged at t=50ms"},
		{"an endpoint counting more live rows than it holds", func(ep *endpoint, _ *txqRow) { ep.out.live = 2 },
			func(now time.Duration, ep *endpoint, _ *txqRow) {
				ep.out.rows[0].removed = true
				ep.out.trimHead(&slabs[txqRow]{})
				checkShare(now, ep)
			},
			"counts 2 live rows and holds 0 rows from its head at t=50ms"},
		{"an endpoint counting no live row while it holds one", func(ep *endpoint, _ *txqRow) { ep.out.live = 0 },
			func(now time.Duration, ep *endpoint, _ *txqRow) { checkShare(now, ep) },
			"counts 0 live rows and holds 1 rows from its head at t=50ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			w.brokers[instA].SetConnectDelay(instB, time.Second) // the row stays unsent
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, d.sendRequest())
			ep := w.brokers[instA].endpoints.get(uint64(d.initiator))
			require.NotNil(t, ep.out, "the SEND queued a row")
			require.Len(t, ep.out.rows, 1)
			require.Equal(t, int32(1), ep.out.live)
			r := &ep.out.rows[0]

			tt.corrupt(ep, r)
			got := panicOf(func() { tt.check(50*time.Millisecond, ep, r) })

			if tt.want == "" {
				assert.Empty(t, got, tt.name)
				return
			}
			assert.Contains(t, got, tt.want, tt.name)
			assert.Contains(t, got, "model: endpoint "+d.initiator.String(), "the report names the endpoint")
		})
	}
}
