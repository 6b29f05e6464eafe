package invariant

import (
	"fmt"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
)

// monitorKey names a queue monitor by its queue and its instance (task ids are per
// instance). The instance is widened so that a key has no padding and hashes as plain
// memory.
type monitorKey struct {
	queue    model.QueueID
	instance uint32
}

// queueMonitor is what the checker knows of one queue monitor, from its records alone.
type queueMonitor struct {
	// running holds the tasks the monitor started and that have not exited, in the order
	// they started (G-32); its length is the count INV-8 bounds.
	running []model.TaskID
	// started is set from a task start to the next RECEIVE on the queue: the monitor is
	// NOTIFIED, and starts nothing more (G-4, G-5); startedTask is the task and startedAt
	// when.
	started     bool
	startedTask model.TaskID
	startedAt   time.Duration
	// notified is set from a QUEUE_ACTIVATION notification to the next RECEIVE on the
	// queue; notifiedAt is when it was sent: nothing more is sent before notifiedAt +
	// model.NotificationTimeout (ACT-12, INV-9).
	notified   bool
	notifiedAt time.Duration
	history    history
}

// Causes of a start or a notification, as model.TraceRecord.Cause reports them.
const (
	causeArrivalOnEmpty = 1 // ACT-4(a): a message arrived on an empty queue, no task running
	causeUnread         = 2 // ACT-4(b): unread messages, no reader waiting, no recent empty RECEIVE
)

func (c *Checker) monitor(instance model.InstanceID, queue model.QueueID) *queueMonitor {
	k := monitorKey{queue, uint32(instance)}
	m := c.monitors[k]
	if m == nil {
		m = &queueMonitor{}
		c.monitors[k] = m
	}
	return m
}

// activationStep checks a record of a queue monitor: the tasks it starts (INV-8, ACT-4,
// G-4, G-32), the tasks that exit (G-32) and the notifications it sends (INV-9, ACT-4).
func (c *Checker) activationStep(r *model.TraceRecord) (string, string) {
	if r.Kind == model.TraceNotificationDropped {
		return "", "" // it names the notification's dialog, not its queue
	}
	m := c.monitor(r.Instance, r.Queue)
	if c.histories {
		m.history.add(c.observed, r)
	}
	c.blame.monitor = m
	switch r.Kind {
	case model.TraceTaskStarted:
		return m.taskStarted(r)
	case model.TraceTaskExited:
		return m.taskExited(r)
	case model.TraceNotificationSent:
		return m.notificationSent(r)
	case model.TraceMonitorReceive:
		// A RECEIVE or GET CONVERSATION GROUP on the queue ends NOTIFIED (G-4) and the
		// notification's time-out (ACT-12).
		m.started, m.notified = false, false
	case model.TraceActivationAltered:
		// ALTER QUEUE ... WITH ACTIVATION ends the NOTIFIED state a task start left, so that
		// a task may start at once (ACT-7); a notification's time-out stays (ACT-12).
		if r.Running != int32(len(m.running)) {
			return fmt.Sprintf("%s: ALTER QUEUE as the monitor counted %d tasks running, but %d started and did not exit (%v)",
				where(r), r.Running, len(m.running), m.running), "G-32"
		}
		if r.Cause == 1 {
			m.started = false
		}
	}
	return "", "" // a failed task is noted by the model; what follows it is checked
}

// where names the queue of a monitor's record in a violation.
func where(r *model.TraceRecord) string {
	return fmt.Sprintf("queue %d of instance %d", r.Queue, r.Instance)
}

// taskStarted checks a task start: fewer tasks running than MAX_QUEUE_READERS, counted
// from the starts and exits seen (INV-8, ACT-6); the monitor's own count the same (G-32);
// ACT-4 true of what the monitor knew (ACT-4); and the monitor not NOTIFIED (G-4).
func (m *queueMonitor) taskStarted(r *model.TraceRecord) (string, string) {
	running := int32(len(m.running))
	switch {
	case slices.Contains(m.running, r.Task):
		return fmt.Sprintf("%s: task %d started, but it is running already", where(r), r.Task), "G-32"
	case running >= r.MaxReaders:
		return fmt.Sprintf("%s: task %d started with %d tasks running (%v), MAX_QUEUE_READERS %d",
			where(r), r.Task, running, m.running, r.MaxReaders), "INV-8"
	case r.Running != running:
		return fmt.Sprintf("%s: task %d started as the monitor counted %d tasks running, but %d started and did not exit (%v)",
			where(r), r.Task, r.Running, running, m.running), "G-32"
	}
	if msg := necessary(r, running); msg != "" {
		return fmt.Sprintf("%s: task %d started %s", where(r), r.Task, msg), "ACT-4"
	}
	switch {
	case m.started:
		return fmt.Sprintf("%s: task %d started while NOTIFIED: task %d started at t=%v and no RECEIVE ran on the queue since",
			where(r), r.Task, m.startedTask, m.startedAt), "G-4"
	case m.notified && r.At < m.notifiedAt+model.NotificationTimeout:
		return fmt.Sprintf("%s: task %d started while NOTIFIED: QUEUE_ACTIVATION went at t=%v and no RECEIVE ran on the queue since",
			where(r), r.Task, m.notifiedAt), "G-4"
	}
	m.running = append(m.running, r.Task)
	m.started, m.startedTask, m.startedAt = true, r.Task, r.At
	return "", ""
}

