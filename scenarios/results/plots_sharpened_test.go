package results

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/plots"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// The poison-message scenario turns its queue OFF, ON a minute later by ALTER QUEUE, and
// OFF again within milliseconds: the queue's STATUS changes are recorded at their instants
// (samples a second apart miss the second round), series.csv has them as off rows, and the
// queue plot runs past the second disable with both OFF spans (issue 18).
func TestQueuePlotRunsToTheLastStatusChangeAndShadesTheOffSpans(t *testing.T) {
	s, err := file.Library("poison-message")
	require.NoError(t, err)
	res, err := scenarios.Run(s.Config, 1)
	require.NoError(t, err)
	i := slices.IndexFunc(res.Queues, func(q scenarios.QueueResult) bool { return q.Queue == "TargetQueue" })
	require.GreaterOrEqual(t, i, 0)
	changes := res.Queues[i].StatusChanges
	var statuses []model.QueueStatus
	for _, c := range changes {
		statuses = append(statuses, c.Status)
	}
	require.Equal(t, []model.QueueStatus{model.QueueOff, model.QueueOn, model.QueueOff}, statuses)
	second := changes[2].At.Seconds()

	rows := activePeriod(seriesRows(res))
	q := slices.IndexFunc(queueSeries(rows), func(q queueData) bool { return q.name == "B/TargetQueue" })
	require.GreaterOrEqual(t, q, 0, "the target queue has its plot")
	ready := queueSeries(rows)[q].ready
	assert.GreaterOrEqual(t, ready[len(ready)-1].X, second, "the queue plot's X range reaches the second disable")
	off := queueOff(rows, "B/TargetQueue")
	assert.Equal(t, []plots.Span{
		{Subject: "queue", From: changes[0].At.Seconds(), To: changes[1].At.Seconds()},
		{Subject: "queue", From: second, To: math.Inf(1)},
	}, off)

	dir := t.TempDir()
	_, err = WritePlots(dir, res)
	require.NoError(t, err)
	svg, err := os.ReadFile(filepath.Join(dir, "queue-B-TargetQueue.svg"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(svg), ">queue OFF<"), "the OFF spans have a legend entry")
	assert.Contains(t, string(svg), ">scenario poison-message, seed 1<", "the title names the scenario and the seed")
}

// A sweep's band is the confidence interval clipped to the values of the runs: with two
// seeds Student's t stretches it to 12.7 standard errors (issue 18).
func TestSweepBandsStayWithinTheValuesOfTheRuns(t *testing.T) {
	for _, vals := range [][]float64{{1, 1.2}, {3, 3.1, 2.9}, {0, 0.4}, {5}, {2, 2, 2}} {
		p := bandPoint(1, vals)
		lo, hi := slices.Min(vals), slices.Max(vals)
		assert.GreaterOrEqual(t, p.Lo, lo, "%v", vals)
		assert.LessOrEqual(t, p.Hi, hi, "%v", vals)
		assert.True(t, p.Lo <= p.Mean && p.Mean <= p.Hi, "%v: %+v", vals, p)
	}
	iv := bandPoint(1, []float64{1, 1.2})
	assert.Equal(t, [2]float64{1, 1.2}, [2]float64{iv.Lo, iv.Hi}, "two seeds: the band is their range")
}

// Legend entries of a sweep come in natural order: numbers by value (issue 18).
func TestSweepLegendsAreInNaturalOrder(t *testing.T) {
	names := []string{"queue Q, dialogs=16", "queue Q, dialogs=4", "level 10", "level 5", "queue Q, dialogs=128",
		"level 1", "queue P, dialogs=4", "queue Q, dialogs=04x", "queue Q, dialogs=4x"}
	slices.SortFunc(names, naturalCompare)
	assert.Equal(t, []string{"level 1", "level 5", "level 10", "queue P, dialogs=4", "queue Q, dialogs=4",
		"queue Q, dialogs=04x", "queue Q, dialogs=4x", "queue Q, dialogs=16", "queue Q, dialogs=128"}, names)
}

// A world with costs gets a CPU plot: the CPUs each instance kept busy per interval.
func TestCPULinesAreCPUsBusyPerInstance(t *testing.T) {
	rows := []SeriesRow{
		{0, KindInstance, "A", "cpu_busy", 0}, {0, KindInstance, "B", "cpu_busy", 0},
		{1, KindInstance, "A", "cpu_busy", 500_000}, {1, KindInstance, "B", "cpu_busy", 0},
		{2, KindInstance, "A", "cpu_busy", 2_500_000}, {2, KindInstance, "B", "cpu_busy", 0},
	}
	assert.Equal(t, []plots.Line{{Name: "A", Points: []plots.Point{{X: 1, Y: 0.5}, {X: 2, Y: 2}}}}, cpuLines(rows))

	res := scenarios.Result{CPU: []scenarios.CPUResult{{}}, Series: scenarios.Series{Instances: []scenarios.InstanceSample{
		{At: 0, Instance: "A"}, {At: time.Second, Instance: "A", CPUBusy: 300 * time.Millisecond}}}}
	paths, err := WritePlots(t.TempDir(), &res)
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(paths, func(p string) bool { return filepath.Base(p) == CPUPlot+".png" }), "%v", paths)
}
