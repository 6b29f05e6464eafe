package scenarios_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// checkSnapshotInstants runs the spec's activated world with its trace kept and Count
// snapshots at most, and describes the first snapshot out of place, or returns "": at
// most Count of them and the end's, in time order, the last at the end of the run, and
// every one but the end's taken less than the series' interval after the world's last
// step (a trace record, or a change of the timeline). The trace does not record every
// step (a forwarder's arrivals), so the check holds the snapshots to the active period,
// not to the samples that follow steps. The deletion of a closed target at the end of
// its retention (TraceEndpointForgotten, G-16) is no step: a drained world does nothing
// else for 30 minutes, and the snapshots show what it did before.
func checkSnapshotInstants(s gen.ActivatedWorld, count int) string {
	cfg := s.World.Programs.Apply(s.World, s.Config())
	cfg.Trace, cfg.Snapshots = true, scenarios.Snapshots{Count: count}
	res, err := scenarios.Run(cfg, s.World.Seed)
	switch {
	case err != nil:
		return err.Error()
	case len(res.Snapshots) == 0 || len(res.Snapshots) > count+1:
		return fmt.Sprintf("%d snapshots, not 1 to %d", len(res.Snapshots), count+1)
	case res.Snapshots[len(res.Snapshots)-1].At != res.EndTime:
		return fmt.Sprintf("the last snapshot is at %v, the run ends at %v", res.Snapshots[len(res.Snapshots)-1].At, res.EndTime)
	}
	var steps []time.Duration // the trace's, and the timeline's ALTER QUEUE, which the trace leaves out
	for _, r := range res.Trace {
		if r.Kind != model.TraceEndpointForgotten {
			steps = append(steps, r.At)
		}
	}
	for _, ch := range cfg.Timeline {
		steps = append(steps, ch.At)
	}
	slices.Sort(steps)
	last := steps[len(steps)-1] // a run begins with a step
	for i, snap := range res.Snapshots {
		if i > 0 && snap.At <= res.Snapshots[i-1].At {
			return fmt.Sprintf("snapshot %d at %v, after one at %v", i, snap.At, res.Snapshots[i-1].At)
		}
		if i < len(res.Snapshots)-1 && snap.At-last >= res.Series.Interval {
			return fmt.Sprintf("snapshot %d at %v: the last step of the world at %v, the interval %v (the run ends at %v, %d snapshots)",
				i, snap.At, last, res.Series.Interval, res.EndTime, len(res.Snapshots))
		}
	}
	return ""
}

// The snapshots of snapshots.json show the world while it does something: over random
// activated worlds and fault mixes, none but the end's lies in the idle tail of a drained
// run, after the world's last step, in which only closed targets are deleted at the end
// of their retention (G-16); there are at most snapshots.count of them and the end's, the
// last at the end.
func TestG16_SnapshotsLieInTheActivePeriod(t *testing.T) {
	properties := gopter.NewProperties(gen.Parameters(t, 40, 10))
	properties.Property("every snapshot but the end's lies before the world's last step and a sample", prop.ForAll(checkSnapshotInstants,
		gen.ActivatedWorlds(), gopgen.IntRange(1, 30)))
	properties.TestingRun(t)
}
