package gen

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// LateRoute is a generated world (World) whose routes are declared (Routing 1, or
// 2 through forwarders; 0 is taken as 1), but the databases' routes to the last
// instance's services are created by the timeline at RouteAtMs, each at its own instant up
// to SpreadMs later; until then the dialogs to them are delayed (RTE-2 step 7). With Twice,
// each is created elsewhere first, altered to the right address, dropped and created
// again, so that ALTER and DROP ROUTE run too.
type LateRoute struct {
	World     World
	RouteAtMs int // up to 10 min: past the default liveness bound after the last SEND
	SpreadMs  int
	Twice     bool
	// HealMs is when every fault heals (Liveness.After), in the first minute: the liveness
	// phase then has a deadline, which the routes' creation must push back.
	HealMs int
}

// String prints the world and the route's fields by name.
func (s LateRoute) String() string {
	return fmt.Sprintf("%v RouteAtMs:%d SpreadMs:%d Twice:%v HealMs:%d", s.World, s.RouteAtMs, s.SpreadMs, s.Twice, s.HealMs)
}

// Config is the World's config with declared routes (Routing 1 at least), whose routes to
// the last instance's services are taken out of the databases and created by the timeline.
func (s LateRoute) Config() scenarios.Config {
	w := s.World
	w.Routing = max(w.Routing, 1) // declared routes, direct or through forwarders
	cfg := w.Config()
	cfg.Liveness.After = time.Duration(s.HealMs) * time.Millisecond
	late := fmt.Sprintf("SI%d-", w.Instances-1) // the services of the last instance
	n := 0
	for i := range cfg.Instances {
		in := &cfg.Instances[i]
		for j := range in.Databases {
			db := &in.Databases[j]
			kept := db.Routes[:0]
			for _, r := range db.Routes {
				if !strings.HasPrefix(r.ServiceName, late) {
					kept = append(kept, r)
					continue
				}
				at := time.Duration(s.RouteAtMs+n*s.SpreadMs/8) * time.Millisecond
				n++
				change := func(at time.Duration, op scenarios.RouteOp, r model.Route) scenarios.Change {
					return scenarios.Change{At: at, Route: &scenarios.RouteChange{Instance: in.Name, Database: db.Name, Op: op, Route: r}}
				}
				if s.Twice {
					elsewhere := r
					elsewhere.Address = in.Name // LOCAL finds no such service: still delayed
					cfg.Timeline = append(cfg.Timeline, change(at/3, scenarios.CreateRoute, elsewhere), change(at/2, scenarios.AlterRoute, r),
						change(at/2+time.Millisecond, scenarios.DropRoute, r))
				}
				cfg.Timeline = append(cfg.Timeline, change(at, scenarios.CreateRoute, r))
			}
			db.Routes = kept
		}
	}
	return cfg
}

// LateRoutes draws a LateRoute: a World (Worlds), routes created 1 ms to 10 min into the
// run and spread over up to 1 min, altered and dropped first half the time, the faults
// healed in the first minute.
func LateRoutes() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[LateRoute](), map[string]gopter.Gen{
		"World":     Worlds(),
		"RouteAtMs": gopgen.IntRange(1, 600_000),
		"SpreadMs":  gopgen.IntRange(0, 60_000),
		"Twice":     gopgen.Bool(),
		"HealMs":    gopgen.IntRange(1, 60_000),
	})
}
