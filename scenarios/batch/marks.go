package batch

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
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

// markTallyJSON is a MarkTally as JSON: the runs, and per mark name the runs that reached
// it (those no run reached left out).
type markTallyJSON struct {
	Runs    int            `json:"runs"`
	Reached map[string]int `json:"reached"`
}

// MarshalJSON writes the tally, for a shard of an exploration to hand to the merge.
func (t MarkTally) MarshalJSON() ([]byte, error) {
	j := markTallyJSON{Runs: t.runs, Reached: map[string]int{}}
	for m := range model.Mark(model.NumMarks) {
		if t.reached[m] > 0 {
			j.Reached[m.Name()] = t.reached[m]
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads a tally MarshalJSON wrote; a mark name this code does not know is an
// error (a shard of other code).
func (t *MarkTally) UnmarshalJSON(data []byte) error {
	var j markTallyJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*t = MarkTally{runs: j.Runs}
	for name, n := range j.Reached {
		m, ok := model.LookupMark(name)
		if !ok {
			return fmt.Errorf("unknown mark %q", name)
		}
		t.reached[m] = n
	}
	return nil
}

// Runs returns how many runs the tally counted.
func (t *MarkTally) Runs() int { return t.runs }

// Reached returns how many runs reached mark m.
func (t *MarkTally) Reached(m model.Mark) int { return t.reached[m] }

// NeverReached returns the marks no run reached, in the order of model.MarkTable.
func (t *MarkTally) NeverReached() []model.Mark {
	var out []model.Mark
	for m := range model.Mark(model.NumMarks) {
		if t.reached[m] == 0 {
			out = append(out, m)
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

// Text writes what the tally says, indented as `simulate check` prints a scenario's
// details: the marks of required that no run reached (which fail a check), then how many
// of all the marks no run reached, and which. It is empty for a tally of no run.
func (t *MarkTally) Text(required []model.Mark) string {
	return t.MissingText(required) + t.NeverReachedText()
}

// MissingText is the line of Text that names the marks of required no run reached; empty
// when the runs reached them all.
func (t *MarkTally) MissingText(required []model.Mark) string {
	missing := t.Missing(required)
	if t.runs == 0 || len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("      FAILED: %s: never reached on any of %d seeds: %s\n", file.RequireMarksKey, t.runs,
		strings.Join(MarkNames(missing), ", "))
}

// NeverReachedText is the line of Text that says how many of all the marks no run reached,
// and which.
func (t *MarkTally) NeverReachedText() string {
	if t.runs == 0 {
		return ""
	}
	never := t.NeverReached()
	if len(never) == 0 {
		return fmt.Sprintf("      marks: every one of the %d reached\n", model.NumMarks)
	}
	return fmt.Sprintf("      marks never reached: %d of %d: %s\n", len(never), model.NumMarks, strings.Join(MarkNames(never), ", "))
}

// MarkNames returns the names of marks, in order.
func MarkNames(marks []model.Mark) []string {
	names := make([]string, len(marks))
	for i, m := range marks {
		names[i] = m.Name()
	}
	return names
}
