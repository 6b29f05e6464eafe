package model

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Activation is a queue's ACTIVATION clause (ACT-6, ACT-7): with Status ON, the queue's
// monitor starts instances of Procedure, at most MaxQueueReaders at a time. The sim does
// not run procedures: Procedure names the reader program the world runs for a task.
type Activation struct {
	Status          bool
	Procedure       string
	MaxQueueReaders int
}

// EventNotification is CREATE EVENT NOTIFICATION Name ON QUEUE Queue FOR QUEUE_ACTIVATION
// TO SERVICE Service (ACT-11): instead of starting a procedure, the queue's monitor sends a
// QUEUE_ACTIVATION message to the service, which may be on any instance.
type EventNotification struct {
	Name    string
	Queue   string
	Service string
}

// TaskID identifies an activated task (sys.dm_broker_activated_tasks.spid) on one instance.
type TaskID uint64

// MonitorState is a queue monitor's state (ACT-13, G-4).
type MonitorState uint8

const (
	// MonitorInactive: the queue has no ready message.
	MonitorInactive MonitorState = iota
	// MonitorNotified: a task was started or a notification sent, and no RECEIVE has run
	// on the queue since: nothing more is started or sent.
	MonitorNotified
	// MonitorReceivesOccurring: RECEIVEs have run on the queue since the last activation.
	MonitorReceivesOccurring
)

var monitorStateNames = [...]string{"INACTIVE", "NOTIFIED", "RECEIVES_OCCURRING"}

func (s MonitorState) String() string {
	if int(s) < len(monitorStateNames) {
		return monitorStateNames[s]
	}
	return fmt.Sprintf("MonitorState(%d)", int(s))
}

// Activation timing (G-2, G-3, G-4, G-6).
const (
	MonitorTick           = 5 * time.Second  // the broker tick on which monitors evaluate (G-2)
	EmptyReceiveWindow    = 5 * time.Second  // "a few seconds" since an empty RECEIVE (G-3)
	NotificationTimeout   = 60 * time.Second // no new QUEUE_ACTIVATION before it (G-4, ACT-12)
	ActivatedTaskDeadline = 10 * time.Second // an activated task must RECEIVE by then (G-6)
)

// monitor is a queue monitor (ACT-1, ACT-2): what it knows of its queue, the tasks it
// started, and its state.
type monitor struct {
	q          *serviceQueue
	activation Activation
	// notifications are the QUEUE_ACTIVATION event notifications on the queue.
	notifications []*notification
	state         MonitorState
	// lastEmpty is when a RECEIVE without WHERE or a GET CONVERSATION GROUP on the queue
	// last returned nothing; emptySeen says whether one ever did (G-3).
	lastEmpty     time.Duration
	emptySeen     bool
	lastActivated time.Duration
	// tasks are the tasks this monitor started and that have not exited (G-32).
	tasks []*task
	// failed is set when a task exited or ran ActivatedTaskDeadline without receiving;
	// nothing is started until ALTER QUEUE or a RECEIVE by another session (G-6).
	failed bool
	// notifyAfter is when the current notification's time-out ends (ACT-12, G-4).
	notifyAfter time.Duration
	// notifiedByNotification says the NOTIFIED state came from a notification, which ends
	// with its time-out, rather than from a task start.
	notifiedByNotification bool
	// evalArmed is set while an evaluation is due for an ACT-3 event; evalArrival says one
	// of the events was an arrival on a queue with nothing unread.
	evalArmed, evalArrival bool
	// evalAltered says an ALTER QUEUE asked for the evaluation due: it may start a task
	// while others run, as a tick may (ACT-7, G-5).
	evalAltered bool
	started     int64 // tasks started, ever
	sent        int64 // notifications sent, ever
}

// task is an activated task: one running instance of the queue's procedure.
type task struct {
	id TaskID
	m  *monitor
	// procedure is the procedure the task runs: ALTER QUEUE changes only later starts (ACT-7).
	procedure string
	started   time.Duration
	received  bool // it has run a RECEIVE or GET CONVERSATION GROUP on its queue
	exited    bool
}

// ActivationStart asks the world to run the procedure of Queue as task Task (ACT-6).
type ActivationStart struct {
	Queue     QueueID
	Task      TaskID
	Procedure string
}

