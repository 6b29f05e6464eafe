package results

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/plots"
	"github.com/sbsim/sbsim/scenarios"
)

func TestPlotFilesDecode(t *testing.T) {
	out := sharedOutput(t)

	n := 0
	for _, p := range out.paths {
		switch filepath.Ext(p) {
		case ".png":
			img, err := png.Decode(bytes.NewReader(readFileT(t, p)))
			require.NoError(t, err, "file %s", p)
			assert.Equal(t, 768, img.Bounds().Dx(), "file %s", p)
			assert.Equal(t, 480, img.Bounds().Dy(), "file %s", p)
			n++
		case ".svg":
			var root struct{ XMLName xml.Name }
			require.NoError(t, xml.Unmarshal(readFileT(t, p), &root), "file %s", p)
			assert.Equal(t, "svg", root.XMLName.Local, "file %s", p)
			n++
		}
	}
	assert.Equal(t, 16, n, "eight plots, each as PNG and SVG")
}

func TestWritePlotsSkipsPlotsWithoutData(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		res  scenarios.Result
		want []string
	}{
		{"nothing at all", scenarios.Result{}, nil},
		{"a level with one sample has a distribution but no rate",
			scenarios.Result{Levels: []scenarios.LevelResult{{Level: 5, LatencyCDF: []scenarios.CDFPoint{{Latency: 20 * time.Millisecond, Fraction: 1}}}},
				Series: scenarios.Series{Levels: []scenarios.LevelSample{{At: s, Level: 5, Messages: 1}}}},
			[]string{LatencyCDFPlot}},
		{"a queue without readers or a monitor, a transmission queue always empty, links that lost nothing",
			scenarios.Result{Queues: []scenarios.QueueResult{{Instance: "A", Queue: "Q", Samples: []scenarios.QueueSample{{At: s, Ready: 3}}}},
				Series: scenarios.Series{Databases: []scenarios.DatabaseSample{{At: s, Database: "A/D"}},
					Links: []scenarios.LinkSample{{At: s, Link: "A->B", Counters: faulty.Counters{Sent: 5, Delivered: 5}}}}},
			nil},
		{"a queue with a monitor but no reader yet",
			scenarios.Result{Queues: []scenarios.QueueResult{{Instance: "A", Queue: "Q", Monitor: &model.QueueMonitor{},
				Samples: []scenarios.QueueSample{{At: s, Ready: 3}}}}},
			[]string{"queue-A-Q"}},
		{"a link that lost by a partition",
			scenarios.Result{Series: scenarios.Series{Links: []scenarios.LinkSample{{At: s, Link: "A->B"},
				{At: 2 * s, Link: "A->B", Counters: faulty.Counters{DroppedPartition: 2}}}}},
			[]string{LinkCountersPlot}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()

			paths, err := WritePlots(dir, &tt.res)

			require.NoError(t, err)
			var want []string
			for _, base := range tt.want {
				want = append(want, filepath.Join(dir, base+".png"), filepath.Join(dir, base+".svg"))
			}
			assert.Equal(t, want, paths)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, len(want))
		})
	}
}

// A link's losses at random, its partition drops and its capacity drops are lines of
// their own, as summary.json's links table keeps them apart (issue 18).
func TestLinkLinesKeepLossesAndDropsApartAndLeaveOutZeros(t *testing.T) {
	rows := []SeriesRow{
		{1, KindLink, "A->B", "lost", 1}, {1, KindLink, "A->B", "dropped_partition", 2}, {1, KindLink, "A->B", "dropped_capacity", 0},
		{1, KindLink, "A->B", "duplicated", 0},
		{1, KindLink, "B->A", "lost", 0}, {1, KindLink, "B->A", "duplicated", 1},
		{1, KindInstance, "A", "fragments_retransmitted", 0},
		{2, KindLink, "A->B", "lost", 4}, {2, KindLink, "A->B", "dropped_partition", 2}, {2, KindLink, "A->B", "dropped_capacity", 1},
		{2, KindLink, "A->B", "duplicated", 0},
		{2, KindLink, "B->A", "lost", 0}, {2, KindLink, "B->A", "duplicated", 1},
		{2, KindInstance, "A", "fragments_retransmitted", 3},
	}

	lines := linkLines(rows)

	assert.Equal(t, []plots.Line{
		{Name: "A->B lost", Points: []plots.Point{{X: 1, Y: 1}, {X: 2, Y: 4}}},
		{Name: "A->B dropped by partition", Points: []plots.Point{{X: 1, Y: 2}, {X: 2, Y: 2}}},
		{Name: "A->B dropped for capacity", Points: []plots.Point{{X: 1, Y: 0}, {X: 2, Y: 1}}},
		{Name: "B->A duplicated", Points: []plots.Point{{X: 1, Y: 1}, {X: 2, Y: 1}}},
		{Name: "A retransmitted", Points: []plots.Point{{X: 1, Y: 0}, {X: 2, Y: 3}}},
	}, lines)
}

func TestThroughputLinesAreRatesHighestLevelFirst(t *testing.T) {
	rows := []SeriesRow{
		{1, KindLevel, "1", "messages", 0}, {2, KindLevel, "10", "messages", 0}, {2, KindLevel, "1", "messages", 4},
		{3, KindLevel, "10", "messages", 6}, {3, KindLevel, "1", "messages", 4},
	}

	lines := throughputLines(rows)

	assert.Equal(t, []plots.Line{
		{Name: "priority 10", Points: []plots.Point{{X: 3, Y: 6}}},
		{Name: "priority 1", Points: []plots.Point{{X: 2, Y: 4}, {X: 3, Y: 0}}},
	}, lines)
}

func TestPlotFileNames(t *testing.T) {
	taken := map[string]bool{}

	assert.Equal(t, "queue-A-Target_Queue_1_", uniqueBase(QueuePlotPrefix+fileSafe("A/Target Queue(1)"), taken))
	assert.Equal(t, "queue-A-Target_Queue_1_-2", uniqueBase(QueuePlotPrefix+fileSafe("A/Target Queue[1]"), taken))
	assert.Equal(t, "queue-Lisboa-Fila_", uniqueBase(QueuePlotPrefix+fileSafe("Lisboa/Filaé"), taken))
}

func TestActivePeriodEndsShortlyAfterTheLastChange(t *testing.T) {
	var rows []SeriesRow
	for i := range 100 {
		v := int64(min(i, 10)) // changes until t=10, then idles to t=99
		rows = append(rows, SeriesRow{float64(i), KindQueue, "A/Q", "ready", v}, SeriesRow{float64(i), KindLink, "A->B", "sent", 5})
	}
	rows = append(rows, SeriesRow{40, KindLevel, "1", "messages", 1}) // a level that appears late
	slices.SortStableFunc(rows, func(a, b SeriesRow) int { return cmp.Compare(a.TimeS, b.TimeS) })

	active := activePeriod(rows)

	assert.Equal(t, 42.0, active[len(active)-1].TimeS, "5% after the last change, at t=40")
	assert.Equal(t, rows[:len(active)], active)
	assert.Empty(t, activePeriod(nil))
	still := []SeriesRow{{0, KindQueue, "A/Q", "ready", 0}, {1, KindQueue, "A/Q", "ready", 0}, {2, KindQueue, "A/Q", "ready", 0}}
	assert.Equal(t, still[:2], activePeriod(still), "nothing changes: up to the sample after the first")
}
