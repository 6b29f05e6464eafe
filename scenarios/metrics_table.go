package scenarios

import (
	"fmt"
	"strings"
	"time"
)

// latencyStats are the statistics of a latency summary a metric may name.
var latencyStats = []struct {
	name string
	get  func(LatencySummary) time.Duration
}{
	{"p50", func(s LatencySummary) time.Duration { return s.P50 }},
	{"p90", func(s LatencySummary) time.Duration { return s.P90 }},
	{"p99", func(s LatencySummary) time.Duration { return s.P99 }},
	{"max", func(s LatencySummary) time.Duration { return s.Max }},
	{"mean", func(s LatencySummary) time.Duration { return s.Mean }},
}

// metrics is the table of metrics. Adding a metric is adding a row here: expectations,
// summary.json, the text report and sweeps take it from the table.
var metrics = buildMetrics()

func buildMetrics() []Metric {
	var ms []Metric
	for _, st := range latencyStats {
		get := st.get
		ms = append(ms, Metric{Name: "latency." + st.name, Unit: Duration, Takes: LevelKey | WorkloadKey,
			Doc: "latency from SEND commit to ready at the target, " + st.name + ", over the user messages received; with a level, those sent at it; " +
				"with a workload, those of its dialogs, both directions",
			value: func(res *Result, s Subject) (float64, string) {
				l := res.Latency
				if s.Level > 0 {
					l = res.level(s.Level).Latency
				}
				if s.Workload != "" {
					if s.Level > 0 {
						return 0, "latency takes a level or a workload, not both"
					}
					w, why := res.workload(s.Workload)
					if why != "" {
						return 0, why
					}
					l = w.Latency
				}
				if l.Count == 0 {
					return 0, "no message received"
				}
				return float64(get(l)), ""
			}})
	}
	for _, st := range latencyStats {
		get := st.get
		ms = append(ms, Metric{Name: "transmission_queue_wait." + st.name, Unit: Duration, Takes: LevelKey, Needs: LevelKey,
			Doc: "time from SEND commit to the message's first fragment leaving, " + st.name + ", at a level (PRI-11)",
			value: func(res *Result, s Subject) (float64, string) {
				l := res.level(s.Level).TransmissionQueueWait
				if l.Count == 0 {
					return 0, "no message received"
				}
				return float64(get(l)), ""
			}})
	}
	ms = append(ms,
		Metric{Name: "messages.delivered", Takes: LevelKey,
			Doc: "user messages received in committed transactions; with a level, those sent at it",
			value: func(res *Result, s Subject) (float64, string) {
				if s.Level > 0 {
					return float64(res.level(s.Level).Messages), ""
				}
				return float64(res.Latency.Count), ""
			}},
		Metric{Name: "bytes.delivered", Takes: LevelKey,
			Doc: "bytes of the user messages received; with a level, of those sent at it",
			value: func(res *Result, s Subject) (float64, string) {
				var n int64
				for _, l := range res.Levels {
					if s.Level == 0 || l.Level == s.Level {
						n += l.Bytes
					}
				}
				return float64(n), ""
			}},
		Metric{Name: "share", Unit: Fraction, Takes: LevelKey, Needs: LevelKey,
			Doc: "a level's part of all the bytes delivered, 0 to 1",
			value: func(res *Result, s Subject) (float64, string) {
				return res.level(s.Level).Share, ""
			}},
	)
	for _, w := range []struct {
		name, doc string
		get       func(WorkloadResult) int64
	}{
		{"messages.sent", "messages the workloads sent", func(w WorkloadResult) int64 { return w.MessagesSent }},
		{"dialogs.begun", "dialogs the workloads began", func(w WorkloadResult) int64 { return w.DialogsBegun }},
		{"dialogs.ended", "dialogs whose initiator ended the conversation", func(w WorkloadResult) int64 { return w.DialogsEnded }},
		{"replies.received", "replies the initiators received", func(w WorkloadResult) int64 { return w.RepliesReceived }},
		{"send_failures", "SENDs refused because the dialog had failed or ended", func(w WorkloadResult) int64 { return w.SendFailures }},
	} {
		ms = append(ms, Metric{Name: w.name, Takes: WorkloadKey, Doc: w.doc + "; with a workload, that one's",
			value: workloadValue(w.get)})
	}
	ms = append(ms, flowMetrics()...)
	ms = append(ms, lifeCycleMetrics()...)
	ms = append(ms, queueMetrics()...)
	ms = append(ms, costMetrics()...)
	ms = append(ms, endpointMetrics()...)
	return append(ms, runMetrics()...)
}

