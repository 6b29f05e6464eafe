package plots

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// cdf returns the empirical distribution of latencies (in seconds, sorted).
func cdf(latencies ...float64) []Point {
	out := make([]Point, len(latencies))
	for i, l := range latencies {
		out[i] = Point{X: l, Y: float64(i+1) / float64(len(latencies))}
	}
	return out
}

// ramp returns a cumulative count sampled every second for n seconds, growing by
// perSecond and then by extra per second after half the run.
func ramp(n int, perSecond, extra float64) []Point {
	out := make([]Point, n+1)
	for i := range out {
		y := perSecond * float64(i)
		if i > n/2 {
			y += extra * float64(i-n/2)
		}
		out[i] = Point{X: float64(i), Y: y}
	}
	return out
}

// gauge returns a count sampled every second, one value a second.
func gauge(values ...float64) []Point {
	out := make([]Point, len(values))
	for i, v := range values {
		out[i] = Point{X: float64(i), Y: v}
	}
	return out
}

func latencyLines(n int) []Line {
	all := []Line{
		{Name: "priority 10", Points: cdf(0.0004, 0.0006, 0.001, 0.002, 0.004)},
		{Name: "priority 5", Points: cdf(0.001, 0.003, 0.008, 0.02, 0.05)},
		{Name: "priority 1", Points: cdf(0.002, 0.01, 0.04, 0.12, 0.3)},
		{Name: "priority 3", Points: cdf(0.0015, 0.006, 0.03, 0.1, 0.25)},
		{Name: "priority 7", Points: cdf(0.0008, 0.0012, 0.003, 0.007, 0.01)},
		{Name: "priority 2", Points: cdf(0.002, 0.009, 0.035, 0.11, 0.28)},
	}
	return all[:n]
}

func sweepBands() []Band {
	return []Band{
		{Name: "priority 10", Points: []BandPoint{
			{X: 0, Mean: 0.002, Lo: 0.0018, Hi: 0.0023},
			{X: 0.2, Mean: 0.009, Lo: 0.007, Hi: 0.012}, // out of order on purpose
			{X: 0.1, Mean: 0.004, Lo: 0.0035, Hi: 0.005},
		}},
		{Name: "priority 1", Points: []BandPoint{
			{X: 0, Mean: 0.01, Lo: 0.008, Hi: 0.012},
			{X: 0.1, Mean: 0.03, Lo: 0.024, Hi: 0.037},
			{X: 0.2, Mean: 0.08, Lo: 0.06, Hi: 0.1},
		}},
		{Name: "single run", Points: []BandPoint{{X: 0.15, Mean: 0.05, Lo: 0.04, Hi: 0.065}}},
	}
}

// plotCases builds every plot type from a fixed small input.
var plotCases = []struct {
	name  string
	build func() (*plot.Plot, error)
}{
	{"latency CDF, legend inside", func() (*plot.Plot, error) { return LatencyCDF(latencyLines(3)) }},
	{"latency CDF, legend outside", func() (*plot.Plot, error) { return LatencyCDF(latencyLines(6)) }},
	{"latency CDF, linear", func() (*plot.Plot, error) {
		return LatencyCDF([]Line{{Name: "priority 5", Points: cdf(0, 0.01, 0.012, 0.015)}})
	}},
	{"throughput by level", func() (*plot.Plot, error) {
		return ThroughputByLevel([]Line{
			{Name: "priority 10", Points: Rates(ramp(10, 100, 50))},
			{Name: "priority 5", Points: Rates(ramp(10, 60, -30))},
			{Name: "priority 1", Points: Rates(ramp(10, 20, 0))},
		})
	}},
	{"transmission queue depth", func() (*plot.Plot, error) {
		return TransmissionQueueDepth([]Line{
			{Name: "London/Orders", Points: gauge(0, 4, 9, 12, 7, 3, 0)},
			{Name: "Tokyo/Stock", Points: gauge(0, 1, 1, 2, 0, 0, 0)},
		})
	}},
	{"link counters", func() (*plot.Plot, error) {
		return LinkCounters([]Line{
			{Name: "London→Tokyo lost", Points: gauge(0, 2, 5, 5, 8)},
			{Name: "London→Tokyo retransmitted", Points: gauge(0, 2, 6, 7, 10)},
			{Name: "London→Tokyo duplicates", Points: gauge(0, 0, 1, 1, 1)},
			{Name: "Tokyo→London lost", Points: gauge(0, 1, 1, 3, 3)},
			{Name: "Tokyo→London retransmitted", Points: gauge(0, 1, 2, 3, 4)},
			{Name: "Tokyo→London duplicates", Points: gauge(0, 0, 0, 0, 2)},
		})
	}},
	{"queue over time, one axis", func() (*plot.Plot, error) {
		return QueueOverTime("OrderQueue", gauge(0, 3, 8, 6, 2, 0), gauge(0, 1, 2, 2, 1, 0),
			gauge(1, 2, 3, 3, 2, 1), gauge(1, 0, 0, 0, 1, 1))
	}},
	{"queue over time, two axes", func() (*plot.Plot, error) {
		return QueueOverTime("StockQueue", gauge(0, 300, 1200, 900, 150, 0), gauge(0, 2, 4, 4, 3, 0),
			gauge(0, 2, 4, 4, 3, 0), nil)
	}},
	{"sweep", func() (*plot.Plot, error) { return Sweep("loss probability", "mean latency (s)", sweepBands()) }},
	{"round trip CDF", func() (*plot.Plot, error) {
		return RoundTripCDF([]Line{{Name: "orders", Points: cdf(0.4, 0.9, 1.2, 4.5, 13)}, {Name: "audit", Points: cdf(0.003, 0.005, 0.025)}})
	}},
	{"endpoints by state", func() (*plot.Plot, error) {
		return EndpointsByState([]Line{{Name: "Tokyo/Warehouse CO", Points: gauge(0, 4, 8, 8, 2, 0)},
			{Name: "Tokyo/Warehouse CD", Points: gauge(0, 0, 2, 6, 12, 12)}, {Name: "Lisbon/Sales DO", Points: gauge(0, 1, 3, 2, 0, 0)}})
	}},
	{"backlog", func() (*plot.Plot, error) {
		return Backlog([]Line{{Name: "Tokyo/StockQueue", Points: gauge(0, 12, 22, 9, 0)}, {Name: "Lisbon/OrderQueue", Points: gauge(0, 1, 0, 1, 0)}})
	}},
}

