package batch

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// SideBySide is what two runs of a job, side by side, found: the first trace record that
// differs, with the records before it, or, when their traces are the same, how their
// results differ.
type SideBySide struct {
	// Record is the number, from 1, of the first trace record that differs; 0 when the two
	// traces are the same.
	Record uint64
	// Before are the records before it, the same in both runs: up to 3, the last one last.
	Before []model.TraceRecord
	// Versions are record number Record of each run; nil for a run that had ended.
	Versions [2]*model.TraceRecord
	// Difference says, when the traces are the same, how the results differ (events,
	// stop reason, a metric, the violation, an error), or is empty: the job is
	// deterministic on its own, and its passes differed through what they did not share,
	// GOMAXPROCS or the other runs of the batch. When the traces differ, it gives the
	// error of a run that failed, if one did.
	Difference string
}

// CompareSideBySide runs job twice at once, each run on a goroutine of its own, and
// compares their trace records one by one as they are emitted: it stops both at the first
// that differs. Only the last few records are kept, so memory does not grow with the runs.
func CompareSideBySide(job Job) SideBySide {
	return compareSideBySide(job, job)
}

// compareSideBySide runs a and b at once and compares their trace records.
func compareSideBySide(a, b Job) SideBySide {
	stop := make(chan struct{})
	runs := [2]*sideRun{startSide(a, stop), startSide(b, stop)}
	var s SideBySide
	for n := uint64(1); ; n++ {
		x, okA := <-runs[0].records
		y, okB := <-runs[1].records
		if !okA && !okB {
			break
		}
		if okA && okB && x == y {
			if len(s.Before) == contextRecords {
				s.Before = append(s.Before[:0], s.Before[1:]...)
			}
			s.Before = append(s.Before, x)
			continue
		}
		s.Record = n
		if okA {
			s.Versions[0] = &x
		}
		if okB {
			s.Versions[1] = &y
		}
		break
	}
	close(stop)
	for _, r := range runs {
		for range r.records { // until the run ends
		}
	}
	switch {
	case s.Record == 0:
		s.Before = nil
		s.Difference = resultDifference(runs[0], runs[1])
	case runs[0].err != nil || runs[1].err != nil:
		s.Difference = fmt.Sprintf("run A ended with error %v, run B with error %v", runs[0].err, runs[1].err)
	}
	return s
}

// sideRun is one run of a comparison side by side: its records, as they are emitted, and,
// once records is closed, its result.
type sideRun struct {
	records chan model.TraceRecord
	res     *scenarios.Result
	err     error
}

// errSideStopped is the panic that ends a run side by side once the comparison is over.
var errSideStopped = errors.New("the comparison side by side is over")

// startSide starts job on a goroutine of its own, handing its records over a channel
// until stop is closed, after which the run's next record ends it.
func startSide(job Job, stop <-chan struct{}) *sideRun {
	s := &sideRun{records: make(chan model.TraceRecord, 256)}
	sink := scenarios.TraceSinkFunc(func(r *model.TraceRecord) {
		select {
		case <-stop:
			panic(errSideStopped)
		default:
		}
		select {
		case s.records <- *r:
		case <-stop:
			panic(errSideStopped)
		}
	})
	go func() {
		defer close(s.records)
		defer func() {
			if r := recover(); r != nil && r != errSideStopped {
				s.err = &PanicError{Value: r, Stack: string(debug.Stack())}
			}
		}()
		s.res, s.err = scenarios.Run(tracedTo(job.Config, sink), job.Seed)
	}()
	return s
}

// resultDifference says how the results of two runs with the same trace differ, or "".
func resultDifference(a, b *sideRun) string {
	switch {
	case a.err != nil || b.err != nil:
		return fmt.Sprintf("run A ended with error %v, run B with error %v", a.err, b.err)
	case a.res.Events != b.res.Events:
		return fmt.Sprintf("run A took %d events, run B %d", a.res.Events, b.res.Events)
	case a.res.StopReason != b.res.StopReason:
		return fmt.Sprintf("run A stopped with %v, run B with %v", a.res.StopReason, b.res.StopReason)
	}
	ma, mb := scenarios.Measures(a.res), scenarios.Measures(b.res)
	for i := range min(len(ma), len(mb)) {
		x, y := ma[i], mb[i]
		if x.Metric != y.Metric || x.Subject != y.Subject || math.Float64bits(x.Value) != math.Float64bits(y.Value) {
			return fmt.Sprintf("measure %d is %s of %v = %v in run A, %s of %v = %v in run B", i+1,
				x.Metric, x.Subject, x.Value, y.Metric, y.Subject, y.Value)
		}
	}
	if len(ma) != len(mb) {
		return fmt.Sprintf("run A has %d measures, run B %d", len(ma), len(mb))
	}
	if hashMeasures(a.res) != hashMeasures(b.res) {
		return fmt.Sprintf("run A found violation %v, run B %v", a.res.Violation, b.res.Violation)
	}
	return ""
}

// report writes what the comparison found, as Divergence.Error shows it.
func (s SideBySide) report() string {
	var b strings.Builder
	switch {
	case s.Record == 0 && s.Difference != "":
		fmt.Fprintf(&b, "  run twice more side by side (A and B), their traces are the same, but %s\n", s.Difference)
		return b.String()
	case s.Record == 0:
		b.WriteString("  run twice more side by side, the two runs are the same: the passes differed through what\n" +
			"  they did not share (GOMAXPROCS, the other runs of the batch), not through the run alone\n")
		return b.String()
	}
	fmt.Fprintf(&b, "  run twice more side by side (A and B), they first differ at trace record %d:\n", s.Record)
	for _, r := range s.Before {
		fmt.Fprintf(&b, "    both: %v\n", r)
	}
	for i, r := range s.Versions {
		name := string(rune('A' + i))
		if r == nil {
			fmt.Fprintf(&b, "    %s:    (no record: the run had ended)\n", name)
			continue
		}
		fmt.Fprintf(&b, "    %s:    %v\n", name, *r)
	}
	if s.Versions[0] != nil && s.Versions[1] != nil {
		fmt.Fprintf(&b, "    fields that differ (A / B): %s\n", fieldDifferences(s.Versions[0], s.Versions[1]))
	}
	if s.Difference != "" {
		fmt.Fprintf(&b, "    %s\n", s.Difference)
	}
	return b.String()
}
