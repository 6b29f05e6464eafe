package scenarios

import (
	"fmt"
	"strings"
	"time"
)

// metricUnit is the unit of a metric's values.
type metricUnit uint8

const (
	unitCount metricUnit = iota
	unitDuration
	unitFraction
	unitVerdict
)

// selector is a set of the narrowing keys a metric takes.
type selector uint8

const (
	selLevel selector = 1 << iota
	selQueue
	selWorkload
	selInstance
)

// metric is one measurable thing of a Result.
type metric struct {
	name         string
	unit         metricUnit
	takes, needs selector
	// doc says what it measures, for the reference.
	doc string
	// value measures it; with no value, it returns the reason.
	value func(e *Expectation, res *Result) (float64, string)
}

// MetricInfo describes one metric an expectation may name.
type MetricInfo struct {
	Name string
	// Unit is "count", "duration", "fraction" or "hold/violated".
	Unit string
	// Takes lists the narrowing keys it accepts, Needs those it requires.
	Takes, Needs []string
	Doc          string
}

// Metrics lists the metrics expectations may name, in a fixed order.
func Metrics() []MetricInfo {
	var out []MetricInfo
	for _, m := range metrics {
		out = append(out, MetricInfo{Name: m.name, Unit: [...]string{"count", "duration", "fraction", "hold/violated"}[m.unit],
			Takes: m.takes.keys(), Needs: m.needs.keys(), Doc: m.doc})
	}
	return out
}

func (s selector) keys() []string {
	var out []string
	for i, k := range []string{"level", "queue", "workload", "instance"} {
		if s&(1<<i) != 0 {
			out = append(out, k)
		}
	}
	return out
}

// stats are the statistics of a latency summary a metric may name.
var stats = []struct {
	name string
	get  func(LatencySummary) time.Duration
}{
	{"p50", func(s LatencySummary) time.Duration { return s.P50 }},
	{"p90", func(s LatencySummary) time.Duration { return s.P90 }},
	{"p99", func(s LatencySummary) time.Duration { return s.P99 }},
	{"max", func(s LatencySummary) time.Duration { return s.Max }},
	{"mean", func(s LatencySummary) time.Duration { return s.Mean }},
}

var metrics = buildMetrics()

func buildMetrics() []metric {
	var ms []metric
	for _, st := range stats {
		get := st.get
		ms = append(ms, metric{name: "latency." + st.name, unit: unitDuration, takes: selLevel,
			doc: "latency from SEND commit to ready at the target, " + st.name + ", over the user messages received; with a level, those sent at it",
			value: func(e *Expectation, res *Result) (float64, string) {
				s := res.Latency
				if e.Level > 0 {
					s = res.level(e.Level).Latency
				}
				if s.Count == 0 {
					return 0, "no message received"
				}
				return float64(get(s)), ""
			}})
	}
	for _, st := range stats {
		get := st.get
		ms = append(ms, metric{name: "transmission_queue_wait." + st.name, unit: unitDuration, takes: selLevel, needs: selLevel,
			doc: "time from SEND commit to the message's first fragment leaving, " + st.name + ", at a level (PRI-11)",
			value: func(e *Expectation, res *Result) (float64, string) {
				s := res.level(e.Level).TransmissionQueueWait
				if s.Count == 0 {
					return 0, "no message received"
				}
				return float64(get(s)), ""
			}})
	}
	ms = append(ms,
		metric{name: "messages.delivered", takes: selLevel,
			doc: "user messages received in committed transactions; with a level, those sent at it",
			value: func(e *Expectation, res *Result) (float64, string) {
				if e.Level > 0 {
					return float64(res.level(e.Level).Messages), ""
				}
				return float64(res.Latency.Count), ""
			}},
		metric{name: "bytes.delivered", takes: selLevel,
			doc: "bytes of the user messages received; with a level, of those sent at it",
			value: func(e *Expectation, res *Result) (float64, string) {
				var n int64
				for _, l := range res.Levels {
					if e.Level == 0 || l.Level == e.Level {
						n += l.Bytes
					}
				}
				return float64(n), ""
			}},
		metric{name: "share", unit: unitFraction, takes: selLevel, needs: selLevel,
			doc: "a level's part of all the bytes delivered, 0 to 1",
			value: func(e *Expectation, res *Result) (float64, string) {
				return res.level(e.Level).Share, ""
			}},
	)
	for _, w := range []struct{ name, doc string }{
		{"messages.sent", "messages the workloads sent"}, {"dialogs.begun", "dialogs the workloads began"},
		{"dialogs.ended", "dialogs whose initiator ended the conversation"},
		{"replies.received", "replies the initiators received"},
		{"send_failures", "SENDs refused because the dialog had failed or ended"},
	} {
		name := w.name
		ms = append(ms, metric{name: name, takes: selWorkload, doc: w.doc + "; with a workload, that one's",
			value: func(e *Expectation, res *Result) (float64, string) { return res.workloadSum(e.Workload, name) }})
	}
	return append(ms, queueMetrics()...)
}

