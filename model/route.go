package model

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"
)

// ServiceName is an interned service name (Catalog.ServiceNames): what BEGIN DIALOG's TO
// SERVICE and a dialog's headers carry, since a name may be a service on several instances.
type ServiceName int32

// BrokerID is a broker instance, the service_broker_guid of a database: Catalog.Brokers
// holds the GUID at BrokerID-1. Zero means none given.
type BrokerID int32

// The addresses a route may have besides an instance's name, and the route every database
// and msdb have unless it is dropped.
const (
	RouteLocal       = "LOCAL"
	RouteTransport   = "TRANSPORT"
	AutoCreatedLocal = "AutoCreatedLocal"
)

// Msdb stands for an instance's msdb database in the route statements: its routes serve
// the messages that arrive from other instances (RTE-1).
const Msdb DatabaseID = -1

// Route is CREATE ROUTE name WITH SERVICE_NAME, BROKER_INSTANCE, LIFETIME, ADDRESS,
// MIRROR_ADDRESS (sys.routes). Address is an instance's name (the sim's network address),
// RouteLocal or RouteTransport.
type Route struct {
	Name string
	// ServiceName is the service the route is for; empty makes a wildcard route, which
	// matches every service (RTE-2 step 5).
	ServiceName string
	// BrokerInstance is the broker instance the route is for; empty for any.
	BrokerInstance string
	// Lifetime is how long the route lives from its CREATE (or the ALTER that set it);
	// zero for ever. An expired route is ignored (RTE-1).
	Lifetime time.Duration
	Address  string
	// MirrorAddress is the mirror partner of a mirrored database at Address.
	MirrorAddress string
}

// Forwarding is the Service Broker endpoint's MESSAGE_FORWARDING and MESSAGE_FORWARD_SIZE.
type Forwarding struct {
	Enabled bool
	// MaxBytes is MESSAGE_FORWARD_SIZE, in bytes; zero means G-27's 10 MiB.
	MaxBytes int64
}

// ErrRouteNotFound is returned by ALTER and DROP ROUTE for an unknown name.
var ErrRouteNotFound = errors.New("the route does not exist")

// TransmissionStatusNoRoute is the transmission_status of a delayed conversation's rows
// (RTE-2 step 7), in the words SQL Server uses when it cannot find the target service.
const TransmissionStatusNoRoute = "The target service name could not be found. Ensure that the service name is specified correctly and/or the routing information has been supplied."

// BrokerGUID returns the GUID a database gets when its definition gives none: made from
// the instance and database names, so that it is the same in every run.
func BrokerGUID(instance, database string) string {
	h := fnv.New128a()
	h.Write([]byte(instance))
	h.Write([]byte{0})
	h.Write([]byte(database))
	s := h.Sum(nil)
	return strings.ToUpper(fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16]))
}

// BrokerInstance returns the GUID of a broker instance, empty for none.
func (c *Catalog) BrokerInstance(id BrokerID) string {
	if id <= 0 || int(id) > len(c.Brokers) {
		return ""
	}
	return c.Brokers[id-1]
}

// brokerOf returns the broker instance of a GUID, zero when no database has it.
func (c *Catalog) brokerOf(guid string) BrokerID {
	id := c.brokerByGUID[guid]
	if int(id) > len(c.Databases) {
		return 0
	}
	return id
}

