package plots

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bandAlpha is the opacity of a confidence band: light enough that overlapping bands and
// the grid show through.
const bandAlpha = 0x38

// Sweep plots a metric against a swept parameter, one curve per band (a priority level,
// a queue): the mean at each value of the parameter as a line with a marker, over a
// shaded, semi-transparent band from Lo to Hi, the confidence interval over the runs.
// xLabel and yLabel name the parameter and the metric, with their units, for example
// "loss probability" and "p99 latency (s)"; the title is made from them without the units.
// A band's points may come in any order (they are drawn by X) but no two may share an X.
// A band of one point shows its interval as an error bar.
func Sweep(xLabel, yLabel string, bands []Band, opts ...Option) (*plot.Plot, error) {
	sorted, err := checkBands(xLabel, yLabel, bands)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	title := capitalize(fmt.Sprintf("%s against %s", withoutUnit(yLabel), withoutUnit(xLabel)))
	c, err := newChart(title, xLabel, yLabel, opts)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	p := c.p
	// Every band first, then every mean, so that no band covers a mean line.
	thumbs := make([][]plot.Thumbnailer, len(sorted))
	for i, b := range sorted {
		if flat(b.Points) {
			continue // no spread across the runs: a polygon of no area, which gonum fills wrongly
		}
		fill := palette[i%len(palette)]
		fill.A = bandAlpha
		poly, err := bandPolygon(b.Points, fill)
		if err != nil {
			return nil, fmt.Errorf("sweep: band %q: %w", b.Name, err)
		}
		p.Add(poly)
		thumbs[i] = append(thumbs[i], poly)
	}
	for i, b := range sorted {
		mean, err := addMean(p, b.Points, i)
		if err != nil {
			return nil, fmt.Errorf("sweep: band %q: %w", b.Name, err)
		}
		c.add(b.Name, append(thumbs[i], mean...)...)
	}
	return c.finish(), nil
}

// flat reports whether a band has no width anywhere.
func flat(pts []BandPoint) bool {
	for _, pt := range pts {
		if pt.Hi > pt.Lo {
			return false
		}
	}
	return true
}

// bandPolygon returns the band between Lo and Hi: along Hi left to right, back along Lo.
func bandPolygon(pts []BandPoint, fill color.NRGBA) (*plotter.Polygon, error) {
	ring := make(plotter.XYs, 0, 2*len(pts))
	for _, pt := range pts {
		ring = append(ring, plotter.XY{X: pt.X, Y: pt.Hi})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: pts[i].X, Y: pts[i].Lo})
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.Color = fill
	poly.LineStyle.Width = 0
	return poly, nil
}

// addMean adds the mean line of the i-th band with a marker at each point, and, for a
// band of one point, the interval as an error bar. It returns the legend thumbnails.
func addMean(p *plot.Plot, pts []BandPoint, i int) ([]plot.Thumbnailer, error) {
	style := lineStyle(i)
	means := make(plotter.XYs, len(pts))
	for j, pt := range pts {
		means[j] = plotter.XY{X: pt.X, Y: pt.Mean}
	}
	line, err := plotter.NewLine(means)
	if err != nil {
		return nil, err
	}
	line.LineStyle = style
	marks, err := plotter.NewScatter(means)
	if err != nil {
		return nil, err
	}
	marks.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: vg.Points(3), Shape: glyphs[i%len(glyphs)]}
	p.Add(line, marks)
	if len(pts) == 1 {
		bar, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{means, plotter.YErrors{{Low: pts[0].Mean - pts[0].Lo, High: pts[0].Hi - pts[0].Mean}}})
		if err != nil {
			return nil, err
		}
		bar.LineStyle = draw.LineStyle{Color: style.Color, Width: vg.Points(lineWidth)}
		p.Add(bar)
	}
	return []plot.Thumbnailer{line, marks}, nil
}

// checkBands checks the input of Sweep and returns the bands with their points sorted by
// X, leaving the caller's slices as they were.
func checkBands(xLabel, yLabel string, bands []Band) ([]Band, error) {
	if xLabel == "" || yLabel == "" {
		return nil, errors.New("no axis label: the parameter and the metric must be named")
	}
	if len(bands) == 0 {
		return nil, fmt.Errorf("no bands: %w", errNoData)
	}
	out := make([]Band, len(bands))
	for i, b := range bands {
		if b.Name == "" {
			return nil, fmt.Errorf("band %d: no name for the legend", i)
		}
		if len(b.Points) == 0 {
			return nil, fmt.Errorf("band %d: %q: no points: %w", i, b.Name, errNoData)
		}
		pts := slices.SortedStableFunc(slices.Values(b.Points), func(a, b BandPoint) int { return cmp.Compare(a.X, b.X) })
		for j, pt := range pts {
			switch {
			case !finite(pt.X, pt.Mean, pt.Lo, pt.Hi):
				return nil, fmt.Errorf("band %d: %q: point at x %v is not finite", i, b.Name, pt.X)
			case !(pt.Lo <= pt.Mean && pt.Mean <= pt.Hi):
				return nil, fmt.Errorf("band %d: %q: point at x %v: want lo ≤ mean ≤ hi, have %v, %v, %v",
					i, b.Name, pt.X, pt.Lo, pt.Mean, pt.Hi)
			case j > 0 && pt.X == pts[j-1].X:
				return nil, fmt.Errorf("band %d: %q: two points at x %v", i, b.Name, pt.X)
			}
		}
		out[i] = Band{Name: b.Name, Points: pts}
	}
	return out, nil
}

// withoutUnit drops a trailing unit in parentheses from an axis label: "p99 latency (s)"
// becomes "p99 latency".
func withoutUnit(label string) string {
	if i := strings.LastIndex(label, " ("); i > 0 && strings.HasSuffix(label, ")") {
		return label[:i]
	}
	return label
}

// capitalize returns s with its first letter in upper case, for a title.
func capitalize(s string) string {
	if first, _, _ := strings.Cut(s, " "); strings.ContainsAny(first, "._") {
		return s // a metric's name (cpu.busy, activated_tasks.peak) is written as it is
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
