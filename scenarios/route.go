package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
)

// RouteOp is the statement of a RouteChange.
type RouteOp uint8

const (
	CreateRoute RouteOp = iota
	AlterRoute
	DropRoute
)

func (o RouteOp) String() string {
	switch o {
	case CreateRoute:
		return "CREATE ROUTE"
	case AlterRoute:
		return "ALTER ROUTE"
	case DropRoute:
		return "DROP ROUTE"
	}
	return fmt.Sprintf("RouteOp(%d)", int(o))
}

// RouteChange is CREATE, ALTER or DROP ROUTE Route.Name in the sys.routes of database
// Database of instance Instance, or in the instance's msdb when Database is empty
// (section 9). ALTER ROUTE leaves the clauses it does not name as they are, and so does an
// AlterRoute for the fields Route leaves at zero: as in SQL Server, a route cannot be
// altered to any service, any broker instance or no lifetime, only dropped and created
// again. A LIFETIME it gives counts from the change. DropRoute reads Route.Name only.
// Conversations already routed keep their route; delayed ones find a new one at their next
// try (G-28).
type RouteChange struct {
	Instance, Database string
	Op                 RouteOp
	Route              model.Route
}

// where names the route table of a change, for errors.
func (rc *RouteChange) where() string {
	if rc.Database == "" {
		return rc.Instance + "'s msdb"
	}
	return rc.Instance + "/" + rc.Database
}

// findRouteTable returns the instance and database (model.Msdb for msdb) of a route
// change.
func findRouteTable(cat *model.Catalog, instance, database string) (model.InstanceID, model.DatabaseID, error) {
	inst, ok := cat.Instance(instance)
	if !ok {
		return 0, 0, fmt.Errorf("instance %q does not exist", instance)
	}
	if database == "" {
		return inst, model.Msdb, nil
	}
	for _, db := range cat.Instances[inst].Databases {
		if cat.Databases[db].Name == database {
			return inst, db, nil
		}
	}
	return 0, 0, fmt.Errorf("instance %q has no database %q", instance, database)
}

// alteredRoute is route old after ALTER ROUTE with the clauses of r: those r leaves empty
// stay as they were.
func alteredRoute(old, r model.Route) model.Route {
	r.Name = old.Name
	for _, f := range []struct {
		into *string
		from string
	}{{&r.ServiceName, old.ServiceName},
		{&r.BrokerInstance, old.BrokerInstance}, {&r.Address, old.Address}, {&r.MirrorAddress, old.MirrorAddress}} {
		if *f.into == "" {
			*f.into = f.from
		}
	}
	if r.Lifetime == 0 {
		r.Lifetime = old.Lifetime
	}
	return r
}

// routeTables are every route table of a world, as a run's timeline changes them: msdb's
// by instance, the databases' by DatabaseID.
type routeTables struct {
	msdb, dbs [][]model.Route
	// loop is the first forwarding loop a walk of RouteWarnings found, empty for none.
	loop string
}

func initialRouteTables(cat *model.Catalog) *routeTables {
	t := &routeTables{}
	for _, in := range cat.Instances {
		t.msdb = append(t.msdb, slices.Clone(in.Routes))
	}
	for _, db := range cat.Databases {
		t.dbs = append(t.dbs, slices.Clone(db.Routes))
	}
	return t
}

func (t *routeTables) table(inst model.InstanceID, db model.DatabaseID) *[]model.Route {
	if db == model.Msdb {
		return &t.msdb[inst]
	}
	return &t.dbs[db]
}

// apply makes a route change on the tables, with the checks the broker makes.
func (t *routeTables) apply(cat *model.Catalog, inst model.InstanceID, db model.DatabaseID, rc *RouteChange) error {
	routes := t.table(inst, db)
	i := slices.IndexFunc(*routes, func(r model.Route) bool { return r.Name == rc.Route.Name })
	switch {
	case rc.Route.Name == "":
		return fmt.Errorf("%v in %s: the route has no name", rc.Op, rc.where())
	case rc.Op == CreateRoute && i >= 0:
		return fmt.Errorf("%v %q in %s: the route already exists", rc.Op, rc.Route.Name, rc.where())
	case rc.Op != CreateRoute && i < 0:
		return fmt.Errorf("%v %q in %s: %w", rc.Op, rc.Route.Name, rc.where(), model.ErrRouteNotFound)
	}
	switch rc.Op {
	case CreateRoute:
		if err := cat.CheckRoute(rc.Route); err != nil {
			return fmt.Errorf("%v in %s: %w", rc.Op, rc.where(), err)
		}
		*routes = append(*routes, rc.Route)
	case AlterRoute:
		r := alteredRoute((*routes)[i], rc.Route)
		if err := cat.CheckRoute(r); err != nil {
			return fmt.Errorf("%v in %s: %w", rc.Op, rc.where(), err)
		}
		(*routes)[i] = r
	case DropRoute:
		*routes = slices.Delete(*routes, i, i+1)
	default:
		return fmt.Errorf("route change %v is unknown", rc.Op)
	}
	return nil
}

