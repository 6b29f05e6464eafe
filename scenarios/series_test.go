package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

// seriesRows counts the rows of a result's series, the queues' samples included.
func seriesRows(res *Result) int {
	n := res.Series.rows()
	for _, q := range res.Queues {
		n += len(q.Samples)
	}
	return n
}

// A run sampled every millisecond for half an hour would keep millions of rows; its
// series are thinned as it goes to at most MaxSeriesRows, and what is kept is what a run
// sampled at the final interval from the start records: the same instants, the same counts
// so far, and figures at the instant at least as large (the larger of each merged pair).
func TestThinnedSeriesAreTheSeriesAtTheFinalIntervalWithTheirPeaks(t *testing.T) {
	cfg := twoInstances(lossy(0.1, 0.05), Workload{Name: "w", Dialogs: 30,
		Interarrival: sim.ExponentialMean(200 * time.Millisecond), Messages: 5, Size: FixedSize(30000)})
	cfg.SampleInterval = time.Millisecond
	fine, err := Run(cfg, 7)
	require.NoError(t, err)
	require.Equal(t, sim.Drained, fine.StopReason)
	require.GreaterOrEqual(t, fine.Series.Interval, 64*time.Millisecond, "thinned six times at least")
	assert.LessOrEqual(t, seriesRows(fine), MaxSeriesRows)
	assert.Greater(t, seriesRows(fine), MaxSeriesRows/4)

	cfg.SampleInterval = fine.Series.Interval
	coarse, err := Run(cfg, 7)
	require.NoError(t, err)
	require.Equal(t, fine.Series.Interval, coarse.Series.Interval, "the coarse run was not thinned")

	assert.Equal(t, coarse.Series.Levels, fine.Series.Levels, "counts by level")
	assert.Equal(t, coarse.Series.Links, fine.Series.Links, "link counters")
	assert.Equal(t, coarse.Series.Instances, fine.Series.Instances, "instance counters")
	require.Equal(t, len(coarse.Series.Databases), len(fine.Series.Databases))
	peaked := false
	for i, c := range coarse.Series.Databases {
		f := fine.Series.Databases[i]
		require.Equal(t, c.At, f.At)
		require.Equal(t, c.Database, f.Database)
		assert.GreaterOrEqual(t, f.TransmissionQueueRows, c.TransmissionQueueRows, "at %v", c.At)
		peaked = peaked || f.TransmissionQueueRows > c.TransmissionQueueRows
	}
	assert.True(t, peaked, "some merged row kept a peak the coarse samples missed")
	for q := range coarse.Queues {
		cs, fs := coarse.Queues[q].Samples, fine.Queues[q].Samples
		require.Equal(t, len(cs), len(fs), "queue %s", coarse.Queues[q].Queue)
		for i := range cs {
			require.Equal(t, cs[i].At, fs[i].At)
			assert.GreaterOrEqual(t, fs[i].Ready, cs[i].Ready)
			assert.GreaterOrEqual(t, fs[i].Readers, cs[i].Readers)
			assert.GreaterOrEqual(t, fs[i].Waiting, cs[i].Waiting)
		}
	}
	assert.Less(t, fine.Events, coarse.Events+3*uint64(MaxSeriesRows), "samples cost events in the logarithm of the run's length")
}

// thin keeps the rows of even instants and folds each odd instant's row into the row of
// the same subject before it.
func TestThinMergesEachOddInstantIntoTheSameSubjectBefore(t *testing.T) {
	ms := time.Millisecond
	d := func(at time.Duration, db string, rows int) DatabaseSample {
		return DatabaseSample{At: at, Database: db, TransmissionQueueRows: rows}
	}
	rows := []DatabaseSample{
		d(0, "a", 1), d(0, "b", 5),
		d(ms, "a", 3), d(ms, "b", 2),
		d(2*ms, "a", 0), d(2*ms, "b", 0),
		d(3*ms, "a", 0), d(3*ms, "b", 9),
		d(4*ms, "a", 4), d(4*ms, "b", 4),
	}
	got := thin(rows, func(r *DatabaseSample) time.Duration { return r.At }, ms, func(into, from *DatabaseSample) {
		into.TransmissionQueueRows = max(into.TransmissionQueueRows, from.TransmissionQueueRows)
	})
	assert.Equal(t, []DatabaseSample{d(0, "a", 3), d(0, "b", 5), d(2*ms, "a", 0), d(2*ms, "b", 9), d(4*ms, "a", 4), d(4*ms, "b", 4)}, got)
}
