package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

// A run keeps at most Snapshots.Count snapshots of the views, evenly spaced over its
// samples, plus the end's; each keeps at most Snapshots.Rows rows of a view per instance,
// with the total beside them, however many endpoints and transmission queue rows there
// are.
func TestSnapshotsAreBoundedInNumberAndRows(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "orders", Dialogs: 300, Interarrival: sim.Fixed(20 * time.Millisecond),
		Messages: 2, Size: FixedSize(100)})
	cfg.SampleInterval = 100 * time.Millisecond
	cfg.Snapshots = Snapshots{Count: 6, Rows: 3}

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	require.NotEmpty(t, res.Snapshots)
	assert.LessOrEqual(t, len(res.Snapshots), 6+1)
	assert.GreaterOrEqual(t, len(res.Snapshots), 6/2+1, "thinning keeps at least half")
	assert.Equal(t, res.EndTime, res.Snapshots[len(res.Snapshots)-1].At)
	var gaps []time.Duration
	for i := 1; i < len(res.Snapshots)-1; i++ {
		gaps = append(gaps, res.Snapshots[i].At-res.Snapshots[i-1].At)
	}
	for _, g := range gaps {
		assert.Equal(t, gaps[0], g, "evenly spaced: %v", gaps)
	}
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
