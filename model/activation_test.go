package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The activation tests run on the transaction catalog (txInstances) with LocalTargetQueue, on
// instance A, given an ACTIVATION clause or an event notification. Messages arrive on it
// from dialogs Initiator→LocalTarget, delivered within the statement that commits them
// (TXQ-2), so each SEND is an arrival, an ACT-3 event. The monitor evaluates the events of
// an instant once the instant's work is done (a timer due now): the helpers that return
// the tasks started (input, arrive, exit, receiveIn, alterActivation) let the instant
// finish. Tasks are driven by hand: the test plays the reader program, with BeginTask for
// the task's transactions and TaskExited for its end.

const readerProcedure = "dbo.ReadRequests"

// activatedQueue is LocalTargetQueue with ACTIVATION (STATUS, PROCEDURE_NAME =
// readerProcedure, MAX_QUEUE_READERS = max).
func activatedQueue(status bool, max int) Queue {
	return Queue{Name: "LocalTargetQueue", Activation: Activation{Status: status, Procedure: readerProcedure, MaxQueueReaders: max}}
}

// actWorld is the transaction test world watching the monitor of LocalTargetQueue; input
// lets the instant finish, since a monitor evaluates the ACT-3 events of an instant once
// its work is done.
type actWorld struct {
	*txWorld
	q QueueID
}

func newActWorld(t *testing.T, queues ...Queue) *actWorld {
	return newActWorldOf(t, txInstances(queues...))
}

func newActWorldOf(t *testing.T, instances []Instance) *actWorld {
	w := &txWorld{world: newWorldOf(t, Config{}, instances), labels: map[ConversationHandle]string{}}
	return &actWorld{txWorld: w, q: w.queue("LocalTargetQueue")}
}

// instant processes what is still due now: the evaluations of the instant's ACT-3 events.
func (w *actWorld) instant() { w.runUntil(w.now) }

func (w *actWorld) broker() *Broker { return w.brokers[instA] }

// monitor returns the row of LocalTargetQueue in sys.dm_broker_queue_monitors; it must
// exist.
func (w *actWorld) monitor() QueueMonitor {
	w.t.Helper()
	m, ok := w.broker().QueueMonitor(w.q)
	require.True(w.t, ok, "LocalTargetQueue has a queue monitor at t=%v", w.now)
	return m
}

// starts returns the trace records of every task started on instance A so far.
func (w *actWorld) starts() []TraceRecord { return w.records(instA, TraceTaskStarted) }

// startTimes returns when each task started.
func (w *actWorld) startTimes() []time.Duration {
	var at []time.Duration
	for _, r := range w.starts() {
		at = append(at, r.At)
	}
	return at
}

// lastStarted returns the task started last.
func (w *actWorld) lastStarted() TaskID {
	w.t.Helper()
	s := w.starts()
	require.NotEmpty(w.t, s, "a task was started")
	return s[len(s)-1].Task
}

// running returns the ids of the running tasks of instance A (sys.dm_broker_activated_tasks).
func (w *actWorld) running() []TaskID {
	var ids []TaskID
	for _, r := range w.broker().ActivatedTasks() {
		ids = append(ids, r.Task)
	}
	return ids
}

// input runs f, an input of instance A whose effects are still to be applied, applies
// them, lets the instant finish and returns the tasks started meanwhile.
func (w *actWorld) input(f func()) []ActivationStart { return w.inputOn(instA, f) }

func (w *actWorld) inputOn(i InstanceID, f func()) []ActivationStart {
	n := len(w.activations)
	f()
	w.apply(i)
	w.instant()
	return slices.Clone(w.activations[n:])
}

// arrive begins a dialog from Initiator to LocalTarget and sends n requests on it (n
// arrivals on LocalTargetQueue), and lets the instant finish.
func (w *actWorld) arrive(label string, n int) (initiator, target ConversationHandle) {
	w.t.Helper()
	initiator, target = w.local(label, "Initiator", n)
	w.instant()
	return initiator, target
}

// task begins a transaction in the session of activated task id.
func (w *actWorld) task(id TaskID) *session {
	return &session{w: w.txWorld, inst: instA, tx: w.broker().BeginTask(w.now, id)}
}

// exit tells the broker that task id has ended, and returns what that started.
func (w *actWorld) exit(id TaskID) []ActivationStart {
	w.t.Helper()
	var err error
	started := w.input(func() { err = w.broker().TaskExited(w.now, id) })
	require.NoError(w.t, err, "task %d exits", id)
	return started
}

// receiveIn runs RECEIVE FROM LocalTargetQueue in the session and returns its rows and the
// tasks started by the end of the instant.
func (w *actWorld) receiveIn(s *session, opts ReceiveOptions) ([]string, []ActivationStart, error) {
	var rows []ReceivedMessage
	var err error
	started := w.input(func() { rows, err = s.tx.Receive(w.now, w.q, opts, nil) })
	return w.rows(rows), started, err
}

// alterActivation is ALTER QUEUE LocalTargetQueue WITH ACTIVATION (...) and returns the tasks
// it started.
func (w *actWorld) alterActivation(ch ActivationChange) ([]ActivationStart, error) {
	var err error
	started := w.input(func() { err = w.broker().AlterQueueActivation(w.now, w.q, ch) })
	return started, err
}

// checkINV8 checks every start of instance i against MAX_QUEUE_READERS: running tasks
// before the start < MAX_QUEUE_READERS (ACT-6, INV-8).
func (w *actWorld) checkINV8(i InstanceID) {
	w.t.Helper()
	for _, r := range w.records(i, TraceTaskStarted) {
		assert.Less(w.t, r.Running, r.MaxReaders, "INV-8: task %d started at t=%v with %d running", r.Task, r.At, r.Running)
	}
}