// routeTimeline returns the indexes of the timeline's route changes in the order a run
// makes them: by time, and in the timeline's order at one time.
func routeTimeline(timeline []Change) []int {
	var order []int
	for i, ch := range timeline {
		if ch.Route != nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(timeline[a].At, timeline[b].At) })
	return order
}

// validateRoutes checks the timeline's route changes, one after another in the order the
// run makes them, against the routes the catalog declares: each names an existing table,
// creates a route that does not exist yet, alters or drops one that does, and leaves a
// route CREATE ROUTE accepts. visit, when not nil, sees the tables at the start and after
// each change.
func (c *Config) validateRoutes(cat *model.Catalog, visit func(*routeTables)) error {
	t := initialRouteTables(cat)
	if visit != nil {
		visit(t)
	}
	for _, i := range routeTimeline(c.Timeline) {
		ch := c.Timeline[i]
		if ch.At < 0 {
			return fmt.Errorf("timeline %d: At %v is negative", i, ch.At)
		}
		inst, db, err := findRouteTable(cat, ch.Route.Instance, ch.Route.Database)
		if err != nil {
			return fmt.Errorf("timeline %d: Route: %v: %w", i, ch.Route.Op, err)
		}
		if err := t.apply(cat, inst, db, ch.Route); err != nil {
			return fmt.Errorf("timeline %d: Route: %w", i, err)
		}
		if visit != nil {
			visit(t)
		}
	}
	return nil
}

// changeRoute makes a timeline's route change on its broker. Validate made the same
// changes in the same order, so the broker accepts it.
func (w *world) changeRoute(i int, rc *RouteChange) {
	inst, db, err := findRouteTable(w.cat, rc.Instance, rc.Database)
	if err == nil {
		w.step(inst, func(b *model.Broker) {
			now := w.now()
			switch rc.Op {
			case CreateRoute:
				err = b.CreateRoute(now, db, rc.Route)
			case AlterRoute:
				err = b.AlterRoute(now, db, rc.Route.Name, w.alterRoute(b.Routes(db), rc.Route))
			case DropRoute:
				err = b.DropRoute(now, db, rc.Route.Name)
			}
		})
	}
	if err != nil {
		panic(fmt.Sprintf("scenarios: timeline %d at t=%v: %v", i, w.now(), err)) // Validate checked it
	}
}

// alterRoute returns the route an ALTER ROUTE with r's clauses leaves, from the route's
// row in rows: a LIFETIME r does not give keeps the route's expiry, which the model's
// AlterRoute would count again from now.
func (w *world) alterRoute(rows []model.RouteRow, r model.Route) model.Route {
	i := slices.IndexFunc(rows, func(x model.RouteRow) bool { return x.Name == r.Name })
	if i < 0 {
		return r // AlterRoute refuses it
	}
	out := alteredRoute(rows[i].Route, r)
	if r.Lifetime == 0 && rows[i].Expires > 0 {
		// An expired route stays expired but for the nanosecond this leaves it.
		out.Lifetime = max(rows[i].Expires-w.now(), 1)
	}
	return out
}

// routesSettle returns when the last timeline change that creates or alters a route comes,
// zero for none: the change that lets delayed conversations go (RTE-2 step 7, G-28) counts
// for the liveness phase as a fault that heals then (Liveness).
func routesSettle(cfg *Config) time.Duration {
	var at time.Duration
	for _, ch := range cfg.Timeline {
		if ch.Route != nil && ch.Route.Op != DropRoute {
			at = max(at, ch.At)
		}
	}
	return at
}
