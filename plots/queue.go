package plots

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// twinAxisRatio is how many times the most ready messages must exceed the most reader
// sessions for QueueOverTime to give the sessions an axis of their own.
const twinAxisRatio = 4

// QueueOverTime plots one queue over time: its ready messages and the reader sessions on
// it, that is every session running (readers), the activated tasks among them
// (activated) and the sessions waiting in RECEIVE or GET CONVERSATION GROUP (waiting).
// X is virtual time in seconds, Y a count at that instant, which holds until the next
// sample. ready and readers must have points; activated and waiting may be empty (a queue
// without activation), and are then left out.
//
// Ready messages can number thousands while the sessions stay under MAX_QUEUE_READERS:
// on one axis the sessions would be a flat line at zero, and the point of the plot (do
// readers ramp up as the queue fills, and does the queue drain) would be lost. So when
// the most ready messages exceed twinAxisRatio times the most sessions, the sessions get
// a second axis on the right, scaled so that both peaks reach the same height, and each
// legend entry names its axis. Otherwise everything shares one "count" axis, which reads
// more simply.
func QueueOverTime(queue string, ready, activated, readers, waiting []Point, opts ...Option) (*plot.Plot, error) {
	if err := checkQueue(queue, ready, activated, readers, waiting); err != nil {
		return nil, fmt.Errorf("queue over time: %w", err)
	}
	sessions := []Line{
		{Name: "reader sessions running", Points: readers},
		{Name: "activated tasks running", Points: activated},
		{Name: "sessions waiting in RECEIVE", Points: waiting},
	}
	_, _, _, readyMax := bounds([]Line{{Points: ready}})
	_, _, _, sessionsMax := bounds(sessions)
	sessionsTop := math.Max(sessionsMax, 1)
	twin := readyMax > twinAxisRatio*sessionsTop

	title := fmt.Sprintf("Queue %s: ready messages and readers", queue)
	c, err := newChart(title, timeAxis, "count", opts)
	if err != nil {
		return nil, fmt.Errorf("queue over time: %w", err)
	}
	p := c.p
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Tick.Marker = plot.TickerFunc(integerTicks)
	readyName, scale := "ready messages", 1.0
	if twin {
		p.Y.Label.Text = "ready messages"
		// 5% headroom above the peaks, so that neither line runs along the frame.
		p.Y.Max = readyMax * 1.05
		scale = readyMax / sessionsTop
		c.axis = &rightAxis{label: "reader sessions", scale: scale}
		readyName += " (left axis)"
	}
	if err := addLine(c, readyName, toXYs(ready, 1), lineStyle(0), plotter.PostStep); err != nil {
		return nil, fmt.Errorf("queue over time: %w", err)
	}
	for i, s := range sessions {
		if len(s.Points) == 0 {
			continue
		}
		name := s.Name
		if twin {
			name += " (right axis)"
		}
		if err := addLine(c, name, toXYs(s.Points, scale), sessionStyles[i], plotter.PostStep); err != nil {
			return nil, fmt.Errorf("queue over time: %w", err)
		}
	}
	widenEmpty(&p.X)
	widenEmpty(&p.Y)
	return c.finish(), nil
}

// sessionStyles are the styles of the three session lines of QueueOverTime, in the order
// they are drawn: every session running, the activated tasks among them, the sessions
// waiting. The lines often coincide (every session an activated task; every session
// waiting in RECEIVE), so the first is wide and pale and drawn first, under the others,
// which are thin and dashed, each its own way: where they coincide, a thin dashed line runs
// inside a wide one, and both stay visible.
var sessionStyles = []draw.LineStyle{
	underStyle(lineStyle(1)),
	{Color: palette[2], Width: vg.Points(lineWidth), Dashes: dashes[1]},
	{Color: palette[3], Width: vg.Points(lineWidth), Dashes: dashes[2]},
}

// checkQueue checks the input of QueueOverTime.
func checkQueue(queue string, ready, activated, readers, waiting []Point) error {
	if queue == "" {
		return errors.New("no queue name")
	}
	if len(ready) == 0 {
		return fmt.Errorf("queue %s: no ready messages series: %w", queue, errNoData)
	}
	if len(readers) == 0 {
		return fmt.Errorf("queue %s: no reader sessions series: %w", queue, errNoData)
	}
	for _, s := range []struct {
		name string
		pts  []Point
	}{{"ready", ready}, {"activated", activated}, {"readers", readers}, {"waiting", waiting}} {
		if len(s.pts) == 0 {
			continue
		}
		if err := checkSeries(s.name, s.pts); err != nil {
			return fmt.Errorf("queue %s: %w", queue, err)
		}
	}
	return nil
}