func ptr[T any](v T) *T { return &v }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Reference: spec ACT-1 and ENT-10 (sys.dm_broker_queue_monitors): a queue has a monitor
// when it has ACTIVATION STATUS = ON or a QUEUE_ACTIVATION event notification, and none
// otherwise; a monitor is on the queue's instance.
func TestACT1_AMonitorPerActivatedOrNotifiedQueue(t *testing.T) {
	tests := []struct {
		name      string
		instances []Instance
		monitor   bool
	}{
		{"no activation", txInstances(), false},
		{"activation on", txInstances(activatedQueue(true, 1)), true},
		{"activation off, procedure named", txInstances(activatedQueue(false, 1)), false},
		{"event notification", notificationInstances(instB), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newActWorldOf(t, tt.instances)
			_, ok := w.broker().QueueMonitor(w.q)
			assert.Equal(t, tt.monitor, ok, "monitor of LocalTargetQueue")
			for i, b := range w.brokers {
				for _, m := range b.QueueMonitors() {
					assert.Equal(t, w.q, m.Queue, "instance %d: only LocalTargetQueue is monitored", i)
					assert.Equal(t, instA, InstanceID(i), "the monitor is on the queue's instance")
					assert.Equal(t, MonitorInactive, m.State, "a monitor starts INACTIVE")
				}
			}
		})
	}

	t.Run("ALTER QUEUE turns activation on and off", func(t *testing.T) {
		w := newActWorld(t)
		_, ok := w.broker().QueueMonitor(w.q)
		require.False(t, ok)
		_, err := w.alterActivation(ActivationChange{Status: ptr(true), Procedure: ptr(readerProcedure), MaxQueueReaders: ptr(1)})
		require.NoError(t, err)
		_, ok = w.broker().QueueMonitor(w.q)
		assert.True(t, ok, "ACTIVATION STATUS = ON creates the monitor")
		_, err = w.alterActivation(ActivationChange{Status: ptr(false)})
		require.NoError(t, err)
		_, ok = w.broker().QueueMonitor(w.q)
		assert.False(t, ok, "ACTIVATION STATUS = OFF and no event notification: no monitor")
	})
}

// Reference: spec ACT-4(a), ACT-6 and G-4: a message arriving on a queue with no unread
// message and no task running starts one task of the queue's procedure, and the monitor
// is NOTIFIED.
func TestACT4a_ArrivalOnAnEmptyQueueStartsOneTask(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 5))
	w.runUntil(1500 * time.Millisecond)
	assert.Equal(t, MonitorInactive, w.monitor().State)
	b := w.broker()
	h, err := b.BeginDialog(w.now, w.service("Initiator"), w.name("LocalTarget"), w.contract("RequestReply"), BeginDialogOptions{})
	w.apply(instA)
	require.NoError(t, err)
	started := w.input(func() { require.NoError(t, b.Send(w.now, h, w.messageType("Request"), 100)) })
	require.Len(t, started, 1, "one task for the first message")
	assert.Equal(t, w.q, started[0].Queue)
	assert.Equal(t, readerProcedure, started[0].Procedure)
	assert.Equal(t, []ActivatedTask{{Task: started[0].Task, Queue: w.q, Procedure: readerProcedure, Started: w.now}},
		b.ActivatedTasks(), "sys.dm_broker_activated_tasks")
	m := w.monitor()
	assert.Equal(t, MonitorNotified, m.State)
	assert.Equal(t, w.now, m.LastActivatedTime)
	assert.Equal(t, 1, m.Running)
	assert.Equal(t, int64(1), m.Started)
	require.Len(t, w.starts(), 1)
	assert.Equal(t, started[0].Task, w.starts()[0].Task)
	assert.Equal(t, uint8(reasonArrivalOnEmpty), w.starts()[0].Cause, "ACT-4(a)")

	// The next arrival finds a task running (and the monitor NOTIFIED): nothing more.
	started = w.input(func() { require.NoError(t, b.Send(w.now, h, w.messageType("Request"), 100)) })
	assert.Empty(t, started)
	w.checkINV8(instA)
}

// Reference: spec ACT-4(a) and ACT-3 ("activation is necessary whenever a new queue reader
// would have useful work"): the monitor evaluates once the instant's work is done; a
// message that a session waiting in RECEIVE took meanwhile leaves nothing to read, and
// nothing is started.
func TestACT4a_ArrivalTakenByAWaitingSessionStartsNothing(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 5))
	w.runUntil(time.Second)
	s := w.beginTx()
	_, err := s.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	w.arrive("a", 1)
	require.Equal(t, []TxID{s.id()}, w.takeCompleted(), "the waiting session took the message")
	assert.Zero(t, w.broker().ReadyMessages(w.q))
	assert.Empty(t, w.starts(), "no message left to read")
	assert.Empty(t, w.activations)
	s.commit()
	w.runUntil(time.Minute)
	assert.Empty(t, w.starts())
}

// Reference: spec ACT-4(b), ACT-5, G-5, G-7 and the seed's example (Compreender quando
// ocorre a ativação): many messages of one conversation, MAX_QUEUE_READERS 5. The first
// task receives and holds the conversation's group; on the next tick the monitor starts a
// second reader, which waits in RECEIVE because the group is locked; while it waits, no
// third reader starts, tick after tick, nor when the readers take turns as the reference
// program does.
func TestACT4b_ACT5_AReaderWaitingOnALockedConversationStopsActivation(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 5))
	w.arrive("one", 10)
	require.Len(t, w.starts(), 1, "the first message starts a task, the others find the monitor NOTIFIED")
	t1 := w.lastStarted()

	w.runUntil(time.Second)
	s1 := w.task(t1)
	rows, started, err := w.receiveIn(s1, ReceiveOptions{Top: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"one:Request#0"}, rows)
	require.Empty(t, started, "a task runs: one more starts on a tick only (G-5)")
	w.runUntil(MonitorTick)
	require.Len(t, w.starts(), 2, "unread messages, nobody waiting, no empty RECEIVE: one more reader on the tick (ACT-4b, G-5)")
	assert.Equal(t, MonitorTick, w.starts()[1].At)
	assert.Equal(t, MonitorNotified, w.monitor().State)
	t2 := w.lastStarted()

	wait := ReceiveOptions{Top: 1, WaitFor: true, Timeout: -1}
	s2 := w.task(t2)
	_, started, err = w.receiveIn(s2, wait)
	require.ErrorIs(t, err, ErrWaiting, "the only conversation is locked by the first reader")
	assert.Empty(t, started)
	for at := 2 * MonitorTick; at <= time.Minute; at += MonitorTick {
		w.runUntil(at)
		m := w.monitor()
		assert.Len(t, w.starts(), 2, "t=%v: no third reader while the second waits (ACT-5)", at)
		assert.Equal(t, 2, m.Running, "t=%v", at)
		assert.Equal(t, 1, m.TasksWaiting, "t=%v", at)
		assert.False(t, m.Failed, "t=%v: both tasks received (G-6)", at)
		assert.Equal(t, MonitorReceivesOccurring, m.State, "t=%v", at)
	}
	assert.Equal(t, 9, w.broker().ReadyMessages(w.q))

	// The readers take turns (G-7): the one holding the group commits and at once RECEIVEs
	// again; the waiting one gets the next message.
	task := map[*session]TaskID{s1: t1, s2: t2}
	holder, waiter := s1, s2
	for round := range 6 {
		w.runUntil(w.now + 3*time.Second)
		again := w.task(task[holder])
		task[again] = task[holder]
		started := w.input(func() {
			require.NoError(t, holder.tx.Commit(w.now))
			_, err := again.tx.Receive(w.now, w.q, wait, nil)
			require.ErrorIs(t, err, ErrWaiting)
		})
		require.Equal(t, []TxID{waiter.id()}, w.takeCompleted(), "round %d", round)
		got, _ := waiter.result()
		assert.Equal(t, []string{fmt.Sprintf("one:Request#%d", round+1)}, got)
		assert.Empty(t, started, "round %d: the reader that committed waits again when the monitor evaluates (ACT-5)", round)
		assert.Equal(t, 1, w.monitor().TasksWaiting)
		holder, waiter = waiter, again
	}
	w.runUntil(w.now + time.Minute)
	assert.Len(t, w.starts(), 2)
	assert.Equal(t, 3, w.broker().ReadyMessages(w.q))
	w.checkINV8(instA)
}