// compileRoutes gives every database its broker instance and checks every route. When no
// route is declared anywhere, each database gets one to every service of the other
// instances, with its broker instance (ImplicitRoutes).
func (c *Catalog) compileRoutes(instances []Instance) error {
	dbs := c.Databases
	i := 0
	for _, in := range instances {
		for _, db := range in.Databases {
			guid := db.BrokerInstance
			if guid == "" {
				guid = BrokerGUID(in.Name, db.Name)
			}
			if prev, dup := c.brokerByGUID[guid]; dup {
				return fmt.Errorf("instance %q: database %q: broker instance %s is also database %q's", in.Name, db.Name, guid, dbs[prev-1].Name)
			}
			c.Brokers = append(c.Brokers, guid)
			c.brokerByGUID[guid] = BrokerID(len(c.Brokers))
			dbs[i].Broker = BrokerID(len(c.Brokers))
			i++
		}
	}
	explicit := false
	for _, in := range instances {
		explicit = explicit || len(in.Routes) > 0 || in.NoAutoCreatedLocal
		for _, db := range in.Databases {
			explicit = explicit || len(db.Routes) > 0 || db.NoAutoCreatedLocal
		}
	}
	c.ImplicitRoutes = !explicit
	i = 0
	for id, in := range instances {
		where := fmt.Sprintf("instance %q: msdb", in.Name)
		routes, err := c.checkRoutes(where, in.Routes, !in.NoAutoCreatedLocal)
		if err != nil {
			return err
		}
		if f := in.Forwarding; f.MaxBytes < 0 {
			return fmt.Errorf("instance %q: MESSAGE_FORWARD_SIZE %d is negative", in.Name, f.MaxBytes)
		}
		c.Instances[id].Routes, c.Instances[id].Forwarding = routes, in.Forwarding
		for _, db := range in.Databases {
			where := fmt.Sprintf("instance %q: database %q", in.Name, db.Name)
			routes, err := c.checkRoutes(where, db.Routes, !db.NoAutoCreatedLocal)
			if err != nil {
				return err
			}
			if c.ImplicitRoutes {
				routes = append(routes, c.implicitRoutes(InstanceID(id))...)
			}
			dbs[i].Routes = routes
			i++
		}
	}
	return nil
}

// implicitRoutes returns the routes a database of instance gets when none is declared: one
// to each service of the other instances.
func (c *Catalog) implicitRoutes(instance InstanceID) []Route {
	var routes []Route
	for _, s := range c.Services {
		if s.Instance == instance {
			continue
		}
		routes = append(routes, Route{Name: fmt.Sprintf("[sbsim] %s at %s/%s", s.Name, c.Instances[s.Instance].Name, c.Databases[s.Database].Name),
			ServiceName: s.Name, BrokerInstance: c.BrokerInstance(c.Databases[s.Database].Broker), Address: c.Instances[s.Instance].Name})
	}
	return routes
}

// checkRoutes checks one database's (or msdb's) routes and returns them, AutoCreatedLocal
// first when auto is set.
func (c *Catalog) checkRoutes(where string, declared []Route, auto bool) ([]Route, error) {
	var routes []Route
	if auto {
		routes = append(routes, Route{Name: AutoCreatedLocal, Address: RouteLocal})
	}
	for _, r := range declared {
		if err := c.checkRoute(r); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if slices.ContainsFunc(routes, func(x Route) bool { return x.Name == r.Name }) {
			return nil, fmt.Errorf("%s: route %q is defined twice", where, r.Name)
		}
		c.noteRoute(r)
		routes = append(routes, r)
	}
	return routes, nil
}

// noteRoute interns what a route names, so that headers can carry it.
func (c *Catalog) noteRoute(r Route) {
	if r.ServiceName != "" {
		c.internServiceName(r.ServiceName)
	}
	if g := r.BrokerInstance; g != "" {
		if _, ok := c.brokerByGUID[g]; !ok {
			c.Brokers = append(c.Brokers, g)
			c.brokerByGUID[g] = BrokerID(len(c.Brokers))
		}
	}
}

// checkRoute checks a route's clauses: a name, an address that is an instance, LOCAL or
// TRANSPORT, a mirror only beside an instance's address, no negative lifetime.
func (c *Catalog) checkRoute(r Route) error {
	where := fmt.Sprintf("route %q", r.Name)
	switch {
	case r.Name == "":
		return errors.New("a route has no name")
	case r.Address == "":
		return fmt.Errorf("%s: ADDRESS is missing", where)
	case r.Lifetime < 0:
		return fmt.Errorf("%s: LIFETIME %v is negative", where, r.Lifetime)
	}
	if r.Address != RouteLocal && r.Address != RouteTransport {
		if _, ok := c.instanceByName[r.Address]; !ok {
			return fmt.Errorf("%s: ADDRESS %q is not an instance, 'LOCAL' or 'TRANSPORT'", where, r.Address)
		}
	}
	if r.MirrorAddress != "" {
		if r.Address == RouteLocal || r.Address == RouteTransport {
			return fmt.Errorf("%s: MIRROR_ADDRESS needs an instance's ADDRESS, not %s", where, r.Address)
		}
		if _, ok := c.instanceByName[r.MirrorAddress]; !ok {
			return fmt.Errorf("%s: MIRROR_ADDRESS %q is not an instance", where, r.MirrorAddress)
		}
		if r.MirrorAddress == r.Address {
			return fmt.Errorf("%s: MIRROR_ADDRESS is the ADDRESS", where)
		}
	}
	return nil
}