func queueMetrics() []Metric {
	ms := []Metric{
		{Name: "readers.peak", Takes: QueueKey, Needs: QueueKey,
			Doc: "the most reader sessions that ran at once on the queue: configured readers, activated tasks (ACT-6) and external activators' readers",
			value: func(res *Result, s Subject) (float64, string) {
				rows := res.queueRows(s.Queue)
				if len(rows) == 0 {
					return 0, fmt.Sprintf("queue %q is not in the result", s.Queue)
				}
				peak := 0
				for _, q := range rows {
					peak = max(peak, q.PeakActivated)
					for _, smp := range q.Samples {
						peak = max(peak, smp.Readers)
					}
				}
				for _, r := range res.readerRows(s.Queue) {
					peak = max(peak, r.PeakRunning)
				}
				return float64(peak), ""
			}},
		{Name: "activated_tasks.peak", Takes: QueueKey, Needs: QueueKey,
			Doc:   "the most activated tasks that ran at once on the queue (ACT-6, INV-8)",
			value: queueValue(func(q QueueResult) float64 { return float64(q.PeakActivated) })},
		{Name: "poison_disables", Takes: QueueKey,
			Doc:   "times poison detection turned a queue OFF (QUE-8, G-14); with a queue, that one's",
			value: queueValue(func(q QueueResult) float64 { return float64(q.PoisonDisables) })},
		{Name: "notifications.sent", Takes: QueueKey,
			Doc:   "QUEUE_ACTIVATION event notifications sent (ACT-11, ACT-12); with a queue, for that one",
			value: queueValue(monitorNotifies)},
		{Name: "lock_wait.abandoned", Takes: QueueKey,
			Doc:   "waits for a conversation group lock given up on a time-out, a deadlock or a rollback (G-24)",
			value: queueValue(func(q QueueResult) float64 { return float64(q.LockWaitsAbandoned) })},
	}
	for _, st := range latencyStats {
		get := st.get
		ms = append(ms, Metric{Name: "lock_wait." + st.name, Unit: Duration, Takes: QueueKey, Needs: QueueKey,
			Doc:   "the wait for a lock of one of the queue's conversation groups, " + st.name + ", over the waits granted (LOCK-6, G-24); zero without waits",
			value: queueValue(func(q QueueResult) float64 { return float64(get(q.LockWaits)) })})
	}
	return append(ms,
		Metric{Name: "deadlocks", Takes: QueueKey,
			Doc: "transactions chosen as deadlock victims (G-24): on every instance, or of the queue's readers",
			value: func(res *Result, s Subject) (float64, string) {
				var n int64
				if s.Queue == "" {
					for _, in := range res.Instances {
						n += in.Counters.Deadlocks
					}
					return float64(n), ""
				}
				for _, r := range res.readerRows(s.Queue) {
					n += r.Deadlocks
				}
				return float64(n), ""
			}},
		Metric{Name: "statement_failures", Takes: QueueKey,
			Doc:   "statements of the reader programs that failed when they ran, the dialog's end or failure included (docs/programs.md); with a queue, its programs'",
			value: statementFailures},
		Metric{Name: "rollbacks", Takes: QueueKey,
			Doc: "transactions the readers rolled back on purpose (rollback_rate); with a queue, that one's readers'",
			value: func(res *Result, s Subject) (float64, string) {
				var n int64
				for _, r := range res.Readers {
					if s.Queue == "" || queueNameMatches(s.Queue, r.Queue) {
						n += r.Rollbacks
					}
				}
				return float64(n), ""
			}},
	)
}

