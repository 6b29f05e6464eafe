package model

// The helpers below let a scenario check its routes before a run, without a broker: the
// checks CREATE ROUTE makes, and the routes RTE-2 and RTE-3 would choose among.

// CheckRoute checks a route's clauses as CREATE ROUTE does: a name, an address that is an
// instance of the catalog, LOCAL or TRANSPORT, a mirror only beside an instance's address,
// no negative lifetime.
func (c *Catalog) CheckRoute(r Route) error { return c.checkRoute(r) }

// RouteCandidates returns the routes a conversation to service (and broker instance,
// empty when unknown) may be given from routes: those of the first step of RTE-2 that
// matches (steps 1, 2, 3 and 5), the best of them by RTE-3, each once, in the order
// balancing takes them. Lifetimes are not counted: every route is live. Nil when no route
// matches (RTE-2 steps 6 and 7 are the caller's).
func RouteCandidates(routes []Route, service, broker string) []Route {
	t := newRouteTable(0, routes)
	var out []Route
	for range routes {
		r, ok := t.match(0, service, broker, 0)
		if !ok || (len(out) > 0 && out[0].Name == r.Name) {
			break
		}
		out = append(out, r)
	}
	return out
}

// TransportInstance returns the instance a TRANSPORT route sends to for a service of that
// name: tcp://INSTANCE:port/rest, or INSTANCE/rest.
func TransportInstance(service string) string { return transportInstance(service) }
