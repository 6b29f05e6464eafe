package file

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// guidPattern is a broker instance GUID as service_broker_guid shows it.
var guidPattern = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)

// brokerInstance decodes a broker instance: a GUID, written in upper case as
// sys.databases shows it, or, when selector is set, instance/database for that database's.
func (m *mapping) brokerInstance(key string, out *string, selector bool) bool {
	var s string
	if !m.str(key, &s) {
		return false
	}
	switch {
	case guidPattern.MatchString(s):
		*out = strings.ToUpper(s)
	case selector && strings.Count(s, "/") == 1 && !strings.HasPrefix(s, "/") && !strings.HasSuffix(s, "/"):
		*out = s
	default:
		want := "a GUID (service_broker_guid)"
		if selector {
			want = "a GUID (service_broker_guid) or instance/database"
		}
		m.d.errorf(m.d.at(join(m.path, key)), join(m.path, key), "want %s, got %q", want, s)
		return false
	}
	return true
}

// routeAddresses are the addresses a route may have besides an instance's name, in any case.
var routeAddresses = []string{model.RouteLocal, model.RouteTransport}

// routeClauses decodes the clauses of CREATE ROUTE (section 9) into r, registering the
// route and its addresses with obj for the catalog's errors when obj is not nil. An
// ALTER ROUTE needs no address.
func (d *decoder) routeClauses(m *mapping, r *model.Route, obj *objectPos, needAddress bool) {
	m.str("service_name", &r.ServiceName)
	m.brokerInstance("broker_instance", &r.BrokerInstance, true)
	m.duration("lifetime", &r.Lifetime)
	for _, a := range []struct {
		key, sql string
		out      *string
	}{{"address", "ADDRESS", &r.Address}, {"mirror_address", "MIRROR_ADDRESS", &r.MirrorAddress}} {
		var ok bool
		if a.key == "address" && needAddress {
			ok = m.name(a.key, a.out)
		} else {
			ok = m.str(a.key, a.out)
		}
		if !ok {
			continue
		}
		for _, kw := range routeAddresses {
			if strings.EqualFold(*a.out, kw) {
				*a.out = kw
			}
		}
		if obj != nil {
			obj.add(a.sql, *a.out, d.at(join(m.path, a.key)), join(m.path, a.key))
		}
	}
}

// routes decodes a list of CREATE ROUTE statements: a database's sys.routes, or msdb's.
func (d *decoder) routes(m *mapping, key string, owner *objectPos) []model.Route {
	var out []model.Route
	m.list(key, "routes", func(_ int, n *yaml.Node, path string) {
		rm := d.mapping(n, path, "route")
		var r model.Route
		rm.name("name", &r.Name)
		d.routeClauses(rm, &r, owner.add("route", r.Name, n, path), true)
		rm.done()
		out = append(out, r)
	})
	return out
}

// autoCreatedLocal decodes auto_created_local: false drops the AutoCreatedLocal route.
func (m *mapping) autoCreatedLocal(dropped *bool) {
	keep := true
	m.onOff("auto_created_local", &keep)
	*dropped = !keep
}

// instanceRouting decodes an instance's msdb routes, its msdb's AutoCreatedLocal and its
// endpoint's message forwarding (RTE-1, RTE-4, RTE-5, G-27).
func (d *decoder) instanceRouting(m *mapping, in *model.Instance, obj *objectPos) {
	in.Routes = d.routes(m, "msdb_routes", obj)
	m.autoCreatedLocal(&in.NoAutoCreatedLocal)
	if v := m.get("forwarding"); v != nil {
		fm := d.mapping(v, join(m.path, "forwarding"), "forwarding")
		fm.onOff("enabled", &in.Forwarding.Enabled)
		fm.size("max_size", &in.Forwarding.MaxBytes)
		fm.done()
	}
}

// databaseRouting decodes a database's broker instance, its routes and its
// AutoCreatedLocal (RTE-1).
func (d *decoder) databaseRouting(m *mapping, db *model.Database, obj *objectPos) {
	m.brokerInstance("broker_instance", &db.BrokerInstance, false)
	db.Routes = d.routes(m, "routes", obj)
	m.autoCreatedLocal(&db.NoAutoCreatedLocal)
}

// routeChangeKeys are the keys of a timeline's route changes.
var routeChangeKeys = []struct {
	key string
	op  scenarios.RouteOp
}{{"create_route", scenarios.CreateRoute}, {"alter_route", scenarios.AlterRoute}, {"drop_route", scenarios.DropRoute}}

