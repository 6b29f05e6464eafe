package batch

import (
	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// MarkTally accumulates the coverage marks (model.Mark) of many runs, in constant memory:
// how many runs reached each mark, and how many runs it saw. check uses it to print the
// marks a seed set never reached and to judge a scenario's require_marks; explore can use
// it the same way. The zero value is an empty tally.
type MarkTally struct {
	runs    int
	reached [model.NumMarks]int // runs that reached each mark
}

// Add counts one run's marks.
func (t *MarkTally) Add(c *model.MarkCounts) {
	t.runs++
	for i, n := range c {
		if n > 0 {
			t.reached[i]++
		}
	}
}

// AddResult counts a result's marks.
func (t *MarkTally) AddResult(res *scenarios.Result) { t.Add(&res.Marks) }

// Merge adds another tally's runs, as if each had been added here.
func (t *MarkTally) Merge(o *MarkTally) {
	t.runs += o.runs
	for i := range t.reached {
		t.reached[i] += o.reached[i]
	}
}

// Runs returns how many runs the tally counted.
func (t *MarkTally) Runs() int { return t.runs }

// Reached returns how many runs reached mark m.
func (t *MarkTally) Reached(m model.Mark) int { return t.reached[m] }

// NeverReached returns the marks no run reached, in the order of model.MarkTable.
func (t *MarkTally) NeverReached() []model.Mark {
	var out []model.Mark
	for _, info := range model.MarkTable() {
		if t.reached[info.Mark] == 0 {
			out = append(out, info.Mark)
		}
	}
	return out
}

// Missing returns the marks of required that no run reached, in required's order.
func (t *MarkTally) Missing(required []model.Mark) []model.Mark {
	var out []model.Mark
	for _, m := range required {
		if t.reached[m] == 0 {
			out = append(out, m)
		}
	}
	return out
}

// MarkNames returns the names of marks, in order.
func MarkNames(marks []model.Mark) []string {
	names := make([]string, len(marks))
	for i, m := range marks {
		names[i] = m.Name()
	}
	return names
}
