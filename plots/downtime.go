package plots

import (
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

// shade adds the spans of sh to c under what is drawn after, with one legend entry per
// subject, kept for the end of the legend.
func (c *chart) shade(sh shading) {
	if len(sh.spans) == 0 {
		return
	}
	s := shaded{spans: sh.spans, fill: sh.fill}
	c.p.Add(s)
	var named []string
	for _, sp := range sh.spans {
		if !slices.Contains(named, sp.Subject) {
			named = append(named, sp.Subject)
			c.late = append(c.late, entry{name: sh.label(sp.Subject), thumbs: []plot.Thumbnailer{s}})
		}
	}
}

// shaded is the plotter of a shading.
type shaded shading

// Plot fills each span over the whole height of the data area, clipped to it, and draws
// a thin line in the same colour, darker, where a span begins or ends within it: a span
// that ends and another that begins a few milliseconds later (a queue turned ON, then OFF
// again by poison detection) would otherwise look like one.
func (d shaded) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	dark := d.fill
	dark.A = uint8(min(0xff, 4*int(d.fill.A)))
	edge := draw.LineStyle{Color: dark, Width: vg.Points(1)}
	for _, s := range d.spans {
		from, to := max(s.From, p.X.Min), min(s.To, p.X.Max)
		if to < from || (to == from && s.To > s.From) {
			continue
		}
		x0, x1 := trX(from), trX(to)
		c.FillPolygon(d.fill, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		for _, at := range []float64{s.From, s.To} {
			if at > p.X.Min && at < p.X.Max {
				c.StrokeLine2(edge, trX(at), c.Min.Y, trX(at), c.Max.Y)
			}
		}
	}
}

// Thumbnail draws the legend's swatch.
func (d shaded) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(d.fill, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}
