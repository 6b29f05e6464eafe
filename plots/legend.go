package plots

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart is a plot being built: the gonum plot and the entries of its legend, which the
// package draws itself (legendBelow), gonum's own legend staying empty.
type chart struct {
	p       *plot.Plot
	entries []entry // the data's, in the order added
	late    []entry // the shadings', after the data's
	opts    options
	axis    *rightAxis // a right-hand axis, or nil
}

// entry is one entry of a legend: its text and the thumbnails drawn before it.
type entry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// newChart returns a chart with newPlot's title, labels and grid, and the shadings of
// opts under everything drawn later. The title gets the run's caption, if opts give one.
func newChart(title, xLabel, yLabel string, opts []Option) (*chart, error) {
	o, err := collect(opts)
	if err != nil {
		return nil, err
	}
	if o.subtitle != "" {
		title += "\n" + o.subtitle
	}
	c := &chart{p: newPlot(title, xLabel, yLabel), opts: o}
	for _, sh := range o.shades {
		c.shade(sh)
	}
	return c, nil
}

// add adds a legend entry.
func (c *chart) add(name string, thumbs ...plot.Thumbnailer) {
	c.entries = append(c.entries, entry{name: name, thumbs: thumbs})
}

// finish lays out the legend below the plot, adds the right axis, if any, and returns
// the plot.
func (c *chart) finish() *plot.Plot {
	l := newLegendBelow(c.p, append(c.entries, c.late...))
	c.p.Add(l)
	if c.axis != nil {
		c.p.Add(rightMargin{axis: c.axis})
	}
	return c.p
}

// Legend layout, in points: the space left of each thumbnail and between an entry's text
// and the next column, the room the layout assumes for the Y axis and the margins, and the
// most columns.
var (
	legendGap       = vg.Points(8)
	legendColumnGap = vg.Points(14)
	legendAxisRoom  = vg.Points(70)
)

const legendColumnsMax = 4

// legendBelow is the legend of a chart, drawn under the X axis label in rows of up to
// legendColumnsMax columns, as many as fit in DefaultWidth, reading left to right, then
// down. It takes nothing from the data area's width and hides no line.
//
// gonum/plot draws its own legend over the data area and gives no room below the axis;
// so the X axis label gets one line of a space per row of the legend after its text
// (gonum trims a trailing line break but not a space), which makes the axis, and the
// room under its label, that much taller, and legendBelow draws its rows in that room.
type legendBelow struct {
	entries []entry
	cols    int
	column  vg.Length // the width of a column: the widest entry and the gap after it
	label   string    // the X axis label without the added lines
}

// newLegendBelow lays out entries under p's X axis label and adds the label's lines.
func newLegendBelow(p *plot.Plot, entries []entry) *legendBelow {
	l := &legendBelow{entries: entries, label: p.X.Label.Text}
	if len(entries) == 0 {
		return l
	}
	widest := vg.Length(0)
	for _, e := range entries {
		widest = max(widest, p.Legend.TextStyle.Width(e.name))
	}
	em := p.Legend.TextStyle.Width(" ")
	l.column = p.Legend.ThumbnailWidth + em + widest + legendColumnGap
	l.cols = int(math.Floor(float64((DefaultWidth - legendAxisRoom) / l.column)))
	l.cols = max(1, min(l.cols, legendColumnsMax, len(entries)))
	// gonum sets the lines of a text its font's size apart: enough of them to hold the
	// legend and a gap above and below it.
	need := l.height(p) + 2*legendGap
	n := int(math.Ceil(float64(need / p.X.Label.TextStyle.Font.Size)))
	p.X.Label.Text = l.label + strings.Repeat("\n ", n)
	return l
}

// height returns the height of the legend's rows, as gonum's legend draws them: each an
// entry's height and the legend's padding apart, and the descent of the last.
func (l *legendBelow) height(p *plot.Plot) vg.Length {
	sty := p.Legend.TextStyle
	return vg.Length(l.rows())*(sty.Rectangle("M").Max.Y+p.Legend.Padding) + sty.FontExtents().Descent
}

// rows returns the number of rows of the legend.
func (l *legendBelow) rows() int {
	if l.cols == 0 {
		return 0
	}
	return (len(l.entries) + l.cols - 1) / l.cols
}

// Plot draws the legend below the X axis label, centred under the data area c, one
// gonum legend per column.
func (l *legendBelow) Plot(c draw.Canvas, p *plot.Plot) {
	if len(l.entries) == 0 {
		return
	}
	r, column := l.rectangle(c, p)
	for col := 0; col < l.cols; col++ {
		leg := plot.NewLegend()
		leg.TextStyle, leg.Padding, leg.ThumbnailWidth = p.Legend.TextStyle, p.Legend.Padding, p.Legend.ThumbnailWidth
		leg.Top, leg.Left = true, true
		for i := col; i < len(l.entries); i += l.cols {
			leg.Add(l.entries[i].name, l.entries[i].thumbs...)
		}
		x := r.Min.X + vg.Length(col)*column
		leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: r.Min.Y}, Max: vg.Point{X: x + column, Y: r.Max.Y}}})
	}
}

// rectangle returns where the legend goes when the data area is c, and the width of its
// columns: a gap above the bottom of the canvas, in the room the X axis label's added
// lines make, centred under the data area, but never beyond the canvas. On a canvas
// narrower than DefaultWidth the columns close up to fit.
func (l *legendBelow) rectangle(c draw.Canvas, p *plot.Plot) (vg.Rectangle, vg.Length) {
	// The bottom of the plot's canvas is as far under the data area as the data area of a
	// canvas of the same size is above its own bottom.
	w, h := c.Max.X+c.Min.X, c.Max.Y+c.Min.Y
	if s, ok := c.Canvas.(interface{ Size() (vg.Length, vg.Length) }); ok {
		w, h = s.Size()
	}
	dc := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
	bottom := c.Min.Y - dc.Min.Y
	bottom += legendGap
	top := bottom + l.height(p)
	canvasLeft := c.Min.X - dc.Min.X
	column := min(l.column, (w-2*legendGap)/vg.Length(l.cols))
	width := vg.Length(l.cols)*column - legendColumnGap
	left := max(c.Center().X-width/2, canvasLeft+legendGap)
	left = min(left, canvasLeft+w-legendGap-width)
	return vg.Rectangle{Min: vg.Point{X: left, Y: bottom}, Max: vg.Point{X: left + width + legendColumnGap, Y: top}}, column
}

// rightMargin is a plotter that reserves room right of the data area for a right axis,
// which it draws.
type rightMargin struct {
	axis *rightAxis
}

// Plot draws the right axis.
func (m rightMargin) Plot(c draw.Canvas, p *plot.Plot) {
	m.axis.draw(c, p)
}

// GlyphBoxes returns one box, anchored at the right edge of the data area, as wide as the
// right axis. Its height is zero, so that it reserves no vertical room.
func (m rightMargin) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	return []plot.GlyphBox{{X: 1, Rectangle: vg.Rectangle{Max: vg.Point{X: m.axis.width(p)}}}}
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