// routeEntry is a route as a broker keeps it: the statement, and when it expires.
type routeEntry struct {
	Route
	expires time.Duration // zero for never
}

func (r *routeEntry) live(now time.Duration) bool { return r.expires == 0 || now < r.expires }

// routeClass orders the kinds of match for RTE-3: a mirrored address first, then LOCAL, then
// an address, then TRANSPORT.
func (r *routeEntry) class() int {
	switch {
	case r.MirrorAddress != "":
		return 0
	case r.Address == RouteLocal:
		return 1
	case r.Address == RouteTransport:
		return 3
	}
	return 2
}

// routeTable is one database's sys.routes, or msdb's.
type routeTable struct {
	list []routeEntry
	// turn spreads dialogs over equally good routes (RTE-3: several routes for one
	// service balance the dialogs over their addresses), in the order dialogs ask.
	turn uint32
}

func newRouteTable(now time.Duration, routes []Route) routeTable {
	var t routeTable
	for _, r := range routes {
		t.list = append(t.list, entry(now, r))
	}
	return t
}

func entry(now time.Duration, r Route) routeEntry {
	e := routeEntry{Route: r}
	if r.Lifetime > 0 {
		e.expires = now + r.Lifetime
	}
	return e
}

// match returns the route for service (and broker instance, empty when unknown): the
// routes of the first step of RTE-2 with live matches, steps 1, 2, 3 and 5, and among them
// the best by RTE-3, in turn when several are as good. Step 4 (a dynamic routing service)
// is not modelled; step 6 (a local database with the broker instance) and step 7 (the
// conversation waits) are the caller's. ok is false when no route matches. A non-zero key
// chooses among equally good routes instead of the turn, so that every fragment of one
// dialog takes the same one at a forwarder.
func (t *routeTable) match(now time.Duration, service, broker string, key uint64) (Route, bool) {
	var buf [16]int
	found := buf[:0]
	for step := 1; step <= 5 && len(found) == 0; step++ {
		switch {
		case step == 1 && broker == "", step == 3 && broker != "", step == 4: // 4: no dynamic routing service
			continue
		case step == 3:
			found = t.firstBroker(now, service, found)
			continue
		}
		for i := range t.list {
			r := &t.list[i]
			if !r.live(now) {
				continue
			}
			var keep bool
			switch step {
			case 1:
				keep = r.ServiceName == service && r.BrokerInstance == broker
			case 2:
				keep = r.ServiceName == service && r.BrokerInstance == ""
			case 5:
				keep = r.ServiceName == "" && (r.BrokerInstance == "" || r.BrokerInstance == broker)
			}
			if keep {
				found = append(found, i)
			}
		}
	}
	if len(found) == 0 {
		return Route{}, false
	}
	best := 4
	for _, i := range found {
		best = min(best, t.list[i].class())
	}
	n := 0
	for _, i := range found {
		if t.list[i].class() == best {
			found[n] = i
			n++
		}
	}
	found = found[:n]
	i := found[0]
	switch {
	case len(found) > 1 && key != 0:
		i = found[int(mix(key)%uint64(len(found)))]
	case len(found) > 1:
		i = found[int(t.turn)%len(found)]
		t.turn++
	}
	return t.list[i].Route, true
}

// mix spreads a key's bits (splitmix64's finalizer), so that keys that differ only in
// their high bits spread over the routes too.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// firstBroker is RTE-2's step 3: without the conversation's broker instance, the routes for
// the service that name one; the broker instance of the first of them is picked, and the
// routes for it kept.
func (t *routeTable) firstBroker(now time.Duration, service string, found []int) []int {
	chosen := ""
	for i := range t.list {
		r := &t.list[i]
		if !r.live(now) || r.ServiceName != service || r.BrokerInstance == "" {
			continue
		}
		if chosen == "" {
			chosen = r.BrokerInstance
		}
		if r.BrokerInstance == chosen {
			found = append(found, i)
		}
	}
	return found
}