func queueMetrics() []metric {
	ms := []metric{
		{name: "readers.peak", takes: selQueue, needs: selQueue,
			doc: "the most reader sessions that ran at once on the queue: configured readers, activated tasks (ACT-6) and external activators' readers",
			value: func(e *Expectation, res *Result) (float64, string) {
				rows := res.queueRows(e.Queue)
				if len(rows) == 0 {
					return 0, fmt.Sprintf("queue %q is not in the result", e.Queue)
				}
				peak := 0
				for _, q := range rows {
					peak = max(peak, q.PeakActivated)
					for _, s := range q.Samples {
						peak = max(peak, s.Readers)
					}
				}
				for _, r := range res.readerRows(e.Queue) {
					peak = max(peak, r.PeakRunning)
				}
				return float64(peak), ""
			}},
		{name: "activated_tasks.peak", takes: selQueue, needs: selQueue,
			doc:   "the most activated tasks that ran at once on the queue (ACT-6, INV-8)",
			value: queueValue(func(q QueueResult) float64 { return float64(q.PeakActivated) })},
		{name: "poison_disables", takes: selQueue,
			doc:   "times poison detection turned a queue OFF (QUE-8, G-14); with a queue, that one's",
			value: queueValue(func(q QueueResult) float64 { return float64(q.PoisonDisables) })},
		{name: "notifications.sent", takes: selQueue,
			doc:   "QUEUE_ACTIVATION event notifications sent (ACT-11, ACT-12); with a queue, for that one",
			value: queueValue(func(q QueueResult) float64 { return monitorNotifies(q) })},
		{name: "lock_wait.abandoned", takes: selQueue,
			doc:   "waits for a conversation group lock given up on a time-out, a deadlock or a rollback (G-24)",
			value: queueValue(func(q QueueResult) float64 { return float64(q.LockWaitsAbandoned) })},
	}
	for _, st := range stats {
		get := st.get
		ms = append(ms, metric{name: "lock_wait." + st.name, unit: unitDuration, takes: selQueue, needs: selQueue,
			doc:   "the wait for a lock of one of the queue's conversation groups, " + st.name + ", over the waits granted (LOCK-6, G-24); zero without waits",
			value: queueValue(func(q QueueResult) float64 { return float64(get(q.LockWaits)) })})
	}
	return append(ms,
		metric{name: "deadlocks", takes: selQueue,
			doc: "transactions chosen as deadlock victims (G-24): on every instance, or of the queue's readers",
			value: func(e *Expectation, res *Result) (float64, string) {
				var n int64
				if e.Queue == "" {
					for _, in := range res.Instances {
						n += in.Counters.Deadlocks
					}
					return float64(n), ""
				}
				for _, r := range res.readerRows(e.Queue) {
					n += r.Deadlocks
				}
				return float64(n), ""
			}},
		metric{name: "rollbacks", takes: selQueue,
			doc: "transactions the readers rolled back on purpose (rollback_rate); with a queue, that one's readers'",
			value: func(e *Expectation, res *Result) (float64, string) {
				var n int64
				for _, r := range res.Readers {
					if e.Queue == "" || queueNameMatches(e.Queue, r.Queue) {
						n += r.Rollbacks
					}
				}
				return float64(n), ""
			}},
		metric{name: "statement_errors",
			doc: "statements the applications issued that failed unexpectedly",
			value: func(_ *Expectation, res *Result) (float64, string) {
				return float64(res.StatementErrors), ""
			}},
		metric{name: "fragments.retransmitted", takes: selInstance,
			doc:   "fragments sent again after their retry time-out (PROTO-10, G-8); with an instance, by that one",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.Counters.FragmentsRetransmitted) })},
		metric{name: "transmission_queue.rows", takes: selInstance,
			doc:   "rows left in the transmission queues at the end (TXQ-1, INV-3); with an instance, in its databases",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.TransmissionQueueRows) })},
		metric{name: "end_time", unit: unitDuration,
			doc: "the virtual time at which the run stopped",
			value: func(_ *Expectation, res *Result) (float64, string) {
				return float64(res.EndTime), ""
			}},
		metric{name: "invariants", unit: unitVerdict,
			doc: "whether every invariant checker held (INV-1 to INV-12); written {invariants: hold}",
			value: func(_ *Expectation, res *Result) (float64, string) {
				if res.Violation != nil {
					return 0, ""
				}
				return 1, ""
			}},
	)
}

