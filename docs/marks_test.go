package docs

import (
	"strings"
	"testing"

	"github.com/sbsim/sbsim/model"
)

// The table of marks.md is model.MarkTable: the same marks, in the same order, each with
// its rules and its description.
func TestMarksPageIsTheTableOfMarks(t *testing.T) {
	rows := tableRows(t, "marks.md", "| Mark | Rules | Reached when |")
	table := model.MarkTable()
	if len(rows) != len(table) {
		t.Errorf("marks.md lists %d marks, model.MarkTable %d", len(rows), len(table))
	}
	for i := 0; i < len(rows) && i < len(table); i++ {
		cells, m := rows[i], table[i]
		mustHold(t, len(cells) == 3, "a marks row without three cells: %q", cells)
		if got := strings.Trim(cells[0], "`"); got != m.Name {
			t.Errorf("marks.md row %d is %q, model.MarkTable has %q there", i+1, got, m.Name)
		}
		if cells[1] != m.Rules {
			t.Errorf("mark %s: marks.md gives the rules %q, the table %q", m.Name, cells[1], m.Rules)
		}
		want := strings.ToUpper(m.Description[:1]) + m.Description[1:] + "."
		if cells[2] != want {
			t.Errorf("mark %s: marks.md says\n  %q\nthe table says\n  %q", m.Name, cells[2], want)
		}
	}
}
