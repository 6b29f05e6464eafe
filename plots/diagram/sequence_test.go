package diagram

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sequence chart gives each step its row in time order and ends each arrow on the row
// of its arrival: on the row of a note at the same instant on the lane it reaches, so that
// what the arrival caused is written beside it. A lost arrow stops half way, crossed; a
// duplicate's copy gets a second line; each arrow's tooltip gives its times.
func TestASequenceChartEndsEachArrowOnItsArrivalsRow(t *testing.T) {
	ms := time.Millisecond
	s := Sequence{Title: "c1: the slowest", Lanes: []string{"A", "B"}, Steps: []SequenceStep{
		{At: 0, Lane: 0, To: -1, Label: "SEND seq 0"},
		{At: 0, Lane: 0, To: 1, Arrive: 30 * ms, Label: "seq 0"},
		{At: 10 * ms, Lane: 0, To: 1, Label: "seq 1", Fate: Lost},
		{At: 20 * ms, Lane: 1, To: -1, Label: "something at B"},
		{At: 30 * ms, Lane: 1, To: -1, Label: "ready seq 0"},
		{At: 40 * ms, Lane: 0, To: 1, Arrive: 50 * ms, Again: 60 * ms, Label: "seq 2"},
	}}
	svg := string(SequenceSVG(s))
	rows, count := sequenceRows(s.Steps)
	// Rows: 0 SEND, 1 seq 0 leaves, 2 seq 1 leaves, 3 B's note, 4 ready (and seq 0's
	// arrival), 5 seq 2 leaves, 6 its arrival, 7 its copy's.
	assert.Equal(t, 8, count)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, []int{rows[0].row, rows[1].row, rows[2].row, rows[3].row, rows[4].row, rows[5].row})
	assert.Equal(t, 4, rows[1].end, "seq 0 arrives on the row of the note it caused")
	assert.Equal(t, -1, rows[2].end, "a lost arrow arrives nowhere")
	assert.Equal(t, 6, rows[5].end)
	assert.Equal(t, 7, rows[5].again)

	lines := regexp.MustCompile(`<line x1="(\d+)" y1="(\d+)" x2="(\d+)" y2="(\d+)" stroke="([^"]+)"`).FindAllStringSubmatch(svg, -1)
	var arrows [][]string
	for _, l := range lines {
		if l[5] != "#999" { // not a lane
			arrows = append(arrows, l)
		}
	}
	require.Len(t, arrows, 4, "three arrows and a duplicate's copy")
	y := func(row int) string { return strconv.Itoa(60 + 20*(row+1)) }
	assert.Equal(t, []string{y(1), y(4)}, []string{arrows[0][2], arrows[0][4]}, "seq 0 from its row to its arrival's")
	assert.Equal(t, sequenceRed, arrows[1][5], "a lost arrow is red")
	assert.NotEqual(t, arrows[1][1], arrows[1][3])
	assert.Less(t, atoi(t, arrows[1][3]), 96+380, "and stops before the far lane")
	assert.Equal(t, y(7), arrows[3][4], "the duplicate's copy ends on its own row")
	assert.Equal(t, 1, strings.Count(svg, "×"))
	assert.Contains(t, svg, "<title>seq 0: left 0s, arrived 30ms</title>")
	assert.Contains(t, svg, "<title>seq 1: left 10ms, lost</title>")
	assert.Contains(t, svg, `height="`+strconv.Itoa(60+20*(count+1)+24)+`"`)
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// A timeline draws a row per track, a bar per span from its start to its end on the time
// axis, a diamond per instant, and the axis runs to the last mark when that is after End.
func TestATimelineDrawsSpansAndInstantsOnTheirTracks(t *testing.T) {
	tl := Timeline{Title: "faults", End: 100 * time.Second, Tracks: []TimelineTrack{
		{Name: "link A->B", Marks: []TimelineMark{{From: 20 * time.Second, Until: 60 * time.Second, Label: "down"}}},
		{Name: "queue Q", Marks: []TimelineMark{{From: 50 * time.Second, Label: "ALTER QUEUE STATUS ON"}}},
	}}
	svg := string(TimelineSVG(tl))
	bar := regexp.MustCompile(`<rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"`).FindStringSubmatch(svg)
	require.NotNil(t, bar)
	assert.Equal(t, []string{"364.0", "45", "288.0"}, bar[1:], "20 s to 60 s of 100 s over 720 px from 220 px, in the first row (from 40 px, 5 px in)")
	assert.Contains(t, svg, "<title>down: 20s to 1m0s</title>")
	assert.Contains(t, svg, "<title>ALTER QUEUE STATUS ON: at 50s</title><polygon points=\"580.0,")
	assert.Contains(t, svg, ">link A-&gt;B</text>")
	assert.Equal(t, 11, strings.Count(svg, `stroke="#eee"`), "ticks every 10 s from 0 to 100 s")

	tl.End = 30 * time.Second
	svg = string(TimelineSVG(tl))
	assert.Contains(t, svg, `<rect x="460.0" y="45" width="480.0"`, "the axis runs to the last mark, 60 s")
}

// An arrow never ends above the row it left from: a note at its arrival's instant on its
// lane that comes before it gives it no row to share.
func TestAnArrowNeverEndsAboveWhereItLeft(t *testing.T) {
	steps := []SequenceStep{
		{At: 0, Lane: 1, To: -1, Label: "ready seq 0"},
		{At: 0, Lane: 0, To: 1, Arrive: 0, Label: "seq 0, on the instance"},
	}
	rows, count := sequenceRows(steps)
	assert.Equal(t, 3, count)
	assert.Equal(t, 1, rows[1].row)
	assert.Equal(t, 2, rows[1].end, "a row of its own below, not the note's above")
}