// monitorFor creates the monitor of a queue that has activation or an event notification.
func (b *Broker) monitorFor(q *serviceQueue) *monitor {
	if q.monitor == nil {
		q.monitor = &monitor{q: q}
		b.monitors = append(b.monitors, q.monitor)
	}
	return q.monitor
}

// running counts the tasks the monitor started that have not exited (G-32).
func (m *monitor) running() int { return len(m.tasks) }

// waitingSessions counts the sessions waiting in RECEIVE without WHERE or in GET
// CONVERSATION GROUP on the queue (ACT-4b).
func (m *monitor) waitingSessions() int {
	n := 0
	for _, t := range m.q.waiters {
		if st := t.wait.stmt; st.kind == stmtGetGroup || (st.handle == 0 && st.group == 0) {
			n++
		}
	}
	return n
}

// tasksWaiting counts every session waiting in RECEIVE or GET CONVERSATION GROUP on the
// queue, activated or not, WHERE or not, for messages or for the lock of the group its
// WHERE names (ACT-13's tasks_waiting). The order of the map does not matter to a count.
func (b *Broker) tasksWaiting(q *serviceQueue) int {
	n := 0
	for _, t := range b.waiting {
		if w := t.wait; w != nil && (w.queue == q || w.lock != nil && w.lock.queue == q && w.stmt.kind == stmtReceive) {
			n++
		}
	}
	return n
}

// necessary is ACT-4: (a) a message arrived on a queue that had no unread message and no
// task running, and is still unread when the monitor evaluates (a session waiting in
// RECEIVE may have taken it in the same instant: a new reader would find nothing); or (b) the queue has unread messages, no session waits in RECEIVE without
// WHERE or GET CONVERSATION GROUP, and none of those returned nothing in the last
// EmptyReceiveWindow (G-3).
func (m *monitor) necessary(now time.Duration, arrivalOnEmpty bool) (bool, activationReason) {
	switch {
	case arrivalOnEmpty && m.running() == 0 && m.q.ready > 0:
		return true, reasonArrivalOnEmpty
	case m.q.ready == 0:
		return false, 0
	case m.waitingSessions() > 0:
		return false, reasonSessionWaits
	case m.emptySeen && now-m.lastEmpty < EmptyReceiveWindow:
		return false, reasonRecentlyEmpty
	}
	return true, reasonUnread
}

type activationReason uint8

const (
	reasonArrivalOnEmpty activationReason = iota + 1 // ACT-4(a)
	reasonUnread                                     // ACT-4(b)
	// Why activation is not necessary while messages are unread: a session waits for
	// them (ACT-5), or a RECEIVE found nothing a moment ago (G-3).
	reasonSessionWaits
	reasonRecentlyEmpty
)

// activationMarks is the mark of each reason.
var activationMarks = [...]Mark{reasonArrivalOnEmpty: MarkActivationArrivalOnEmpty, reasonUnread: MarkActivationUnread,
	reasonSessionWaits: MarkActivationSessionWaits, reasonRecentlyEmpty: MarkActivationRecentlyEmpty}

// evaluate is one evaluation of the monitor (ACT-3): on its tick and on each ACT-3 event.
// arrivalOnEmpty says a message has just arrived on a queue that had none unread; ramp says
// the evaluation is a tick or follows an ALTER QUEUE. While tasks run, only those start
// one more (G-5): readers ramp up one per tick, as measured on servers, while a message on
// an idle queue still starts its first reader at once (ACT-4a).
func (b *Broker) evaluate(now time.Duration, m *monitor, arrivalOnEmpty, ramp bool) {
	q := m.q
	switch {
	case m.state == MonitorNotified && m.notifiedByNotification && now >= m.notifyAfter:
		m.state = MonitorReceivesOccurring // the notification's time-out ran out (ACT-12, G-4)
		fallthrough
	case m.state != MonitorNotified:
		if q.ready == 0 {
			m.state = MonitorInactive
		} else if m.state == MonitorInactive {
			m.state = MonitorReceivesOccurring // messages ready: not INACTIVE (G-4)
		}
	}
	if q.status != QueueOn || m.state == MonitorNotified {
		return // no activation while the queue is OFF (G-18), nor while NOTIFIED (G-4)
	}
	need, reason := m.necessary(now, arrivalOnEmpty)
	if !need {
		if reason != 0 {
			b.marks[activationMarks[reason]]++
		}
		return
	}
	if m.activation.Status && !m.failed && (m.running() < m.activation.MaxQueueReaders ||
		b.cfg.Defects&DefectActivateBeyondMax != 0 && m.running() == m.activation.MaxQueueReaders) {
		if reason == reasonUnread && m.running() > 0 && !ramp {
			return // with tasks running, one more starts only on a tick or an ALTER QUEUE (G-5)
		}
		b.marks[activationMarks[reason]]++
		b.startTask(now, m, reason)
		return // one activation per evaluation (G-5)
	}
	if m.activation.Status && !m.failed {
		b.marks[MarkActivationAtMaxReaders]++
	}
	if len(m.notifications) > 0 {
		b.notify(now, m, reason)
	}
}

