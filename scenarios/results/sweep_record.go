package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
)

// SweepRecordFile is a sweep's own record, beside its sweep.csv: what it swept and each
// point's verdict on the scenario's expectations, which seeds.jsonl cannot hold (a
// statistical expectation is judged over a point's seeds, not on one). The sweep's
// report.html is drawn from it, seeds.jsonl, sweep.csv and the plots.
const SweepRecordFile = "sweep.json"

// SweepRecord is sweep.json.
type SweepRecord struct {
	// Scenario is the swept scenario's name, Question the question it answers.
	Scenario string `json:"scenario"`
	Question string `json:"question"`
	// Seeds is how many seeds every point ran: 1 to Seeds.
	Seeds  int          `json:"seeds"`
	Params []SweepParam `json:"params"`
	// Points are the verdicts of the points whose every seed ran, in their order: all of
	// them, unless the sweep was interrupted.
	Points []PointRecord `json:"points"`
}

// SweepParam is a swept key and its values, in their order.
type SweepParam struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// PointRecord is one point's verdict: every expectation of its scenario, and the seeds
// that failed it, each with its reasons (an invariant violated, an expectation per seed).
type PointRecord struct {
	Point        []Setting          `json:"point"`
	OK           bool               `json:"ok"`
	Expectations []PointExpectation `json:"expectations"`
	Failures     []SeedReasons      `json:"failures"`
}

// PointExpectation is one expectation at one point: over the seeds (a statistical one,
// Got what the seeds gave) or on each seed (Got says on which seeds it failed and what
// each gave).
type PointExpectation struct {
	Expectation string `json:"expectation"`
	OverSeeds   bool   `json:"over_seeds"`
	OK          bool   `json:"ok"`
	Got         string `json:"got"`
}

// SeedReasons is a seed of a point that failed, and why.
type SeedReasons struct {
	Seed    uint64   `json:"seed"`
	Reasons []string `json:"reasons"`
}

// newSweepRecord starts the record of sw, with no point yet.
func newSweepRecord(sw *batch.Sweep) SweepRecord {
	rec := SweepRecord{Seeds: sw.Seeds, Params: []SweepParam{}, Points: []PointRecord{}}
	if sw.Scenario != nil {
		rec.Scenario, rec.Question = sw.Scenario.Config.Name, sw.Scenario.Question
	}
	for _, p := range sw.Params {
		rec.Params = append(rec.Params, SweepParam{Key: p.Key, Values: p.Values})
	}
	return rec
}

// pointRecord is the record of a point's verdict v: the statistical expectations as the
// point's seeds judged them, and each per-seed one held, or failed on the seeds whose
// reasons name it, with what each gave.
func pointRecord(sw *batch.Sweep, v *batch.PointVerdict) PointRecord {
	pt := sw.Points[v.Point]
	rec := PointRecord{OK: v.OK(), Expectations: []PointExpectation{}, Failures: []SeedReasons{}}
	for _, o := range sw.Overrides(pt) {
		rec.Point = append(rec.Point, Setting{Key: o.Key, Value: o.Value})
	}
	for _, f := range v.Failures {
		rec.Failures = append(rec.Failures, SeedReasons{Seed: f.Seed, Reasons: f.Reasons})
	}
	over := v.OverSeeds
	for _, e := range pt.Scenario.Expectations {
		switch {
		case e.RequiresMarks(): // a check judges the marks; a sweep does not
		case e.Statistical() && len(over) > 0:
			rec.Expectations = append(rec.Expectations, PointExpectation{Expectation: over[0].Expectation.String(),
				OverSeeds: true, OK: over[0].OK, Got: over[0].Got})
			over = over[1:]
		case !e.Statistical():
			rec.Expectations = append(rec.Expectations, perSeedExpectation(e.String(), v))
		}
	}
	return rec
}

// perSeedExpectation is the expectation named what, judged on each seed of v: held on
// every seed, or failed on those whose reasons say so ("FAILED: what (got ...)").
func perSeedExpectation(what string, v *batch.PointVerdict) PointExpectation {
	prefix := "FAILED: " + what + " (got "
	var failed []string
	for _, f := range v.Failures {
		for _, r := range f.Reasons {
			if got, ok := strings.CutPrefix(r, prefix); ok {
				got = strings.TrimSuffix(got, ")")
				if line, _, cut := strings.Cut(got, "\n"); cut { // a violation and its records: the first line says it
					got = line + " ..."
				}
				failed = append(failed, fmt.Sprintf("seed %d got %s", f.Seed, got))
				break
			}
		}
	}
	if len(failed) == 0 {
		return PointExpectation{Expectation: what, OK: true, Got: fmt.Sprintf("held on every seed (%d)", v.Seeds)}
	}
	return PointExpectation{Expectation: what, Got: fmt.Sprintf("failed on %d of %d seeds; %s", len(failed), v.Seeds,
		strings.Join(failed, "; "))}
}

// writeSweepRecord writes rec as indented JSON.
func writeSweepRecord(w io.Writer, rec SweepRecord) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	return e.Encode(rec)
}

// ReadSweepRecord reads sweep.json.
func ReadSweepRecord(r io.Reader) (SweepRecord, error) {
	var rec SweepRecord
	err := json.NewDecoder(r).Decode(&rec)
	return rec, err
}
