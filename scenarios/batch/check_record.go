package batch

import (
	"errors"
	"strconv"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// CheckRecord is one run of a check as a shard of it records it (CheckShard): what the
// verdict of its scenario needs of the run, so that the merge of the shards judges every
// scenario over all its seeds as the one check does (CheckRecords), byte for byte.
type CheckRecord struct {
	// Run is the run's number among the check's runs, from 1: each scenario's seeds,
	// scenario after scenario.
	Run      int            `json:"run"`
	Scenario string         `json:"scenario"`
	Seed     uint64         `json:"seed"`
	Reasons  []string       `json:"reasons"`
	Samples  []SampleRecord `json:"samples"`
	Stop     sim.StopReason `json:"stop"`
	// Marks counts, by name, the marks the run reached (the others left out).
	Marks map[string]uint64 `json:"marks"`
	Error string            `json:"error,omitempty"`
}

// SampleRecord is a file.Sample as a CheckRecord holds it: the value written exactly
// (strconv's shortest form that reads back the same float, NaN and infinities included).
type SampleRecord struct {
	Value    string `json:"value"`
	Measured bool   `json:"measured"`
	Holds    bool   `json:"holds"`
	Got      string `json:"got"`
}

// recordOf is the record of run number run, of the target called name.
func recordOf(run int, name string, o Outcome[runJudgement]) CheckRecord {
	r := CheckRecord{Run: run, Scenario: name, Seed: o.Seed, Reasons: o.Kept.reasons, Stop: o.Kept.stop, Marks: map[string]uint64{}}
	for _, s := range o.Kept.samples {
		r.Samples = append(r.Samples, SampleRecord{Value: strconv.FormatFloat(s.Value, 'g', -1, 64), Measured: s.Measured, Holds: s.Holds, Got: s.Got})
	}
	for m, n := range o.Kept.marks {
		if n > 0 {
			r.Marks[model.Mark(m).Name()] = n
		}
	}
	if o.Err != nil {
		r.Error = o.Err.Error()
	}
	return r
}

// outcome is the outcome the record was made of (an error as its text alone).
func (r CheckRecord) outcome() Outcome[runJudgement] {
	o := Outcome[runJudgement]{Index: r.Run - 1, Seed: r.Seed, Kept: runJudgement{reasons: r.Reasons, stop: r.Stop}}
	for _, s := range r.Samples {
		v, _ := strconv.ParseFloat(s.Value, 64)
		o.Kept.samples = append(o.Kept.samples, file.Sample{Value: v, Measured: s.Measured, Holds: s.Holds, Got: s.Got})
	}
	for name, n := range r.Marks {
		if m, ok := model.LookupMark(name); ok {
			o.Kept.marks[m] = n
		}
	}
	if r.Error != "" {
		o.Err = errors.New(r.Error)
	}
	return o
}
