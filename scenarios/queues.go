package scenarios

import (
	"time"

	"github.com/sbsim/sbsim/model"
)

// QueueResult is what happened on one queue: poison detection, the waits for its groups'
// locks, its monitor and activated tasks at the end (the views sys.dm_broker_queue_monitors
// and sys.dm_broker_activated_tasks), and its state over time.
type QueueResult struct {
	// Queue, Database and Instance name the queue and where it is.
	Queue, Database, Instance string
	// PoisonDisables counts the times poison detection turned the queue OFF (QUE-8).
	PoisonDisables int64
	// LockWaits summarises the waits for the locks of the queue's conversation groups that
	// were granted, by any statement (readers' and workloads'); LockWaitsAbandoned counts
	// those given up on a time-out, a deadlock or a rollback (G-24).
	LockWaits          LatencySummary
	LockWaitsAbandoned int64
	// Monitor is the queue monitor at the end, nil when the queue has none (ACT-1);
	// ActivatedTasks are the tasks still running then.
	Monitor        *model.QueueMonitor
	ActivatedTasks []model.ActivatedTask
	// PeakActivated is the most activated tasks that ran at once.
	PeakActivated int
	// Samples is the queue's state every Config.SampleInterval while the world runs, or
	// every Series.Interval once a long run's series are thinned (MaxSeriesRows).
	Samples []QueueSample
	// Flow is what went through the queue: time in queue, sojourn, throughput, backlog.
	Flow QueueFlow
	// StatusChanges are the changes of the queue's STATUS, at the instant they happened, in
	// time order: an ALTER QUEUE of the timeline, poison detection turning it OFF (QUE-8),
	// the heal of a liveness check turning it ON; the first, at 0, when it was created OFF.
	// Samples miss a change undone within one interval; these do not.
	StatusChanges []QueueStatusChange
}

// QueueStatusChange is a change of a queue's STATUS at an instant.
type QueueStatusChange struct {
	At     time.Duration
	Status model.QueueStatus
}

// QueueSample is a queue's state at one instant.
type QueueSample struct {
	At time.Duration
	// Ready counts the ready messages; Activated the activated tasks running; Readers every
	// reader session running on the queue (configured, activated and external); Waiting
	// the sessions waiting in RECEIVE or GET CONVERSATION GROUP.
	Ready, Activated, Readers, Waiting int
	// State is the monitor's state (ACT-13); INACTIVE for a queue without a monitor.
	State model.MonitorState
}

// DefaultSampleInterval is how often queue states are sampled when Config.SampleInterval is
// zero.
const DefaultSampleInterval = time.Second

// queueStats collects one queue's figures.
type queueStats struct {
	res       QueueResult
	lockWaits *latencyRecorder
	visible   bool // not a queue the sim made
	flow      queueFlow
}

// lockWait records one ended wait for a group lock of the queue.
func (q *queueStats) lockWait(lw model.LockWait) {
	if !lw.Granted {
		q.res.LockWaitsAbandoned++
		return
	}
	if q.lockWaits == nil {
		q.lockWaits = newLatencyRecorder()
	}
	q.lockWaits.record(lw.Waited)
}

// sampler records every visible queue's state each interval, for as long as something
// else is left to happen, so that a world still ends when its work does. The interval
// doubles whenever the series are thinned (nextSample).
type sampler struct{ w *world }

func (s sampler) HandleEvent(uint64) {
	w := s.w
	w.beforeInput() // the liveness phase's deadline also passes while nothing but time goes by
	for q := range w.queues {
		w.sampleQueue(model.QueueID(q))
	}
	w.sampleWorld()
	w.snapshotSample()
	if next, ok := w.nextSample(); ok && w.e.Pending() > 0 {
		w.e.Schedule(next, s, 0)
	}
}

func (w *world) sampleInterval() time.Duration {
	if w.cfg.SampleInterval > 0 {
		return w.cfg.SampleInterval
	}
	return DefaultSampleInterval
}

func (w *world) sampleQueue(q model.QueueID) {
	st := &w.queues[q]
	if !st.visible {
		return
	}
	b := w.brokers[w.queueInstance(q)]
	smp := QueueSample{At: w.now(), Ready: b.ReadyMessages(q), Waiting: b.WaitingSessions(q)}
	if m, ok := b.QueueMonitor(q); ok {
		smp.Activated, smp.State = m.Running, m.State
	}
	for _, r := range w.programs {
		if r.queue == q {
			smp.Readers += r.active // sessions still in their start-up do not read yet
		}
	}
	st.res.Samples = append(st.res.Samples, smp)
}

// queueStatusChanged records that queue q's STATUS became status now, unless it had it.
func (w *world) queueStatusChanged(q model.QueueID, status model.QueueStatus) {
	st := &w.queues[q]
	if n := len(st.res.StatusChanges); (n == 0 && status == model.QueueOn) || (n > 0 && st.res.StatusChanges[n-1].Status == status) {
		return
	}
	st.res.StatusChanges = append(st.res.StatusChanges, QueueStatusChange{At: w.now(), Status: status})
}

func (w *world) queueResults() []QueueResult {
	var rows []QueueResult
	for q := range w.queues {
		st := &w.queues[q]
		if !st.visible {
			continue
		}
		res := st.res
		if st.lockWaits != nil {
			res.LockWaits = st.lockWaits.summary()
		}
		if r := w.activated[q]; r != nil {
			res.PeakActivated = r.stats.PeakRunning
		}
		b := w.brokers[w.queueInstance(model.QueueID(q))]
		if m, ok := b.QueueMonitor(model.QueueID(q)); ok {
			res.Monitor = &m
			for _, t := range b.ActivatedTasks() {
				if t.Queue == model.QueueID(q) {
					res.ActivatedTasks = append(res.ActivatedTasks, t)
				}
			}
		}
		rows = append(rows, res)
	}
	return rows
}
