package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Unit is the unit of a metric's values.
type Unit uint8

const (
	// Count is a number of things.
	Count Unit = iota
	// Duration is a time.Duration, in nanoseconds.
	Duration
	// Fraction is a part of a whole, from 0 to 1.
	Fraction
	// Verdict is 1 when something held and 0 when it was violated.
	Verdict
	// Rate is a number of things per second of virtual time.
	Rate
)

// String names the unit as the metrics reference does.
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("Unit(%d)", int(u))
}

var unitNames = [...]string{"count", "duration", "fraction", "hold/violated", "per second"}

// Format writes a value of the unit for a reader: 1.5s for a duration, 42 for a count.
func (u Unit) Format(v float64) string {
	switch u {
	case Duration:
		return time.Duration(v).String()
	case Fraction:
		return strconv.FormatFloat(v, 'g', 6, 64) // enough to read, and to tell apart what an expectation compares
	case Rate:
		return strconv.FormatFloat(v, 'g', 4, 64) + "/s"
	case Verdict:
		if v == 0 {
			return "violated"
		}
		return "hold"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Keys is a set of the keys that narrow a metric to a subject.
type Keys uint8

const (
	LevelKey Keys = 1 << iota
	QueueKey
	WorkloadKey
	InstanceKey
)

var keyNames = [...]string{"level", "queue", "workload", "instance"}

// Names lists the keys of the set, in a fixed order.
func (k Keys) Names() []string {
	var out []string
	for i, name := range keyNames {
		if k&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// Subject narrows a metric to one part of the world: a priority level (1 to 10), a queue
// (its name, or instance/queue, or instance/database/queue), a workload or an instance
// (their names). The zero Subject is the whole run.
type Subject struct {
	Level    int
	Queue    string
	Workload string
	Instance string
}

// Keys returns the keys the subject sets.
func (s Subject) Keys() Keys {
	var k Keys
	if s.Level != 0 {
		k |= LevelKey
	}
	if s.Queue != "" {
		k |= QueueKey
	}
	if s.Workload != "" {
		k |= WorkloadKey
	}
	if s.Instance != "" {
		k |= InstanceKey
	}
	return k
}

// String writes the subject as the text report and sweep.csv name it: "level 10",
// "queue StockQueue", "workload orders", "instance Tokyo", or "all".
func (s Subject) String() string {
	var parts []string
	if s.Level != 0 {
		parts = append(parts, "level "+strconv.Itoa(s.Level))
	}
	for i, v := range []string{s.Queue, s.Workload, s.Instance} {
		if v != "" {
			parts = append(parts, keyNames[i+1]+" "+v)
		}
	}
	if len(parts) == 0 {
		return "all"
	}
	return strings.Join(parts, ", ")
}

// Metric is one figure a run reports: its name, unit and meaning, and how it is computed
// from a Result. The table of metrics (Metrics) is the one place a figure is declared:
// expectations name metrics, summary.json lists their values, the text report prints them
// and sweeps write them per point.
type Metric struct {
	Name string
	Unit Unit
	// Takes lists the keys that may narrow the metric to a subject; Needs those it cannot
	// do without (it has no value for the whole run).
	Takes, Needs Keys
	// Doc says what it measures, for the reference.
	Doc string
	// value measures it on a subject; with no value, it returns the reason.
	value func(res *Result, s Subject) (float64, string)
}

// Value measures the metric on the subject of res. ok is false when there is nothing to
// measure (no message was received, the queue is not in the result); why says so.
func (m Metric) Value(res *Result, s Subject) (v float64, why string, ok bool) {
	if extra := s.Keys() &^ m.Takes; extra != 0 {
		return 0, fmt.Sprintf("metric %s takes no %s", m.Name, strings.Join(extra.Names(), " or ")), false
	}
	if missing := m.Needs &^ s.Keys(); missing != 0 {
		return 0, fmt.Sprintf("metric %s needs a %s", m.Name, strings.Join(missing.Names(), " and a ")), false
	}
	v, why = m.value(res, s)
	return v, why, why == ""
}

// Measure is a metric's value on one subject of a result.
type Measure struct {
	Metric  string
	Subject Subject
	Unit    Unit
	Value   float64
}

// Subjects returns the subjects the metric has in res: the whole run (unless it needs a
// key), then each level, queue, workload or instance of the result it takes, in the
// result's order.
func (m Metric) Subjects(res *Result) []Subject {
	var out []Subject
	if m.Needs == 0 {
		out = append(out, Subject{})
	}
	if m.Takes&LevelKey != 0 {
		for _, l := range res.Levels {
			out = append(out, Subject{Level: l.Level})
		}
	}
	if m.Takes&QueueKey != 0 {
		for _, q := range res.queueSubjects() {
			out = append(out, Subject{Queue: q})
		}
	}
	if m.Takes&WorkloadKey != 0 {
		for _, w := range res.Workloads {
			out = append(out, Subject{Workload: w.Name})
		}
	}
	if m.Takes&InstanceKey != 0 {
		for _, in := range res.Instances {
			out = append(out, Subject{Instance: in.Name})
		}
	}
	return out
}

// Measures returns the metric's value on every subject of res that has one.
func (m Metric) Measures(res *Result) []Measure {
	var out []Measure
	for _, s := range m.Subjects(res) {
		if v, _, ok := m.Value(res, s); ok {
			out = append(out, Measure{Metric: m.Name, Subject: s, Unit: m.Unit, Value: v})
		}
	}
	return out
}

// Measures returns every metric's values on every subject of res, in the table's order.
func Measures(res *Result) []Measure {
	var out []Measure
	for _, m := range metrics {
		out = append(out, m.Measures(res)...)
	}
	return out
}

// Metrics returns the table of metrics, in a fixed order.
func Metrics() []Metric { return slices.Clone(metrics) }

// LookupMetric returns the metric called name.
func LookupMetric(name string) (Metric, bool) {
	i := slices.IndexFunc(metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return metrics[i], true
}

// queueSubjects names the result's queues: by name, or by instance/database/queue where
// the name is not unique in the world (the selector a scenario file's expectations take).
func (r *Result) queueSubjects() []string {
	out := make([]string, 0, len(r.Queues))
	for _, q := range r.Queues {
		n := 0
		for _, o := range r.Queues {
			if o.Queue == q.Queue {
				n++
			}
		}
		if n > 1 {
			out = append(out, q.Instance+"/"+q.Database+"/"+q.Queue)
		} else {
			out = append(out, q.Queue)
		}
	}
	return out
}
