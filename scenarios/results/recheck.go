package results

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sbsim/sbsim/model/invariant"
)

// Recheck is the verdict of the invariant checkers over a saved trace (RecheckTrace), and
// whether it is the verdict its run gave.
type Recheck struct {
	// Records counts the records read.
	Records int
	// Violation is the first violation the checkers found, nil when every invariant held.
	Violation *invariant.Violation
	// Findings counts the design findings (invariant.Finding).
	Findings int
	// Finished says whether INV-12 was checked at the end: when the run drained, or
	// stopped on a limit or at a violation of INV-12, and its scenario did not expect it
	// not to drain (the run's summary says which).
	Finished bool
	// Differs says how the verdict differs from the run's summary.json ("" when it is the
	// same, or when there was no summary to compare with).
	Differs string
}

// RecheckTrace runs every invariant checker over trace, the records of a run in the order
// trace.jsonl holds them, and, with the run's summary (nil when there is none), checks
// INV-12 at the end as the run did and compares the two verdicts: the same rule, at the
// same time, on the same conversation. The liveness phase's deadline checks, which the run
// made before it stopped, come back as the check at the end.
func RecheckTrace(trace io.Reader, summary *Summary) (Recheck, error) {
	var rc Recheck
	c := invariant.New()
	var last float64
	for r, err := range ReadTrace(trace) {
		if err != nil {
			return rc, err
		}
		rc.Records++
		last = r.At.Seconds()
		if rc.Violation = c.ObserveRecord(&r); rc.Violation != nil {
			break
		}
	}
	if summary != nil && rc.Violation == nil && finishes(summary) {
		rc.Finished = true
		end := summary.EndTimeS
		if v := summary.Invariants.Violation; v != nil {
			end = v.TimeS
		}
		rc.Violation = c.Finish(fromSeconds(max(end, last)))
	}
	rc.Findings = c.FindingCount()
	if summary != nil {
		rc.Differs = differs(rc, summary)
	}
	return rc, nil
}

// finishes reports whether the run of summary checked INV-12 at its end.
func finishes(s *Summary) bool {
	if v := s.Invariants.Violation; v != nil {
		return v.Rule == "INV-12"
	}
	for _, r := range s.Invariants.Rules {
		if r.Rule == "INV-12" && r.Detail == NotDrained {
			return false
		}
	}
	return s.Invariants.Checked
}

// differs says how the recheck's verdict differs from the run's, or "".
func differs(rc Recheck, s *Summary) string {
	run := s.Invariants.Violation
	switch {
	case !s.Invariants.Checked:
		return "the run did not check its invariants (check_invariants: off): its summary has no verdict to compare"
	case rc.Records == 0 && s.Events > 0:
		return fmt.Sprintf("the trace has no record, where the run fired %d events: not this run's trace, or not all of it", s.Events)
	case run == nil && rc.Violation == nil:
		if rc.Findings != s.Invariants.FindingCount {
			return fmt.Sprintf("%d design findings, where the run reported %d", rc.Findings, s.Invariants.FindingCount)
		}
		return ""
	case run == nil:
		return fmt.Sprintf("the trace breaks %s, where the run held every invariant", rc.Violation.Rule)
	case rc.Violation == nil:
		return fmt.Sprintf("the trace holds every invariant, where the run broke %s", run.Rule)
	}
	v := violation(rc.Violation)
	if v.Rule != run.Rule || v.Conversation != run.Conversation {
		return fmt.Sprintf("%s on %q, where the run broke %s on %q", v.Rule, v.Conversation, run.Rule, run.Conversation)
	}
	if v.Rule != "INV-12" && v.TimeS != run.TimeS {
		return fmt.Sprintf("%s at %vs, where the run broke it at %vs", v.Rule, v.TimeS, run.TimeS)
	}
	return ""
}

// RecheckPath is simulate recheck: the checkers over path's trace (a results folder, or its
// trace.jsonl), compared with the summary.json beside it, the verdict printed to stdout. It
// returns the exit code: with a summary, ExitOK when the verdict is the run's (a failing
// run's too) and ExitFailed when it differs; without one, ExitFailed when an invariant
// broke; ExitUsage when the trace or the summary cannot be read.
func RecheckPath(path string, stdout, stderr io.Writer) int {

	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, TraceFile)
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitUsage
	}
	defer f.Close()
	var summary *Summary
	sumPath := filepath.Join(filepath.Dir(path), SummaryFile)
	switch sf, err := os.Open(sumPath); {
	case err == nil:
		s, err := ReadSummary(sf)
		sf.Close()
		if err != nil {
			fmt.Fprintf(stderr, "simulate: %s: %v\n", sumPath, err)
			return ExitUsage
		}
		summary = &s
	case !errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitUsage
	}
	rc, err := RecheckTrace(f, summary)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %s: %v\n", path, err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "rechecked %d trace records of %s\n", rc.Records, path)
	switch {
	case rc.Violation != nil:
		fmt.Fprintf(stdout, "verdict: FAILED: %v\n", rc.Violation)
	default:
		fmt.Fprintf(stdout, "verdict: every invariant held (%d design findings)\n", rc.Findings)
	}
	if rc.Violation == nil && !rc.Finished {
		fmt.Fprintln(stdout, "INV-12 (everything delivered at the end) was not checked: no summary.json beside the trace, or the run did not drain, as its scenario expects")
	}
	switch {
	case summary == nil:
		fmt.Fprintf(stdout, "no %s beside the trace: nothing to compare the verdict with\n", SummaryFile)
	case rc.Differs != "":
		fmt.Fprintf(stdout, "DIFFERS from the run's %s: %s\n", SummaryFile, rc.Differs)
		return ExitFailed
	default:
		fmt.Fprintf(stdout, "the run's %s gives the same verdict\n", SummaryFile)
		return ExitOK // the trace says what the run said, a failure included
	}
	if rc.Violation != nil {
		return ExitFailed
	}
	return ExitOK
}