func monitorNotifies(q QueueResult) float64 {
	if q.Monitor == nil {
		return 0
	}
	return float64(q.Monitor.NotifiesSent)
}

// queueValue sums a figure over the queues the expectation names, or over all.
func queueValue(get func(QueueResult) float64) func(*Expectation, *Result) (float64, string) {
	return func(e *Expectation, res *Result) (float64, string) {
		rows := res.Queues
		if e.Queue != "" {
			if rows = res.queueRows(e.Queue); len(rows) == 0 {
				return 0, fmt.Sprintf("queue %q is not in the result", e.Queue)
			}
		}
		var sum float64
		for _, q := range rows {
			sum += get(q)
		}
		return sum, ""
	}
}

// instanceValue sums a figure over the instance the expectation names, or over all.
func instanceValue(get func(InstanceResult) float64) func(*Expectation, *Result) (float64, string) {
	return func(e *Expectation, res *Result) (float64, string) {
		var sum float64
		found := false
		for _, in := range res.Instances {
			if e.Instance == "" || in.Name == e.Instance {
				sum += get(in)
				found = true
			}
		}
		if e.Instance != "" && !found {
			return 0, fmt.Sprintf("instance %q is not in the result", e.Instance)
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

func (r *Result) workloadSum(name, metric string) (float64, string) {
	var n int64
	found := false
	for _, w := range r.Workloads {
		if name != "" && w.Name != name {
			continue
		}
		found = true
		switch metric {
		case "messages.sent":
			n += w.MessagesSent
		case "dialogs.begun":
			n += w.DialogsBegun
		case "dialogs.ended":
			n += w.DialogsEnded
		case "replies.received":
			n += w.RepliesReceived
		case "send_failures":
			n += w.SendFailures
		}
	}
	if name != "" && !found {
		return 0, fmt.Sprintf("workload %q is not in the result", name)
	}
	return float64(n), ""
}

// splitQueue splits a queue selector, a name or instance/database/queue, into the
// instance (empty for a plain name) and the queue's name.
func splitQueue(sel string) (instance, name string) {
	if parts := strings.Split(sel, "/"); len(parts) == 3 {
		return parts[0], parts[2]
	}
	return "", sel
}

func (r *Result) queueRows(sel string) []QueueResult {
	inst, name := splitQueue(sel)
	var rows []QueueResult
	for _, q := range r.Queues {
		if q.Queue == name && (inst == "" || q.Instance == inst) {
			rows = append(rows, q)
		}
	}
	return rows
}

// queueNameMatches reports whether a reader row's queue (a name, or the
// instance/database/queue an external activator was given) is the selected one. Reader
// rows do not say their instance: queues of one name on two instances share their rows.
func queueNameMatches(sel, row string) bool {
	_, name := splitQueue(sel)
	_, rowName := splitQueue(row)
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

func lookupMetric(name string) *metric {
	for i := range metrics {
		if metrics[i].name == name {
			return &metrics[i]
		}
	}
	return nil
}
