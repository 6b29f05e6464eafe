package scenarios

import (
	"fmt"
	"time"
)

// flowMetrics are the rows of the table of metrics for round trips and for what goes
// through a queue (figures.go).
func flowMetrics() []Metric {
	var ms []Metric
	for _, st := range latencyStats {
		get := st.get
		ms = append(ms, Metric{Name: "round_trip." + st.name, Unit: Duration, Takes: WorkloadKey,
			Doc: "round trip, " + st.name + ": from a request's SEND commit to the commit of the transaction in which the initiator's program received its reply " +
				"(reply k on a dialog answers request k, EOIO); with a workload, over its dialogs",
			value: func(res *Result, s Subject) (float64, string) {
				l := res.Flow.RoundTrip
				if s.Workload != "" {
					w, why := res.workload(s.Workload)
					if why != "" {
						return 0, why
					}
					l = w.RoundTrip
				}
				if l.Count == 0 {
					return 0, "no reply received"
				}
				return float64(get(l)), ""
			}})
	}
	for _, f := range []struct {
		name, doc string
		run       func(RunFlow) LatencySummary
		queue     func(QueueFlow) LatencySummary
	}{
		{"time_in_queue", "time in queue: from a user message becoming ready on the queue to the RECEIVE that returned it, in a committed transaction",
			func(r RunFlow) LatencySummary { return r.TimeInQueue }, func(q QueueFlow) LatencySummary { return q.TimeInQueue }},
		{"sojourn", "sojourn: from a user message's SEND commit to the commit of the transaction that received it",
			func(r RunFlow) LatencySummary { return r.Sojourn }, func(q QueueFlow) LatencySummary { return q.Sojourn }},
	} {
		for _, st := range latencyStats {
			get, f := st.get, f
			ms = append(ms, Metric{Name: f.name + "." + st.name, Unit: Duration, Takes: QueueKey,
				Doc: f.doc + ", " + st.name + "; with a queue, on that one",
				value: func(res *Result, s Subject) (float64, string) {
					l := f.run(res.Flow)
					if s.Queue != "" {
						q, why := res.queueFlow(s.Queue)
						if why != "" {
							return 0, why
						}
						l = f.queue(q)
					}
					if l.Count == 0 {
						return 0, "no message received"
					}
					return float64(get(l)), ""
				}})
		}
	}
	return append(ms,
		Metric{Name: "messages.received", Takes: QueueKey, Needs: QueueKey,
			Doc: "user messages the queue's readers received in committed transactions",
			value: func(res *Result, s Subject) (float64, string) {
				q, why := res.queueFlow(s.Queue)
				return float64(q.Received), why
			}},
		Metric{Name: "throughput", Unit: Rate, Takes: QueueKey, Needs: QueueKey,
			Doc: "user messages received per second on the queue, from the first one's arrival (ready on the queue) to the commit that received the last",
			value: func(res *Result, s Subject) (float64, string) {
				q, why := res.queueFlow(s.Queue)
				switch {
				case why != "":
					return 0, why
				case q.Received == 0:
					return 0, "no message received"
				case q.LastReceived <= q.FirstArrival:
					return 0, "no time passed from the first arrival to the last message received"
				}
				return float64(q.Received) / (q.LastReceived - q.FirstArrival).Seconds(), ""
			}},
		Metric{Name: "backlog.peak", Takes: QueueKey, Needs: QueueKey,
			Doc: "the most messages (of any type) ready on the queue at once, after any step of the world that made one ready: exact, not sampled",
			value: func(res *Result, s Subject) (float64, string) {
				q, why := res.queueFlow(s.Queue)
				return float64(q.BacklogPeak), why
			}},
		Metric{Name: "drain_time", Unit: Duration, Takes: QueueKey, Needs: QueueKey,
			Doc: "time to drain: from the last user message's arrival (ready on the queue) to the commit that received the queue's last user message; " +
				"no value when messages are left ready at the end",
			value: func(res *Result, s Subject) (float64, string) {
				q, why := res.queueFlow(s.Queue)
				switch {
				case why != "":
					return 0, why
				case q.Received == 0:
					return 0, "no message received"
				case q.ReadyAtEnd > 0:
					return 0, fmt.Sprintf("the queue did not drain: %d messages ready at the end", q.ReadyAtEnd)
				}
				return float64(max(q.LastReceived-q.LastArrival, time.Duration(0))), ""
			}},
	)
}

// workload returns the result's row of the workload called name, or why there is none.
func (r *Result) workload(name string) (WorkloadResult, string) {
	for _, w := range r.Workloads {
		if w.Name == name {
			return w, ""
		}
	}
	return WorkloadResult{}, fmt.Sprintf("workload %q is not in the result", name)
}

// queueFlow returns the flow of the one queue sel names, or why there is none.
func (r *Result) queueFlow(sel string) (QueueFlow, string) {
	rows := r.queueRows(sel)
	switch len(rows) {
	case 0:
		return QueueFlow{}, fmt.Sprintf("queue %q is not in the result", sel)
	case 1:
		return rows[0].Flow, ""
	}
	return QueueFlow{}, fmt.Sprintf("queue %q names %d queues: name it instance/database/queue", sel, len(rows))
}