// startTask starts one instance of the queue's procedure (ACT-6).
func (b *Broker) startTask(now time.Duration, m *monitor, reason activationReason) {
	b.taskCounter++
	t := &task{id: TaskID(b.taskCounter), m: m, procedure: m.activation.Procedure, started: now}
	b.trace(TraceRecord{At: now, Kind: TraceTaskStarted, Queue: m.q.id, Task: t.id, Running: int32(m.running()),
		MaxReaders: int32(m.activation.MaxQueueReaders), Ready: int32(m.q.ready), Waiting: int32(m.waitingSessions()),
		SinceEmpty: m.sinceEmpty(now), Cause: uint8(reason)})
	m.tasks = append(m.tasks, t)
	b.tasks[t.id] = t
	m.state, m.notifiedByNotification = MonitorNotified, false
	m.lastActivated = now
	m.started++
	b.effects.Activations = append(b.effects.Activations, ActivationStart{Queue: m.q.id, Task: t.id, Procedure: m.activation.Procedure})
	b.timer(now+ActivatedTaskDeadline, TimerTaskDeadline, uint64(t.id))
}

// sinceEmpty is how long ago the last empty RECEIVE was, -1 for never.
func (m *monitor) sinceEmpty(now time.Duration) time.Duration {
	if !m.emptySeen {
		return -1
	}
	return now - m.lastEmpty
}

// TaskExited is the input that tells the broker an activated task has ended (ACT-8). A
// task that never received is taken as failed (ACT-10, G-6).
func (b *Broker) TaskExited(now time.Duration, id TaskID) error {
	b.checkUp("TaskExited", now)
	t := b.tasks[id]
	if t == nil {
		return fmt.Errorf("activated task %d is not running", id)
	}
	b.now = now
	t.exited = true
	delete(b.tasks, id)
	m := t.m
	m.tasks = slices.DeleteFunc(m.tasks, func(x *task) bool { return x == t })
	b.trace(TraceRecord{At: now, Kind: TraceTaskExited, Queue: m.q.id, Task: id, Running: int32(m.running())})
	if !t.received {
		b.taskFailed(now, m, id)
	}
	if m.running() == 0 {
		b.monitorEvent(now, m, false) // ACT-3: all the procedures it started have exited
	}
	b.pump(now)
	return nil
}

func (b *Broker) taskFailed(now time.Duration, m *monitor, id TaskID) {
	if !m.failed {
		m.failed = true
		b.trace(TraceRecord{At: now, Kind: TraceActivationFailed, Queue: m.q.id, Task: id})
	}
}

// taskDeadline is G-6's check of a task that has run ActivatedTaskDeadline.
func (b *Broker) taskDeadline(now time.Duration, id TaskID) {
	if t := b.tasks[id]; t != nil && !t.received {
		b.taskFailed(now, t.m, id)
	}
}