// svgRoot is the root element of an SVG document.
type svgRoot struct {
	XMLName xml.Name `xml:"svg"`
	Width   string   `xml:"width,attr"`
	Height  string   `xml:"height,attr"`
}

// checkPNG checks that path holds a PNG of width by height pixels.
func checkPNG(t *testing.T, path string, width, height int) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, path)
	assert.Equal(t, width, img.Bounds().Dx(), "%s width", path)
	assert.Equal(t, height, img.Bounds().Dy(), "%s height", path)
}

// checkSVG checks that path holds well-formed SVG of width by height (with units).
func checkSVG(t *testing.T, path, width, height string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var root svgRoot
	require.NoError(t, xml.Unmarshal(data, &root), path)
	assert.Equal(t, width, root.Width, "%s width", path)
	assert.Equal(t, height, root.Height, "%s height", path)
	assert.Contains(t, string(data), "font-family:'Liberation Sans',Arial,", "%s: fallback fonts", path)
	// Unmarshal stops at the root; read every token to check the whole document.
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		_, err := d.Token()
		if err != nil {
			require.ErrorIs(t, err, io.EOF, path)
			break
		}
	}
}

func TestPlotsSaveAsPNGAndSVG(t *testing.T) {
	for _, tc := range plotCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.build()
			require.NoError(t, err)
			dir := t.TempDir()
			require.NoError(t, SaveBoth(p, dir, "plot"))
			checkPNG(t, filepath.Join(dir, "plot.png"), 768, 480)
			checkSVG(t, filepath.Join(dir, "plot.svg"), "576pt", "360pt")

			require.NoError(t, Save(p, filepath.Join(dir, "small.PNG"), 4*vg.Inch, 3*vg.Inch))
			checkPNG(t, filepath.Join(dir, "small.PNG"), 384, 288)
			require.NoError(t, Save(p, filepath.Join(dir, "small.svg"), 4*vg.Inch, 3*vg.Inch))
			checkSVG(t, filepath.Join(dir, "small.svg"), "288pt", "216pt")
		})
	}
}

// render draws p in format at the default size, as Save does.
func render(t *testing.T, p *plot.Plot, format string) []byte {
	t.Helper()
	data, err := encode(p, DefaultWidth, DefaultHeight, format)
	require.NoError(t, err)
	return data
}

func TestPlotsAreDeterministic(t *testing.T) {
	for _, tc := range plotCases {
		t.Run(tc.name, func(t *testing.T) {
			first, err := tc.build()
			require.NoError(t, err)
			second, err := tc.build()
			require.NoError(t, err)
			for _, format := range []string{"svg", "png"} {
				a := render(t, first, format)
				assert.Equal(t, a, render(t, second, format), "%s: two plots of the same input differ", format)
				assert.Equal(t, a, render(t, first, format), "%s: drawing one plot twice differs", format)
			}
		})
	}
}

