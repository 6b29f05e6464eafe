package plots

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// linkLines are the lines of a link counters plot with many entries.
var manyLinkLines = func() []Line {
	var out []Line
	for _, n := range []string{"Lisbon→Tokyo lost", "Tokyo→Lisbon lost", "Lisbon→Tokyo dropped by partition",
		"Tokyo→Lisbon dropped by partition", "Paris→Tokyo duplicated", "Lisbon retransmitted", "Paris retransmitted"} {
		out = append(out, Line{Name: n, Points: gauge(0, 1, 3, 3, 5)})
	}
	return out
}()

// optionCases builds every kind of plot with the options given, and names its legend's
// entries.
var optionCases = []struct {
	name    string
	entries []string
	build   func(opts ...Option) (*plot.Plot, error)
}{
	{"latency CDF", []string{"priority 10", "priority 5", "priority 1", "priority 3", "priority 7", "priority 2"},
		func(o ...Option) (*plot.Plot, error) { return LatencyCDF(latencyLines(6), o...) }},
	{"round trip CDF", []string{"orders"},
		func(o ...Option) (*plot.Plot, error) {
			return RoundTripCDF([]Line{{Name: "orders", Points: cdf(0.4, 0.9, 1.2)}}, o...)
		}},
	{"throughput", []string{"priority 10"},
		func(o ...Option) (*plot.Plot, error) {
			return ThroughputByLevel([]Line{{Name: "priority 10", Points: Rates(ramp(10, 100, 50))}}, o...)
		}},
	{"transmission queue depth", []string{"London/Orders"},
		func(o ...Option) (*plot.Plot, error) {
			return TransmissionQueueDepth([]Line{{Name: "London/Orders", Points: gauge(0, 4, 9, 0)}}, o...)
		}},
	{"link counters", names(manyLinkLines), func(o ...Option) (*plot.Plot, error) { return LinkCounters(manyLinkLines, o...) }},
	{"endpoints", []string{"Tokyo/Warehouse CO"},
		func(o ...Option) (*plot.Plot, error) {
			return EndpointsByState([]Line{{Name: "Tokyo/Warehouse CO", Points: gauge(0, 4, 8)}}, o...)
		}},
	{"backlog", []string{"Tokyo/StockQueue", "Lisbon/OrderQueue"},
		func(o ...Option) (*plot.Plot, error) {
			return Backlog([]Line{{Name: "Tokyo/StockQueue", Points: gauge(0, 12, 0)}, {Name: "Lisbon/OrderQueue", Points: gauge(0, 1, 0)}}, o...)
		}},
	{"CPU", []string{"Tokyo"},
		func(o ...Option) (*plot.Plot, error) {
			return CPUByInstance([]Line{{Name: "Tokyo", Points: gauge(0, 0.5, 2)}}, o...)
		}},
	{"queue, two axes", []string{"ready messages (left axis)", "reader sessions running (right axis)", "activated tasks running (right axis)"},
		func(o ...Option) (*plot.Plot, error) {
			return QueueOverTime("StockQueue", gauge(0, 300, 1200, 900, 150, 0), gauge(0, 2, 4, 4, 3, 0),
				gauge(0, 2, 4, 4, 3, 0), nil, o...)
		}},
	{"sweep", []string{"priority 10", "priority 1", "single run"},
		func(o ...Option) (*plot.Plot, error) {
			return Sweep("loss probability", "mean latency (s)", sweepBands(), o...)
		}},
}

func names(lines []Line) []string {
	var out []string
	for _, l := range lines {
		out = append(out, l.Name)
	}
	return out
}

// Every plot's title names the scenario and the seed of its run (issue 18), a sweep's the
// seeds.
func TestTitlesNameTheScenarioAndTheSeed(t *testing.T) {
	for _, tc := range optionCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.build(Run("lossy-wan", 7))
			require.NoError(t, err)
			assert.Contains(t, p.Title.Text, "\nscenario lossy-wan, seed 7")
			p, err = tc.build(Seeds("activation-burst", []uint64{1, 2, 3, 4, 5, 9}))
			require.NoError(t, err)
			assert.Contains(t, p.Title.Text, "\nscenario activation-burst, seeds 1–5, 9")
			svg := string(render(t, p, "svg"))
			assert.Contains(t, svg, ">scenario activation-burst, seeds 1–5, 9<", "the caption is drawn")
		})
	}
}

