package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/model"
)

// RouteWarning is what a look at the routes before a run finds legal but likely wrong
// (section 9): a workload whose target service no route reaches, so that its dialogs
// would be delayed for ever (RTE-2 step 7) or their messages dropped on the way (RTE-4),
// a forwarding loop on the way (RTE-6), or a target with no route back to the initiator's
// service, which could never acknowledge. Delayed routing is legal, so these are
// warnings, not errors.
type RouteWarning struct {
	Workload int
	// Field is the workload's field the warning is about: To for the way there, From for
	// the way back.
	Field   string
	Message string
}

// maxStaticHops bounds the hops a static walk follows through forwarders: G-27's initial
// hop budget.
const maxStaticHops = 32

// RouteWarnings returns the route warnings of a validated config: for each workload, by
// RTE-2 and RTE-3 over its database's routes (and msdb's at each instance a message
// arrives at, through forwarders, RTE-1, RTE-4), before any timeline change and after each
// route change, whether a route reaches a service of its target's name, and whether each
// target reached has a route back to the initiator's service. Lifetimes are not counted.
func (c *Config) RouteWarnings(cat *model.Catalog) []RouteWarning {
	type workloadReach struct {
		from    model.ServiceID
		broker  string
		targets []model.ServiceID // reached at some point, in the order found
		back    []model.ServiceID // the targets with a way back at some point
		loop    string            // the first forwarding loop on the way there
	}
	reach := make([]workloadReach, len(c.Workloads))
	for i, wl := range c.Workloads {
		from, err := FindService(cat, wl.From)
		if err != nil {
			return nil // not validated
		}
		b, _ := FindBrokerInstance(cat, wl.ToBrokerInstance)
		reach[i] = workloadReach{from: from, broker: cat.BrokerInstance(b)}
	}
	visit := func(t *routeTables) {
		for i := range c.Workloads {
			r := &reach[i]
			fromDB := cat.Services[r.from].Database
			t.loop = ""
			reached := t.reach(cat, fromDB, c.Workloads[i].To, r.broker)
			if r.loop == "" {
				r.loop = t.loop
			}
			for _, s := range reached {
				if !slices.Contains(r.targets, s) {
					r.targets = append(r.targets, s)
				}
			}
			for _, s := range r.targets {
				if slices.Contains(r.back, s) {
					continue
				}
				broker := cat.BrokerInstance(cat.Databases[fromDB].Broker)
				if slices.Contains(t.reach(cat, cat.Services[s].Database, cat.Services[r.from].Name, broker), r.from) {
					r.back = append(r.back, s)
				}
			}
		}
	}
	if err := c.validateRoutes(cat, visit); err != nil {
		return nil // not validated
	}
	var out []RouteWarning
	for i, r := range reach {
		wl := &c.Workloads[i]
		fromDB := cat.Databases[cat.Services[r.from].Database]
		if r.loop != "" {
			out = append(out, RouteWarning{Workload: i, Field: "To", Message: fmt.Sprintf(
				"the msdb routes of forwarders send service %q round a loop, %s: a message on it is dropped once its hops are spent (RTE-6, G-27)",
				wl.To, r.loop)})
		}
		if len(r.targets) == 0 {
			out = append(out, RouteWarning{Workload: i, Field: "To", Message: fmt.Sprintf(
				"no route of %s/%s reaches a service %q (RTE-2, over its routes and the timeline's route changes): its messages would never arrive, but wait in sys.transmission_queue (delayed, or retried for ever)",
				cat.Instances[fromDB.Instance].Name, fromDB.Name, wl.To)})
			continue
		}
		for _, s := range r.targets {
			if slices.Contains(r.back, s) {
				continue
			}
			db := cat.Databases[cat.Services[s].Database]
			out = append(out, RouteWarning{Workload: i, Field: "From", Message: fmt.Sprintf(
				"the target %q of %s/%s has no route back to service %q of %s/%s (RTE-2): it could not acknowledge, and the initiator would retry for ever",
				wl.To, cat.Instances[db.Instance].Name, db.Name, cat.Services[r.from].Name, cat.Instances[fromDB.Instance].Name, fromDB.Name)})
		}
	}
	return out
}