// routeChange decodes a timeline change that creates, alters or drops a route, in a
// database (database: instance/database) or an instance's msdb (msdb: instance); nil when
// the change is none of them.
func (d *decoder) routeChange(m *mapping, path string) *scenarios.RouteChange {
	var rc *scenarios.RouteChange
	for _, k := range routeChangeKeys {
		v := m.get(k.key)
		if v == nil {
			continue
		}
		kpath := join(path, k.key)
		if rc != nil {
			d.errorf(m.keyNode(k.key), kpath, "one change creates, alters or drops one route")
			continue
		}
		rc = &scenarios.RouteChange{Op: k.op}
		rm := d.mapping(v, kpath, strings.ReplaceAll(k.key, "_", " "))
		rm.name("name", &rc.Route.Name)
		var sel string
		switch {
		case rm.has("database") && rm.has("msdb"):
			d.errorf(rm.keyNode("msdb"), join(kpath, "msdb"), "a route is in a database or in msdb, not both")
		case rm.has("msdb"):
			rm.name("msdb", &rc.Instance)
		case rm.name("database", &sel):
			inst, db, ok := strings.Cut(sel, "/")
			if !ok || inst == "" || db == "" || strings.Contains(db, "/") {
				d.errorf(d.at(join(kpath, "database")), join(kpath, "database"), "want instance/database, got %q", sel)
			}
			rc.Instance, rc.Database = inst, db
		}
		if k.op != scenarios.DropRoute {
			d.routeClauses(rm, &rc.Route, nil, k.op == scenarios.CreateRoute)
		}
		rm.done()
	}
	if rc != nil {
		for _, k := range []string{"link", "alter_queue", "status", "activation"} {
			if m.has(k) {
				d.errorf(m.keyNode(k), join(path, k), "a change alters a route, a link or a queue, one of them")
			}
		}
	}
	return rc
}

// resolveBrokerInstances turns each route's broker_instance written instance/database into
// that database's GUID: the one it declares, or the one sbsim makes (model.BrokerGUID).
func (d *decoder) resolveBrokerInstances(cfg *scenarios.Config) {
	resolve := func(r *model.Route, path string) {
		sel := r.BrokerInstance
		inst, db, ok := strings.Cut(sel, "/")
		if !ok {
			return
		}
		for _, in := range cfg.Instances {
			for _, x := range in.Databases {
				if in.Name == inst && x.Name == db {
					r.BrokerInstance = orDefault(x.BrokerInstance, model.BrokerGUID(in.Name, x.Name))
					return
				}
			}
		}
		p := join(path, "broker_instance")
		d.errorf(d.at(p), p, "broker instance %q: no database %q on an instance %q", sel, db, inst)
	}
	for i := range cfg.Instances {
		in := &cfg.Instances[i]
		ipath := index("instances", i)
		for k := range in.Routes {
			resolve(&in.Routes[k], index(join(ipath, "msdb_routes"), k))
		}
		for j := range in.Databases {
			db := &in.Databases[j]
			for k := range db.Routes {
				resolve(&db.Routes[k], index(join(index(join(ipath, "databases"), j), "routes"), k))
			}
		}
	}
	for i, c := range cfg.Timeline {
		if rc := c.Route; rc != nil {
			for _, k := range routeChangeKeys {
				if k.op == rc.Op {
					resolve(&rc.Route, join(index("timeline", i), k.key))
				}
			}
		}
	}
}

// checkRouteChange checks that a timeline's route change names a table that exists.
func (d *decoder) checkRouteChange(cat *model.Catalog, i int, rc *scenarios.RouteChange) {
	var key string
	for _, k := range routeChangeKeys {
		if k.op == rc.Op {
			key = join(index("timeline", i), k.key)
		}
	}
	inst, ok := cat.Instance(rc.Instance)
	sel := join(key, "database")
	if rc.Database == "" {
		sel = join(key, "msdb")
	}
	switch {
	case !ok:
		d.errorf(d.at(sel), sel, "instance %q does not exist", rc.Instance)
	case rc.Database != "" && !databaseOn(cat, inst, rc.Database):
		d.errorf(d.at(sel), sel, "instance %q has no database %q", rc.Instance, rc.Database)
	}
}