// monitorReceived notes a RECEIVE or GET CONVERSATION GROUP on a monitored queue (ACT-3),
// when it returns (rows or none) and when it starts to wait (returned false): it ends the
// NOTIFIED state, marks the task that ran it as receiving, and, when it returned nothing
// without WHERE, starts the window of G-3. A RECEIVE that returned rows
// in another session than the tasks clears a failure (G-6).
func (b *Broker) monitorReceived(now time.Duration, tx *Tx, q *serviceQueue, st *statement, returned, rows bool) {
	m := q.monitor
	if m == nil {
		return
	}
	if tx.task != 0 {
		if t := b.tasks[tx.task]; t != nil && t.m == m {
			t.received = true
		}
	}
	if returned && !rows && (st.kind == stmtGetGroup || st.handle == 0 && st.group == 0) {
		m.lastEmpty, m.emptySeen = now, true // G-3: only RECEIVE without WHERE and GET CONVERSATION GROUP
	}
	if rows && m.failed && (tx.task == 0 || b.tasks[tx.task] == nil || b.tasks[tx.task].m != m) {
		m.failed = false
	}
	if m.state == MonitorNotified || q.ready > 0 {
		m.state = MonitorReceivesOccurring // G-4: RECEIVEs run; INACTIVE only with nothing ready
	}
	b.trace(TraceRecord{At: now, Kind: TraceMonitorReceive, Queue: q.id, Tx: tx.id})
	b.monitorEvent(now, m, false)
}

// monitorEvent is an ACT-3 event on m's queue: the monitor evaluates once what the same
// instant brings is done. Like Service Broker's queue monitors, which run in the
// background, it does not judge in the middle of a session's sequence of statements:
// a reader that commits and at once RECEIVEs again is waiting again by then (ACT-5).
// arrivalOnEmpty says a message arrived on a queue that had none unread (ACT-4a).
func (b *Broker) monitorEvent(now time.Duration, m *monitor, arrivalOnEmpty bool) {
	m.evalArrival = m.evalArrival || arrivalOnEmpty
	if !m.evalArmed {
		m.evalArmed = true
		b.timer(now, TimerMonitorEvaluate, uint64(m.q.id))
	}
}

// monitorEvaluate is the evaluation monitorEvent asked for.
func (b *Broker) monitorEvaluate(now time.Duration, queue QueueID) {
	q := b.queues[queue]
	if q == nil || q.monitor == nil {
		return
	}
	m := q.monitor
	arrival, altered := m.evalArrival, m.evalAltered
	m.evalArmed, m.evalArrival, m.evalAltered = false, false, false
	b.evaluate(now, m, arrival, altered)
	b.armTick(now)
}

// monitorTick is the broker tick (G-2): every monitor evaluates. The tick stops while no
// monitored queue has a ready message, and starts again with the next arrival.
func (b *Broker) monitorTick(now time.Duration) {
	b.tickArmed = false
	for _, m := range b.monitors {
		b.evaluate(now, m, false, true)
	}
	b.armTick(now)
}

// armTick asks for the next tick when a monitored queue has ready messages, a monitor
// waits for a notification time-out, or a task runs.
func (b *Broker) armTick(now time.Duration) {
	if b.tickArmed {
		return
	}
	for _, m := range b.monitors {
		if m.q.ready > 0 || len(m.tasks) > 0 {
			b.tickArmed = true
			next := (now/MonitorTick + 1) * MonitorTick
			b.timer(next, TimerMonitorTick, 0)
			return
		}
	}
}

// ActivationChange is ALTER QUEUE ... WITH ACTIVATION (...): the fields set change.
type ActivationChange struct {
	Status          *bool
	Procedure       *string
	MaxQueueReaders *int
}