func runMetrics() []Metric {
	return []Metric{
		{Name: "statement_errors",
			Doc: "statements the applications issued that failed unexpectedly",
			value: func(res *Result, _ Subject) (float64, string) {
				return float64(res.StatementErrors), ""
			}},
		{Name: "fragments.retransmitted", Takes: InstanceKey,
			Doc:   "fragments sent again after their retry time-out (PROTO-10, G-8); with an instance, by that one",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.Counters.FragmentsRetransmitted) })},
		{Name: "transmission_queue.rows", Takes: InstanceKey,
			Doc:   "rows left in the transmission queues at the end (TXQ-1, INV-3); with an instance, in its databases",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.TransmissionQueueRows) })},
		{Name: "conversations.delayed", Takes: InstanceKey,
			Doc: "times a conversation waited for want of a route (RTE-2 step 7, G-28), counted from the trace; with an instance, its conversations'",
			value: func(res *Result, s Subject) (float64, string) {
				if !res.InvariantsChecked && !res.Traced {
					return 0, "delays are counted from the trace, and neither check_invariants nor trace is on"
				}
				return instanceValue(func(in InstanceResult) float64 { return float64(in.ConversationsDelayed) })(res, s)
			}},
		{Name: "fragments.forwarded", Takes: InstanceKey,
			Doc:   "fragments passed on to their next hop by forwarders (RTE-5); with an instance, by that one",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.Counters.FragmentsForwarded) })},
		{Name: "endpoints.created", Takes: InstanceKey,
			Doc:   "conversation endpoints created, both sides; on an instance that only receives, the dialogs routes gave it (RTE-3); with an instance, on that one",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.Counters.EndpointsCreated) })},
		{Name: "end_time", Unit: Duration,
			Doc: "the virtual time at which the run stopped",
			value: func(res *Result, _ Subject) (float64, string) {
				return float64(res.EndTime), ""
			}},
		{Name: "invariants", Unit: Verdict,
			Doc: "whether every invariant checker held (model/invariant's Rules); written {invariants: hold}",
			value: func(res *Result, _ Subject) (float64, string) {
				if !res.InvariantsChecked {
					return 0, "no invariant was checked (check_invariants is off)"
				}
				if res.Violation != nil {
					return 0, ""
				}
				return 1, ""
			}},
		{Name: "crashes", Takes: InstanceKey,
			Doc: "crashes of instances (G-13); with an instance, of that one; no value in a world without crashes",
			value: func(res *Result, s Subject) (float64, string) {
				n := 0
				for _, c := range res.Crashes {
					if s.Instance == "" || c.Instance == s.Instance {
						n++
					}
				}
				if n == 0 {
					return 0, "no crash"
				}
				return float64(n), ""
			}},
		{Name: "crash.resume", Unit: Duration, Takes: InstanceKey,
			Doc: "the longest time from the restart of a crashed instance to the first message from another instance made ready on it: " +
				"how long delivery to it takes to resume (G-13); with an instance, over its crashes",
			value: func(res *Result, s Subject) (float64, string) {
				longest, any := time.Duration(0), false
				for _, c := range res.Crashes {
					if d, ok := c.Resumed(); ok && (s.Instance == "" || c.Instance == s.Instance) {
						longest, any = max(longest, d), true
					}
				}
				if !any {
					return 0, "no delivery resumed after a restart"
				}
				return float64(longest), ""
			}},
		{Name: MetricReopened,
			Doc: "dialogs whose closed target endpoint was forgotten after ClosedTargetRetention and then re-created by a late arrival from the initiator, " +
				"so that Service Broker delivers their messages again: the design finding of the fire-and-forget pattern under a long outage (G-16); " +
				"a run with any fails unless an expectation names this metric",
			value: func(res *Result, _ Subject) (float64, string) {
				if !res.InvariantsChecked {
					return 0, "the checkers find them, and check_invariants is off"
				}
				return float64(res.FindingCount), ""
			}},
	}
}

