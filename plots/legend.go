package plots

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendInsideMax is how many entries a latency CDF's legend may have and still sit inside
// the data area, in its lower right corner, where a CDF has no data once every level
// approaches 1. Beyond it, and on every other plot, the legend stands outside, right of
// the data, where it can hide no line.
const legendInsideMax = 4

// legendGap is the space around a legend outside the data area.
var legendGap = vg.Points(8)

// legendInside puts the legend in the lower right corner of the data area.
func legendInside(p *plot.Plot) {
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -legendGap, legendGap
}

// legendOutside puts the legend right of the data area, at its top, and shrinks the data
// area to make room for it (and for a right axis, when axis is not nil).
//
// gonum/plot always draws its legend over the data area; it does, however, shrink the
// data area until every plotter's glyph boxes fit in the canvas. The rightMargin plotter
// declares a glyph box at the right edge of the data as wide as the legend (and the right
// axis), so the data area ends that far from the right border, and the legend, drawn
// against that border, stands beside the data instead of over it.
func legendOutside(p *plot.Plot, axis *rightAxis) {
	p.Legend.Top, p.Legend.Left = true, false
	p.Legend.XOffs, p.Legend.YOffs = -legendGap, 0
	p.Add(rightMargin{axis: axis})
}

// rightMargin is a plotter that reserves room right of the data area for the legend and
// an optional right axis, which it draws.
type rightMargin struct {
	axis *rightAxis // nil for a plot with one Y axis
}

// Plot draws the right axis, if any; the plot draws the legend itself.
func (m rightMargin) Plot(c draw.Canvas, p *plot.Plot) {
	if m.axis != nil {
		m.axis.draw(c, p)
	}
}

// GlyphBoxes returns one box, anchored at the right edge of the data area, as wide as
// the right axis and the legend with its gaps. Its height is zero, so that it reserves
// no vertical room.
func (m rightMargin) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	width := legendGap + p.Legend.Rectangle(draw.Canvas{}).Size().X + legendGap
	if m.axis != nil {
		width += m.axis.width(p)
	}
	return []plot.GlyphBox{{X: 1, Rectangle: vg.Rectangle{Max: vg.Point{X: width}}}}
}

// rightAxis is a second Y axis drawn along the right edge of the data area. A value v on
// it sits where v*scale sits on the left axis: its series are added to the plot already
// multiplied by scale.
type rightAxis struct {
	label string
	scale float64
}

// ticks returns the right axis's tick marks over the plot's Y range.
func (a *rightAxis) ticks(p *plot.Plot) []plot.Tick {
	return integerTicks(p.Y.Min/a.scale, p.Y.Max/a.scale)
}

// width returns the room the axis takes right of the data area, mirroring the layout of
// gonum's left axis: padding, tick marks, a space, the widest tick label, the label's
// padding and the label, turned a quarter.
func (a *rightAxis) width(p *plot.Plot) vg.Length {
	w := p.Y.Padding + p.Y.Width/2 + p.Y.Tick.Length + p.Y.Tick.Label.Width(" ")
	for _, t := range a.ticks(p) {
		w = max(w, p.Y.Padding+p.Y.Width/2+p.Y.Tick.Length+p.Y.Tick.Label.Width(" "+t.Label))
	}
	return w + p.Y.Label.Padding + p.Y.Label.TextStyle.Height(a.label)
}

// draw draws the axis line, its ticks, their labels and the axis label right of the data
// canvas c.
func (a *rightAxis) draw(c draw.Canvas, p *plot.Plot) {
	x := c.Max.X + p.Y.Padding
	c.StrokeLine2(p.Y.LineStyle, x, c.Min.Y, x, c.Max.Y)
	label := p.Y.Tick.Label
	label.XAlign, label.YAlign = draw.XLeft, draw.YCenter
	right := x + p.Y.Tick.Length
	for _, t := range a.ticks(p) {
		y := c.Y(p.Y.Norm(t.Value * a.scale))
		if !c.ContainsY(y) {
			continue
		}
		length := p.Y.Tick.Length
		if t.IsMinor() {
			length /= 2
		}
		c.StrokeLine2(p.Y.Tick.LineStyle, x, y, x+length, y)
		if t.IsMinor() {
			continue
		}
		at := vg.Point{X: x + p.Y.Tick.Length + p.Y.Tick.Label.Width(" "), Y: y}
		c.FillText(label, at, t.Label)
		right = max(right, at.X+p.Y.Tick.Label.Width(t.Label))
	}
	// Turned a quarter like the left label; with YTop its top faces the axis.
	sty := p.Y.Label.TextStyle
	sty.Rotation += math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	c.FillText(sty, vg.Point{X: right + p.Y.Label.Padding, Y: c.Center().Y}, a.label)
}