// AlterQueueActivation is ALTER QUEUE ... WITH ACTIVATION (ACT-7): OFF to ON with messages
// present activates at once; ON to OFF stops new starts, not running tasks; a higher
// MAX_QUEUE_READERS allows new starts at once; a lower one stops nothing; a new procedure
// changes neither the running tasks nor the status. Any ALTER QUEUE clears a failure (G-6).
func (b *Broker) AlterQueueActivation(now time.Duration, queue QueueID, ch ActivationChange) error {
	q, err := b.localQueue(queue)
	if err != nil {
		return err
	}
	b.checkUp("ALTER QUEUE", now)
	if ch.MaxQueueReaders != nil && (*ch.MaxQueueReaders < 0 || *ch.MaxQueueReaders > MaxQueueReadersLimit) {
		return fmt.Errorf("ALTER QUEUE %q: MAX_QUEUE_READERS %d is outside 0..%d", b.cat.Queues[queue].Name, *ch.MaxQueueReaders, MaxQueueReadersLimit)
	}
	var a Activation
	if q.monitor != nil {
		a = q.monitor.activation
	}
	if ch.Status != nil {
		a.Status = *ch.Status
	}
	if ch.Procedure != nil {
		a.Procedure = *ch.Procedure
	}
	if ch.MaxQueueReaders != nil {
		a.MaxQueueReaders = *ch.MaxQueueReaders
	}
	if a.Status && a.Procedure == "" {
		return fmt.Errorf("ALTER QUEUE %q: ACTIVATION (STATUS = ON) needs a PROCEDURE_NAME", b.cat.Queues[queue].Name)
	}
	b.now = now
	m := b.monitorFor(q)
	m.activation = a
	m.failed = false
	cleared := m.state == MonitorNotified && !m.notifiedByNotification
	if cleared {
		// ALTER QUEUE ends the NOTIFIED state a task start left, so that turning activation
		// ON or raising MAX_QUEUE_READERS starts a task at once (ACT-7); a notification's
		// time-out stays (ACT-12).
		m.state = MonitorReceivesOccurring
	}
	b.trace(TraceRecord{At: now, Kind: TraceActivationAltered, Queue: q.id, MaxReaders: int32(m.activation.MaxQueueReaders),
		Running: int32(m.running()), Cause: boolCause(cleared)})
	m.evalAltered = true
	b.monitorEvent(now, m, false)
	b.armTick(now)
	b.pump(now)
	return nil
}

// MaxQueueReadersLimit is the largest MAX_QUEUE_READERS (a smallint in SQL Server).
const MaxQueueReadersLimit = 32767

// QueueMonitor is a row of sys.dm_broker_queue_monitors (ACT-13).
type QueueMonitor struct {
	Queue                 QueueID
	State                 MonitorState
	LastEmptyRowsetTime   time.Duration // -1: never
	LastActivatedTime     time.Duration // -1: never
	TasksWaiting          int
	Running               int
	Failed                bool
	Started, NotifiesSent int64
}