func (t *routeTable) find(name string) int {
	return slices.IndexFunc(t.list, func(r routeEntry) bool { return r.Name == name })
}

// routes returns the route table of a local database, or msdb's.
func (b *Broker) routes(db DatabaseID) (*routeTable, error) {
	if db == Msdb {
		return &b.msdb, nil
	}
	d, err := b.localDatabase(db)
	if err != nil {
		return nil, err
	}
	return &d.routes, nil
}

// CreateRoute is CREATE ROUTE in a local database, or in msdb (Msdb). Conversations
// already routed keep their route; delayed ones find it when they next try (G-28).
func (b *Broker) CreateRoute(now time.Duration, db DatabaseID, r Route) error {
	b.checkUp("CREATE ROUTE", now)
	t, err := b.routes(db)
	if err != nil {
		return err
	}
	if err := b.cat.checkRoute(r); err != nil {
		return fmt.Errorf("CREATE ROUTE: %w", err)
	}
	if t.find(r.Name) >= 0 {
		return fmt.Errorf("CREATE ROUTE: route %q already exists", r.Name)
	}
	t.list = append(t.list, entry(now, r))
	return nil
}

// AlterRoute is ALTER ROUTE name WITH ...: it replaces the route's clauses with r's (r.Name
// is ignored); a new LIFETIME counts from now.
func (b *Broker) AlterRoute(now time.Duration, db DatabaseID, name string, r Route) error {
	b.checkUp("ALTER ROUTE", now)
	t, err := b.routes(db)
	if err != nil {
		return err
	}
	i := t.find(name)
	if i < 0 {
		return fmt.Errorf("ALTER ROUTE %q: %w", name, ErrRouteNotFound)
	}
	r.Name = name
	if err := b.cat.checkRoute(r); err != nil {
		return fmt.Errorf("ALTER ROUTE: %w", err)
	}
	t.list[i] = entry(now, r)
	return nil
}

// DropRoute is DROP ROUTE name.
func (b *Broker) DropRoute(now time.Duration, db DatabaseID, name string) error {
	b.checkUp("DROP ROUTE", now)
	t, err := b.routes(db)
	if err != nil {
		return err
	}
	i := t.find(name)
	if i < 0 {
		return fmt.Errorf("DROP ROUTE %q: %w", name, ErrRouteNotFound)
	}
	t.list = slices.Delete(t.list, i, i+1)
	return nil
}

// RouteRow is a row of sys.routes: a route and when it expires (zero for never).
type RouteRow struct {
	Route
	Expires time.Duration
}

// Routes returns a local database's routes, or msdb's, in creation order (sys.routes).
func (b *Broker) Routes(db DatabaseID) []RouteRow {
	t, err := b.routes(db)
	if err != nil {
		return nil
	}
	rows := make([]RouteRow, len(t.list))
	for i, r := range t.list {
		rows[i] = RouteRow{r.Route, r.expires}
	}
	return rows
}

// hop is where routing sends a dialog's messages: to a service of this instance (local),
// or to the next instance on the way.
type hop struct {
	local    bool
	service  ServiceID // the local target, when local
	instance InstanceID
	// mirror is the MIRROR_ADDRESS of the route taken, or instance when it has none.
	mirror InstanceID
}

// routeTo finds where a conversation of database db sends to service (broker, zero when
// unknown): the database's routes by RTE-2 and RTE-3, then RTE-2 step 6; a LOCAL route
// delivers by RTE-7. ok is false when the conversation must wait (RTE-2 step 7).
func (b *Broker) routeTo(now time.Duration, db DatabaseID, service ServiceName, broker BrokerID) (hop, bool) {
	name := b.cat.ServiceNames[service]
	guid := b.cat.BrokerInstance(broker)
	r, ok := b.dbs[db].routes.match(now, name, guid, 0)
	if !ok {
		// Step 6: the broker instance is a database of this instance with the service.
		if s, found := b.localService(name, broker, db); found && broker != 0 {
			return hop{local: true, service: s, instance: b.id}, true
		}
		return hop{}, false
	}
	return b.hopFor(r, name, broker, db)
}

