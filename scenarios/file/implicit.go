package file

import (
	"fmt"

	"github.com/sbsim/sbsim/scenarios"
)

// sendFailures is the metric of the SENDs and BEGIN DIALOGs of the workloads that failed.
const sendFailures = "send_failures"

// implicitVerdicts are the verdicts of what every scenario expects without writing it: no
// SEND or BEGIN DIALOG of a workload fails, unless an expectation of the file names the
// metric send_failures (and so says how many are right), and no design finding
// (scenarios.MetricReopened: a dialog Service Broker itself would run twice), unless an
// expectation names that metric. A verdict is listed only when it fails, so that a run that
// meets them reads as before.
func (f *Scenario) implicitVerdicts(res *scenarios.Result) []ExpectationVerdict {
	out := f.implicitFindings(res)
	if f.names(sendFailures) {
		return out
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
		return out
	}
	got := fmt.Sprintf("%d: %s", failed, first)
	if res.FirstStatementError != "" {
		got += "; the first statement error: " + res.FirstStatementError
	}
	e := Expectation{Metric: sendFailures, Comparator: Equals, Value: 0,
		Implicit: "no expectation names send_failures, so none may fail"}
	return append(out, ExpectationVerdict{Expectation: e, OK: false, Got: got})
}

// names reports whether an expectation of the file names the metric.
func (f *Scenario) names(metric string) bool {
	for _, e := range f.Expectations {
		if e.Metric == metric {
			return true
		}
	}
	return false
}

// implicitFindings is the failed verdict of a run with a design finding the scenario does
// not expect: the design failed, although the simulator held its invariants.
func (f *Scenario) implicitFindings(res *scenarios.Result) []ExpectationVerdict {
	if res.FindingCount == 0 || f.names(scenarios.MetricReopened) {
		return nil
	}
	e := Expectation{Metric: scenarios.MetricReopened, Comparator: Equals, Value: 0,
		Implicit: "no expectation names " + scenarios.MetricReopened + ", so no dialog may run twice"}
	got := fmt.Sprintf("%d, a design finding (docs/dialog-protocol.md#design-findings)", res.FindingCount)
	return []ExpectationVerdict{{Expectation: e, OK: false, Got: got}}
}
