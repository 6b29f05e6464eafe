package diagram

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"
)

// Sequence is a message sequence chart: a lane per participant, side by side, and time
// down the page, one row per step and per arrival, so that an arrow slants as far as the
// steps that happened while it was on its way.
type Sequence struct {
	Title string
	Lanes []string
	Steps []SequenceStep // in time order
	// Note, when set, is written under the chart (what was left out, say).
	Note string
}

// SequenceStep is one step of a chart: a note on a lane (To < 0), or an arrow from lane
// Lane to lane To that left at At and arrived, or was due, at Arrive.
type SequenceStep struct {
	At     time.Duration
	Lane   int
	To     int
	Arrive time.Duration
	Label  string
	Fate   Fate
	// Dashed draws an arrow dashed: an acknowledgement, say, rather than a message.
	Dashed bool
	// Again, when set, draws a second arrow arriving then: a duplicate's copy.
	Again time.Duration
}

// Fate is what became of an arrow.
type Fate uint8

const (
	Delivered Fate = iota
	// Lost: the arrow never arrived; it stops half way, crossed.
	Lost
	// Corrupt: it arrived and was discarded.
	Corrupt
)

// Colours of a chart: arrows that arrived, lost ones, corrupt ones, and notes.
const (
	sequenceBlue   = "#1f77b4"
	sequenceRed    = "#d62728"
	sequenceOrange = "#e07000"
	sequenceGrey   = "#555"
)