// reach returns the services a conversation of database db to the service called name
// (and broker instance, empty for none) reaches by the tables: the routes RTE-2 and
// RTE-3 may choose, followed to the instance each leads to.
func (t *routeTables) reach(cat *model.Catalog, db model.DatabaseID, name, broker string) []model.ServiceID {
	inst := cat.Databases[db].Instance
	routes := model.RouteCandidates(t.dbs[db], name, broker)
	if len(routes) == 0 { // RTE-2 step 6: a local database with the broker instance
		return staticLocalService(cat, inst, name, broker, db, broker != "")
	}
	var out []model.ServiceID
	for _, r := range routes {
		out = append(out, t.follow(cat, inst, db, r, name, routeBroker(r, broker), nil)...)
	}
	return out
}

// follow returns the services a route of database db of instance inst (Msdb: a message
// that arrived) leads to: LOCAL delivers here (RTE-7), an address (or its mirror) is
// another instance, where the message arrives. forwarders are the instances that passed
// the message on so far: one that would pass it on a second time closes a loop, which
// t.loop records.
func (t *routeTables) follow(cat *model.Catalog, inst model.InstanceID, db model.DatabaseID, r model.Route, name, broker string, forwarders []model.InstanceID) []model.ServiceID {
	var addrs []string
	switch r.Address {
	case model.RouteLocal:
		return staticLocalService(cat, inst, name, broker, db, true)
	case model.RouteTransport:
		addrs = []string{model.TransportInstance(name)}
	default:
		addrs = []string{r.Address}
		if r.MirrorAddress != "" {
			addrs = append(addrs, r.MirrorAddress)
		}
	}
	var out []model.ServiceID
	for _, a := range addrs {
		next, ok := cat.Instance(a)
		switch {
		case !ok:
		case next == inst:
			out = append(out, staticLocalService(cat, inst, name, broker, db, true)...)
		case db == model.Msdb && !cat.Instances[inst].Forwarding.Enabled:
			// RTE-4: an arriving message whose route is not LOCAL is dropped.
		case db == model.Msdb && slices.Contains(forwarders, inst):
			if t.loop == "" {
				cycle := append(slices.Clone(forwarders[slices.Index(forwarders, inst):]), inst)
				names := make([]string, len(cycle))
				for i, c := range cycle {
					names[i] = cat.Instances[c].Name
				}
				t.loop = strings.Join(names, " → ")
			}
		default:
			fw := forwarders
			if db == model.Msdb {
				fw = append(slices.Clone(forwarders), inst)
			}
			out = append(out, t.arrive(cat, next, name, broker, fw)...)
		}
	}
	return out
}

// arrive returns the services a message that arrives at instance inst reaches by msdb's
// routes (RTE-1): LOCAL delivers here, another instance forwards, when forwarding is on
// (RTE-4: otherwise it is dropped), within the hop budget (G-27).
func (t *routeTables) arrive(cat *model.Catalog, inst model.InstanceID, name, broker string, forwarders []model.InstanceID) []model.ServiceID {
	if len(forwarders) >= maxStaticHops {
		return nil
	}
	routes := model.RouteCandidates(t.msdb[inst], name, broker)
	if len(routes) == 0 {
		return staticLocalService(cat, inst, name, broker, model.Msdb, broker != "")
	}
	var out []model.ServiceID
	for _, r := range routes {
		out = append(out, t.follow(cat, inst, model.Msdb, r, name, routeBroker(r, broker), forwarders)...)
	}
	return out
}

// routeBroker is the broker instance a conversation goes on with once route r is chosen:
// a route that names one picks it for a conversation that had none (RTE-2 step 3).
func routeBroker(r model.Route, broker string) string {
	if broker == "" {
		return r.BrokerInstance
	}
	return broker
}

// staticLocalService returns the service called name of instance inst that local
// delivery finds (RTE-7, G-29): in the broker instance's database when one is given,
// otherwise in database from first (Msdb for none), then in the others by ascending id.
// Nothing when ok is false.
func staticLocalService(cat *model.Catalog, inst model.InstanceID, name, broker string, from model.DatabaseID, ok bool) []model.ServiceID {
	if !ok {
		return nil
	}
	in := func(db model.DatabaseID) []model.ServiceID {
		for _, s := range cat.Databases[db].Services {
			if cat.Services[s].Name == name && !cat.Services[s].Hidden {
				return []model.ServiceID{s}
			}
		}
		return nil
	}
	dbs := cat.Instances[inst].Databases
	if broker != "" {
		for _, db := range dbs {
			if cat.BrokerInstance(cat.Databases[db].Broker) == broker {
				return in(db)
			}
		}
		return nil
	}
	if from != model.Msdb && cat.Databases[from].Instance == inst {
		if s := in(from); s != nil {
			return s
		}
	}
	for _, db := range dbs {
		if s := in(db); s != nil {
			return s
		}
	}
	return nil
}