// taskExited checks that only a running task exits, and the monitor's count after it
// (G-32).
func (m *queueMonitor) taskExited(r *model.TraceRecord) (string, string) {
	i := slices.Index(m.running, r.Task)
	if i < 0 {
		return fmt.Sprintf("%s: task %d exited, but it was not running (%v)", where(r), r.Task, m.running), "G-32"
	}
	m.running = slices.Delete(m.running, i, i+1)
	if r.Running != int32(len(m.running)) {
		return fmt.Sprintf("%s: task %d exited and the monitor counted %d tasks left, but %d started and did not exit (%v)",
			where(r), r.Task, r.Running, len(m.running), m.running), "G-32"
	}
	return "", ""
}

// notificationSent checks a QUEUE_ACTIVATION notification: none in the time-out of the
// last one unless a RECEIVE ran on the queue since (INV-9, ACT-12), ACT-4 true of what the
// monitor knew (ACT-4), the monitor not NOTIFIED by a task start (G-4), and the monitor's
// count of tasks (G-32).
func (m *queueMonitor) notificationSent(r *model.TraceRecord) (string, string) {
	running := int32(len(m.running))
	switch {
	case r.Running != running:
		return fmt.Sprintf("%s: QUEUE_ACTIVATION sent as the monitor counted %d tasks running, but %d started and did not exit (%v)",
			where(r), r.Running, running, m.running), "G-32"
	case m.notified && r.At < m.notifiedAt+model.NotificationTimeout:
		return fmt.Sprintf("%s: QUEUE_ACTIVATION sent %v after the one at t=%v, inside its %v time-out, with no RECEIVE on the queue since",
			where(r), r.At-m.notifiedAt, m.notifiedAt, model.NotificationTimeout), "INV-9"
	}
	if msg := necessary(r, running); msg != "" {
		return fmt.Sprintf("%s: QUEUE_ACTIVATION sent %s", where(r), msg), "ACT-4"
	}
	if m.started {
		// Only NOTIFIED by a notification ends with its time-out (G-4).
		return fmt.Sprintf("%s: QUEUE_ACTIVATION sent while NOTIFIED: task %d started at t=%v and no RECEIVE ran on the queue since",
			where(r), m.startedTask, m.startedAt), "G-4"
	}
	m.notified, m.notifiedAt = true, r.At
	return "", ""
}

// necessary evaluates ACT-4 again from what the monitor knew when it started a task or
// sent a notification (the record's Ready, Waiting, SinceEmpty and Cause) and from the
// tasks running as the checker counts them, and returns "" when activation was necessary
// or else why it was not. The 5 s window is G-3's.
func necessary(r *model.TraceRecord, running int32) string {
	switch r.Cause {
	case causeArrivalOnEmpty:
		switch {
		case running != 0:
			return fmt.Sprintf("for a message arriving on an empty queue (ACT-4a) with %d tasks running", running)
		case r.Ready <= 0:
			return "for a message arriving on an empty queue (ACT-4a) with no message ready"
		}
	case causeUnread:
		switch {
		case r.Ready <= 0:
			return "for unread messages (ACT-4b) with no message ready"
		case r.Waiting > 0:
			return fmt.Sprintf("for unread messages (ACT-4b) while %d sessions waited in RECEIVE without WHERE or GET CONVERSATION GROUP (ACT-5)",
				r.Waiting)
		case r.SinceEmpty >= 0 && r.SinceEmpty < model.EmptyReceiveWindow:
			return fmt.Sprintf("for unread messages (ACT-4b) %v after a RECEIVE returned nothing, within %v (G-3)",
				r.SinceEmpty, model.EmptyReceiveWindow)
		}
	default:
		return fmt.Sprintf("for cause %d, neither ACT-4a (1) nor ACT-4b (2)", r.Cause)
	}
	return ""
}
