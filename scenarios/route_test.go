package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// routedTwoInstances is twoInstances with explicit routing: B's Stock has its route back
// to Initiator at A, and A's Orders has no route to Target until the timeline creates it
// at routeAt (never when zero).
func routedTwoInstances(routeAt time.Duration, wl Workload) Config {
	cfg := twoInstances(faulty.PairConfig{AToB: faulty.Config{LatencyFixed: 20 * time.Millisecond},
		BToA: faulty.Config{LatencyFixed: 20 * time.Millisecond}}, wl)
	cfg.Instances[1].Databases[0].Routes = []model.Route{{Name: "back", ServiceName: "Initiator", Address: "A"}}
	if routeAt > 0 {
		cfg.Timeline = []Change{{At: routeAt, Route: &RouteChange{Instance: "A", Database: "Orders", Op: CreateRoute,
			Route: model.Route{Name: "to B", ServiceName: "Target", Address: "B"}}}}
	}
	return cfg
}

func routeRow(t *testing.T, rows []model.RouteRow, name string) model.RouteRow {
	t.Helper()
	for _, r := range rows {
		if r.Name == name {
			return r
		}
	}
	require.Failf(t, "no route", "route %q not in %+v", name, rows)
	return model.RouteRow{}
}

// RTE-1, G-28: a dialog begun while its database has no route to the target is delayed,
// not failed; its messages wait in sys.transmission_queue with the status SQL Server gives,
// and once the timeline creates the route they leave, all delivered once.
func TestG28_DialogsWaitForARouteTheTimelineCreatesThenDeliver(t *testing.T) {
	wl := Workload{Name: "orders", Dialogs: 10, Interarrival: sim.ExponentialMean(time.Second), Messages: 3, Size: FixedSize(1000)}

	cut := routedTwoInstances(30*time.Second, wl)
	cut.MaxTime, cut.Liveness.Off = 25*time.Second, true
	res, err := Run(cut, 1)
	require.NoError(t, err)
	a := res.Instances[0]
	require.NotEmpty(t, a.TransmissionQueue, "before the route, the messages wait")
	for _, g := range a.TransmissionQueue {
		assert.Equal(t, TransmissionQueueGroup{Database: "Orders", ToService: "Target",
			TransmissionStatus: model.TransmissionStatusNoRoute, Rows: g.Rows}, g)
	}
	assert.Positive(t, a.DelayedConversations)
	assert.Equal(t, int64(a.DelayedConversations), a.ConversationsDelayed)

	res, err = Run(routedTwoInstances(30*time.Second, wl), 1)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Equal(t, sim.Drained, res.StopReason)
	assert.Equal(t, int64(30), res.Latency.Count, "every message once")
	assert.GreaterOrEqual(t, res.Latency.Max, 20*time.Second, "the first waited for the route")
	assert.Less(t, res.Latency.Max, 30*time.Second+model.Config{}.WithDefaults().RouteRetryInterval+time.Second, "found at the next try after it (G-28)")
	assert.Equal(t, 30*time.Second, res.Liveness.HealAt, "the route counts as a healing")
	for _, in := range res.Instances {
		assert.Zero(t, in.TransmissionQueueRows, in.Name)
		assert.Empty(t, in.TransmissionQueue, in.Name)
		assert.Zero(t, in.DelayedConversations, in.Name)
	}
	assert.Positive(t, res.Instances[0].ConversationsDelayed)
	assert.Zero(t, res.Instances[1].ConversationsDelayed, "the way back was there")
	assert.Equal(t, "to B", routeRow(t, res.Instances[0].Databases[0].Routes, "to B").Name)
}

