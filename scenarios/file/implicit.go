package file

import (
	"fmt"

	"github.com/sbsim/sbsim/scenarios"
)

// sendFailures is the metric of the SENDs and BEGIN DIALOGs of the workloads that failed.
const sendFailures = "send_failures"

// implicitVerdicts are the verdicts of what every scenario expects without writing it: no
// SEND or BEGIN DIALOG of a workload fails, unless an expectation of the file names the
// metric send_failures (and so says how many are right). A verdict is listed only when it
// fails, so that a run that meets them reads as before.
func (f *Scenario) implicitVerdicts(res *scenarios.Result) []ExpectationVerdict {
	for _, e := range f.Expectations {
		if e.Metric == sendFailures {
			return nil
		}
	}
	var failed int64
	var first string
	for _, w := range res.Workloads {
		if w.SendFailures > 0 && first == "" {
			first = fmt.Sprintf("%d in workload %q", w.SendFailures, w.Name)
		}
		failed += w.SendFailures
	}
	if failed == 0 {
		return nil
	}
	got := fmt.Sprintf("%d: %s", failed, first)
	if res.FirstStatementError != "" {
		got += "; the first statement error: " + res.FirstStatementError
	}
	e := Expectation{Metric: sendFailures, Comparator: Equals, Value: 0,
		Implicit: "no expectation names send_failures, so none may fail"}
	return []ExpectationVerdict{{Expectation: e, OK: false, Got: got}}
}