func databaseOn(cat *model.Catalog, inst model.InstanceID, name string) bool {
	for _, db := range cat.Instances[inst].Databases {
		if cat.Databases[db].Name == name {
			return true
		}
	}
	return false
}

// routeWarnings are the warnings of scenarios.Config.RouteWarnings, each at its workload's
// key.
func (d *decoder) routeWarnings(cfg *scenarios.Config, cat *model.Catalog) []*Error {
	var out []*Error
	for _, w := range cfg.RouteWarnings(cat) {
		path, id, fix := routeDiagnostic(w)
		e := &Error{File: d.file, Path: path, Message: w.Message, Warning: true, ID: id, Fix: fix}
		if n := d.at(path); n != nil {
			e.Line, e.Column = n.Line, n.Column
		}
		out = append(out, e)
	}
	return out
}

// routeDiagnostic returns the path, the lint ID (docs/lint.md) and the fix of a route
// warning: a forwarding loop (SB106), a target no route reaches (SB105), a target with no
// route back (SB112).
func routeDiagnostic(w scenarios.RouteWarning) (path, id, fix string) {
	path = join(index("workloads", w.Workload), fieldKeys[w.Field])
	switch {
	case w.Field == "From":
		return path, LintNoRouteBack, "give the target's database a route to the initiator's service (each side routes its own messages)"
	case strings.Contains(w.Message, "round a loop"):
		return path, LintForwardingLoop, "make the forwarders' msdb routes for the service lead on to its instance, never back to a forwarder already passed"
	}
	return path, LintUnreachedService, "add a route for the service to the initiator's database (and to the msdb of each forwarder on the way), or a TRANSPORT or wildcard route that reaches it"
}

// routeChangePath returns the path of what a Config.Validate error about a timeline's
// route change names: its address or mirror address, or the change.
func (d *decoder) routeChangePath(entry, msg string) string {
	for _, k := range routeChangeKeys {
		key := join(entry, k.key)
		if d.pos[key] == nil {
			continue
		}
		switch {
		case strings.Contains(msg, "MIRROR_ADDRESS"):
			return join(key, "mirror_address")
		case strings.Contains(msg, "ADDRESS"):
			return join(key, "address")
		}
		return key
	}
	return entry
}

// routeClausesNode writes a route's clauses into m, as routeClauses reads them.
func routeClausesNode(m node, r model.Route) {
	m.str("service_name", r.ServiceName)
	m.str("broker_instance", r.BrokerInstance)
	m.duration("lifetime", r.Lifetime)
	m.str("address", r.Address)
	m.str("mirror_address", r.MirrorAddress)
}

// routesNode writes a list of routes, one flow mapping each.
func routesNode(routes []model.Route) node {
	l := newList(false)
	for _, r := range routes {
		m := newMap(true)
		m.set("name", strValue(r.Name))
		routeClausesNode(m, r)
		l.add(m.Node)
	}
	return l
}

// instanceRoutingNode writes an instance's msdb routes, AutoCreatedLocal and forwarding.
func instanceRoutingNode(m node, in *model.Instance) {
	m.setList("msdb_routes", routesNode(in.Routes))
	if in.NoAutoCreatedLocal {
		m.set("auto_created_local", plain("false"))
	}
	if f := in.Forwarding; f != (model.Forwarding{}) {
		fm := newMap(true)
		fm.set("enabled", plain(strconv.FormatBool(f.Enabled)))
		fm.integer("max_size", f.MaxBytes)
		m.set("forwarding", fm.Node)
	}
}

// databaseRoutingNode writes a database's broker instance, routes and AutoCreatedLocal.
func databaseRoutingNode(m node, db *model.Database) {
	m.str("broker_instance", db.BrokerInstance)
	m.setList("routes", routesNode(db.Routes))
	if db.NoAutoCreatedLocal {
		m.set("auto_created_local", plain("false"))
	}
}

// routeChangeNode writes a timeline's route change into the change's mapping cm.
func routeChangeNode(cm node, rc *scenarios.RouteChange) {
	m := newMap(true)
	if rc.Database == "" {
		m.set("msdb", strValue(rc.Instance))
	} else {
		m.set("database", strValue(rc.Instance+"/"+rc.Database))
	}
	m.set("name", strValue(rc.Route.Name))
	routeClausesNode(m, rc.Route)
	for _, k := range routeChangeKeys {
		if k.op == rc.Op {
			cm.set(k.key, m.Node)
		}
	}
}