// drawn is a text the plot drew and where.
type drawn struct {
	text string
	at   vg.Point
}

// record draws p on a recorder canvas of width by height and returns the texts it drew
// and its data area.
func record(p *plot.Plot, width, height vg.Length) ([]drawn, vg.Rectangle) {
	rc := &recorder.Canvas{}
	c := draw.NewCanvas(rc, width, height)
	p.Draw(c)
	var out []drawn
	for _, a := range rc.Actions {
		if f, ok := a.(*recorder.FillString); ok {
			out = append(out, drawn{f.String, f.Point})
		}
	}
	return out, p.DataCanvas(c).Rectangle
}

// Every legend stands below the plot, inside the canvas, under the X axis label: the
// data area keeps the canvas's width (but for the axes), and no entry is drawn over it.
func TestLegendsStandBelowTheDataInsideTheCanvas(t *testing.T) {
	for _, tc := range optionCases {
		for _, size := range []vg.Point{{X: DefaultWidth, Y: DefaultHeight}, {X: 4 * vg.Inch, Y: 3 * vg.Inch}} {
			t.Run(tc.name, func(t *testing.T) {
				p, err := tc.build(Run("s", 1))
				require.NoError(t, err)
				xLabel := strings.SplitN(p.X.Label.Text, "\n", 2)[0]
				texts, data := record(p, size.X, size.Y)
				i := slices.IndexFunc(texts, func(d drawn) bool { return d.text == xLabel })
				require.GreaterOrEqual(t, i, 0, "the X axis label is drawn")
				label := texts[i].at
				for _, e := range tc.entries {
					j := slices.IndexFunc(texts, func(d drawn) bool { return d.text == e })
					require.GreaterOrEqual(t, j, 0, "entry %q is drawn", e)
					at := texts[j].at
					assert.Less(t, at.Y, label.Y-vg.Points(8), "entry %q is below the X axis label", e)
					assert.Less(t, at.Y, data.Min.Y, "entry %q is below the data area", e)
					assert.Greater(t, at.Y, vg.Length(0), "entry %q is inside the canvas", e)
					assert.GreaterOrEqual(t, at.X, vg.Length(0), "entry %q is inside the canvas", e)
					assert.Less(t, at.X, size.X, "entry %q is inside the canvas", e)
				}
				// No right column: only a right axis, if any, stands right of the data.
				room := vg.Points(30) // a tick label may stand out past the data area
				if p.Y.Label.Text == "ready messages" {
					room = vg.Points(60)
				}
				assert.Greater(t, data.Max.X, size.X-room, "the data area reaches the right edge but for a right axis")
			})
		}
	}
}

// strokes draws p and returns the width and dashes in force at each line it stroked.
func strokes(p *plot.Plot) []draw.LineStyle {
	rc := &recorder.Canvas{}
	p.Draw(draw.NewCanvas(rc, DefaultWidth, DefaultHeight))
	var out []draw.LineStyle
	var cur draw.LineStyle
	for _, a := range rc.Actions {
		switch a := a.(type) {
		case *recorder.SetLineWidth:
			cur.Width = a.Width
		case *recorder.SetLineDash:
			cur.Dashes = a.Dashes
		case *recorder.Stroke:
			out = append(out, cur)
		}
	}
	return out
}