// INV-12 and RTE-2 step 7: a route the timeline creates later than the default liveness
// bound after the last SEND is the healing of the dialogs it lets go: none is late before.
// Without it counted, the liveness check fails this healthy world.
func TestINV12_ARouteCreatedLateCountsAsAHealing(t *testing.T) {
	wl := Workload{Name: "orders", Dialogs: 5, Interarrival: sim.Fixed(time.Second), Messages: 2, Size: FixedSize(100)}
	cfg := routedTwoInstances(10*time.Minute, wl)
	require.Greater(t, 10*time.Minute, DefaultLivenessWithin(&cfg)+10*time.Second, "the route comes after the bound")

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	assert.Nil(t, res.Violation)
	assert.Equal(t, 10*time.Minute, res.Liveness.HealAt)
	assert.Equal(t, int64(10), res.Latency.Count)

	cfg.Liveness.After = time.Minute // the faults heal earlier: the route still counts
	res, err = Run(cfg, 1)
	require.NoError(t, err)
	assert.Nil(t, res.Violation)
	assert.Equal(t, 10*time.Minute, res.Liveness.HealAt)

	cfg.Timeline[0].Route.Op, cfg.Timeline = DropRoute, nil // no route ever: it never drains
	cfg.MaxTime = time.Hour
	res, err = Run(cfg, 1)
	require.NoError(t, err)
	require.NotNil(t, res.Violation, "a dialog left delayed for ever is a liveness failure")
	assert.Contains(t, res.Violation.Message, model.TransmissionStatusNoRoute)
}

// RTE-1: the timeline's CREATE, ALTER and DROP ROUTE reach the broker's sys.routes. ALTER
// changes only the clauses it gives and, without a LIFETIME, keeps the route's expiry.
func TestRTE1_TimelineCreatesAltersAndDropsRoutes(t *testing.T) {
	cfg := routedTwoInstances(0, Workload{Name: "none"})
	cfg.Instances[0].Databases[0].Routes = []model.Route{{Name: "old", ServiceName: "Gone", Address: "B"}}
	change := func(at time.Duration, db string, op RouteOp, r model.Route) Change {
		return Change{At: at, Route: &RouteChange{Instance: "A", Database: db, Op: op, Route: r}}
	}
	cfg.Timeline = []Change{
		change(time.Second, "Orders", CreateRoute, model.Route{Name: "r", ServiceName: "Target", Address: "A", Lifetime: time.Hour}),
		change(2*time.Second, "Orders", AlterRoute, model.Route{Name: "r", Address: "B"}),
		change(3*time.Second, "Orders", DropRoute, model.Route{Name: "old"}),
		change(4*time.Second, "", CreateRoute, model.Route{Name: "m", BrokerInstance: model.BrokerGUID("B", "Stock"), Address: "B", MirrorAddress: "A"}),
		change(5*time.Second, "", AlterRoute, model.Route{Name: "m", Lifetime: time.Minute}),
	}
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	a := res.Instances[0]
	r := routeRow(t, a.Databases[0].Routes, "r")
	assert.Equal(t, model.Route{Name: "r", ServiceName: "Target", Address: "B", Lifetime: time.Hour - time.Second}, r.Route)
	assert.Equal(t, time.Hour+time.Second, r.Expires, "the expiry of its CREATE")
	assert.Len(t, a.Databases[0].Routes, 2, "AutoCreatedLocal and r: old was dropped")
	m := routeRow(t, a.Routes, "m")
	assert.Equal(t, model.Route{Name: "m", BrokerInstance: model.BrokerGUID("B", "Stock"), Address: "B", MirrorAddress: "A", Lifetime: time.Minute}, m.Route)
	assert.Equal(t, 5*time.Second+time.Minute, m.Expires, "a new LIFETIME counts from the ALTER")
	assert.Equal(t, model.BrokerGUID("A", "Orders"), a.Databases[0].BrokerInstance)
}