// MetricReopened is the metric that counts the design finding invariant.FindingReopened.
// A run with a design finding fails unless the scenario expects it by naming this metric.
const MetricReopened = "dialogs.reopened"

func monitorNotifies(q QueueResult) float64 {
	if q.Monitor == nil {
		return 0
	}
	return float64(q.Monitor.NotifiesSent)
}

// workloadValue sums a figure over the workload the subject names, or over all.
func workloadValue(get func(WorkloadResult) int64) func(*Result, Subject) (float64, string) {
	return func(res *Result, s Subject) (float64, string) {
		var n int64
		found := false
		for _, w := range res.Workloads {
			if s.Workload == "" || w.Name == s.Workload {
				n += get(w)
				found = true
			}
		}
		if s.Workload != "" && !found {
			return 0, fmt.Sprintf("workload %q is not in the result", s.Workload)
		}
		return float64(n), ""
	}
}

// queueValue sums a figure over the queues the subject names, or over all.
func queueValue(get func(QueueResult) float64) func(*Result, Subject) (float64, string) {
	return func(res *Result, s Subject) (float64, string) {
		rows := res.Queues
		if s.Queue != "" {
			if rows = res.queueRows(s.Queue); len(rows) == 0 {
				return 0, fmt.Sprintf("queue %q is not in the result", s.Queue)
			}
		}
		var sum float64
		for _, q := range rows {
			sum += get(q)
		}
		return sum, ""
	}
}

// instanceValue sums a figure over the instance the subject names, or over all.
func instanceValue(get func(InstanceResult) float64) func(*Result, Subject) (float64, string) {
	return func(res *Result, s Subject) (float64, string) {
		var sum float64
		found := false
		for _, in := range res.Instances {
			if s.Instance == "" || in.Name == s.Instance {
				sum += get(in)
				found = true
			}
		}
		if s.Instance != "" && !found {
			return 0, fmt.Sprintf("instance %q is not in the result", s.Instance)
		}
		return sum, ""
	}
}

// level returns the result's row of a level; a level that carried nothing has a zero row.
func (r *Result) level(l int) LevelResult {
	for _, lr := range r.Levels {
		if lr.Level == l {
			return lr
		}
	}
	return LevelResult{Level: l}
}

// SplitQueue splits a queue selector, a name, instance/queue or instance/database/queue,
// into the instance and the database (empty where the selector does not say them) and the
// queue's name.
func SplitQueue(sel string) (instance, database, name string) {
	parts := strings.Split(sel, "/")
	switch len(parts) {
	case 2:
		return parts[0], "", parts[1]
	case 3:
		return parts[0], parts[1], parts[2]
	}
	return "", "", sel
}

func (r *Result) queueRows(sel string) []QueueResult {
	inst, db, name := SplitQueue(sel)
	var rows []QueueResult
	for _, q := range r.Queues {
		if q.Queue == name && (inst == "" || q.Instance == inst) && (db == "" || q.Database == db) {
			rows = append(rows, q)
		}
	}
	return rows
}

// queueNameMatches reports whether a reader row's queue (a name, or the
// instance/database/queue an external activator was given) is the selected one. Reader
// rows do not say their instance: queues of one name on two instances share their rows.
func queueNameMatches(sel, row string) bool {
	_, _, name := SplitQueue(sel)
	_, _, rowName := SplitQueue(row)
	return row == sel || rowName == name
}

func (r *Result) readerRows(sel string) []ReaderResult {
	var rows []ReaderResult
	for _, rr := range r.Readers {
		if queueNameMatches(sel, rr.Queue) {
			rows = append(rows, rr)
		}
	}
	return rows
}