// Reader sessions running and activated tasks running coincide when every session is an
// activated task: the first is drawn wide, first, and the second thin and dashed on it, so
// that both stay visible (docs/outputs.md#plots).
func TestCoincidingSessionLinesStayVisible(t *testing.T) {
	same := gauge(0, 1, 2, 2, 1, 0)
	p, err := QueueOverTime("Q", gauge(0, 3, 5, 2, 0, 0), same, same, gauge(0, 0, 1, 1, 0, 0))
	require.NoError(t, err)
	readers, activated, waiting := sessionStyles[0], sessionStyles[1], sessionStyles[2]
	assert.GreaterOrEqual(t, readers.Width, 3*activated.Width, "the line under is at least three times as wide")
	assert.NotEqual(t, readers.Dashes, activated.Dashes)
	assert.NotEqual(t, activated.Dashes, waiting.Dashes)
	assert.NotEqual(t, activated.Color, readers.Color)
	drawnStyles := strokes(p)
	wide := slices.IndexFunc(drawnStyles, func(s draw.LineStyle) bool { return s.Width == readers.Width })
	thin := slices.IndexFunc(drawnStyles, func(s draw.LineStyle) bool {
		return s.Width == activated.Width && slices.Equal(s.Dashes, activated.Dashes)
	})
	require.GreaterOrEqual(t, wide, 0, "the reader sessions line is drawn wide")
	require.GreaterOrEqual(t, thin, 0, "the activated tasks line is drawn thin and dashed")
	assert.Less(t, wide, thin, "the wide line is drawn first, under the thin one")
}

// QueueOff shades the spans a queue was OFF, each with its edges drawn, and one legend
// entry; a span that ends before it begins is refused.
func TestQueueOffShadesTheSpansWithOneEntry(t *testing.T) {
	spans := []Span{{"queue", 0.5, 3}, {"queue", 3.01, 1e300}}
	p, err := QueueOverTime("Q", gauge(0, 3, 5, 2, 0), nil, gauge(1, 1, 1, 1, 1), nil, QueueOff(spans))
	require.NoError(t, err)
	svg := string(render(t, p, "svg"))
	assert.Equal(t, 1, strings.Count(svg, ">queue OFF<"))
	_, err = QueueOverTime("Q", gauge(0, 3), nil, gauge(1, 1), nil, QueueOff([]Span{{"queue", 3, 1}}))
	assert.Error(t, err)
}

// Two lines of a plot over time that are the same (two databases' closed endpoints, 100
// each) both stay visible: the first is drawn wide under the second.
func TestIdenticalLinesStayVisible(t *testing.T) {
	same := gauge(0, 40, 100, 100, 0)
	p, err := EndpointsByState([]Line{{Name: "HQ1/Orders1 CD", Points: same}, {Name: "HQ2/Orders2 CD", Points: same},
		{Name: "Front/Front CO", Points: gauge(0, 2, 1, 0, 0)}})
	require.NoError(t, err)
	drawnStyles := strokes(p)
	wide := slices.IndexFunc(drawnStyles, func(s draw.LineStyle) bool { return s.Width == vg.Points(underWidth) })
	require.GreaterOrEqual(t, wide, 0, "the first of the two is drawn wide")
	n := 0
	for _, s := range drawnStyles {
		if s.Width == vg.Points(underWidth) {
			n++
		}
	}
	assert.Equal(t, 2, n, "only the first of the two (its line and its legend's thumbnail), not the third line, is drawn wide")
	thin := slices.IndexFunc(drawnStyles[wide+1:], func(s draw.LineStyle) bool { return s.Width == vg.Points(lineWidth) })
	assert.GreaterOrEqual(t, thin, 0, "the second is drawn thin, after the first")
}

func TestCoincide(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []Point
		want bool
	}{
		{"the same", gauge(0, 1, 2), gauge(0, 1, 2), true},
		{"equal but at one instant of ten", gauge(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), gauge(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11), true},
		{"apart at two of five", gauge(0, 1, 2, 3, 4, 5), gauge(0, 1, 2, 3, 5, 6), false},
		{"both zero", gauge(0, 0, 0), gauge(0, 0, 0), false},
		{"zero together, apart otherwise", gauge(0, 0, 0, 0, 1), gauge(0, 0, 0, 0, 2), false},
		{"other instants", gauge(0, 1), []Point{{0, 0}, {2, 1}}, false},
		{"other lengths", gauge(0, 1), gauge(0, 1, 1), false},
	} {
		assert.Equal(t, tc.want, coincide(tc.a, tc.b), tc.name)
	}
}
