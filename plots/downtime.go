package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Downtime is a span of virtual time, in seconds, when an instance was down after a crash
// (G-13); To is +Inf when it had not restarted by the end.
type Downtime struct {
	Instance string
	From, To float64
}

// downtimeColor shades a downtime: light enough that the lines show through it.
var downtimeColor = color.NRGBA{0x7f, 0x7f, 0x7f, 0x40}

// MarkDowntimes shades on p, a plot over virtual time, the spans when an instance was down,
// over the whole height of the data area, with one legend entry per instance. It changes
// neither axis.
func MarkDowntimes(p *plot.Plot, spans []Downtime) error {
	for _, s := range spans {
		if !finite(s.From) || math.IsNaN(s.To) || s.To < s.From {
			return fmt.Errorf("downtime of %s from %v to %v", s.Instance, s.From, s.To)
		}
	}
	if len(spans) == 0 {
		return nil
	}
	d := downtimes(spans)
	p.Add(d)
	var named []string
	for _, s := range spans {
		if !slices.Contains(named, s.Instance) {
			named = append(named, s.Instance)
			p.Legend.Add(s.Instance+" down", d)
		}
	}
	return nil
}

// downtimes is the plotter of MarkDowntimes.
type downtimes []Downtime

// Plot fills each span, clipped to the data area.
func (d downtimes) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, s := range d {
		from, to := math.Max(s.From, p.X.Min), math.Min(s.To, p.X.Max)
		if to <= from {
			continue
		}
		x0, x1 := trX(from), trX(to)
		c.FillPolygon(downtimeColor, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
}

// Thumbnail draws the legend's swatch.
func (d downtimes) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(downtimeColor, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}