// hopFor turns the chosen route into a hop: to a service of this instance (RTE-7), or to
// the next instance (addressOf).
func (b *Broker) hopFor(r Route, name string, broker BrokerID, db DatabaseID) (hop, bool) {
	to, mirror, ok := b.addressOf(r, name)
	switch {
	case !ok:
		return hop{}, false
	case to == b.id:
		s, ok := b.localService(name, broker, db)
		return hop{local: true, service: s, instance: b.id}, ok
	}
	return hop{instance: to, mirror: mirror}, true
}

// addressOf returns the instance a route for service leads to: this one for LOCAL, the one
// a TRANSPORT route reads out of the service's name (tcp://INSTANCE:port/...), or its
// ADDRESS; a mirrored route leads to its MIRROR_ADDRESS once the principal has failed over
// there (PrincipalMoved). mirror is the route's MIRROR_ADDRESS, to when it has none. ok is
// false when the address is no instance.
func (b *Broker) addressOf(r Route, service string) (to, mirror InstanceID, ok bool) {
	addr := r.Address
	switch addr {
	case RouteLocal:
		return b.id, b.id, true
	case RouteTransport:
		addr = transportInstance(service)
	}
	if to, ok = b.cat.Instance(addr); !ok {
		return 0, 0, false
	}
	mirror = to
	if m, mirrored := b.cat.Instance(r.MirrorAddress); mirrored {
		mirror = m
		if b.principalAt(to) == m {
			to = m
		}
	}
	return to, mirror, true
}

// principalAt returns where the databases that were at address answer now: there, or the
// mirror they failed over to.
func (b *Broker) principalAt(address InstanceID) InstanceID {
	if b.moved != nil {
		if to, ok := b.moved[address]; ok {
			return to
		}
	}
	return address
}

// PrincipalMoved tells the broker that the mirrored databases at address from failed over
// to their mirror at to (database mirroring: the mirror holds every committed change of its
// principal and takes over its broker instance). Dialogs routed to from by a route whose
// MIRROR_ADDRESS is to go there from now on, and so do the dialogs routed later (RTE-3); a
// dialog whose route names no mirror keeps sending to from, where nothing answers any more.
func (b *Broker) PrincipalMoved(now time.Duration, from, to InstanceID) {
	b.now = now
	if b.moved == nil {
		b.moved = map[InstanceID]InstanceID{}
	}
	b.moved[from] = to
	for ep := range b.endpoints.all { // in handle order
		if ep.deleted || !ep.routed || ep.local || ep.farInstance != from || ep.mirror != to {
			continue
		}
		if ep.scheduled {
			b.sched[from].remove(ep)
		}
		ep.farInstance = to
		b.marks[MarkFailedOverToMirror]++
		b.trace(TraceRecord{At: now, Kind: TraceRouted, Peer: to, Conversation: ep.conv, FromInitiator: ep.isInitiator})
		b.makeReady(ep)
		if ep.in != nil && ep.in.ackOwed && !ep.in.ackListed {
			b.owe(now, ep)
		}
	}
	b.pump(now)
}

// transportInstance reads the instance out of a service name used as a TRANSPORT address:
// tcp://INSTANCE:port/rest, or INSTANCE/rest.
func transportInstance(service string) string {
	s := strings.TrimPrefix(strings.ToLower(service), "tcp://")
	s = service[len(service)-len(s):]
	if i := strings.IndexAny(s, ":/"); i >= 0 {
		s = s[:i]
	}
	return s
}

// localService finds the service called name on this instance (RTE-7, G-29): in the
// broker instance's database when one is given; otherwise in the conversation's database
// (from, or Msdb for none), then in the other databases by ascending id.
func (b *Broker) localService(name string, broker BrokerID, from DatabaseID) (ServiceID, bool) {
	inDB := func(db DatabaseID) (ServiceID, bool) {
		for _, s := range b.cat.Databases[db].Services {
			if b.cat.Services[s].Name == name {
				return s, true
			}
		}
		return -1, false
	}
	if broker != 0 {
		db := DatabaseID(broker - 1)
		if int(db) >= len(b.cat.Databases) || b.cat.Databases[db].Instance != b.id {
			return -1, false
		}
		return inDB(db)
	}
	if from != Msdb {
		if s, ok := inDB(from); ok {
			return s, true
		}
	}
	for _, db := range b.cat.Instances[b.id].Databases {
		if db != from {
			if s, ok := inDB(db); ok {
				return s, true
			}
		}
	}
	return -1, false
}