// QueueMonitors returns the instance's queue monitors, by queue: those of the queues with
// ACTIVATION STATUS = ON or a QUEUE_ACTIVATION event notification (ACT-1).
func (b *Broker) QueueMonitors() []QueueMonitor {
	rows := make([]QueueMonitor, 0, len(b.monitors))
	for _, m := range b.monitors {
		if r, ok := b.monitorRow(m); ok {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(x, y QueueMonitor) int { return cmp.Compare(x.Queue, y.Queue) })
	return rows
}

// QueueMonitor returns the monitor row of one queue, when it has a monitor.
func (b *Broker) QueueMonitor(queue QueueID) (QueueMonitor, bool) {
	q, err := b.localQueue(queue)
	if err != nil || q.monitor == nil {
		return QueueMonitor{}, false
	}
	return b.monitorRow(q.monitor)
}

// monitorRow is m's row of sys.dm_broker_queue_monitors; there is none without ACTIVATION
// STATUS = ON or an event notification (ACT-1).
func (b *Broker) monitorRow(m *monitor) (QueueMonitor, bool) {
	if !m.activation.Status && len(m.notifications) == 0 {
		return QueueMonitor{}, false
	}
	r := QueueMonitor{Queue: m.q.id, State: m.state, LastEmptyRowsetTime: -1, LastActivatedTime: -1,
		TasksWaiting: b.tasksWaiting(m.q), Running: m.running(), Failed: m.failed, Started: m.started, NotifiesSent: m.sent}
	if m.emptySeen {
		r.LastEmptyRowsetTime = m.lastEmpty
	}
	if m.started > 0 || m.sent > 0 {
		r.LastActivatedTime = m.lastActivated
	}
	return r, true
}

// ActivatedTask is a row of sys.dm_broker_activated_tasks.
type ActivatedTask struct {
	Task      TaskID
	Queue     QueueID
	Procedure string
	Started   time.Duration
}

// ActivatedTasks returns the running activated tasks, by task id.
func (b *Broker) ActivatedTasks() []ActivatedTask {
	var rows []ActivatedTask
	for _, m := range b.monitors {
		for _, t := range m.tasks {
			rows = append(rows, ActivatedTask{Task: t.id, Queue: m.q.id, Procedure: t.procedure, Started: t.started})
		}
	}
	slices.SortFunc(rows, func(x, y ActivatedTask) int { return cmp.Compare(x.Task, y.Task) })
	return rows
}

// BeginTask is Begin for a statement of activated task id: its RECEIVEs tell the monitor
// that the task works (G-6).
func (b *Broker) BeginTask(now time.Duration, id TaskID) *Tx {
	t := b.Begin(now)
	t.task = id
	return t
}

// notification is a QUEUE_ACTIVATION event notification and the dialog it is sent on
// (ACT-11, G-30): begun on the first notification, from the database's event notification
// service, on the PostEventNotification contract. When the far side ends or fails that
// dialog, the notification is dropped.
type notification struct {
	name    string
	to      ServiceID
	from    ServiceID
	ep      *endpoint
	dropped bool
}

// notify sends QUEUE_ACTIVATION on each of the queue's notifications (ACT-11), then waits
// NotificationTimeout, during which it sends nothing more unless a RECEIVE runs on the
// queue (ACT-12, G-4).
func (b *Broker) notify(now time.Duration, m *monitor, reason activationReason) {
	sent := false
	for _, n := range m.notifications {
		if n.dropped {
			continue
		}
		if n.ep == nil || n.ep.deleted || !n.ep.state.canSend() {
			n.ep = b.beginDialog(now, n.from, b.cat.NameOf(n.to), PostEventNotificationContract,
				BeginDialogOptions{ToBrokerInstance: b.brokerOf(n.to)}, nil)
			n.ep.notification = n
		}
		if n.ep.state == StartedOutbound {
			b.setState(now, n.ep, Conversing)
		}
		b.queueRow(now, n.ep, EventNotificationMessageType, eventNotificationBytes, 0)
		sent = true
	}
	if !sent {
		return
	}
	b.marks[MarkNotificationSent]++
	b.trace(TraceRecord{At: now, Kind: TraceNotificationSent, Queue: m.q.id, Running: int32(m.running()),
		Ready: int32(m.q.ready), Waiting: int32(m.waitingSessions()), SinceEmpty: m.sinceEmpty(now), Cause: uint8(reason)})
	m.state, m.notifiedByNotification = MonitorNotified, true
	m.lastActivated = now
	m.notifyAfter = now + NotificationTimeout
	m.sent++
	b.timer(m.notifyAfter, TimerNotificationTimeout, uint64(m.q.id))
}

// eventNotificationBytes is the size of a QUEUE_ACTIVATION message: an XML document with
// the event's type, time, database, schema and queue names.
const eventNotificationBytes = 600

// notificationArrived handles what arrives on an event notification's dialog: the far side
// ended it or an error came, so the notification is dropped and the dialog ended (ACT-11).
func (b *Broker) notificationArrived(now time.Duration, ep *endpoint, m queuedMessage) {
	n := ep.notification
	if !n.dropped {
		n.dropped = true
		b.trace(TraceRecord{At: now, Kind: TraceNotificationDropped, Conversation: ep.conv, MessageType: m.msgType})
	}
	if ep.deleted || ep.state == Closed {
		return
	}
	// This side ends the dialog as an application does once EndDialog or Error came: from
	// DI or ER nothing is sent, the endpoint closes (G-16). enqueue runs before the arrival
	// moves the endpoint to DI or ER, so that move is made here.
	to, reason := DisconnectedInbound, ReasonRemoteEnded
	if m.msgType == ErrorMessageType {
		to, reason = Error, ReasonErrorReceived
	}
	b.setState(now, ep, to)
	b.dropRows(now, ep, reason)
	b.closeEndpoint(now, ep)
}

// timerNotificationTimeout is the end of a notification's time-out (ACT-12).
func (b *Broker) timerNotificationTimeout(now time.Duration, queue QueueID) {
	if q := b.queues[queue]; q != nil && q.monitor != nil {
		b.evaluate(now, q.monitor, false, false)
	}
}

func boolCause(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
