package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

// A run keeps at most Snapshots.Count snapshots of the views, evenly spaced among the
// samples at which the views changed (every one of them, in a run that keeps enough: a
// thousand here), plus the end's; each keeps at most Snapshots.Rows rows of a view per
// instance, with the total beside them, however many endpoints and transmission queue
// rows there are.
func TestSnapshotsAreBoundedInNumberAndRows(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "orders", Dialogs: 300, Interarrival: sim.Fixed(20 * time.Millisecond),
		Messages: 2, Size: FixedSize(100)})
	cfg.SampleInterval = 100 * time.Millisecond
	cfg.Snapshots = Snapshots{Count: MaxSnapshots, Rows: 3}
	every, err := Run(cfg, 1)
	require.NoError(t, err)
	changes := snapshotTimes(every.Snapshots[:len(every.Snapshots)-1])
	require.Less(t, len(changes), MaxSnapshots, "every change kept")
	cfg.Snapshots = Snapshots{Count: 6, Rows: 3}

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.NotEmpty(t, res.Snapshots)
	assert.LessOrEqual(t, len(res.Snapshots), 6+1)
	assert.GreaterOrEqual(t, len(res.Snapshots), 6/2+1, "thinning keeps at least half")
	assert.Equal(t, res.EndTime, res.Snapshots[len(res.Snapshots)-1].At)
	kept := snapshotTimes(res.Snapshots[:len(res.Snapshots)-1])
	stride := 1 // the least power of two that keeps at most 6 of the changes
	for (len(changes)+stride-1)/stride > 6 {
		stride *= 2
	}
	var want []time.Duration
	for i := 0; i < len(changes); i += stride {
		want = append(want, changes[i])
	}
	assert.Equal(t, want, kept, "every %dth of the %d changes: %v", stride, len(changes), changes)
	most, rows := 0, 0
	for _, s := range res.Snapshots {
		for _, in := range s.Instances {
			assert.LessOrEqual(t, len(in.Endpoints), 3)
			assert.LessOrEqual(t, len(in.TransmissionQueueRows), 3)
			assert.Equal(t, min(in.EndpointsTotal, 3), len(in.Endpoints))
			n := 0
			for _, sc := range in.EndpointStates {
				n += sc.Count
			}
			assert.Equal(t, in.EndpointsTotal, n)
			most, rows = max(most, in.EndpointsTotal), max(rows, in.TransmissionQueueTotal)
		}
	}
	assert.Greater(t, most, 3, "a snapshot saw more endpoints than it kept rows")
	t.Logf("%d snapshots, at most %d endpoints and %d transmission queue rows", len(res.Snapshots), most, rows)
}

// Snapshots validates its bounds.
func TestSnapshotsConfigIsBounded(t *testing.T) {
	assert.NoError(t, Snapshots{}.validate())
	assert.ErrorContains(t, Snapshots{Count: -1}.validate(), "Snapshots.Count -1 outside 0 to 1000")
	assert.ErrorContains(t, Snapshots{Rows: MaxSnapshotRows + 1}.validate(), "Snapshots.Rows 10001 outside 0 to 10000")
}

// activityEnd is the last instant of res's series at which a queue's sample or the
// messages received at a level changed: the end of its active period, before the idle
// tail in which closed target endpoints wait out their retention (G-16).
func activityEnd(res *Result) time.Duration {
	var end time.Duration
	for _, q := range res.Queues {
		for i := 1; i < len(q.Samples); i++ {
			before, now := q.Samples[i-1], q.Samples[i]
			before.At = now.At
			if before != now {
				end = max(end, now.At)
			}
		}
	}
	received := map[int]int64{}
	for _, l := range res.Series.Levels {
		if l.Messages != received[l.Level] {
			end = max(end, l.At)
		}
		received[l.Level] = l.Messages
	}
	return end
}

// G-16, G-32: a run that drains goes on idle for the 30 minutes its closed target
// endpoints are kept, sampled all along; its snapshots still show its activity, not that
// tail: most of them lie in its active period, and one shows the activated tasks
// (sys.dm_broker_activated_tasks) reading the target queue. The end's snapshot is kept.
func TestG16_G32_SnapshotsShowTheActivityNotTheRetentionTail(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "burst", Dialogs: 60, Interarrival: sim.Fixed(50 * time.Millisecond),
		Messages: 5, Size: FixedSize(500)})
	activatedTarget(&cfg, 4, 1, 100*time.Millisecond)

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.Equal(t, sim.Drained, res.StopReason)
	active := activityEnd(res)
	require.Greater(t, res.EndTime, 20*active, "a long idle tail: active to %v, the run ends at %v", active, res.EndTime)
	require.NotEmpty(t, res.Snapshots)
	assert.LessOrEqual(t, len(res.Snapshots), DefaultSnapshots+1)
	assert.Equal(t, res.EndTime, res.Snapshots[len(res.Snapshots)-1].At, "the last snapshot is the end's")
	inside, tasks := 0, 0
	var times []time.Duration
	for _, s := range res.Snapshots {
		times = append(times, s.At)
		if s.At <= active+res.Series.Interval {
			inside++
		}
		for _, in := range s.Instances {
			tasks = max(tasks, len(in.ActivatedTasks))
		}
	}
	assert.Greater(t, 2*inside, len(res.Snapshots), "most snapshots in the active period, to %v: %v", active, times)
	assert.Positive(t, tasks, "a snapshot shows an activated task: %v", times)
	t.Logf("active to %v, end at %v; snapshots at %v; at most %d activated tasks", active, res.EndTime, times, tasks)
}

func snapshotTimes(snaps []Snapshot) []time.Duration {
	var times []time.Duration
	for _, s := range snaps {
		times = append(times, s.At)
	}
	return times
}
