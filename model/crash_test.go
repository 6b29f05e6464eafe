package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crash crashes instance i now and applies what the crash leaves for the world.
func (w *world) crash(i InstanceID) {
	w.brokers[i].Crash(w.now)
	w.drain(i)
}

// restart restarts instance i now.
func (w *world) restart(i InstanceID) {
	w.brokers[i].Restart(w.now)
	w.drain(i)
}

// fragmentsSent returns the TraceFragmentSent records of instance i from time from on.
func (w *world) fragmentsSent(i InstanceID, from time.Duration) []TraceRecord {
	var out []TraceRecord
	for _, r := range w.records(i, TraceFragmentSent) {
		if r.At >= from {
			out = append(out, r)
		}
	}
	return out
}

// Reference: spec G-13 ("durable state is only queues, TXQs and endpoint rows"): a crash
// keeps the transmission queue rows and the sequence numbers of the sender, and the status-2
// rows and receive_sequence of the receiver; after both restart, the dialog delivers every
// message once, in order (INV-1, INV-2).
func TestG13_DurableStateSurvivesACrash(t *testing.T) {
	w := newWorld(t, Config{})
	w.filter = func(p *Packet, n int) action {
		if p.From == instA && n == 0 {
			return drop // message 0's first transmission is lost: 1 and 2 wait out of order at B
		}
		if p.From == instB {
			return drop // and nothing B acknowledges reaches A
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Millisecond)
	require.NoError(t, d.sendRequest())
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Second)
	tgt, ok := d.target()
	require.True(t, ok, "the target endpoint exists")
	require.Equal(t, 2, tgt.HeldFragments, "messages 1 and 2 are held out of order (status 2)")

	rowsBefore := w.brokers[instA].TransmissionQueue()
	initBefore, _ := w.brokers[instA].Endpoint(d.initiator)
	w.crash(instA)
	w.crash(instB)
	assert.True(t, w.brokers[instA].Down())
	rowsAfter := w.brokers[instA].TransmissionQueue()
	for i := range rowsBefore {
		// transmission_status comes from the transmission object: blank again until the
		// row is sent again (TXQ-5).
		rowsBefore[i].TransmissionStatus = ""
	}
	assert.Equal(t, rowsBefore, rowsAfter, "the transmission queue survives")
	initAfter, _ := w.brokers[instA].Endpoint(d.initiator)
	assert.Equal(t, initBefore.SendSequence, initAfter.SendSequence, "send_sequence survives")
	tgtAfter, ok := d.target()
	require.True(t, ok, "the target endpoint survives")
	assert.Equal(t, 2, tgtAfter.HeldFragments, "status-2 rows survive (G-21)")
	assert.Equal(t, tgt.ReceiveSequence, tgtAfter.ReceiveSequence, "receive_sequence survives")

	w.filter = nil
	w.runUntil(2 * time.Second)
	w.restart(instB)
	w.restart(instA)
	w.settle()
	got, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1", "Request#2"}, w.types(got), "each message once, in order")
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
}