// Reference: spec ACT-4(b) and ACT-13: every session waiting in RECEIVE without WHERE counts,
// also while another waiting session is being woken: when a commit hands the locked group
// to one waiting reader, a session that still waits keeps activation off.
func TestACT4b_SessionsStillWaitingCountWhileOthersWake(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 5))
	w.arrive("one", 10)
	t1 := w.lastStarted()
	s1 := w.task(t1)
	_, started, err := w.receiveIn(s1, ReceiveOptions{Top: 1})
	require.NoError(t, err)
	require.Empty(t, started, "a task runs: the next starts on the tick (G-5)")
	w.runUntil(MonitorTick)
	require.Len(t, w.starts(), 2)
	s2 := w.task(w.lastStarted())
	_, _, err = w.receiveIn(s2, ReceiveOptions{Top: 1, WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	other := w.beginTx() // a session the monitor did not start
	_, _, err = w.receiveIn(other, ReceiveOptions{Top: 1, WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	require.Equal(t, 2, w.monitor().TasksWaiting)

	started = w.input(func() { require.NoError(t, s1.tx.Commit(w.now)) })
	require.Equal(t, []TxID{s2.id()}, w.takeCompleted(), "first come, first served")
	assert.Empty(t, started, "the other session still waits in RECEIVE without WHERE (ACT-4b)")
	assert.True(t, other.tx.Waiting())
	assert.Equal(t, 1, w.monitor().TasksWaiting)
	assert.Len(t, w.starts(), 2)
}

// Reference: spec ACT-2, G-3, G-5 and ACT-4(b): the monitor tracks when a RECEIVE last
// returned nothing (last_empty_rowset_time); a RECEIVE without WHERE (or GET CONVERSATION
// GROUP) that returns nothing, at once or when its WAITFOR runs out, keeps activation off
// for EmptyReceiveWindow (5 s), and not longer; a RECEIVE with WHERE that returns nothing
// does not count. A task runs throughout, so a second starts on a tick only (G-5): the
// first tick past the window, which the last two cases place exactly on a tick and a
// nanosecond before one.
func TestG3_EmptyReceiveBlocksActivationForFiveSeconds(t *testing.T) {
	receiveNothing := func(w *actWorld, s *session, _ ConversationHandle) {
		assert.Empty(w.t, s.mustReceive("LocalTargetQueue", 0))
	}
	tests := []struct {
		name string
		// emptyAt is when the statement returns nothing; messages arrive 1 s, 5 s - 1 ns,
		// 5 s and 7 s after it.
		emptyAt, issueAt time.Duration
		empty            func(w *actWorld, s *session, a ConversationHandle)
		// secondAt is when the second task starts.
		secondAt  time.Duration
		lastEmpty time.Duration
	}{
		{"RECEIVE without WHERE", 12 * time.Second, 12 * time.Second, receiveNothing, 20 * time.Second, 12 * time.Second},
		{"GET CONVERSATION GROUP", 12 * time.Second, 12 * time.Second, func(w *actWorld, s *session, _ ConversationHandle) {
			assert.Zero(w.t, s.mustGetGroup("LocalTargetQueue"))
		}, 20 * time.Second, 12 * time.Second},
		{"RECEIVE WAITFOR that times out", 12 * time.Second, 10 * time.Second, func(w *actWorld, s *session, _ ConversationHandle) {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: 2 * time.Second})
			require.ErrorIs(w.t, err, ErrWaiting)
			w.runUntil(12 * time.Second)
			require.Equal(w.t, []TxID{s.id()}, w.takeCompleted())
		}, 20 * time.Second, 12 * time.Second},
		{"RECEIVE WHERE conversation_handle", 12 * time.Second, 12 * time.Second, func(w *actWorld, s *session, a ConversationHandle) {
			assert.Empty(w.t, w.rows(must(s.receive("LocalTargetQueue", ReceiveOptions{Handle: a}))))
		}, 15 * time.Second, -1},
		{"the window ends on a tick", 10 * time.Second, 10 * time.Second, receiveNothing, 15 * time.Second, 10 * time.Second},
		{"the window ends a nanosecond after a tick", 10*time.Second + 1, 10*time.Second + 1, receiveNothing, 20 * time.Second, 10*time.Second + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newActWorld(t, activatedQueue(true, 5))
			_, a := w.arrive("a", 1)
			t1 := w.lastStarted()
			s := w.task(t1)
			assert.Equal(t, []string{"a:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
			s.commit()
			w.runUntil(tt.issueAt)
			s = w.task(t1)
			tt.empty(w, s, a)
			s.commit()
			w.instant()
			assert.Equal(t, tt.lastEmpty, w.monitor().LastEmptyRowsetTime, "last_empty_rowset_time")
			for i, after := range []time.Duration{time.Second, EmptyReceiveWindow - time.Nanosecond, EmptyReceiveWindow, 7 * time.Second} {
				w.runUntil(tt.emptyAt + after)
				w.arrive(fmt.Sprintf("m%d", i), 1)
			}
			w.runUntil(25 * time.Second)
			require.GreaterOrEqual(t, len(w.starts()), 2, "one more reader")
			assert.Equal(t, tt.secondAt, w.starts()[1].At, "when the second reader starts")
		})
	}
}

// Reference: spec G-5, ACT-6, INV-8 and ACT-7: an evaluation starts at most one task, and
// while tasks run only a tick starts one more, so a burst on many conversations ramps
// readers up one per tick, however often they RECEIVE; they reach MAX_QUEUE_READERS and
// never exceed it; a task that exits makes room for a new one.
func TestG5_ACT6_RampUpToMaxQueueReaders(t *testing.T) {
	const max = 3
	w := newActWorld(t, activatedQueue(false, max))
	for i := range 10 {
		w.arrive(fmt.Sprintf("c%d", i), 2)
	}
	require.Empty(t, w.starts(), "activation is OFF")

	w.runUntil(time.Second)
	started, err := w.alterActivation(ActivationChange{Status: ptr(true)})
	require.NoError(t, err)
	require.Len(t, started, 1, "ACTIVATION OFF→ON with messages present: one task at once, not %d (G-5, ACT-7)", max)

	// Each reader takes a conversation and holds it; each RECEIVE is an evaluation, which
	// starts nothing while a task runs; each tick starts one more (G-5).
	sessions := map[TaskID]*session{}
	for id := w.lastStarted(); sessions[id] == nil; id = w.lastStarted() {
		before := len(w.running())
		s := w.task(id)
		sessions[id] = s
		rows, started, err := w.receiveIn(s, ReceiveOptions{})
		require.NoError(t, err)
		require.Len(t, rows, 2)
		require.Empty(t, started, "%d running: a RECEIVE starts no task (G-5)", before)
		w.runUntil((w.now/MonitorTick + 1) * MonitorTick)
	}
	require.Len(t, w.running(), max)
	assert.Equal(t, []time.Duration{time.Second, MonitorTick, 2 * MonitorTick}, w.startTimes(), "one task per tick (G-5)")
	// The readers go on, message after message, over several ticks: no more readers than
	// MAX_QUEUE_READERS.
	for round := range 3 {
		for _, id := range w.running() {
			sessions[id].commit()
			sessions[id] = w.task(id)
			_, started, err := w.receiveIn(sessions[id], ReceiveOptions{Top: 1})
			require.NoError(t, err)
			assert.Empty(t, started, "round %d: %d readers running", round, max)
		}
		w.runUntil(w.now + MonitorTick)
		assert.Len(t, w.running(), max, "round %d", round)
		assert.Len(t, w.starts(), max, "round %d", round)
	}
	require.Positive(t, w.broker().ReadyMessages(w.q))

	// A reader exits: the next tick starts a new one.
	first := w.running()[0]
	sessions[first].commit()
	assert.Empty(t, w.exit(first), "the others still run: only the tick evaluates")
	n := len(w.activations)
	w.runUntil((w.now/MonitorTick + 1) * MonitorTick)
	assert.Len(t, w.activations[n:], 1, "a new reader takes the place of the one that exited")
	assert.Len(t, w.running(), max)
	assert.Len(t, w.activations, len(w.starts()), "every start is in Effects().Activations")
	w.checkINV8(instA)
}

// Reference: spec G-4 and ACT-13 (sys.dm_broker_queue_monitors.state): NOTIFIED from an
// activation until a RECEIVE runs on the queue, RECEIVES_OCCURRING once RECEIVEs run,
// INACTIVE when no message is ready.
func TestG4_MonitorStates(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 1))
	assert.Equal(t, MonitorInactive, w.monitor().State, "no message")
	w.arrive("a", 1)
	w.arrive("b", 1)
	t1 := w.lastStarted()
	for _, at := range []time.Duration{0, 5 * time.Second, 8 * time.Second} {
		w.runUntil(at)
		assert.Equal(t, MonitorNotified, w.monitor().State, "t=%v: NOTIFIED until a RECEIVE", at)
	}
	s := w.task(t1)
	assert.Equal(t, []string{"a:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
	w.instant()
	assert.Equal(t, MonitorReceivesOccurring, w.monitor().State, "a RECEIVE ran, b is ready")
	s.commit()
	s = w.task(t1)
	assert.Equal(t, []string{"b:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
	w.instant()
	assert.Equal(t, MonitorInactive, w.monitor().State, "no message ready")
	s.commit()

	// Messages arrive while the task runs (MAX_QUEUE_READERS 1: nothing is started).
	w.runUntil(9 * time.Second)
	w.arrive("c", 1)
	w.arrive("d", 1)
	s = w.task(t1)
	assert.Equal(t, []string{"c:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
	w.instant()
	assert.Equal(t, MonitorReceivesOccurring, w.monitor().State, "a RECEIVE ran, d is ready")
	s.commit()
	w.runUntil(12 * time.Second)
	assert.Equal(t, MonitorReceivesOccurring, w.monitor().State, "ticks change nothing")
	s = w.task(t1)
	assert.Equal(t, []string{"d:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
	s.commit()
	w.instant()
	assert.Equal(t, MonitorInactive, w.monitor().State)
	assert.Len(t, w.starts(), 1)
}

// Reference: spec ACT-7 (ALTER QUEUE ... WITH ACTIVATION) and ACT-3.
func TestACT7_AlterQueueActivation(t *testing.T) {
	// setup returns a world whose monitor runs task t1, which has received a's message: b's
	// is still ready, and has started a second task on the tick at 5 s unless max is 1.
	setup := func(t *testing.T, max int) (*actWorld, TaskID) {
		w := newActWorld(t, activatedQueue(true, max))
		w.arrive("a", 1)
		w.arrive("b", 1)
		t1 := w.lastStarted()
		w.runUntil(time.Second)
		s := w.task(t1)
		rows, started, err := w.receiveIn(s, ReceiveOptions{})
		require.NoError(t, err)
		require.Len(t, rows, 1)
		if max == 1 {
			require.Empty(t, started)
		}
		s.commit()
		w.runUntil(MonitorTick + 500*time.Millisecond)
		return w, t1
	}

	t.Run("OFF to ON with messages present activates at once", func(t *testing.T) {
		w := newActWorld(t, activatedQueue(false, 2))
		w.arrive("a", 1)
		w.runUntil(7 * time.Second)
		require.Empty(t, w.starts())
		started, err := w.alterActivation(ActivationChange{Status: ptr(true)})
		require.NoError(t, err)
		require.Len(t, started, 1)
		assert.Equal(t, readerProcedure, started[0].Procedure)
	})

	t.Run("OFF to ON on an empty queue starts nothing", func(t *testing.T) {
		w := newActWorld(t, activatedQueue(false, 2))
		started, err := w.alterActivation(ActivationChange{Status: ptr(true)})
		require.NoError(t, err)
		assert.Empty(t, started)
	})

	t.Run("ON to OFF stops new starts, not running tasks", func(t *testing.T) {
		w, t1 := setup(t, 5)
		require.Len(t, w.running(), 2, "b's message started a second task")
		started, err := w.alterActivation(ActivationChange{Status: ptr(false)})
		require.NoError(t, err)
		assert.Empty(t, started)
		assert.Len(t, w.running(), 2, "SB never stops a task (ACT-8)")
		for i := range 4 {
			w.arrive(fmt.Sprintf("c%d", i), 1)
		}
		s := w.task(t1)
		assert.Len(t, s.mustReceive("LocalTargetQueue", 0), 1, "a running task still receives")
		s.commit()
		w.runUntil(time.Minute)
		assert.Len(t, w.starts(), 2, "no new task while activation is OFF")
		for _, id := range w.running() {
			w.exit(id)
		}
		w.runUntil(2 * time.Minute)
		assert.Len(t, w.starts(), 2)
	})

	t.Run("raising MAX_QUEUE_READERS starts at once", func(t *testing.T) {
		w, _ := setup(t, 1)
		w.runUntil(12 * time.Second)
		require.Len(t, w.running(), 1, "b waits: MAX_QUEUE_READERS 1")
		started, err := w.alterActivation(ActivationChange{MaxQueueReaders: ptr(2)})
		require.NoError(t, err)
		assert.Len(t, started, 1)
		assert.Len(t, w.running(), 2)
	})

	t.Run("lowering MAX_QUEUE_READERS stops nothing and blocks starts until below", func(t *testing.T) {
		w := newActWorld(t, activatedQueue(true, 3))
		for i := range 6 {
			w.arrive(fmt.Sprintf("c%d", i), 1)
		}
		sessions := map[TaskID]*session{}
		for id := w.lastStarted(); sessions[id] == nil; id = w.lastStarted() {
			sessions[id] = w.task(id)
			rows, _, err := w.receiveIn(sessions[id], ReceiveOptions{})
			require.NoError(t, err)
			require.Len(t, rows, 1)
			w.runUntil((w.now/MonitorTick + 1) * MonitorTick) // one more task per tick (G-5)
		}
		require.Len(t, w.running(), 3)
		started, err := w.alterActivation(ActivationChange{MaxQueueReaders: ptr(1)})
		require.NoError(t, err)
		assert.Empty(t, started)
		assert.Len(t, w.running(), 3, "SB stops no task")
		ids := w.running()
		for i, id := range ids {
			sessions[id].commit()
			w.runUntil(w.now + time.Second)
			started := w.exit(id)
			n := len(w.activations)
			w.runUntil(w.now + 2*MonitorTick)
			if i < len(ids)-1 {
				assert.Empty(t, started, "%d tasks still run, MAX_QUEUE_READERS 1", len(ids)-1-i)
				assert.Len(t, w.activations, n, "%d tasks still run, MAX_QUEUE_READERS 1", len(ids)-1-i)
			} else {
				assert.Len(t, started, 1, "below MAX_QUEUE_READERS again: the exit of all tasks starts one (ACT-3)")
			}
		}
		assert.Len(t, w.running(), 1)
		w.checkINV8(instA)
	})

	t.Run("a new procedure changes neither running tasks nor activation status", func(t *testing.T) {
		w, _ := setup(t, 3)
		require.Len(t, w.running(), 2)
		s := w.task(w.lastStarted())
		assert.Len(t, s.mustReceive("LocalTargetQueue", 0), 1)
		s.commit()
		w.instant()
		before := w.broker().ActivatedTasks()
		started, err := w.alterActivation(ActivationChange{Procedure: ptr("dbo.ReadRequestsV2")})
		require.NoError(t, err)
		assert.Empty(t, started, "nothing is ready")
		assert.Equal(t, before, w.broker().ActivatedTasks(), "running tasks keep the procedure they run")
		started = w.input(func() { w.arrive("c", 1) })
		assert.Empty(t, started, "tasks run: the next starts on the tick (G-5)")
		n := len(w.activations)
		w.runUntil((w.now/MonitorTick + 1) * MonitorTick)
		started = w.activations[n:]
		require.Len(t, started, 1, "activation is still ON")
		assert.Equal(t, "dbo.ReadRequestsV2", started[0].Procedure, "a new task runs the new procedure")
		assert.Equal(t, append(before, ActivatedTask{Task: started[0].Task, Queue: w.q, Procedure: "dbo.ReadRequestsV2", Started: w.now}),
			w.broker().ActivatedTasks())
	})

	t.Run("a new procedure does not turn activation on", func(t *testing.T) {
		w := newActWorld(t, activatedQueue(false, 3))
		w.arrive("a", 1)
		started, err := w.alterActivation(ActivationChange{Procedure: ptr("dbo.ReadRequestsV2")})
		require.NoError(t, err)
		assert.Empty(t, started)
		w.runUntil(time.Minute)
		assert.Empty(t, w.starts())
	})

	t.Run("MAX_QUEUE_READERS out of range", func(t *testing.T) {
		for _, max := range []int{-1, MaxQueueReadersLimit + 1} {
			w, t1 := setup(t, 1)
			started, err := w.alterActivation(ActivationChange{MaxQueueReaders: ptr(max), Procedure: ptr("dbo.Other")})
			assert.Error(t, err, "MAX_QUEUE_READERS %d", max)
			assert.Empty(t, started)
			started = w.exit(t1)
			require.Len(t, started, 1, "MAX_QUEUE_READERS %d: the statement changed nothing", max)
			assert.Equal(t, readerProcedure, started[0].Procedure, "MAX_QUEUE_READERS %d: the statement changed nothing", max)
		}
	})

	t.Run("STATUS ON needs a procedure", func(t *testing.T) {
		w := newActWorld(t)
		w.arrive("a", 1)
		started, err := w.alterActivation(ActivationChange{Status: ptr(true), MaxQueueReaders: ptr(1)})
		assert.Error(t, err, "ACTIVATION (STATUS = ON) with no PROCEDURE_NAME")
		assert.Empty(t, started)
	})
}

// Reference: spec ACT-3: besides its tick, a monitor evaluates when a transaction that
// received from the queue rolls back, when ALTER QUEUE runs, and when the last task it
// started exits. Each case starts a task between ticks.
func TestACT3_EventsThatTriggerAnEvaluation(t *testing.T) {
	const at = 2500 * time.Millisecond // between ticks

	t.Run("rollback of a RECEIVE", func(t *testing.T) {
		w := newActWorld(t, activatedQueue(true, 2))
		w.arrive("a", 1)
		s := w.task(w.lastStarted())
		_, started, err := w.receiveIn(s, ReceiveOptions{})
		require.NoError(t, err)
		require.Empty(t, started, "no message left")
		w.runUntil(at)
		started = w.input(func() { require.NoError(t, s.tx.Rollback(w.now)) })
		assert.Empty(t, started, "the message is back, nobody waits, but a task runs: the tick starts the next (G-5)")
		w.runUntil(MonitorTick)
		assert.Equal(t, []time.Duration{0, MonitorTick}, w.startTimes())
	})

	t.Run("ALTER QUEUE STATUS", func(t *testing.T) {
		in := txInstances(Queue{Name: "TargetQueue", Status: QueueOff,
			Activation: Activation{Status: true, Procedure: readerProcedure, MaxQueueReaders: 2}})
		w := newActWorldOf(t, in)
		w.dialog("a", "Initiator", "Target", 3) // remote arrivals wait in B's transmission queue (G-18)
		w.runUntil(at)
		require.Empty(t, w.records(instB, TraceTaskStarted), "no activation while the queue is OFF")
		b := w.brokers[instB]
		tq := w.queue("TargetQueue")
		require.Zero(t, b.ReadyMessages(tq))
		require.Len(t, b.TransmissionQueue(), 3)
		started := w.inputOn(instB, func() { require.NoError(t, b.AlterQueueStatus(w.now, tq, QueueOn)) })
		assert.Len(t, started, 1)
		assert.Equal(t, 3, b.ReadyMessages(tq))
	})

	t.Run("exit of all tasks", func(t *testing.T) {
		w := newActWorld(t, activatedQueue(true, 1))
		w.arrive("a", 1)
		t1 := w.lastStarted()
		s := w.task(t1)
		assert.Len(t, s.mustReceive("LocalTargetQueue", 0), 1)
		w.runUntil(time.Second)
		w.arrive("b", 1) // MAX_QUEUE_READERS 1: it waits
		s.commit()
		w.runUntil(at)
		require.Len(t, w.starts(), 1)
		assert.Len(t, w.exit(t1), 1, "the last task exited, b is ready")
		assert.Equal(t, []time.Duration{0, at}, w.startTimes())
	})
}

// Reference: spec G-2 and ACT-3: monitors evaluate on every tick while messages wait. A
// rollback that makes messages ready again, inside G-3's window, starts nothing at once;
// a later tick does.
func TestG2_TicksGoOnAfterARollbackMakesMessagesReady(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 2))
	w.arrive("a", 1)
	t1 := w.lastStarted()
	w.runUntil(time.Second)
	other := w.beginTx()
	assert.Len(t, other.mustReceive("LocalTargetQueue", 0), 1)
	w.runUntil(2 * time.Second)
	s := w.task(t1)
	assert.Empty(t, s.mustReceive("LocalTargetQueue", 0))
	s.commit()
	w.exit(t1)
	w.runUntil(6 * time.Second) // the tick at 5 s finds nothing ready
	assert.Empty(t, other.mustReceive("LocalTargetQueue", 0))
	w.runUntil(7 * time.Second)
	started := w.input(func() { require.NoError(t, other.tx.Rollback(w.now)) })
	assert.Empty(t, started, "an empty RECEIVE 1 s ago (G-3)")
	w.runUntil(time.Minute)
	assert.Equal(t, []time.Duration{0, 15 * time.Second}, w.startTimes(), "the first tick out of the window starts a task")
}

// Reference: spec ACT-10 and G-6: a task that exits without a RECEIVE on its queue, or runs
// ActivatedTaskDeadline (10 s) without one, has failed: the monitor starts nothing more for
// the queue until an ALTER QUEUE or a RECEIVE that returns messages in another session.
func TestACT10_G6_FailedTasksStopActivation(t *testing.T) {
	exitsWithoutReceive := func(w *actWorld) TaskID {
		t2 := w.lastStarted()
		w.runUntil(2 * time.Second)
		w.exit(t2)
		return t2
	}
	noReceiveInTime := func(w *actWorld) TaskID {
		t2 := w.lastStarted()
		w.runUntil(time.Second + ActivatedTaskDeadline - time.Nanosecond)
		require.False(w.t, w.monitor().Failed, "not yet")
		w.runUntil(time.Second + ActivatedTaskDeadline)
		require.True(w.t, w.monitor().Failed, "ten seconds without a RECEIVE")
		// A late RECEIVE by the failed task itself does not lift the failure.
		s := w.task(t2)
		assert.Equal(w.t, []string{"b:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
		w.instant()
		assert.True(w.t, w.monitor().Failed)
		s.rollback()
		w.exit(t2)
		return t2
	}
	recoveries := []struct {
		name    string
		recover func(w *actWorld) []ActivationStart
	}{
		{"ALTER QUEUE ACTIVATION", func(w *actWorld) []ActivationStart {
			return must(w.alterActivation(ActivationChange{MaxQueueReaders: ptr(2)}))
		}},
		{"ALTER QUEUE STATUS", func(w *actWorld) []ActivationStart {
			return w.input(func() { require.NoError(w.t, w.broker().AlterQueueStatus(w.now, w.q, QueueOn)) })
		}},
		{"RECEIVE by another session", func(w *actWorld) []ActivationStart {
			s := w.beginTx()
			rows, started, err := w.receiveIn(s, ReceiveOptions{})
			require.NoError(w.t, err)
			assert.Equal(w.t, []string{"b:Request#0"}, rows)
			s.commit()
			return started
		}},
	}
	for _, f := range []struct {
		name string
		fail func(w *actWorld) TaskID
	}{{"exits without RECEIVE", exitsWithoutReceive}, {"no RECEIVE within 10 s", noReceiveInTime}} {
		for _, r := range recoveries {
			t.Run(f.name+", then "+r.name, func(t *testing.T) {
				w := newActWorld(t, activatedQueue(true, 2))
				_, e := w.arrive("e", 1) // served by a task that works
				t1 := w.lastStarted()
				s := w.task(t1)
				assert.Len(t, s.mustReceive("LocalTargetQueue", 0), 1)
				s.commit()
				w.exit(t1)
				w.runUntil(time.Second)
				w.arrive("b", 1)
				w.arrive("c", 1)
				require.Len(t, w.starts(), 2, "b arrived on an empty queue")
				failed := f.fail(w)
				m := w.monitor()
				require.True(t, m.Failed)
				require.Equal(t, 0, m.Running)
				require.Len(t, w.records(instA, TraceActivationFailed), 1)
				assert.Equal(t, failed, w.records(instA, TraceActivationFailed)[0].Task)

				// Another session's RECEIVE WHERE finds nothing: the monitor leaves NOTIFIED,
				// G-3 does not count it, the failure stays.
				other := w.beginTx()
				assert.Empty(t, w.rows(must(other.receive("LocalTargetQueue", ReceiveOptions{Handle: e}))))
				other.commit()
				w.instant()
				assert.Equal(t, MonitorReceivesOccurring, w.monitor().State)
				w.runUntil(w.now + time.Minute)
				assert.Len(t, w.starts(), 2, "a failed monitor starts nothing")

				started := r.recover(w)
				assert.False(t, w.monitor().Failed)
				assert.Len(t, started, 1, "activation is back")
			})
		}
	}
}

// Reference: spec ACT-14 and DLG-14: a DialogTimer arriving on an empty queue is a message
// arrival: it starts the activation procedure.
func TestACT14_DialogTimerActivates(t *testing.T) {
	w := newActWorld(t, Queue{Name: "InitiatorQueue", Activation: Activation{Status: true, Procedure: readerProcedure, MaxQueueReaders: 1}})
	h, _ := w.arrive("a", 1)
	s := w.beginTx()
	require.NoError(t, s.timer(h, 3*time.Second))
	s.commit()
	iq := w.queue("InitiatorQueue")
	w.runUntil(3*time.Second - time.Nanosecond)
	assert.Empty(t, w.starts())
	w.runUntil(3 * time.Second)
	require.Len(t, w.starts(), 1)
	assert.Equal(t, iq, w.starts()[0].Queue)
	assert.Equal(t, 3*time.Second, w.starts()[0].At)
	assert.Equal(t, uint8(reasonArrivalOnEmpty), w.starts()[0].Cause, "ACT-4(a)")
	ts := w.task(w.lastStarted())
	rows, err := ts.receive("InitiatorQueue", ReceiveOptions{})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, DialogTimerMessageType, rows[0].MessageType)
	ts.commit()
}

// notificationInstances is the transaction catalog with a QUEUE_ACTIVATION event
// notification on LocalTargetQueue (instance A) to the service Handler on instance
// handlerOn, whose queue HandlerQueue accepts PostEventNotification.
func notificationInstances(handlerOn InstanceID) []Instance {
	in := txInstances()
	db := &in[handlerOn].Databases[0]
	db.Queues = append(db.Queues, Queue{Name: "HandlerQueue"})
	db.Services = append(db.Services, Service{Name: "Handler", Queue: "HandlerQueue", Contracts: []string{ContractPostEventNotification}})
	a := &in[instA].Databases[0]
	a.EventNotifications = []EventNotification{{Name: "ActivateReaders", Queue: "LocalTargetQueue", Service: "Handler"}}
	return in
}

// Reference: spec ACT-11, ACT-12, G-4 and G-30: with CREATE EVENT NOTIFICATION ... ON QUEUE
// FOR QUEUE_ACTIVATION TO SERVICE, an arrival sends one QUEUE_ACTIVATION message to the
// service, on a dialog on PostEventNotification, wherever the service is. None follows
// within NotificationTimeout (60 s) unless a RECEIVE runs on the monitored queue; after it,
// another comes if activation is still necessary. When the service ends the dialog, the
// notification is dropped.
func TestACT11_ACT12_QueueActivationEventNotification(t *testing.T) {
	for _, handlerOn := range []InstanceID{instA, instB} {
		t.Run(fmt.Sprintf("service on instance %d", handlerOn), func(t *testing.T) {
			w := newActWorldOf(t, notificationInstances(handlerOn))
			var got []ReceivedMessage
			// take receives what reached the service's queue and returns how many
			// QUEUE_ACTIVATION messages came in all.
			take := func() int {
				msgs, err := w.receiveAll("HandlerQueue")
				require.NoError(t, err)
				for _, m := range msgs {
					assert.Equal(t, EventNotificationMessageType, m.MessageType, "t=%v", w.now)
					assert.Equal(t, PostEventNotificationContract, m.Contract)
					assert.Equal(t, w.service("Handler"), m.Service)
					got = append(got, m)
				}
				return len(got)
			}

			w.arrive("a", 1)
			m := w.monitor()
			assert.Equal(t, MonitorNotified, m.State)
			assert.Equal(t, int64(1), m.NotifiesSent)
			w.runUntil(time.Second)
			assert.Equal(t, 1, take(), "one QUEUE_ACTIVATION")
			assert.Empty(t, w.starts(), "no internal activation")

			w.runUntil(2 * time.Second)
			w.arrive("b", 1)
			w.runUntil(NotificationTimeout - time.Nanosecond)
			assert.Equal(t, 1, take(), "nothing more within the time-out")
			assert.Equal(t, MonitorNotified, w.monitor().State)

			w.runUntil(NotificationTimeout + time.Second)
			assert.Equal(t, 2, take(), "the time-out ended, messages still wait: a new notification")
			assert.Equal(t, NotificationTimeout, w.monitor().LastActivatedTime)

			// A RECEIVE on the monitored queue reopens the window: b is still unread.
			w.runUntil(70 * time.Second)
			s := w.beginTx()
			assert.Equal(t, []string{"a:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
			s.commit()
			w.runUntil(71 * time.Second)
			assert.Equal(t, 3, take(), "a RECEIVE ran, activation still necessary")
			w.runUntil(100 * time.Second)
			assert.Equal(t, 3, take())
			assert.Len(t, w.records(instA, TraceNotificationSent), 3)
			assert.Equal(t, int64(3), w.monitor().NotifiesSent)

			// One dialog carries them all.
			conv := got[0].ConversationID
			for _, m := range got[1:] {
				assert.Equal(t, got[0].ConversationHandle, m.ConversationHandle)
			}
			// The service ends the dialog: the notification is dropped.
			require.NoError(t, w.end(handlerOn, got[0].ConversationHandle, EndOptions{}))
			w.runUntil(101 * time.Second)
			assert.Len(t, w.records(instA, TraceNotificationDropped), 1)
			w.arrive("c", 1)
			s = w.beginTx()
			assert.Equal(t, []string{"b:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
			s.commit()
			w.runUntil(10 * time.Minute)
			assert.Equal(t, 3, take(), "the notification is dropped: no more messages")
			assert.Equal(t, int64(3), w.monitor().NotifiesSent)
			for i := range w.brokers {
				for _, side := range []bool{true, false} {
					if ep, ok := w.endpointOf(InstanceID(i), conv, side); ok {
						assert.Equal(t, Closed, ep.State, "instance %d: the notification's dialog is over (initiator %v)", i, side)
					}
				}
			}
		})
	}
}

// Reference: spec ACT-13 (sys.dm_broker_queue_monitors.tasks_waiting): every session waiting
// in RECEIVE on the queue counts, activated or not, with WHERE or not, waiting for messages
// or for the lock of the group its WHERE names.
func TestACT13_TasksWaitingCountsEveryWaitingSession(t *testing.T) {
	w := newActWorld(t, activatedQueue(true, 1))
	_, a := w.arrive("a", 1)
	t1 := w.lastStarted()
	s := w.task(t1)
	assert.Len(t, s.mustReceive("LocalTargetQueue", 0), 1)
	s.commit()
	assert.Equal(t, 0, w.monitor().TasksWaiting)

	wait := ReceiveOptions{WaitFor: true, Timeout: -1}
	task := w.task(t1) // activated, without WHERE
	_, err := task.receive("LocalTargetQueue", wait)
	require.ErrorIs(t, err, ErrWaiting)
	plain := w.beginTx() // not activated
	_, err = plain.receive("LocalTargetQueue", wait)
	require.ErrorIs(t, err, ErrWaiting)
	where := w.beginTx() // WHERE conversation_handle: holds a's group, waits for messages
	_, err = where.receive("LocalTargetQueue", ReceiveOptions{Handle: a, WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	locked := w.beginTx() // WHERE conversation_handle: waits for a's group
	_, err = locked.receive("LocalTargetQueue", ReceiveOptions{Handle: a})
	require.ErrorIs(t, err, ErrWaiting)
	other := w.beginTx() // RECEIVE on another queue
	_, err = other.receive("InitiatorQueue", wait)
	require.ErrorIs(t, err, ErrWaiting)
	assert.Equal(t, 4, w.monitor().TasksWaiting)

	w.arrive("b", 1)
	assert.Equal(t, []TxID{task.id()}, w.takeCompleted(), "first come, first served")
	assert.Equal(t, 3, w.monitor().TasksWaiting)
	where.rollback()
	assert.Equal(t, []TxID{locked.id()}, w.takeCompleted(), "the lock is free: a has nothing")
	assert.Equal(t, 1, w.monitor().TasksWaiting)
	plain.rollback()
	assert.Equal(t, 0, w.monitor().TasksWaiting)
	other.rollback()
	task.commit()
}

// Reference: spec ENT-4 (ACTIVATION, MAX_QUEUE_READERS 0..32767) and ACT-11 (CREATE EVENT
// NOTIFICATION ... ON QUEUE ... TO SERVICE, contract PostEventNotification): Compile refuses
// what SQL Server refuses, and names the object at fault.
func TestENT4_ACT11_CatalogErrors(t *testing.T) {
	withQueue := func(q Queue) []Instance { return txInstances(q) }
	withNotification := func(n EventNotification, handlerContracts ...string) []Instance {
		in := txInstances()
		b := &in[instB].Databases[0]
		b.Queues = append(b.Queues, Queue{Name: "HandlerQueue"})
		b.Services = append(b.Services, Service{Name: "Handler", Queue: "HandlerQueue", Contracts: handlerContracts})
		in[instA].Databases[0].EventNotifications = []EventNotification{n}
		return in
	}
	post := ContractPostEventNotification
	tests := []struct {
		name      string
		instances []Instance
		err       string // a part of the error; empty for none
	}{
		{"STATUS ON without procedure", withQueue(Queue{Name: "LocalTargetQueue", Activation: Activation{Status: true, MaxQueueReaders: 1}}),
			`queue "LocalTargetQueue": ACTIVATION (STATUS = ON) needs a PROCEDURE_NAME`},
		{"STATUS OFF without procedure", withQueue(Queue{Name: "LocalTargetQueue", Activation: Activation{MaxQueueReaders: 1}}), ""},
		{"MAX_QUEUE_READERS -1", withQueue(Queue{Name: "LocalTargetQueue", Activation: Activation{Status: true, Procedure: "p", MaxQueueReaders: -1}}),
			`queue "LocalTargetQueue": MAX_QUEUE_READERS -1 is outside 0..32767`},
		{"MAX_QUEUE_READERS 32768", withQueue(Queue{Name: "LocalTargetQueue", Activation: Activation{Status: true, Procedure: "p", MaxQueueReaders: 32768}}),
			"MAX_QUEUE_READERS 32768 is outside 0..32767"},
		{"MAX_QUEUE_READERS 32767", withQueue(Queue{Name: "LocalTargetQueue", Activation: Activation{Status: true, Procedure: "p", MaxQueueReaders: 32767}}), ""},
		{"notification", withNotification(EventNotification{Name: "n", Queue: "LocalTargetQueue", Service: "Handler"}, post), ""},
		{"notification on an unknown queue", withNotification(EventNotification{Name: "n", Queue: "NoQueue", Service: "Handler"}, post),
			`event notification "n": queue "NoQueue" does not exist in the database`},
		{"notification on another database's queue", withNotification(EventNotification{Name: "n", Queue: "TargetQueue", Service: "Handler"}, post),
			`queue "TargetQueue" does not exist in the database`},
		{"notification to an unknown service", withNotification(EventNotification{Name: "n", Queue: "LocalTargetQueue", Service: "NoService"}, post),
			`event notification "n": service "NoService" does not exist`},
		{"service without PostEventNotification", withNotification(EventNotification{Name: "n", Queue: "LocalTargetQueue", Service: "Handler"}, ContractDefault),
			`service "Handler" does not accept the contract ` + post},
		{"notification without a name", withNotification(EventNotification{Queue: "LocalTargetQueue", Service: "Handler"}, post), "no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.instances)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.Contains(t, err.Error(), `instance "A": database "dbA"`)
		})
	}
}