// Validate makes the timeline's route changes in the order the run makes them, with the
// checks of CREATE, ALTER and DROP ROUTE (RTE-1).
func TestRTE1_ValidateChecksRouteChangesInTheirOrder(t *testing.T) {
	create := func(at time.Duration, inst, db string, r model.Route) Change {
		return Change{At: at, Route: &RouteChange{Instance: inst, Database: db, Op: CreateRoute, Route: r}}
	}
	to := model.Route{Name: "r", ServiceName: "Target", Address: "B"}
	for _, tt := range []struct {
		name     string
		timeline []Change
		want     string
	}{
		{"an unknown instance", []Change{create(0, "Z", "Orders", to)}, `timeline 0: Route: CREATE ROUTE: instance "Z" does not exist`},
		{"an unknown database", []Change{create(0, "A", "Nope", to)}, `timeline 0: Route: CREATE ROUTE: instance "A" has no database "Nope"`},
		{"a route to an unknown instance", []Change{create(0, "A", "Orders", model.Route{Name: "r", Address: "Mars"})},
			`timeline 0: Route: CREATE ROUTE in A/Orders: route "r": ADDRESS "Mars" is not an instance, 'LOCAL' or 'TRANSPORT'`},
		{"created twice, in time order", []Change{create(2*time.Second, "A", "Orders", to), create(time.Second, "A", "Orders", to)},
			`timeline 0: Route: CREATE ROUTE "r" in A/Orders: the route already exists`},
		{"AutoCreatedLocal exists", []Change{create(0, "A", "", model.Route{Name: model.AutoCreatedLocal, Address: "LOCAL"})},
			`timeline 0: Route: CREATE ROUTE "AutoCreatedLocal" in A's msdb: the route already exists`},
		{"altered before it exists", []Change{create(2*time.Second, "A", "Orders", to),
			{At: time.Second, Route: &RouteChange{Instance: "A", Database: "Orders", Op: AlterRoute, Route: model.Route{Name: "r", Address: "A"}}}},
			`timeline 1: Route: ALTER ROUTE "r" in A/Orders: the route does not exist`},
		{"dropped twice", []Change{create(0, "A", "Orders", to),
			{At: time.Second, Route: &RouteChange{Instance: "A", Database: "Orders", Op: DropRoute, Route: model.Route{Name: "r"}}},
			{At: time.Second, Route: &RouteChange{Instance: "A", Database: "Orders", Op: DropRoute, Route: model.Route{Name: "r"}}}},
			`timeline 2: Route: DROP ROUTE "r" in A/Orders: the route does not exist`},
		{"altered to a mirror of itself", []Change{create(0, "A", "Orders", to),
			{At: time.Second, Route: &RouteChange{Instance: "A", Database: "Orders", Op: AlterRoute, Route: model.Route{Name: "r", MirrorAddress: "B"}}}},
			`timeline 1: Route: ALTER ROUTE in A/Orders: route "r": MIRROR_ADDRESS is the ADDRESS`},
		{"negative time", []Change{create(-time.Second, "A", "Orders", to)}, `timeline 0: At -1s is negative`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := routedTwoInstances(0, Workload{Name: "none"})
			cfg.Timeline = tt.timeline
			assert.EqualError(t, validateConfig(cfg), tt.want)
		})
	}
}