// Reference: spec G-13 ("instance crash ⇒ TOs ... and connections lost"): a crash forgets
// the transmission objects and closes the connections; the retry timer armed before the
// crash does nothing after the restart, which sends the row again from scratch (not as a
// retry) and counts its back-off from then.
func TestG13_VolatileStateIsLostAndStaleTimersDoNothing(t *testing.T) {
	w := newWorld(t, Config{})
	w.filter = func(p *Packet, n int) action {
		if p.From == instA && len(p.Fragments) > 0 {
			return drop
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Second)
	require.Positive(t, w.brokers[instA].TransmissionObjectBytes(), "the dialog has a transmission object")
	require.Equal(t, ConnectionLoggedIn, w.connectionTo(instA, instB).State)

	w.crash(instA)
	assert.Zero(t, w.brokers[instA].TransmissionObjectBytes(), "transmission objects are lost")
	assert.Equal(t, ConnectionClosed, w.connectionTo(instA, instB).State, "connections are lost")
	w.runUntil(2 * time.Second)
	w.restart(instA)
	w.runUntil(20 * time.Second)

	sent := w.fragmentsSent(instA, 0)
	var at []time.Duration
	for _, r := range sent {
		at = append(at, r.At)
	}
	// The first send at 0, the crash at 1 s (the retry due at 4 s is lost), the restart
	// sends from scratch at 2 s, then retries 4 s and 8 s later (G-8).
	assert.Equal(t, []time.Duration{0, 2 * time.Second, 6 * time.Second, 14 * time.Second}, at)
	if assert.Len(t, sent, 4) {
		assert.False(t, sent[1].Retry, "the restart sends the row from scratch")
		assert.True(t, sent[2].Retry)
	}
	assert.Equal(t, int64(1), w.brokers[instA].Counters().Crashes)
}

// Reference: spec G-13 and TXN-1: the open transactions of a crashed instance roll back:
// the rows they received return to the queue in their place, their SENDs never happened
// (G-31), their locks are released; a statement of such a transaction after the restart
// is a bug of the caller and panics.
func TestG13_OpenTransactionRollsBackAtCrash(t *testing.T) {
	w := &txWorld{world: newWorld(t, Config{}), labels: map[ConversationHandle]string{}}
	_, target := w.dialog("d", "Initiator", "Target", 2)
	w.settle()
	b := w.brokers[instB]
	q := w.queue("TargetQueue")
	require.Equal(t, 2, b.ReadyMessages(q))
	tx := b.Begin(w.now)
	rows, err := tx.Receive(w.now, q, ReceiveOptions{Top: 1}, nil)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	require.NoError(t, tx.Send(w.now, target, w.messageType("Reply"), 100))
	w.apply(instB)
	g := w.groupOfOn(instB, target)
	require.Equal(t, tx.ID(), g.Holder)

	w.crash(instB)
	assert.Equal(t, 2, b.ReadyMessages(q), "the received row is back")
	g = w.groupOfOn(instB, target)
	assert.Zero(t, g.Holder, "the lock is released")
	ep, _ := b.Endpoint(target)
	assert.Equal(t, SequenceNumber(0), ep.SendSequence, "the uncommitted SEND never happened")
	assert.True(t, tx.Done())
	assert.NotEmpty(t, w.records(instB, TraceMessageReturned))
	assert.NotEmpty(t, w.records(instB, TraceTxRolledBack))

	w.restart(instB)
	assert.Panics(t, func() { _ = tx.Commit(w.now) }, "a transaction of the incarnation before the crash")
	got, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1"}, w.types(got))
}

// groupOfOn returns the conversation group of handle h on instance i.
func (w *txWorld) groupOfOn(i InstanceID, h ConversationHandle) GroupInfo {
	ep, ok := w.brokers[i].Endpoint(h)
	require.True(w.t, ok)
	g, ok := w.brokers[i].Group(ep.ConversationGroupID)
	require.True(w.t, ok)
	return g
}

// Reference: spec G-13 ("after restart all TXQ rows are resent (duplicates are safe,
// PROTO-5)"): rows the receiver has but whose acknowledgements were lost go again after
// the restart; the receiver discards the copies by sequence number, acknowledges them, and
// each message is on its queue once.
func TestG13_RestartResendsEveryRowAndDuplicatesAreDiscarded(t *testing.T) {
	w := newWorld(t, Config{FragmentSize: 256})
	w.filter = func(p *Packet, n int) action {
		if p.From == instB {
			return drop // every acknowledgement is lost
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	require.NoError(t, w.send(instA, d.initiator, "Request", 1000)) // four fragments
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Second)
	require.Len(t, w.brokers[instA].TransmissionQueue(), 3)
	w.crash(instA)
	w.filter = nil
	w.runUntil(2 * time.Second)
	restart := w.now
	w.restart(instA)
	w.settle()

	var resent []string
	for _, r := range w.fragmentsSent(instA, restart) {
		resent = append(resent, r.String())
	}
	assert.Len(t, resent, 6, "every fragment of every row goes again: %v", resent)
	assert.Len(t, w.records(instB, TraceFragmentDuplicate), 6, "the receiver discards each copy (PROTO-5)")
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "the acknowledgements of the copies empty the transmission queue")
	got, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Request#0", "Request#1", "Request#2"}, w.types(got))
}

// Reference: spec G-13 (durable timers) and DLG-14: BEGIN CONVERSATION TIMER survives a
// crash: its DialogTimer message arrives once, at its time, although the timer armed
// before the crash fires too; one that expired while the instance was down arrives at
// the restart.
func TestG13_DurableTimersAreArmedAgainAndFireOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    time.Duration
	}{
		{"expires after the restart", 10 * time.Second, 10 * time.Second},
		{"expires while down", 2 * time.Second, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.brokers[instA].Begin(w.now).commitTimer(w, d.initiator, tc.timeout))
			w.runUntil(time.Second)
			w.crash(instA)
			w.runUntil(5 * time.Second)
			w.restart(instA)
			w.runUntil(30 * time.Second)
			ready := w.records(instA, TraceMessageReady)
			require.Len(t, ready, 1, "one DialogTimer")
			assert.Equal(t, DialogTimerMessageType, ready[0].MessageType)
			assert.Equal(t, tc.want, ready[0].At)
		})
	}
}

// commitTimer runs BEGIN CONVERSATION TIMER in t and commits.
func (t *Tx) commitTimer(w *world, h ConversationHandle, timeout time.Duration) error {
	if err := t.BeginConversationTimer(w.now, h, timeout); err != nil {
		return err
	}
	err := t.Commit(w.now)
	w.drain(t.b.id)
	return err
}