// SequenceSVG draws the chart as SVG: the lanes' names on top, each step's time on the
// left of its row, arrows blue, lost ones red, dashed and crossed half way, corrupt ones
// orange; each arrow's tooltip says when it left and arrived.
func SequenceSVG(s Sequence) []byte {
	rows, count := sequenceRows(s.Steps)
	const rowGap, top, left, right = 20, 60, 96, 600
	laneGap := 380
	if len(s.Lanes) > 2 {
		laneGap = 320
	}
	width := max(left+laneGap*max(len(s.Lanes)-1, 1)+right, 16+7*len([]rune(s.Title)))
	height := top + rowGap*(count+1) + 24
	x := func(lane int) int { return left + laneGap*lane }
	y := func(row int) int { return top + rowGap*(row+1) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(s.Title))
	fmt.Fprintf(&b, `<text x="8" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", esc(s.Title))
	for i, l := range s.Lanes {
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/><text x="%d" y="%d" text-anchor="middle" font-weight="bold">%s</text>`+"\n",
			x(i), top-8, x(i), height-24, x(i), top-16, esc(l))
	}
	labelled := map[int]bool{} // rows with a time on their left
	for _, r := range rows {
		labelled[r.row] = true
	}
	for _, r := range rows { // an arrival's row that starts nothing gets its time, lighter
		for _, end := range []struct {
			row int
			at  time.Duration
		}{{r.end, s.Steps[r.step].Arrive}, {r.again, s.Steps[r.step].Again}} {
			if end.row >= 0 && !labelled[end.row] {
				labelled[end.row] = true
				fmt.Fprintf(&b, `<text x="4" y="%d" fill="#aaa">%s</text>`+"\n", y(end.row)+4, esc(duration(end.at)))
			}
		}
	}
	for _, r := range rows {
		st := s.Steps[r.step]
		fmt.Fprintf(&b, `<text x="4" y="%d" fill="#777">%s</text>`+"\n", y(r.row)+4, esc(duration(st.At)))
		if st.To < 0 {
			fmt.Fprintf(&b, `<g><title>%s: %s</title><circle cx="%d" cy="%d" r="3" fill="%s"/><text x="%d" y="%d" fill="%s">%s</text></g>`+"\n",
				esc(duration(st.At)), esc(st.Label), x(st.Lane), y(r.row), sequenceGrey, x(st.Lane)+6, y(r.row)+4, sequenceGrey, esc(clip(st.Label)))
			continue
		}
		x1, x2, y1, y2 := x(st.Lane), x(st.To), y(r.row), y(r.end)
		colour, dash := sequenceBlue, ""
		if st.Dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		tip := fmt.Sprintf("%s: left %s, arrived %s", st.Label, duration(st.At), duration(st.Arrive))
		switch st.Fate {
		case Lost:
			colour, dash, x2, y2 = sequenceRed, ` stroke-dasharray="3 3"`, (x1+x2)/2, y1+rowGap/2
			tip = fmt.Sprintf("%s: left %s, lost", st.Label, duration(st.At))
		case Corrupt:
			colour = sequenceOrange
			tip = fmt.Sprintf("%s: left %s, arrived corrupt %s", st.Label, duration(st.At), duration(st.Arrive))
		}
		fmt.Fprintf(&b, `<g><title>%s</title><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.5"%s/>`,
			esc(tip), x1, y1, x2, y2, colour, dash)
		if st.Fate == Lost {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s" font-size="15" text-anchor="middle">×</text>`, x2, y2+5, colour)
		} else {
			b.WriteString(arrowHead(x1, y1, x2, y2, colour))
		}
		if r.again >= 0 {
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1" stroke-dasharray="1 2"/>`,
				x1, y1, x2, y(r.again), colour)
		}
		anchor, lx, text := "start", x1+8, clip(st.Label)
		if x2 < x1 { // written leftwards from its lane: no further than the times' column
			anchor, lx = "end", x1-8
			if fit := (lx - left + 8) / 6; len([]rune(text)) > fit {
				text = string([]rune(text)[:max(fit-1, 1)]) + "…"
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s" text-anchor="%s">%s</text></g>`+"\n", lx, y1-3, colour, anchor, esc(text))
	}
	if s.Note != "" {
		fmt.Fprintf(&b, `<text x="8" y="%d" fill="%s">%s</text>`+"\n", height-6, sequenceGrey, esc(s.Note))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// sequenceRow is where a step is drawn: the row it starts on, and the rows its arrow and a
// duplicate's copy end on (-1 for none).
type sequenceRow struct {
	step, row, end, again int
}

// sequenceRows orders the starts of the steps and the arrivals of their arrows by time, a
// start before an arrival at the same instant, and gives each its row: it returns a row
// per step, with the rows its arrows end on, and the number of rows.
func sequenceRows(steps []SequenceStep) ([]sequenceRow, int) {
	type item struct {
		at    time.Duration
		step  int
		kind  int // 0 start, 1 arrival, 2 a duplicate's arrival
		order int
	}
	var items []item
	for i, st := range steps {
		items = append(items, item{st.At, i, 0, len(items)})
		if st.To >= 0 && st.Fate != Lost {
			items = append(items, item{max(st.Arrive, st.At), i, 1, len(items)})
			if st.Again > 0 {
				items = append(items, item{max(st.Again, st.At), i, 2, len(items)})
			}
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(min(a.kind, 1), min(b.kind, 1)), cmp.Compare(a.order, b.order))
	})
	rows := make([]sequenceRow, len(steps))
	for i := range rows {
		rows[i] = sequenceRow{step: i, end: -1, again: -1}
	}
	// An arrival shares the row of a note at the same instant on the lane it arrives at:
	// what the arrival caused is written beside it.
	type at struct {
		t    time.Duration
		lane int
	}
	notes := map[at]int{}
	count := 0
	for _, it := range items {
		st := steps[it.step]
		row := count
		if it.kind != 0 {
			if r, ok := notes[at{it.at, st.To}]; ok && r > rows[it.step].row { // never above where it left
				row = r
			}
		}
		if row == count {
			count++
		}
		switch it.kind {
		case 0:
			rows[it.step].row = row
			if st.To < 0 {
				if _, ok := notes[at{it.at, st.Lane}]; !ok {
					notes[at{it.at, st.Lane}] = row
				}
			}
		case 1:
			rows[it.step].end = row
		case 2:
			rows[it.step].again = row
		}
	}
	return rows, count
}

// arrowHead draws a small filled triangle at (x2, y2), pointing along the line from (x1, y1).
func arrowHead(x1, y1, x2, y2 int, colour string) string {
	dx, dy := float64(x2-x1), float64(y2-y1)
	n := max(math.Hypot(dx, dy), 1)
	ux, uy := dx/n, dy/n
	const l, w = 8.0, 3.5
	bx, by := float64(x2)-ux*l, float64(y2)-uy*l
	return fmt.Sprintf(`<polygon points="%d,%d %.1f,%.1f %.1f,%.1f" fill="%s"/>`, x2, y2, bx-uy*w, by+ux*w, bx+uy*w, by-ux*w, colour)
}

func esc(s string) string { return html.EscapeString(s) }

// clip cuts a label to what fits beside a lane, 100 characters; its tooltip has it whole.
func clip(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}

// duration prints a time of the chart the way the text report does, to the µs.
func duration(d time.Duration) string {
	if d >= time.Millisecond {
		d = d.Round(time.Microsecond)
	}
	return d.String()
}
