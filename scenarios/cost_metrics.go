package scenarios

import (
	"fmt"
	"time"
)

// costMetrics are the figures of the cost model (docs/costs.md): CPU busy per instance and
// CPU time by statement kind. Without costs they have no value.
func costMetrics() []Metric {
	ms := []Metric{
		{Name: "cpu.busy", Unit: Fraction, Takes: InstanceKey,
			Doc: "the part of the CPU capacity used (CPU time served over CPUs times the run's length), 0 to 1, with costs on; with an instance, of its CPUs",
			value: func(res *Result, s Subject) (float64, string) {
				var busy, capacity float64
				err := cpuRows(res, s, func(c CPUResult) {
					busy += float64(c.Busy)
					capacity += float64(c.CPUs) * float64(res.EndTime)
				})
				if err != "" {
					return 0, err
				}
				if capacity == 0 {
					return 0, "the run took no time"
				}
				return busy / capacity, ""
			}},
		{Name: "cpu.time", Unit: Duration, Takes: InstanceKey,
			Doc:   "CPU time served, every statement kind together, with costs on; with an instance, by its CPUs",
			value: cpuTime(func(c CPUResult) time.Duration { return c.Busy })},
	}
	for k, name := range CostKinds {
		ms = append(ms, Metric{Name: "cpu.time." + name, Unit: Duration, Takes: InstanceKey,
			Doc:   "CPU time served for " + costKindDocs[k] + ", with costs on; with an instance, by its CPUs",
			value: cpuTime(func(c CPUResult) time.Duration { return c.ByKind[k] })})
	}
	return ms
}

var costKindDocs = [costKinds]string{"BEGIN DIALOG", "SEND", "RECEIVE and GET CONVERSATION GROUP calls", "the rows RECEIVE returned",
	"END CONVERSATION", "BEGIN CONVERSATION TIMER", "COMMIT (its log flush is a wait, not CPU)", "the readers' processing (processing_on_cpu)"}

func cpuTime(get func(CPUResult) time.Duration) func(*Result, Subject) (float64, string) {
	return func(res *Result, s Subject) (float64, string) {
		var sum time.Duration
		if err := cpuRows(res, s, func(c CPUResult) { sum += get(c) }); err != "" {
			return 0, err
		}
		return float64(sum), ""
	}
}

// cpuRows calls each with the CPU rows of the subject's instance, or of all; it returns why
// there is no value.
func cpuRows(res *Result, s Subject, each func(CPUResult)) string {
	if res.CPU == nil {
		return "costs are off"
	}
	found := false
	for _, c := range res.CPU {
		if s.Instance == "" || c.Instance == s.Instance {
			each(c)
			found = true
		}
	}
	if !found {
		return fmt.Sprintf("instance %q is not in the result", s.Instance)
	}
	return ""
}