// RTE-2 over the routes before the run: a target no route reaches, or with no way back, is
// a warning, since delayed routing is legal; a route the timeline creates later is a way.
func TestRTE2_RouteWarningsFindTargetsNoRouteReaches(t *testing.T) {
	wl := Workload{Name: "orders", Dialogs: 1, Messages: 1}
	gateway := func(forwarding bool) Config {
		cfg := routedTwoInstances(0, wl)
		g := cfg.Instances[1]
		g.Name, g.Databases = "G", []model.Database{{Name: "gw"}}
		g.Forwarding.Enabled = forwarding
		g.Routes = []model.Route{{Name: "on", ServiceName: "Target", Address: "B"}}
		cfg.Instances = append(cfg.Instances, g)
		cfg.Instances[0].Databases[0].Routes = []model.Route{{Name: "via G", ServiceName: "Target", Address: "G"}}
		return cfg
	}
	for _, tt := range []struct {
		name string
		cfg  Config
		want []RouteWarning
	}{
		{"no route", routedTwoInstances(0, wl), []RouteWarning{{Workload: 0, Field: "To",
			Message: `no route of A/Orders reaches a service "Target" (RTE-2, over its routes and the timeline's route changes): its messages would never arrive, but wait in sys.transmission_queue (delayed, or retried for ever)`}}},
		{"a route created later", routedTwoInstances(time.Hour, wl), nil},
		{"no way back", func() Config {
			cfg := routedTwoInstances(time.Second, wl)
			cfg.Instances[1].Databases[0].Routes = []model.Route{{Name: "elsewhere", ServiceName: "Initiator", Address: "B"}}
			return cfg
		}(), []RouteWarning{{Workload: 0, Field: "From",
			Message: `the target "Target" of B/Stock has no route back to service "Initiator" of A/Orders (RTE-2): it could not acknowledge, and the initiator would retry for ever`}}},
		{"a route to a broker instance no database has", func() Config {
			cfg := routedTwoInstances(0, wl)
			cfg.Instances[0].Databases[0].Routes = []model.Route{{Name: "r", ServiceName: "Target", BrokerInstance: model.BrokerGUID("X", "Y"), Address: "B"}}
			return cfg
		}(), []RouteWarning{{Workload: 0, Field: "To",
			Message: `no route of A/Orders reaches a service "Target" (RTE-2, over its routes and the timeline's route changes): its messages would never arrive, but wait in sys.transmission_queue (delayed, or retried for ever)`}}},
		{"through a forwarder (RTE-4: off drops)", gateway(false), []RouteWarning{{Workload: 0, Field: "To",
			Message: `no route of A/Orders reaches a service "Target" (RTE-2, over its routes and the timeline's route changes): its messages would never arrive, but wait in sys.transmission_queue (delayed, or retried for ever)`}}},
		{"through a forwarder that forwards", gateway(true), nil},
		{"a forwarding loop (RTE-6)", func() Config {
			cfg := gateway(true)
			h := cfg.Instances[2]
			h.Name, h.Databases = "H", []model.Database{{Name: "hub"}}
			h.Routes = []model.Route{{Name: "back", ServiceName: "Target", Address: "G"}}
			cfg.Instances[2].Routes = []model.Route{{Name: "on", ServiceName: "Target", Address: "H"}}
			cfg.Instances = append(cfg.Instances, h)
			return cfg
		}(), []RouteWarning{{Workload: 0, Field: "To",
			Message: `the msdb routes of forwarders send service "Target" round a loop, G → H → G: a message on it is dropped once its hops are spent (RTE-6, G-27)`},
			{Workload: 0, Field: "To",
				Message: `no route of A/Orders reaches a service "Target" (RTE-2, over its routes and the timeline's route changes): its messages would never arrive, but wait in sys.transmission_queue (delayed, or retried for ever)`}}},
		{"a wildcard route", func() Config {
			cfg := routedTwoInstances(0, wl)
			cfg.Instances[0].Databases[0].Routes = []model.Route{{Name: "all", Address: "B"}}
			cfg.Instances[0].Databases[0].NoAutoCreatedLocal = true
			return cfg
		}(), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat, err := model.Compile(tt.cfg.Instances)
			require.NoError(t, err)
			require.NoError(t, tt.cfg.Validate(cat))
			assert.Equal(t, tt.want, tt.cfg.RouteWarnings(cat))
		})
	}
	// Worlds without routes get implicit ones: no warning.
	cfg := twoInstances(faulty.PairConfig{}, wl)
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	assert.Empty(t, cfg.RouteWarnings(cat))
}

// The transmission queue of the results groups every row by its endpoint's database, also
// the messages that arrived for an OFF queue and wait in the receiving instance's
// transmission queue (TXQ-4): they are in the target's database, for its service.
func TestTXQ4_ResultsGroupHeldArrivalsInTheTargetsDatabase(t *testing.T) {
	cfg := twoInstances(faulty.PairConfig{}, Workload{Name: "orders", Dialogs: 3, Interarrival: sim.Fixed(time.Second), Messages: 2, Size: FixedSize(100)})
	cfg.Instances[1].Databases[0].Queues[0].Status = model.QueueOff
	cfg.MaxTime, cfg.Liveness.Off = 10*time.Second, true

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	b := res.Instances[1]
	require.NotEmpty(t, b.TransmissionQueue)
	total := 0
	for _, g := range b.TransmissionQueue {
		assert.Equal(t, "Stock", g.Database, "%+v", g)
		assert.Equal(t, "Target", g.ToService, "%+v", g)
		assert.NotEmpty(t, g.TransmissionStatus)
		total += g.Rows
	}
	assert.Equal(t, b.TransmissionQueueRows, total, "every row counted once")
}
