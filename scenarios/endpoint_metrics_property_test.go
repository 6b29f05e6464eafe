package scenarios_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// endpointMetricsProblem runs the spec's world until stop (the run's time limit, so that
// it stops with dialogs in every state, not only after the retention of closed targets)
// and describes the first endpoints.XX value that is not the count of the rows of
// sys.conversation_endpoints in state XX at the end, on an instance or over all, or
// returns "".
func endpointMetricsProblem(s gen.World, stop time.Duration) (string, [model.Closed + 1]int) {
	var seen [model.Closed + 1]int
	cfg := s.Config()
	cfg.MaxTime = stop
	res, err := scenarios.Run(cfg, s.Seed)
	if err != nil {
		return "run: " + err.Error(), seen
	}
	var all [model.Closed + 1]int
	for _, in := range res.Instances {
		var want [model.Closed + 1]int
		for _, ep := range in.Endpoints {
			if ep.Contract != model.PostEventNotificationContract {
				want[ep.State]++
				all[ep.State]++
			}
		}
		for st := model.StartedOutbound; st <= model.Closed; st++ {
			if got := endpointMetric(res, "endpoints."+st.String(), scenarios.Subject{Instance: in.Name}); got != float64(want[st]) {
				return fmt.Sprintf("seed %d, stopped at %v: endpoints.%v of instance %s is %v, but sys.conversation_endpoints has %d rows in %v",
					s.Seed, stop, st, in.Name, got, want[st], st), seen
			}
		}
	}
	for st := model.StartedOutbound; st <= model.Closed; st++ {
		if got := endpointMetric(res, "endpoints."+st.String(), scenarios.Subject{}); got != float64(all[st]) {
			return fmt.Sprintf("seed %d, stopped at %v: endpoints.%v of the run is %v, but the instances have %d endpoints in %v",
				s.Seed, stop, st, got, all[st], st), seen
		}
		if all[st] > 0 {
			seen[st]++
		}
	}
	return "", seen
}

// endpointMetric is a metric's value on a subject, NaN-free: -1 when it has none.
func endpointMetric(res *scenarios.Result, name string, s scenarios.Subject) float64 {
	m, ok := scenarios.LookupMetric(name)
	if !ok {
		return -1
	}
	v, _, ok := m.Value(res, s)
	if !ok {
		return -1
	}
	return v
}

// The metrics endpoints.SO to endpoints.CD are sys.conversation_endpoints at the end of
// the run grouped by state (DLG-4), on every instance and summed over them, over random
// worlds and fault mixes stopped at a random time: while dialogs are starting, conversing,
// ending with and without errors, and while closed targets are retained (G-16).
func TestDLG4_EndpointMetricsAreTheEndpointRowsByStateAtTheEnd(t *testing.T) {
	var seen [model.Closed + 1]int
	properties := gopter.NewProperties(gen.Parameters(t, 60, 15))
	properties.Property("endpoints.XX is the number of endpoints in XX when the run stops", prop.ForAll(
		func(s gen.World, stopMs int) string {
			problem, states := endpointMetricsProblem(s, time.Duration(stopMs)*time.Millisecond)
			for st, n := range states {
				seen[st] += n
			}
			return problem
		},
		gen.Worlds(), gopgen.OneGenOf(gopgen.IntRange(1, 5_000), gopgen.IntRange(5_001, 2*3600_000))))
	properties.TestingRun(t)
	t.Logf("runs that stopped with endpoints in SO..CD: %v", seen[1:])
}
