package results

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// snapshots.json reads back, with its snapshots in time order, the last at the end of the
// run, each view of each instance as the result has it.
func TestSnapshotsParseBackWithTheRunsViews(t *testing.T) {
	out := sharedOutput(t)

	s, err := ReadSnapshots(bytes.NewReader(readFileT(t, filepath.Join(out.dir, SnapshotsFile))))

	require.NoError(t, err)
	assert.Equal(t, scenarios.DefaultSnapshotRows, s.RowsPerView)
	require.Len(t, s.Snapshots, len(out.res.Snapshots))
	require.LessOrEqual(t, len(s.Snapshots), scenarios.DefaultSnapshots+1)
	assert.Equal(t, out.res.EndTime.Seconds(), s.Snapshots[len(s.Snapshots)-1].TimeS, "the last snapshot is the end of the run")
	busy := false
	for i, snap := range s.Snapshots {
		if i > 0 {
			assert.Greater(t, snap.TimeS, s.Snapshots[i-1].TimeS)
		}
		require.Len(t, snap.Instances, 2)
		for j, in := range snap.Instances {
			want := out.res.Snapshots[i].Instances[j]
			assert.Equal(t, want.Name, in.Instance)
			assert.Equal(t, want.EndpointsTotal, in.ConversationEndpoints.Total)
			assert.Equal(t, want.EndpointsTotal, len(in.ConversationEndpoints.Rows)+in.ConversationEndpoints.RowsLeftOut)
			n := 0
			for _, sc := range in.ConversationEndpoints.ByState {
				n += sc.Count
			}
			assert.Equal(t, in.ConversationEndpoints.Total, n, "every endpoint counted by state (no event notification here)")
			rows := 0
			for _, g := range in.TransmissionQueue.Groups {
				rows += g.Rows
			}
			assert.Equal(t, in.TransmissionQueue.Total, rows)
			assert.Equal(t, in.TransmissionQueue.Total, len(in.TransmissionQueue.Rows)+in.TransmissionQueue.RowsLeftOut)
			busy = busy || in.ConversationEndpoints.Total > 0
		}
	}
	assert.True(t, busy, "some snapshot saw endpoints")
	last := s.Snapshots[len(s.Snapshots)-1]
	for j, in := range last.Instances {
		assert.Equal(t, out.res.Instances[j].TransmissionQueueRows, in.TransmissionQueue.Total, "the end's snapshot is the result's end")
		assert.Len(t, in.ConversationEndpoints.Rows, len(out.res.Instances[j].Endpoints))
	}
}