// Reference: spec G-13: a crashed instance takes no input; giving it one is a bug of the
// world and panics, naming the instance and the input.
func TestG13_InputWhileDownPanics(t *testing.T) {
	w := newWorld(t, Config{})
	w.crash(instB)
	b := w.brokers[instB]
	for name, f := range map[string]func(){
		"statement":   func() { b.Begin(w.now) },
		"packet":      func() { b.PacketArrived(w.now, &Packet{From: instA, To: instB}, false) },
		"timer":       func() { b.TimerFired(w.now, Timer{At: w.now, Kind: TimerMonitorTick}) },
		"alter queue": func() { _ = b.AlterQueueStatus(w.now, w.queue("TargetQueue"), QueueOff) },
		"crash":       func() { b.Crash(w.now) },
	} {
		assert.PanicsWithValue(t, "model: instance 1 is down (crashed at t=0s), and was given "+map[string]string{
			"statement": "BEGIN TRANSACTION", "packet": "PacketArrived", "timer": "TimerFired", "alter queue": "ALTER QUEUE",
			"crash": "Crash"}[name]+" at t=0s", f, name)
	}
	w.restart(instB)
	assert.Panics(t, func() { b.Restart(w.now) }, "restarting an instance that is up")
}

// Reference: spec G-13 ("activated tasks and their sessions" are volatile) with ACT-6 and
// G-32: a crash ends the running tasks (traced as exits, not failures); after the restart
// the queue monitor starts again and activates a new task for the messages still there.
func TestG13_ActivatedTasksEndAndActivationStartsAgain(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 2))
	w.arrive("d", 2)
	first := w.lastStarted()
	require.Equal(t, []TaskID{first}, w.running())

	w.input(func() { w.broker().Crash(w.now) })
	assert.Empty(t, w.running(), "the task died with the instance")
	exits := w.records(instA, TraceTaskExited)
	require.Len(t, exits, 1)
	assert.Equal(t, first, exits[0].Task)
	assert.Empty(t, w.records(instA, TraceActivationFailed), "a task a crash ended has not failed (G-6)")

	w.runUntil(3 * time.Second)
	started := w.input(func() { w.broker().Restart(w.now) })
	require.Len(t, started, 1, "the monitor activates again at the restart")
	assert.NotEqual(t, first, started[0].Task, "a task of the new incarnation")
	assert.Equal(t, MonitorNotified, w.monitor().State)
	w.checkINV8(instA)
}

// Reference: spec G-13 ("instance crash ⇒ TOs, forwarded messages and connections lost")
// with RTE-5 and G-27: a forwarder that crashes while it holds fragments loses them; the
// initiator, which keeps every message until the target acknowledges it, retries, and after
// the forwarder's restart each message arrives once.
func TestG13_AForwarderCrashLosesWhatItHolds(t *testing.T) {
	w := newWorldOf(t, Config{FragmentSize: 256}, forwardingInstances("F"))
	f, b := w.instanceNamed("F"), w.instanceNamed("B")
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 2000))       // 8 fragments
	w.at(latency/2, func() { w.wirePerFragment = time.Second }) // the forwarder's block holds its wire for 8 s
	w.runUntil(2 * latency)
	require.NoError(t, w.send(instA, h, "Request", 2000)) // these wait at the forwarder
	w.runUntil(5 * latency)
	require.Positive(t, w.brokers[f].ForwardHeldBytes(), "the forwarder holds fragments")
	w.wirePerFragment = 0

	w.crash(f)
	assert.Zero(t, w.brokers[f].ForwardHeldBytes(), "what it held is lost")
	w.runUntil(2 * time.Second)
	w.restart(f)
	w.settle()

	ep, ok := w.endpointOf(b, conversationOf(w, h), false)
	require.True(t, ok)
	assert.Equal(t, 2, ep.ReadyMessages, "each message arrives once")
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "acknowledged end to end")
	assert.Positive(t, w.brokers[instA].Counters().FragmentsRetransmitted, "the initiator retried what was lost")
}

// Reference: spec G-13 with QUE-8 and G-14: the poison counter is in memory, lost at a
// crash, and the rollback of the crash is no application's: four rollbacks, a crash with a
// receiving transaction open, and four more rollbacks after the restart leave the queue ON;
// the fifth in a row turns it OFF.
func TestG13_ACrashResetsPoisonCountingAndItsRollbacksDoNotCount(t *testing.T) {
	w := &txWorld{world: newWorld(t, Config{}), labels: map[ConversationHandle]string{}}
	w.dialog("d", "Initiator", "Target", 1)
	w.settle()
	b, q := w.brokers[instB], w.queue("TargetQueue")
	receiveAndRollBack := func(n int) {
		for range n {
			tx := b.Begin(w.now)
			rows, err := tx.Receive(w.now, q, ReceiveOptions{}, nil)
			require.NoError(t, err)
			require.Len(t, rows, 1)
			require.NoError(t, tx.Rollback(w.now))
			w.apply(instB)
		}
	}
	receiveAndRollBack(4)
	tx := b.Begin(w.now)
	_, err := tx.Receive(w.now, q, ReceiveOptions{}, nil)
	require.NoError(t, err)
	w.crash(instB)
	w.restart(instB)
	status, _ := b.QueueStatus(q)
	require.Equal(t, QueueOn, status, "the crash's rollback does not count")
	receiveAndRollBack(4)
	status, _ = b.QueueStatus(q)
	require.Equal(t, QueueOn, status, "the count began again at the crash")
	receiveAndRollBack(1)
	status, _ = b.QueueStatus(q)
	assert.Equal(t, QueueOff, status, "five in a row since the restart")
}