func TestPlotsRejectEmptyInput(t *testing.T) {
	none := []Line{{Name: "priority 5"}}
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"latency CDF, no lines", func() error { _, err := LatencyCDF(nil); return err }},
		{"latency CDF, no points", func() error { _, err := LatencyCDF(none); return err }},
		{"throughput, no lines", func() error { _, err := ThroughputByLevel([]Line{}); return err }},
		{"throughput, no points", func() error { _, err := ThroughputByLevel(none); return err }},
		{"throughput, rates of one sample", func() error {
			_, err := ThroughputByLevel([]Line{{Name: "priority 5", Points: Rates(gauge(3))}})
			return err
		}},
		{"transmission queue, no lines", func() error { _, err := TransmissionQueueDepth(nil); return err }},
		{"transmission queue, no points", func() error { _, err := TransmissionQueueDepth(none); return err }},
		{"link counters, no lines", func() error { _, err := LinkCounters(nil); return err }},
		{"link counters, no points", func() error { _, err := LinkCounters(none); return err }},
		{"queue, no ready", func() error { _, err := QueueOverTime("Q", nil, nil, gauge(1), nil); return err }},
		{"queue, no readers", func() error { _, err := QueueOverTime("Q", gauge(1), gauge(1), nil, gauge(1)); return err }},
		{"sweep, no bands", func() error { _, err := Sweep("x", "y", nil); return err }},
		{"round trip CDF, no lines", func() error { _, err := RoundTripCDF(nil); return err }},
		{"endpoints, no points", func() error { _, err := EndpointsByState(none); return err }},
		{"backlog, no lines", func() error { _, err := Backlog(nil); return err }},
		{"sweep, no points", func() error { _, err := Sweep("x", "y", []Band{{Name: "b"}}); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			require.Error(t, err)
			assert.ErrorIs(t, err, errNoData, err.Error())
		})
	}
}

func TestPlotsRejectInvalidInput(t *testing.T) {
	pts := gauge(1, 2, 3)
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"unnamed line", func() error { _, err := TransmissionQueueDepth([]Line{{Points: pts}}); return err }},
		{"NaN", func() error {
			_, err := LinkCounters([]Line{{Name: "l", Points: []Point{{0, 1}, {1, math.NaN()}}}})
			return err
		}},
		{"time going back", func() error {
			_, err := ThroughputByLevel([]Line{{Name: "l", Points: []Point{{0, 1}, {2, 1}, {1, 1}}}})
			return err
		}},
		{"fraction above 1", func() error {
			_, err := LatencyCDF([]Line{{Name: "l", Points: []Point{{0.1, 0.5}, {0.2, 1.5}}}})
			return err
		}},
		{"negative latency", func() error {
			_, err := LatencyCDF([]Line{{Name: "l", Points: []Point{{-0.1, 0.5}, {0.2, 1}}}})
			return err
		}},
		{"fraction falling", func() error {
			_, err := LatencyCDF([]Line{{Name: "l", Points: []Point{{0.1, 0.5}, {0.2, 0.4}}}})
			return err
		}},
		{"queue without a name", func() error { _, err := QueueOverTime("", pts, nil, pts, nil); return err }},
		{"queue series going back in time", func() error {
			_, err := QueueOverTime("Q", pts, nil, pts, []Point{{1, 0}, {0, 0}})
			return err
		}},
		{"sweep without labels", func() error { _, err := Sweep("", "y", sweepBands()); return err }},
		{"sweep, mean outside the band", func() error {
			_, err := Sweep("x", "y", []Band{{Name: "b", Points: []BandPoint{{X: 1, Mean: 3, Lo: 1, Hi: 2}}}})
			return err
		}},
		{"sweep, two points at one x", func() error {
			_, err := Sweep("x", "y", []Band{{Name: "b", Points: []BandPoint{{X: 1, Mean: 1, Lo: 1, Hi: 1}, {X: 1, Mean: 2, Lo: 2, Hi: 2}}}})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Error(t, tc.err())
		})
	}
}

func TestSweepLeavesTheCallersPointsInOrder(t *testing.T) {
	bands := sweepBands()
	before := append([]BandPoint(nil), bands[0].Points...)
	_, err := Sweep("loss probability", "mean latency (s)", bands)
	require.NoError(t, err)
	assert.Equal(t, before, bands[0].Points)
}

func TestRates(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cumulative []Point
		want       []Point
	}{
		{"none", nil, nil},
		{"one sample", []Point{{1, 5}}, nil},
		{"steady", []Point{{0, 0}, {1, 10}, {2, 20}}, []Point{{1, 10}, {2, 10}}},
		{"uneven intervals", []Point{{0, 0}, {0.5, 10}, {2.5, 30}}, []Point{{0.5, 20}, {2.5, 10}}},
		{"repeated instant skipped", []Point{{0, 0}, {1, 10}, {1, 12}, {2, 20}}, []Point{{1, 10}, {2, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Rates(tc.cumulative))
		})
	}
}

