package scenarios

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
)

// lateRouteSpec is a generated world (worldSpec) whose routes are declared (Routing 1, or
// 2 through forwarders; 0 is taken as 1), but the databases' routes to the last
// instance's services are created by the timeline at RouteAtMs, each at its own instant up
// to SpreadMs later; until then the dialogs to them are delayed (RTE-2 step 7). With Twice,
// each is created elsewhere first, altered to the right address, dropped and created
// again, so that ALTER and DROP ROUTE run too.
type lateRouteSpec struct {
	World     worldSpec
	RouteAtMs int // up to 10 min: past the default liveness bound after the last SEND
	SpreadMs  int
	Twice     bool
	// HealMs is when every fault heals (Liveness.After), in the first minute: the liveness
	// phase then has a deadline, which the routes' creation must push back.
	HealMs int
}

func (s lateRouteSpec) String() string {
	return fmt.Sprintf("%v RouteAtMs:%d SpreadMs:%d Twice:%v HealMs:%d", s.World, s.RouteAtMs, s.SpreadMs, s.Twice, s.HealMs)
}

func (s lateRouteSpec) config() Config {
	w := s.World
	w.Routing = max(w.Routing, 1) // declared routes, direct or through forwarders
	cfg := w.config()
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
				change := func(at time.Duration, op RouteOp, r model.Route) Change {
					return Change{At: at, Route: &RouteChange{Instance: in.Name, Database: db.Name, Op: op, Route: r}}
				}
				if s.Twice {
					elsewhere := r
					elsewhere.Address = in.Name // LOCAL finds no such service: still delayed
					cfg.Timeline = append(cfg.Timeline, change(at/3, CreateRoute, elsewhere), change(at/2, AlterRoute, r),
						change(at/2+time.Millisecond, DropRoute, r))
				}
				cfg.Timeline = append(cfg.Timeline, change(at, CreateRoute, r))
			}
			db.Routes = kept
		}
	}
	return cfg
}

// TestRTE2_DialogsDelayedUntilTheirRouteAppearsDeliverOnce is the dialog property
// (checkWorldConfig: EOIO, nothing twice, nothing lost once the faults heal, endpoints
// closed) over worlds whose routes to one instance appear only minutes into the run, from
// the timeline (CREATE, and with Twice ALTER and DROP ROUTE): the delayed dialogs wait in
// the transmission queue, find their route at a later try (G-28), and deliver once; the
// liveness phase (INV-12) counts the route's creation as a healing, so none of them is
// late before it.
func TestRTE2_DialogsDelayedUntilTheirRouteAppearsDeliverOnce(t *testing.T) {
	properties := gopter.NewProperties(propertyParameters(t, 40, 8))
	properties.Property("delayed dialogs deliver once when their route appears", prop.ForAll(
		func(s lateRouteSpec) string { return checkWorldConfig(s.World, s.config()) },
		gen.Struct(reflect.TypeFor[lateRouteSpec](), map[string]gopter.Gen{
			"World":     genWorldSpec(),
			"RouteAtMs": gen.IntRange(1, 600_000),
			"SpreadMs":  gen.IntRange(0, 60_000),
			"Twice":     gen.Bool(),
			"HealMs":    gen.IntRange(1, 60_000),
		})))
	properties.TestingRun(t)
}
