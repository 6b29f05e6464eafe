package file

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// RequireMarksKey is the key of the marks a scenario requires, and the metric its verdict
// names: a run fails when it never reached one of them, and a check when none of its seeds
// did (batch.Verdict). docs/marks.md lists the marks.
const RequireMarksKey = "require_marks"

// requireMarks decodes require_marks: a list of mark names (model.MarkTable), each once.
func (d *decoder) requireMarks(top *mapping) []model.Mark {
	var out []model.Mark
	var names []string
	for _, info := range model.MarkTable() {
		names = append(names, info.Name)
	}
	top.list(RequireMarksKey, "mark names", func(_ int, n *yaml.Node, path string) {
		if n.Kind != yaml.ScalarNode || isNull(n) {
			d.errorf(n, path, "want a mark name, got %s", describe(n))
			return
		}
		m, ok := model.LookupMark(n.Value)
		switch {
		case !ok:
			msg := fmt.Sprintf("unknown mark %q", n.Value)
			if s := closestMark(n.Value, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			d.errorf(n, path, "%s; docs/marks.md lists the marks", msg)
		case containsMark(out, m):
			d.errorf(n, path, "mark %q is required twice", n.Value)
		default:
			out = append(out, m)
		}
	})
	return out
}

// closestMark suggests a mark for a name that is none: the closest by spelling, else the
// one that shares the longest beginning with it, past its area, when that is most of it
// (lock.deadlocked, for lock.deadlock-victim).
func closestMark(name string, names []string) string {
	if s := closest(name, names); s != "" {
		return s
	}
	best, bestN := "", 0
	for _, s := range names {
		n := 0
		for n < len(s) && n < len(name) && s[n] == name[n] {
			n++
		}
		if n > bestN {
			best, bestN = s, n
		}
	}
	if dot := strings.IndexByte(name, '.'); dot < 0 || bestN <= dot+1 || 2*bestN < len(name) {
		return ""
	}
	return best
}

func containsMark(marks []model.Mark, m model.Mark) bool {
	for _, x := range marks {
		if x == m {
			return true
		}
	}
	return false
}

// MissingMarks returns the marks the scenario requires that the run never reached, in the
// file's order.
func (f *Scenario) MissingMarks(res *scenarios.Result) []model.Mark {
	var out []model.Mark
	for _, m := range f.RequireMarks {
		if !res.Marks.Reached(m) {
			out = append(out, m)
		}
	}
	return out
}

// marksVerdict is the failed verdict of a run that never reached a mark the scenario
// requires; nil when it reached them all, so that a run that meets them reads as before.
// A check judges require_marks over its seeds instead (batch.Verdict.MissingMarks).
func (f *Scenario) marksVerdict(res *scenarios.Result) []ExpectationVerdict {
	missing := f.MissingMarks(res)
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, m := range missing {
		names[i] = m.Name()
	}
	e := Expectation{Metric: RequireMarksKey, Comparator: Equals}
	return []ExpectationVerdict{{Expectation: e, OK: false, Got: "never reached: " + strings.Join(names, ", ")}}
}

// RequiresMarks reports whether the expectation is require_marks's verdict (marksVerdict).
func (e Expectation) RequiresMarks() bool { return e.Metric == RequireMarksKey }
