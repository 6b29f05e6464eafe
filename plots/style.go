package plots

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette holds the line colours, in the order lines get them: the ten "Tableau 10"
// colours, told apart easily on white and, but for the last pairs, by most colour-blind
// readers. Ten covers the ten priority levels.
var palette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// dashes holds the dash patterns that lines get along with their colours: solid, long
// dashes, short dashes, dash-dot. Since there are four of them and ten colours, the first
// twenty lines of a plot all differ, and neighbours differ in both, which still tells
// them apart in grey print.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(7), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(7), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// glyphs holds the marker shapes of sweep means, one per curve, cycling.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
}

// Sizes of the text and the lines, in points.
const (
	titleSize  = 14
	labelSize  = 12
	tickSize   = 10
	legendSize = 10
	lineWidth  = 1.5
)

// sans is the typeface of every text: Liberation Sans, which gonum/plot ships, reads better
// in small sizes than its default serif.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// gridStyle draws the grid light enough to stay behind the data.
var gridStyle = draw.LineStyle{Color: color.Gray{Y: 0xe0}, Width: vg.Points(0.5)}

// lineStyle returns the style of the i-th line of a plot.
func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{
		Color:  palette[i%len(palette)],
		Width:  vg.Points(lineWidth),
		Dashes: dashes[i%len(dashes)],
	}
}

// underWidth is the width of a line drawn under another that coincides with it.
const underWidth = 5

// underStyle returns style made wide, solid and pale, for a line that a later line of the
// plot coincides with: drawn first, it shows on both sides of the later one, which would
// otherwise hide it.
func underStyle(style draw.LineStyle) draw.LineStyle {
	c := color.NRGBAModel.Convert(style.Color).(color.NRGBA)
	c.A = 0x99
	return draw.LineStyle{Color: c, Width: vg.Points(underWidth)}
}

// newPlot returns an empty plot with its title, axis labels, fonts and a light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, titleSize)
	p.Title.Padding = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, labelSize)
		a.Tick.Label.Font = font.From(sans, tickSize)
		a.Tick.Marker = plot.TickerFunc(niceTicks)
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.TextStyle.Font = font.From(sans, legendSize)
	p.Legend.ThumbnailWidth = vg.Points(30)
	p.Legend.Padding = vg.Points(2)
	grid := plotter.NewGrid()
	grid.Vertical, grid.Horizontal = gridStyle, gridStyle
	p.Add(grid)
	return p
}

// toXYs converts points to gonum's plotter data, multiplying each Y by scale.
func toXYs(pts []Point, scale float64) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i].X, out[i].Y = p.X, p.Y*scale
	}
	return out
}

// addLine adds one series drawn in style, with its legend entry. A series of one point
// would draw no line at all, so it gets a dot in the line's colour.
func addLine(c *chart, name string, pts plotter.XYs, style draw.LineStyle, step plotter.StepKind) error {
	p := c.p
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.LineStyle, l.StepStyle = style, step
	p.Add(l)
	thumbs := []plot.Thumbnailer{l}
	if len(pts) == 1 {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(s)
		thumbs = append(thumbs, s)
	}
	c.add(name, thumbs...)
	return nil
}

// widenEmpty gives an axis whose data has one value only (a count that stayed at zero, a
// single sample) a range of one upwards, where gonum would centre it in a range of two,
// showing negative counts and times.
func widenEmpty(a *plot.Axis) {
	if a.Max <= a.Min {
		a.Max = a.Min + 1
	}
}

// niceTicks marks a linear axis with about six labelled ticks, one, two or five times a
// power of ten apart, and unlabelled ones between them. Labels have just the decimals the
// step needs: gonum's default ticks label a range of 0 to 5 "0.00, 2.50, 5.00".
func niceTicks(min, max float64) []plot.Tick {
	return stepTicks(min, max, 0)
}

// integerTicks marks only whole numbers, for axes that count things (messages, rows,
// readers), where 0.5 makes no sense.
func integerTicks(min, max float64) []plot.Tick {
	return stepTicks(min, max, 1)
}

// stepTicks returns niceTicks with a step of at least least.
func stepTicks(lo, hi, least float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || !finite(lo, hi) {
		return nil
	}
	// Of the steps 1, 2, 5 and 10 times the power of ten just under a sixth of the span,
	// take the one whose count of steps comes nearest six.
	magnitude := math.Pow10(int(math.Floor(math.Log10(span / 6))))
	step, perMajor := 0.0, 0
	for _, m := range []float64{1, 2, 5, 10} {
		s := m * magnitude
		if s < least || (step > 0 && math.Abs(span/s-6) >= math.Abs(span/step-6)) {
			continue
		}
		step, perMajor = s, 5 // minor ticks a fifth of a step apart, or a quarter for 2
		if m == 2 {
			perMajor = 4
		}
	}
	if step == 0 { // the least step is over ten times a sixth of the span
		step, perMajor = least, 1
	}
	minor := step / float64(perMajor)
	if minor < least {
		minor, perMajor = least, int(math.Round(step/least))
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	// The tolerances keep a tick that rounding puts a hair outside the range.
	for i := math.Ceil(lo/minor - 1e-9); i*minor <= hi+minor*1e-9 && len(ticks) < 500; i++ {
		t := plot.Tick{Value: i * minor}
		if t.Value == 0 {
			t.Value = 0 // not -0, which would be labelled "-0"
		}
		if math.Mod(i, float64(perMajor)) == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'f', decimals, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
