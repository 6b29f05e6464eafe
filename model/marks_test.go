package model

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markNamePattern is the form of a mark's name: an area, a dot, words joined by hyphens.
var markNamePattern = regexp.MustCompile(`^[a-z]+\.[a-z]+(-[a-z]+)*$`)

// The table of marks is the one place that names them: every mark has its row, at its own
// index, with a name of the form area.words used by no other mark, the rules it carries
// out and a description; LookupMark finds each by its name and nothing else.
func TestMarkTableNamesEveryMarkOnce(t *testing.T) {
	table := MarkTable()
	require.Len(t, table, NumMarks)
	seen := map[string]Mark{}
	for i, info := range table {
		assert.Equal(t, Mark(i), info.Mark, "row %d of the table is mark %d", i, info.Mark)
		assert.Regexp(t, markNamePattern, info.Name, "mark %d", i)
		assert.NotEmpty(t, info.Rules, "mark %s", info.Name)
		assert.NotEmpty(t, info.Description, "mark %s", info.Name)
		if prev, dup := seen[info.Name]; dup {
			t.Errorf("marks %d and %d are both named %q", prev, i, info.Name)
		}
		seen[info.Name] = info.Mark
		m, ok := LookupMark(info.Name)
		assert.True(t, ok, "LookupMark(%q)", info.Name)
		assert.Equal(t, info.Mark, m, "LookupMark(%q)", info.Name)
		assert.Equal(t, info.Name, m.String())
		assert.Equal(t, info.Description, m.Description())
	}
	_, ok := LookupMark("fragment.retried")
	assert.False(t, ok, "a name not in the table")
	assert.Equal(t, "Mark(200)", Mark(200).Name())
}

// Every reason a fragment can be discarded for has its entry in discardMarks: a reason
// added later without one would index past the table.
func TestDiscardMarksCoverEveryReason(t *testing.T) {
	assert.Len(t, discardMarks, len(reasonNames))
	for r, m := range discardMarks {
		assert.True(t, m == noMark || int(m) < NumMarks, "reason %v maps to mark %d", Reason(r), m)
	}
}

// MarkCounts add up, and a mark is reached once counted.
func TestMarkCountsAdd(t *testing.T) {
	var a, b MarkCounts
	a[MarkLockWait] = 2
	b[MarkLockWait], b[MarkDeadlockVictim] = 1, 1
	a.Add(&b)
	assert.Equal(t, uint64(3), a[MarkLockWait])
	assert.True(t, a.Reached(MarkDeadlockVictim))
	assert.False(t, a.Reached(MarkPoisonDisabled))
}

// A broker counts a mark where its path is taken, and only there: a duplicated first
// packet marks one duplicate at the target, a corrupt one a corrupt drop and, once the
// retry timer brings the request again, a retransmission acknowledged after its retry.
func TestBrokersCountTheMarksOfThePathsTaken(t *testing.T) {
	tests := []struct {
		name   string
		fate   action
		target []Mark // reached at the target
		sender []Mark // reached at the initiator
	}{
		{"a duplicated first packet", duplicate, []Mark{MarkFragmentDuplicate}, nil},
		{"a corrupt first packet", corrupt, []Mark{MarkPacketCorrupt},
			[]Mark{MarkFragmentRetransmitted, MarkFragmentAckedAfterRetry}},
		{"a perfect link", deliver, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			w.filter = func(p *Packet, n int) action {
				if p.From == instA && n == 0 {
					return tt.fate
				}
				return deliver
			}
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, d.sendRequest())
			w.runUntil(time.Minute)
			for _, c := range []struct {
				inst InstanceID
				want []Mark
			}{{instB, tt.target}, {instA, tt.sender}} {
				marks := w.brokers[c.inst].Marks()
				for _, info := range MarkTable() {
					assert.Equal(t, containsMark(c.want, info.Mark), marks.Reached(info.Mark),
						"instance %d, mark %s (%d times)", c.inst, info.Name, marks[info.Mark])
				}
			}
		})
	}
}

func containsMark(marks []Mark, m Mark) bool {
	for _, x := range marks {
		if x == m {
			return true
		}
	}
	return false
}
