package diagram

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Timeline is what happened to a run's parts over its time: a row per track (a link's
// direction, a queue, an instance), a bar for each span of a fault (a link down, a queue
// OFF, an instance crashed until it restarted), a diamond for each instant (a change of
// settings).
type Timeline struct {
	Title  string
	End    time.Duration
	Tracks []TimelineTrack
}

// TimelineTrack is a row of a timeline.
type TimelineTrack struct {
	Name  string
	Marks []TimelineMark
}

// TimelineMark is a span from From to Until, or an instant when Until is not after From.
type TimelineMark struct {
	From, Until time.Duration
	Label       string
	// Tip, when set, is the mark's tooltip in place of its label and time: a mark drawn
	// where it is not (a run's end past the axis) says when it was.
	Tip string
}

// TimelineSVG draws the timeline as SVG, its time axis from 0 to End (or to the last mark,
// when that comes later); each mark's tooltip says what and when.
func TimelineSVG(t Timeline) []byte {
	end := t.End
	for _, tr := range t.Tracks {
		for _, m := range tr.Marks {
			end = max(end, m.From, m.Until)
		}
	}
	end = max(end, time.Millisecond)
	const left, plotWidth, rowGap, top = 220, 720, 26, 40
	width, height := left+plotWidth+40, top+rowGap*len(t.Tracks)+36
	x := func(d time.Duration) float64 { return left + plotWidth*float64(d)/float64(end) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(t.Title))
	fmt.Fprintf(&b, `<text x="8" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", esc(t.Title))
	axis := top + rowGap*len(t.Tracks) + 4
	step := tickStep(end)
	for tick := time.Duration(0); tick <= end; tick += step {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/><text x="%.1f" y="%d" text-anchor="middle" fill="#777">%s</text>`+"\n",
			x(tick), top-6, x(tick), axis, x(tick), axis+14, esc(duration(tick)))
	}
	for i, tr := range t.Tracks {
		y := top + rowGap*i
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ccc"/>`+"\n",
			left-8, y+rowGap/2+4, esc(tr.Name), left, y+rowGap/2, left+plotWidth, y+rowGap/2)
		// A label is written where it fits: after the mark, or before it at the right
		// edge, and not over the track's previous label; the tooltip always has it.
		written := -1.0
		label := func(x float64, text, colour string, cy float64) string {
			w := 6.2 * float64(len([]rune(text)))
			anchor, from := "start", x
			if x+w > float64(width-4) { // ends before the mark, clear of it
				x -= 16
				anchor, from = "end", x-w
			}
			if from < written+6 || from < left {
				return ""
			}
			written = from + w
			return fmt.Sprintf(`<text x="%.1f" y="%.1f" fill="%s" text-anchor="%s">%s</text>`, x, cy, colour, anchor, esc(text))
		}
		for _, m := range tr.Marks {
			if m.Until > m.From {
				fmt.Fprintf(&b, `<g><title>%s: %s to %s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" fill-opacity="0.75"/>%s</g>`+"\n",
					esc(m.Label), esc(duration(m.From)), esc(duration(m.Until)), x(m.From), y+5, max(x(m.Until)-x(m.From), 1.5), rowGap-10,
					sequenceRed, label(x(m.From)+3, m.Label, "#222", float64(y+rowGap/2+4)))
				continue
			}
			cx, cy := x(m.From), float64(y+rowGap/2)
			tip := m.Label + ": at " + duration(m.From)
			if m.Tip != "" {
				tip = m.Tip
			}
			fmt.Fprintf(&b, `<g><title>%s</title><polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="%s"/>%s</g>`+"\n",
				esc(tip), cx, cy-6, cx+5, cy, cx, cy+6, cx-5, cy, sequenceBlue, label(cx+7, m.Label, sequenceBlue, cy-4))
		}
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// tickStep is 1, 2 or 5 times a power of ten of seconds (or of milliseconds), so that 0 to
// end takes at most ten ticks.
func tickStep(end time.Duration) time.Duration {
	raw := float64(end) / 10
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return max(time.Duration(m*p), 1)
		}
	}
	return max(time.Duration(10*p), 1)
}