func TestQueueOverTimeGivesSessionsTheirOwnAxisOnlyWhenDwarfed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ready []Point
		twin  bool
	}{
		{"comparable counts", gauge(0, 3, 8, 6), false},
		{"ready dwarfs sessions", gauge(0, 300, 1200, 900), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := QueueOverTime("Q", tc.ready, nil, gauge(0, 2, 4, 4), nil)
			require.NoError(t, err)
			svg := string(render(t, p, "svg"))
			assert.Equal(t, tc.twin, bytes.Contains([]byte(svg), []byte("(right axis)")), "legend names the axes")
			assert.Equal(t, tc.twin, bytes.Contains([]byte(svg), []byte(">reader sessions<")), "right axis label")
		})
	}
}

func TestLogTicksLabelTheDataRange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		min, max float64
		want     []string
	}{
		{"three decades", 0.0004, 0.3, []string{"100µs", "1ms", "10ms", "100ms", "1s"}},
		{"one decade", 0.02, 0.5, []string{"10ms", "20ms", "50ms", "100ms", "200ms", "500ms", "1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var labels []string
			for _, tk := range (secondsTicks{plot.TickerFunc(logTicks)}).Ticks(tc.min, tc.max) {
				if !tk.IsMinor() {
					labels = append(labels, tk.Label)
				}
			}
			assert.Equal(t, tc.want, labels)
		})
	}
}

func TestLinearTicksAreRoundAndFew(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ticker func(min, max float64) []plot.Tick
		lo, hi float64
		want   []string
	}{
		{"seconds", niceTicks, 0, 5, []string{"0", "1", "2", "3", "4", "5"}},
		{"thousands", niceTicks, 0, 1260, []string{"0", "200", "400", "600", "800", "1000", "1200"}},
		{"fractions", niceTicks, 0, 0.2, []string{"0.00", "0.05", "0.10", "0.15", "0.20"}},
		{"negative start", niceTicks, -1, 1, []string{"-1.0", "-0.5", "0.0", "0.5", "1.0"}},
		{"a small count", integerTicks, 0, 1.05, []string{"0", "1"}},
		{"a count of four", integerTicks, 0, 4.2, []string{"0", "1", "2", "3", "4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var labels []string
			for _, tk := range tc.ticker(tc.lo, tc.hi) {
				if !tk.IsMinor() {
					labels = append(labels, tk.Label)
				}
			}
			assert.Equal(t, tc.want, labels)
		})
	}
}

func TestCountsThatStayAtZeroKeepANonNegativeRange(t *testing.T) {
	p, err := TransmissionQueueDepth([]Line{{Name: "London/Orders", Points: gauge(0, 0, 0)}})
	require.NoError(t, err)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{p.Y.Min, p.Y.Max})
	p, err = TransmissionQueueDepth([]Line{{Name: "London/Orders", Points: []Point{{0, 3}}}})
	require.NoError(t, err)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{p.X.Min, p.X.Max})
}

func TestSaveRejects(t *testing.T) {
	p, err := LatencyCDF(latencyLines(1))
	require.NoError(t, err)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"no plot", Save(nil, filepath.Join(dir, "a.png"), DefaultWidth, DefaultHeight)},
		{"unknown extension", Save(p, filepath.Join(dir, "a.pdf"), DefaultWidth, DefaultHeight)},
		{"no extension", Save(p, filepath.Join(dir, "a"), DefaultWidth, DefaultHeight)},
		{"zero width", Save(p, filepath.Join(dir, "a.svg"), 0, DefaultHeight)},
		{"missing directory", Save(p, filepath.Join(dir, "missing", "a.svg"), DefaultWidth, DefaultHeight)},
		{"base with a directory", SaveBoth(p, dir, "sub/a")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Error(t, tc.err)
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a failed save writes nothing and creates no directory")
}

// Downtimes shades the spans an instance was down on a plot over time (G-13), with one
// legend entry per instance, and refuses a span that ends before it begins.
func TestG13_DowntimesShadeEachInstanceOnce(t *testing.T) {
	lines := []Line{{Name: "A/db", Points: []Point{{0, 0}, {10, 5}, {20, 0}}}}
	p, err := TransmissionQueueDepth(lines, Downtimes([]Downtime{{"B", 2, 5}, {"C", 3, math.Inf(1)}, {"B", 8, 9}}))
	require.NoError(t, err)
	svg, err := encode(p, 4*vg.Inch, 3*vg.Inch, "svg")
	require.NoError(t, err)
	assert.Equal(t, 1, bytes.Count(svg, []byte(">B down<")), "one legend entry per instance")
	assert.Equal(t, 1, bytes.Count(svg, []byte(">C down<")))
	_, err = TransmissionQueueDepth(lines, Downtimes([]Downtime{{"B", 5, 2}}))
	assert.Error(t, err)
}
