package invariant

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// Records of the monitor of queue qa on instance 0, with three readers at most, at a time
// given in seconds.
const (
	qa = model.QueueID(2)
	qb = model.QueueID(5)
)

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// taskStart is task's start at s seconds with running tasks before it, for cause (1:
// ACT-4a, 2: ACT-4b), on a queue with one message ready, no session waiting and no empty
// RECEIVE ever; options change the rest.
func taskStart(s float64, task model.TaskID, running int32, cause uint8, opts ...func(*model.TraceRecord)) model.TraceRecord {
	r := model.TraceRecord{At: sec(s), Kind: model.TraceTaskStarted, Queue: qa, Task: task, Running: running,
		MaxReaders: 3, Ready: 1, SinceEmpty: -1, Cause: cause}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// notification is a QUEUE_ACTIVATION sent at s seconds, like taskStart's.
func notification(s float64, cause uint8, opts ...func(*model.TraceRecord)) model.TraceRecord {
	r := taskStart(s, 0, 0, cause, opts...)
	r.Kind, r.MaxReaders = model.TraceNotificationSent, 0
	return r
}

func taskExit(s float64, task model.TaskID, left int32) model.TraceRecord {
	return model.TraceRecord{At: sec(s), Kind: model.TraceTaskExited, Queue: qa, Task: task, Running: left}
}

// monitorReceive is a RECEIVE on qa at s seconds, in transaction 40.
func monitorReceive(s float64, opts ...func(*model.TraceRecord)) model.TraceRecord {
	r := model.TraceRecord{At: sec(s), Kind: model.TraceMonitorReceive, Queue: qa, Tx: 40}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func readyMessages(n int32) func(*model.TraceRecord) {
	return func(r *model.TraceRecord) { r.Ready = n }
}
func waitingSessions(n int32) func(*model.TraceRecord) {
	return func(r *model.TraceRecord) { r.Waiting = n }
}
func sinceEmpty(s float64) func(*model.TraceRecord) {
	return func(r *model.TraceRecord) { r.SinceEmpty = sec(s) }
}
func maxReaders(n int32) func(*model.TraceRecord) {
	return func(r *model.TraceRecord) { r.MaxReaders = n }
}
func queue(q model.QueueID) func(*model.TraceRecord) {
	return func(r *model.TraceRecord) { r.Queue = q }
}
func instance(i model.InstanceID) func(*model.TraceRecord) {
	return func(r *model.TraceRecord) { r.Instance = i }
}

// TestCheckerFlagsBrokenActivationRules checks the checks of queue monitors: each broken
// history is flagged with its rule at the record that broke it, and legal ones (a ramp-up
// to MAX_QUEUE_READERS, one start per RECEIVE, ACT-4b once the empty-RECEIVE window is
// over, notifications after their time-out or after a RECEIVE) pass.
// Reference: spec INV-8, INV-9, ACT-4, ACT-5, ACT-6, ACT-12, G-3, G-4, G-5, G-32.
func TestCheckerFlagsBrokenActivationRules(t *testing.T) {
	tests := []struct {
		name     string
		records  []model.TraceRecord
		wantRule string // "" when every invariant holds
	}{
		{"ramp-up to MAX_QUEUE_READERS, one start per RECEIVE, then exits and a start again", []model.TraceRecord{
			taskStart(0, 1, 0, 1), monitorReceive(0.1), taskStart(0.1, 2, 1, 2, readyMessages(4)),
			monitorReceive(0.2), taskStart(0.2, 3, 2, 2, readyMessages(3)), monitorReceive(0.3),
			taskExit(9, 2, 2), taskExit(9, 1, 1), taskStart(10, 4, 1, 2), monitorReceive(10.1),
			taskExit(20, 3, 1), taskExit(20, 4, 0), taskStart(30, 5, 0, 1)}, ""},
		{"ACT-4b once the empty-RECEIVE window is over (G-3)", []model.TraceRecord{
			taskStart(0, 1, 0, 2, sinceEmpty(5))}, ""},
		{"ACT-4b when no RECEIVE ever returned nothing", []model.TraceRecord{taskStart(0, 1, 0, 2, sinceEmpty(-1e-9))}, ""},
		{"ACT-4a ignores waiting sessions and the empty-RECEIVE window", []model.TraceRecord{
			taskStart(0, 1, 0, 1, waitingSessions(2), sinceEmpty(1))}, ""},
		{"a notification after the time-out of the last one", []model.TraceRecord{notification(0, 1),
			notification(60, 2)}, ""},
		{"a notification after a RECEIVE on the queue", []model.TraceRecord{notification(0, 1), monitorReceive(10),
			notification(10, 2)}, ""},
		{"a task start after a notification's time-out ran out", []model.TraceRecord{notification(0, 1),
			taskStart(60, 1, 0, 2)}, ""},
		{"a notification after a start and a RECEIVE", []model.TraceRecord{taskStart(0, 1, 0, 1), monitorReceive(1),
			notification(1, 2, func(r *model.TraceRecord) { r.Running = 1 })}, ""},
		{"task starts are counted per queue and per instance", []model.TraceRecord{taskStart(0, 1, 0, 1, maxReaders(1)),
			taskStart(0, 2, 0, 1, queue(qb), maxReaders(1)), taskStart(0, 1, 0, 1, instance(1), maxReaders(1))}, ""},
		{"notification time-outs are per queue and per instance", []model.TraceRecord{notification(1, 1),
			notification(1, 1, queue(qb)), notification(1, 1, instance(1))}, ""},

		{"INV-8: a start with MAX_QUEUE_READERS running", []model.TraceRecord{
			taskStart(0, 1, 0, 1, maxReaders(2)), monitorReceive(0.1), taskStart(0.1, 2, 1, 2, maxReaders(2)),
			monitorReceive(0.2), taskStart(0.2, 3, 2, 2, maxReaders(2))}, "INV-8"},
		{"INV-8: a start with MAX_QUEUE_READERS 0", []model.TraceRecord{taskStart(0, 1, 0, 1, maxReaders(0))}, "INV-8"},
		{"INV-8: counted from the starts and exits, not from the record", []model.TraceRecord{
			taskStart(0, 1, 0, 1), monitorReceive(0.1), taskStart(0.1, 2, 1, 2), monitorReceive(0.2),
			taskStart(0.2, 3, 2, 2), monitorReceive(0.3), taskStart(0.3, 4, 1, 2)}, "INV-8"},
		{"INV-8: MAX_QUEUE_READERS lowered below the tasks running", []model.TraceRecord{
			taskStart(0, 1, 0, 1), monitorReceive(0.1), taskStart(0.1, 2, 1, 2), monitorReceive(0.2),
			taskExit(1, 1, 1), taskStart(1, 3, 1, 2, maxReaders(1))}, "INV-8"},

		{"G-32: the monitor counts a task that exited", []model.TraceRecord{taskStart(0, 1, 0, 1), monitorReceive(0.1),
			taskExit(1, 1, 0), taskStart(1, 2, 1, 2)}, "G-32"},
		{"G-32: the monitor misses a running task", []model.TraceRecord{taskStart(0, 1, 0, 1), monitorReceive(0.1),
			taskStart(0.1, 2, 0, 2)}, "G-32"},
		{"G-32: a task that never started exits", []model.TraceRecord{taskStart(0, 1, 0, 1), taskExit(1, 2, 0)}, "G-32"},
		{"G-32: a task exits twice", []model.TraceRecord{taskStart(0, 1, 0, 1), taskExit(1, 1, 0),
			taskExit(2, 1, 0)}, "G-32"},
		{"G-32: a task exits from another queue", []model.TraceRecord{taskStart(0, 1, 0, 1),
			onQueue(taskExit(1, 1, 0), qb)}, "G-32"},
		{"G-32: the count left after an exit is wrong", []model.TraceRecord{taskStart(0, 1, 0, 1), monitorReceive(0.1),
			taskStart(0.1, 2, 1, 2), taskExit(1, 1, 0)}, "G-32"},
		{"G-32: a task started twice", []model.TraceRecord{taskStart(0, 1, 0, 1), monitorReceive(0.1),
			taskStart(0.1, 1, 1, 2)}, "G-32"},
		{"G-32: a notification with a wrong count of tasks", []model.TraceRecord{notification(0, 2, func(r *model.TraceRecord) {
			r.Running = 1
		})}, "G-32"},

		{"ACT-4: ACT-4a with a task running", []model.TraceRecord{taskStart(0, 1, 0, 1), monitorReceive(0.1),
			taskStart(0.1, 2, 1, 1)}, "ACT-4"},
		{"ACT-4: ACT-4a with no message ready", []model.TraceRecord{taskStart(0, 1, 0, 1, readyMessages(0))}, "ACT-4"},
		{"ACT-4: ACT-4b with no message ready", []model.TraceRecord{taskStart(0, 1, 0, 2, readyMessages(0))}, "ACT-4"},
		{"ACT-4: ACT-4b while a session waits in RECEIVE (ACT-5)", []model.TraceRecord{
			taskStart(0, 1, 0, 2, readyMessages(5), waitingSessions(1))}, "ACT-4"},
		{"ACT-4: ACT-4b inside the empty-RECEIVE window (G-3)", []model.TraceRecord{
			taskStart(0, 1, 0, 2, sinceEmpty(4.999))}, "ACT-4"},
		{"ACT-4: ACT-4b right after an empty RECEIVE", []model.TraceRecord{taskStart(0, 1, 0, 2, sinceEmpty(0))}, "ACT-4"},
		{"ACT-4: no cause", []model.TraceRecord{taskStart(0, 1, 0, 0)}, "ACT-4"},
		{"ACT-4: an unknown cause", []model.TraceRecord{taskStart(0, 1, 0, 3)}, "ACT-4"},
		{"ACT-4: a notification while a session waits", []model.TraceRecord{notification(0, 2, waitingSessions(1))}, "ACT-4"},
		{"ACT-4: a notification inside the empty-RECEIVE window", []model.TraceRecord{
			notification(0, 2, sinceEmpty(1))}, "ACT-4"},
		{"ACT-4: a notification for ACT-4a with a task running", []model.TraceRecord{taskStart(0, 1, 0, 1),
			monitorReceive(1), notification(60, 1, func(r *model.TraceRecord) { r.Running = 1 })}, "ACT-4"},

		{"G-4: a second start with no RECEIVE since the first", []model.TraceRecord{taskStart(0, 1, 0, 1),
			taskStart(5, 2, 1, 2)}, "G-4"},
		{"G-4: a second start long after the first, still with no RECEIVE", []model.TraceRecord{taskStart(0, 1, 0, 1),
			taskExit(10, 1, 0), taskStart(100, 2, 0, 2)}, "G-4"},
		{"G-4: a RECEIVE on another queue does not end NOTIFIED", []model.TraceRecord{taskStart(0, 1, 0, 1),
			monitorReceive(1, queue(qb)), monitorReceive(1, instance(1)), taskStart(5, 2, 1, 2)}, "G-4"},
		{"G-4: a start inside a notification's time-out", []model.TraceRecord{notification(0, 1),
			taskStart(59, 1, 0, 2)}, "G-4"},
		{"G-4: a notification after a start with no RECEIVE since", []model.TraceRecord{taskStart(0, 1, 0, 1),
			notification(0.002, 2, func(r *model.TraceRecord) { r.Running = 1 })}, "G-4"},

		{"INV-9: a second notification inside the time-out", []model.TraceRecord{notification(0, 1),
			notification(30, 2)}, "INV-9"},
		{"INV-9: a second notification just before the time-out ends", []model.TraceRecord{notification(0, 1),
			notification(60-1e-9, 2)}, "INV-9"},
		{"INV-9: a RECEIVE on another queue does not reopen the window", []model.TraceRecord{notification(0, 1),
			monitorReceive(10, queue(qb)), monitorReceive(10, instance(1)), notification(10, 2)}, "INV-9"},
		{"INV-9: the window reopened by a RECEIVE closes again with the next notification", []model.TraceRecord{
			notification(0, 1), monitorReceive(10), notification(10, 2), notification(65, 2)}, "INV-9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, v := observeTimed(t, tt.records)
			if tt.wantRule == "" {
				assert.Nil(t, v, "records %v", tt.records)
				assert.Nil(t, c.Finish(time.Hour), "records %v", tt.records)
				return
			}
			require.NotNil(t, v, "records %v", tt.records)
			assert.Equal(t, tt.wantRule, v.Rule, "violation: %v", v)
			last := tt.records[len(tt.records)-1]
			require.NotEmpty(t, v.Records, "violation: %v", v)
			assert.Equal(t, last, v.Records[len(v.Records)-1], "the violation shows the record that broke the rule last: %v", v)
			assert.Equal(t, last.At, v.At, "violation: %v", v)
			assert.Equal(t, last.Instance, v.Instance, "violation: %v", v)
			assert.Contains(t, v.Message, "queue", "violation: %v", v)
		})
	}
}

func onQueue(r model.TraceRecord, q model.QueueID) model.TraceRecord {
	r.Queue = q
	return r
}

// TestActivationViolationShowsTheMonitorsRecords checks that a violation of a queue
// monitor's rule shows that monitor's records, and neither another monitor's nor a
// conversation's.
func TestActivationViolationShowsTheMonitorsRecords(t *testing.T) {
	records := []model.TraceRecord{notification(0, 1), notification(1, 1, queue(qb)), sent(0, 1),
		monitorReceive(2, queue(qb)), taskStart(3, 1, 0, 1, instance(1)), notification(30, 2)}
	_, v := observeTimed(t, records)
	require.NotNil(t, v)
	assert.Equal(t, []model.TraceRecord{records[0], records[5]}, v.Records)
	assert.Contains(t, v.Error(), "INV-9 violated at t=30s: queue 2 of instance 0: QUEUE_ACTIVATION sent 30s after the one at t=0s")
}

// altered is an ALTER QUEUE ... WITH ACTIVATION on qa at s seconds with running tasks;
// endsNotified says it ended the NOTIFIED state a task start left.
func altered(s float64, running int32, endsNotified bool, opts ...func(*model.TraceRecord)) model.TraceRecord {
	r := model.TraceRecord{At: sec(s), Kind: model.TraceActivationAltered, Queue: qa, Running: running, MaxReaders: 3}
	if endsNotified {
		r.Cause = 1
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// TestActivationAlteredEndsTheNotifiedStateOfAStart checks the checker's view of ALTER
// QUEUE ... WITH ACTIVATION: when it ends the NOTIFIED state a task start left, a start
// may follow without a RECEIVE (ACT-7); a notification's time-out stays (ACT-12); the tasks
// running still count (INV-8).
// Reference: spec ACT-7, ACT-12, G-4, INV-8, INV-9.
func TestActivationAlteredEndsTheNotifiedStateOfAStart(t *testing.T) {
	tests := []struct {
		name     string
		records  []model.TraceRecord
		wantRule string
	}{
		{"a start after a start", []model.TraceRecord{taskStart(0, 1, 0, 1), altered(1, 1, true), taskStart(1, 2, 1, 2)}, ""},
		{"a start after a start, the NOTIFIED state kept", []model.TraceRecord{taskStart(0, 1, 0, 1), altered(1, 1, false),
			taskStart(1, 2, 1, 2)}, "G-4"},
		{"a notification inside the time-out of the last", []model.TraceRecord{notification(0, 1), altered(1, 0, false),
			notification(2, 2)}, "INV-9"},
		{"MAX_QUEUE_READERS still holds", []model.TraceRecord{taskStart(0, 1, 0, 1, maxReaders(1)), altered(1, 1, true),
			taskStart(1, 2, 1, 2, maxReaders(1))}, "INV-8"},
		{"an ALTER of another queue ends nothing", []model.TraceRecord{taskStart(0, 1, 0, 1, queue(qb)),
			altered(1, 0, true), taskStart(1, 2, 1, 2, queue(qb))}, "G-4"},
		{"the monitor's count of tasks", []model.TraceRecord{taskStart(0, 1, 0, 1), altered(1, 0, true)}, "G-32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, v := observeTimed(t, tt.records)
			if tt.wantRule == "" {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			assert.Equal(t, tt.wantRule, v.Rule, "violation: %v", v)
		})
	}
}

// activationCatalog is one instance whose service I sends to T, on queue QT with
// internal activation (procedure p, MAX_QUEUE_READERS 3), and to E, on queue QE with a
// QUEUE_ACTIVATION event notification to service W.
func activationCatalog(t *testing.T) *model.Catalog {
	service := func(name string, contract string) model.Service {
		return model.Service{Name: name, Queue: "Q" + name, Contracts: []string{contract}}
	}
	cat, err := model.Compile([]model.Instance{{Name: "I", Databases: []model.Database{{
		Name:         "db",
		MessageTypes: []model.MessageType{{Name: "Request"}},
		Contracts:    []model.Contract{{Name: "Exchange", Messages: []model.ContractMessage{{MessageType: "Request", SentBy: model.SentByAny}}}},
		Queues: []model.Queue{{Name: "QI"}, {Name: "QE"}, {Name: "QW"},
			{Name: "QT", Activation: model.Activation{Status: true, Procedure: "p", MaxQueueReaders: 3}}},
		Services: []model.Service{service("I", "Exchange"), service("T", "Exchange"), service("E", "Exchange"),
			service("W", model.ContractPostEventNotification)},
		EventNotifications: []model.EventNotification{{Name: "en", Queue: "QE", Service: "W"}},
	}}}})
	require.NoError(t, err)
	return cat
}

// dialog begins a dialog from service I to service to.
func (r *modelRun) dialog(to string) model.ConversationHandle {
	exchange, ok := r.cat.Contract("Exchange")
	require.True(r.t, ok)
	h, err := r.b.BeginDialog(r.now, r.service("I"), r.cat.NameOf(r.service(to)), exchange, model.BeginDialogOptions{})
	require.NoError(r.t, err)
	return h
}

// send sends n requests on dialog h, each in a transaction of its own.
func (r *modelRun) send(h model.ConversationHandle, n int) {
	for range n {
		require.NoError(r.t, r.b.Send(r.now, h, r.request(), 10))
		r.settle()
	}
}

// activatedTask runs G-7's reference program as an activated task: BEGIN TRAN; WAITFOR
// (RECEIVE TOP(1)) TIMEOUT 5 s; nothing ⇒ ROLLBACK and exit; else work for a while, COMMIT
// and again.
type activatedTask struct {
	id        model.TaskID
	tx        *model.Tx
	waiting   bool          // its RECEIVE waits: the rows come with the completion
	busyUntil time.Duration // it holds its rows, working, until then; zero when not
	exited    bool
}

// taskWork is how long a task works on a message before it commits.
const taskWork = 2 * time.Second

// step runs the task's next statement, if it can run at r.now, and reports whether it did.
func (k *activatedTask) step(r *modelRun, queue model.QueueID) bool {
	switch {
	case k.exited, k.tx != nil && k.tx.Waiting():
		return false
	case k.tx == nil:
		k.tx = r.b.BeginTask(r.now, k.id)
		rows, err := k.tx.Receive(r.now, queue, model.ReceiveOptions{Top: 1, WaitFor: true, Timeout: 5 * time.Second}, nil)
		if k.waiting = errors.Is(err, model.ErrWaiting); !k.waiting {
			require.NoError(r.t, err)
			k.received(r, rows)
		}
	case k.waiting:
		k.waiting = false
		rows, _, _ := k.tx.Result(nil)
		k.received(r, rows)
	case r.now >= k.busyUntil:
		require.NoError(r.t, k.tx.Commit(r.now))
		k.tx = nil
	default:
		return false
	}
	r.settle()
	return true
}

func (k *activatedTask) received(r *modelRun, rows []model.ReceivedMessage) {
	if len(rows) > 0 {
		k.busyUntil = r.now + taskWork
		return
	}
	require.NoError(r.t, k.tx.Rollback(r.now))
	r.settle()
	require.NoError(r.t, r.b.TaskExited(r.now, k.id))
	k.exited = true
}

// activationRun is a modelRun whose activated tasks of one queue run G-7's program.
type activationRun struct {
	*modelRun
	target model.QueueID // the queue with activation
	tasks  []*activatedTask
	// peak is the most tasks seen running at once.
	peak int
}

// until moves the clock to ms milliseconds in steps of 100 ms, firing the timers due and
// running the tasks at each step.
func (a *activationRun) until(ms int) {
	for next := int(a.now/time.Millisecond) + 100; ; next += 100 {
		a.at(min(next, ms))
		a.runTasks()
		if next >= ms {
			return
		}
	}
}

// runTasks starts the tasks the broker asked for and runs each until none can go on.
func (a *activationRun) runTasks() {
	for progress := true; progress; {
		progress = false
		for _, s := range a.activations[len(a.tasks):] {
			require.Equal(a.t, a.target, s.Queue)
			require.Equal(a.t, "p", s.Procedure)
			a.tasks = append(a.tasks, &activatedTask{id: s.Task})
		}
		if n := len(a.b.ActivatedTasks()); n > a.peak {
			a.peak = n
		}
		for _, k := range a.tasks {
			progress = k.step(a.modelRun, a.target) || progress
		}
	}
}

// TestCheckerAcceptsTheModelsActivation runs the checker over the model's own queue
// monitors: a queue with internal activation (MAX_QUEUE_READERS 3) whose tasks run G-7's
// program, fed by same-instance dialogs, ramps up to three readers, holds back while a
// reader waits for a locked group (ACT-5), and lets every task exit; a queue with a
// QUEUE_ACTIVATION event notification notifies on arrival, again after each RECEIVE that
// leaves messages, and again when the time-out ends. The model follows the rules, so the
// checker must stay quiet.
// Reference: spec INV-8, INV-9, ACT-4, ACT-5, ACT-6, ACT-11, ACT-12, G-3, G-4, G-5, G-7, G-32.
func TestCheckerAcceptsTheModelsActivation(t *testing.T) {
	r := &activationRun{modelRun: newModelRunOf(t, activationCatalog(t))}
	r.target = r.queue("T")
	b, dialog, send := r.b, r.dialog, r.send

	// Ten requests on five dialogs: a start on arrival, then one per tick up to three (G-5).
	r.until(100)
	for range 5 {
		send(dialog("T"), 2)
	}
	r.until(40_000)
	assert.Equal(t, 3, r.peak, "the monitor ramps up to MAX_QUEUE_READERS")
	assert.Empty(t, b.ActivatedTasks(), "every task ran out of messages and exited")

	// Five requests on one dialog: on the tick at 45 s, a second task starts and waits for
	// the group the first holds, and no third starts while it waits (ACT-5), on the tick
	// at 50 s either.
	send(dialog("T"), 5)
	r.until(45_200)
	m, ok := b.QueueMonitor(r.target)
	require.True(t, ok)
	assert.Equal(t, 2, m.Running, "monitor %+v", m)
	assert.Equal(t, 1, m.TasksWaiting, "monitor %+v", m)
	r.until(50_200)
	m, _ = b.QueueMonitor(r.target)
	assert.Equal(t, 2, m.Running, "monitor %+v", m)
	r.until(80_000)
	assert.Empty(t, b.ActivatedTasks())

	// Event notification: on arrival; after a RECEIVE that leaves messages; after the
	// time-out; after the next RECEIVE that leaves some.
	for range 3 {
		send(dialog("E"), 1)
	}
	r.until(90_000)
	rows, err := b.Receive(r.now, r.queue("E"), 1, nil)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	r.settle()
	r.until(160_000)
	for range 2 {
		rows, err = b.Receive(r.now, r.queue("E"), 0, nil)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		r.settle()
	}
	r.until(240_000)

	assert.Nil(t, r.c.Violation())
	assert.Equal(t, r.kinds[model.TraceTaskStarted], len(r.tasks))
	assert.GreaterOrEqual(t, r.kinds[model.TraceTaskStarted], 5)
	assert.Equal(t, r.kinds[model.TraceTaskStarted], r.kinds[model.TraceTaskExited])
	assert.Equal(t, 4, r.kinds[model.TraceNotificationSent], "on arrival, after a RECEIVE, after the time-out, after a RECEIVE")
	assert.Positive(t, r.kinds[model.TraceMonitorReceive])
	assert.Zero(t, r.kinds[model.TraceActivationFailed])
	causes := map[model.TraceKind][3]int{}
	for _, rec := range r.trace {
		if rec.Kind == model.TraceTaskStarted || rec.Kind == model.TraceNotificationSent {
			c := causes[rec.Kind]
			c[rec.Cause]++
			causes[rec.Kind] = c
		}
	}
	// Two starts on arrival (at 0.1 s and 40 s), three on ticks while tasks ran (5 s, 10 s, 45 s).
	assert.Equal(t, [3]int{0, 2, 3}, causes[model.TraceTaskStarted], "starts by cause (ACT-4a, ACT-4b)")
	assert.Equal(t, [3]int{0, 1, 3}, causes[model.TraceNotificationSent], "notifications by cause (ACT-4a, ACT-4b)")
}

// TestCheckerFollowsAlterQueueActivation checks that ALTER QUEUE ... WITH ACTIVATION raises
// no false alarm: raising MAX_QUEUE_READERS starts a second task at once, with no RECEIVE
// since the first (ACT-7), and an ALTER of a queue whose notification waits for its
// time-out sends nothing more (ACT-12). Without the ALTER's record, the start would be a
// G-4 violation: the record is what the checker goes by.
// Reference: spec ACT-7, ACT-12, G-4, INV-9.
func TestCheckerFollowsAlterQueueActivation(t *testing.T) {
	r := newModelRunOf(t, activationCatalog(t))
	b := r.b
	r.at(1)
	r.send(r.dialog("T"), 1)
	r.send(r.dialog("T"), 1)
	r.send(r.dialog("E"), 2)
	r.at(10)
	require.Equal(t, 1, r.kinds[model.TraceTaskStarted])
	require.Equal(t, 1, r.kinds[model.TraceNotificationSent])

	four, procedure := 4, "x"
	require.NoError(t, b.AlterQueueActivation(r.at(20), r.queue("T"), model.ActivationChange{MaxQueueReaders: &four}))
	require.NoError(t, b.AlterQueueActivation(r.now, r.queue("E"), model.ActivationChange{Procedure: &procedure}))
	r.at(30)
	assert.Nil(t, r.c.Violation())
	assert.Equal(t, 2, r.kinds[model.TraceTaskStarted], "a start at the ALTER")
	assert.Equal(t, 1, r.kinds[model.TraceNotificationSent], "no notification inside the time-out")
	assert.Equal(t, 2, r.kinds[model.TraceActivationAltered])

	var without []model.TraceRecord
	for _, rec := range r.trace {
		if rec.Kind != model.TraceActivationAltered {
			without = append(without, rec)
		}
	}
	_, v := observeTimed(t, without)
	require.NotNil(t, v, "the trace without the ALTER's record")
	assert.Equal(t, "G-4", v.Rule, "violation: %v", v)
}
