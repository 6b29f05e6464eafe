package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routedInstances is a world of three instances for the routing tests: A initiates, B and C
// each have a service called Target (a service balanced over two instances, or two
// different services with one name), and every database declares its routes: A's dbA those
// given, B's and C's one back to Initiator at A.
func routedInstances(routesA ...Route) []Instance {
	in := testInstances()
	in[0].Databases[0].Routes = routesA
	back := []Route{{Name: "back", ServiceName: "Initiator", Address: "A"}}
	in[1].Databases[0].Routes = back
	c := in[1]
	c.Name = "C"
	c.Databases = []Database{in[1].Databases[0]}
	c.Databases[0].Name = "dbC"
	c.Databases[0].Routes = back
	return append(in, c)
}

const instC InstanceID = 2

// targetInstance returns the instance whose Target endpoint the dialog reached, or A for none.
func targetInstance(w *world, conv ConversationID) InstanceID {
	for _, i := range []InstanceID{instB, instC} {
		if _, ok := w.endpointOf(i, conv, false); ok {
			return i
		}
	}
	return instA
}

func conversationOf(w *world, h ConversationHandle) ConversationID {
	ep, ok := w.brokers[instA].Endpoint(h)
	require.True(w.t, ok)
	return ep.ConversationID
}

func TestCompile_ServicesWithOneNameOnSeveralInstances(t *testing.T) {
	cat, err := Compile(routedInstances())
	require.NoError(t, err)

	_, unique := cat.Service("Target")
	assert.False(t, unique, "Service finds only a name that one database has")
	ids := cat.ServicesNamed("Target")
	require.Len(t, ids, 2)
	assert.Equal(t, instB, cat.Services[ids[0]].Instance)
	assert.Equal(t, instC, cat.Services[ids[1]].Instance)
	assert.NotEqual(t, cat.Databases[cat.Services[ids[0]].Database].Broker, cat.Databases[cat.Services[ids[1]].Database].Broker,
		"a broker instance tells them apart")
}

func TestCompile_RoutesAreChecked(t *testing.T) {
	tests := []struct {
		name  string
		route Route
		want  string
	}{
		{"an address that is no instance", Route{Name: "r", ServiceName: "Target", Address: "Z"},
			`instance "A": database "dbA": route "r": ADDRESS "Z" is not an instance, 'LOCAL' or 'TRANSPORT'`},
		{"no address", Route{Name: "r", ServiceName: "Target"}, `route "r": ADDRESS is missing`},
		{"no name", Route{ServiceName: "Target", Address: "B"}, `a route has no name`},
		{"a mirror beside LOCAL", Route{Name: "r", Address: RouteLocal, MirrorAddress: "B"}, `MIRROR_ADDRESS needs an instance's ADDRESS`},
		{"a mirror that is no instance", Route{Name: "r", Address: "B", MirrorAddress: "Z"}, `MIRROR_ADDRESS "Z" is not an instance`},
		{"a negative lifetime", Route{Name: "r", Address: "B", Lifetime: -time.Second}, `LIFETIME -1s is negative`},
		{"the name of AutoCreatedLocal", Route{Name: AutoCreatedLocal, Address: "B"}, `route "AutoCreatedLocal" is defined twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(routedInstances(tt.route))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Without any route declared, every database gets one to each service of the other
// instances, so that worlds written before routes existed run as they did.
func TestCompile_ImplicitRoutesWhenNoneIsDeclared(t *testing.T) {
	cat, err := Compile(testInstances())
	require.NoError(t, err)
	require.True(t, cat.ImplicitRoutes)
	a := cat.Databases[0]
	require.Len(t, a.Routes, 2)
	assert.Equal(t, Route{Name: AutoCreatedLocal, Address: RouteLocal}, a.Routes[0])
	assert.Equal(t, Route{Name: "[sbsim] Target at B/dbB", ServiceName: "Target", BrokerInstance: cat.BrokerInstance(cat.Databases[1].Broker),
		Address: "B"}, a.Routes[1])

	cat, err = Compile(routedInstances())
	require.NoError(t, err)
	assert.False(t, cat.ImplicitRoutes, "a declared route makes routing explicit")
	assert.Equal(t, []Route{{Name: AutoCreatedLocal, Address: RouteLocal}}, cat.Databases[0].Routes)
}

// RTE-2: the steps in order, each used only when the ones before found nothing.
func TestRTE2_RouteMatchingStopsAtTheFirstStepWithMatches(t *testing.T) {
	exact := Route{Name: "exact", ServiceName: "S", BrokerInstance: "G1", Address: "B"}
	byName := Route{Name: "by-name", ServiceName: "S", Address: "C"}
	otherID := Route{Name: "other-id", ServiceName: "S", BrokerInstance: "G2", Address: "C"}
	wildcard := Route{Name: "wildcard", Address: "B"}
	tests := []struct {
		name   string
		routes []Route
		broker string
		want   string // the route chosen, empty for none
	}{
		{"1: service and broker instance", []Route{byName, wildcard, exact}, "G1", "exact"},
		{"2: service among routes without broker instance", []Route{otherID, wildcard, byName}, "G1", "by-name"},
		{"3: no broker instance known: a route naming one", []Route{wildcard, otherID, exact}, "", "other-id"},
		{"3 is skipped when the conversation has a broker instance", []Route{otherID, wildcard}, "G1", "wildcard"},
		{"5: the wildcard", []Route{wildcard}, "G1", "wildcard"},
		{"5: a wildcard for another broker instance does not match", []Route{{Name: "w", BrokerInstance: "G2", Address: "B"}}, "G1", ""},
		{"7: nothing", []Route{{Name: "other", ServiceName: "T", Address: "B"}}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := newRouteTable(0, tt.routes)

			r, ok := table.match(0, "S", tt.broker, 0)

			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, r.Name)
		})
	}
}

// RTE-1: an expired route is ignored.
func TestRTE1_ExpiredRoutesAreIgnored(t *testing.T) {
	table := newRouteTable(time.Minute, []Route{{Name: "short", ServiceName: "S", Address: "B", Lifetime: time.Minute}})

	_, before := table.match(2*time.Minute-1, "S", "", 0)
	_, after := table.match(2*time.Minute, "S", "", 0)

	assert.True(t, before)
	assert.False(t, after, "the route lived one minute from its CREATE")
}

// RTE-3: among matches, a mirrored address first, then LOCAL, then an address, then
// TRANSPORT; equally good routes take turns.
func TestRTE3_ChoiceAmongMatches(t *testing.T) {
	transport := Route{Name: "transport", ServiceName: "S", Address: RouteTransport}
	address := Route{Name: "address", ServiceName: "S", Address: "B"}
	local := Route{Name: "local", ServiceName: "S", Address: RouteLocal}
	mirrored := Route{Name: "mirrored", ServiceName: "S", Address: "B", MirrorAddress: "C"}
	for _, tt := range []struct {
		routes []Route
		want   string
	}{
		{[]Route{transport, address, local, mirrored}, "mirrored"},
		{[]Route{transport, address, local}, "local"},
		{[]Route{transport, address}, "address"},
		{[]Route{transport}, "transport"},
	} {
		table := newRouteTable(0, tt.routes)
		r, _ := table.match(0, "S", "", 0)
		assert.Equal(t, tt.want, r.Name)
	}

	table := newRouteTable(0, []Route{address, {Name: "address2", ServiceName: "S", Address: "C"}, transport})
	var got []string
	for range 4 {
		r, _ := table.match(0, "S", "", 0)
		got = append(got, r.Name)
	}
	assert.Equal(t, []string{"address", "address2", "address", "address2"}, got)
}

// RTE-1, RTE-3: a database's routes decide where its dialogs go; two routes for one
// service balance dialogs over two instances, and each dialog keeps the instance it was
// routed to for all its messages.
func TestRTE3_TwoRoutesBalanceDialogsAndEachDialogKeepsItsInstance(t *testing.T) {
	w := newWorldOf(t, Config{}, routedInstances(
		Route{Name: "to-B", ServiceName: "Target", Address: "B"},
		Route{Name: "to-C", ServiceName: "Target", Address: "C"}))
	var convs []ConversationID
	for range 4 {
		h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
		convs = append(convs, conversationOf(w, h))
		for range 3 {
			require.NoError(t, w.send(instA, h, "Request", 100))
		}
	}
	w.settle()

	var at []InstanceID
	for _, c := range convs {
		at = append(at, targetInstance(w, c))
		ep, _ := w.endpointOf(targetInstance(w, c), c, false)
		assert.Equal(t, 3, ep.ReadyMessages, "every message of the dialog reached the same instance")
	}
	assert.Equal(t, []InstanceID{instB, instC, instB, instC}, at)
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "every message acknowledged over the routes back")
}

// RTE-2 step 1 and PROTO-13: with a broker instance, the route for it wins; the initiator
// learns the target's broker instance from its first acknowledgement.
func TestPROTO13_TheInitiatorLearnsTheTargetsBrokerInstanceFromItsFirstAck(t *testing.T) {
	w := newWorldOf(t, Config{}, routedInstances(
		Route{Name: "to-B", ServiceName: "Target", Address: "B"},
		Route{Name: "to-C", ServiceName: "Target", Address: "C"},
		Route{Name: "to-C-exactly", ServiceName: "Target", BrokerInstance: BrokerGUID("C", "dbC"), Address: "C"}))
	brokerC := w.cat.Databases[w.cat.Instances[instC].Databases[0]].Broker
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	ep, _ := w.brokers[instA].Endpoint(h)
	require.Equal(t, BrokerID(0), ep.FarBrokerInstance, "unknown before the first acknowledgement")

	require.NoError(t, w.send(instA, h, "Request", 100))
	w.settle()

	ep, _ = w.brokers[instA].Endpoint(h)
	target := targetInstance(w, ep.ConversationID)
	want := w.cat.Databases[w.cat.Instances[target].Databases[0]].Broker
	assert.Equal(t, want, ep.FarBrokerInstance)

	for range 2 {
		h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{ToBrokerInstance: brokerC})
		require.NoError(t, w.send(instA, h, "Request", 100))
		w.settle()
		assert.Equal(t, instC, targetInstance(w, conversationOf(w, h)), "TO SERVICE 'Target', C's broker instance: the route for it (RTE-2 step 1)")
	}
}

// RTE-2 step 7 and G-28: with no route, the dialog is delayed, not failed: its messages wait
// in the transmission queue with a transmission_status that says why, and it tries again
// every RouteRetryInterval; a route created later lets them leave at the next try.
func TestG28_ADelayedDialogWaitsAndLeavesWhenARouteAppears(t *testing.T) {
	w := newWorldOf(t, Config{}, routedInstances()) // dbA has AutoCreatedLocal only
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 100))

	w.runUntil(25 * time.Second)
	rows := w.brokers[instA].TransmissionQueue()
	require.Len(t, rows, 1)
	assert.Equal(t, TransmissionStatusNoRoute, rows[0].TransmissionStatus)
	ep, _ := w.brokers[instA].Endpoint(h)
	assert.True(t, ep.Delayed)
	assert.Empty(t, w.sent, "nothing leaves without a route")
	assert.Len(t, w.records(instA, TraceDelayed), 1)

	require.NoError(t, w.brokers[instA].CreateRoute(w.now, 0, Route{Name: "to-B", ServiceName: "Target", Address: "B"}))
	w.drain(instA)
	w.runUntil(30*time.Second - 1)
	assert.Empty(t, w.sent, "the route is found at the next try, not at once (G-28)")
	w.settle()

	require.NotEmpty(t, w.sent)
	assert.Equal(t, 30*time.Second, w.sent[0].at, "tries at 10 s, 20 s, 30 s")
	assert.Len(t, w.records(instA, TraceRouted), 1)
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "delivered and acknowledged")
	ep, _ = w.brokers[instA].Endpoint(h)
	assert.False(t, ep.Delayed)
	assert.Equal(t, instB, targetInstance(w, ep.ConversationID))
}

// The way back is routed too: a target whose database has no route to the initiator's
// service receives the messages but cannot acknowledge them, so the initiator retries until
// a route back appears (RTE-1: conversations use their database's routes, both ways).
func TestRTE1_ATargetWithoutARouteBackCannotAcknowledge(t *testing.T) {
	in := routedInstances(Route{Name: "to-B", ServiceName: "Target", Address: "B"})
	in[1].Databases[0].Routes = nil
	w := newWorldOf(t, Config{}, in)
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 100))

	w.runUntil(time.Minute)
	ep, ok := w.endpointOf(instB, conversationOf(w, h), false)
	require.True(t, ok)
	assert.True(t, ep.Delayed, "no route back")
	assert.Equal(t, 1, ep.ReadyMessages, "the message is delivered once, retries discarded as duplicates")
	assert.Len(t, w.brokers[instA].TransmissionQueue(), 1, "unacknowledged")
	assert.Positive(t, w.brokers[instA].Counters().FragmentsRetransmitted)

	require.NoError(t, w.brokers[instB].CreateRoute(w.now, w.cat.Instances[instB].Databases[0],
		Route{Name: "back", ServiceName: "Initiator", Address: "A"}))
	w.drain(instB)
	w.runUntil(w.now + 10*time.Second + latency)
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "acknowledged once the way back is found")
}

// RTE-7 and G-29: a LOCAL route delivers on this instance: to the broker instance's
// database when the dialog names one, otherwise to the conversation's own database first,
// then the other databases by ascending id.
func TestRTE7_G29_LocalDeliveryLooksInTheConversationsDatabaseFirst(t *testing.T) {
	in := testInstances()
	db2 := in[0].Databases[0]
	db2.Name = "dbA2"
	db2.Queues = []Queue{{Name: "InitiatorQueue2"}, {Name: "LocalTargetQueue2"}}
	db2.Services = []Service{{Name: "Initiator2", Queue: "InitiatorQueue2"},
		{Name: "LocalTarget", Queue: "LocalTargetQueue2", Contracts: []string{"RequestReply"}}}
	in[0].Databases = append(in[0].Databases, db2)
	w := newWorldOf(t, Config{}, in)
	dbA2 := w.cat.Databases[w.cat.Instances[instA].Databases[1]].Broker

	for _, tt := range []struct {
		from  string
		opts  BeginDialogOptions
		queue string
	}{
		{"Initiator", BeginDialogOptions{}, "LocalTargetQueue"},                        // dbA's own
		{"Initiator2", BeginDialogOptions{}, "LocalTargetQueue2"},                      // dbA2's own
		{"Initiator", BeginDialogOptions{ToBrokerInstance: dbA2}, "LocalTargetQueue2"}, // the one named
	} {
		h := w.begin(tt.from, "LocalTarget", "RequestReply", tt.opts)
		require.NoError(t, w.send(instA, h, "Request", 100))
		w.settle()
		ep, ok := w.endpointOf(instA, conversationOf(w, h), false)
		require.True(t, ok)
		assert.Equal(t, w.cat.Queues[w.cat.Services[ep.Service].Queue].Name, tt.queue, "from %s %+v", tt.from, tt.opts)
	}

	svc, ok := w.brokers[instA].localService("LocalTarget", 0, Msdb)
	require.True(t, ok)
	assert.Equal(t, "LocalTargetQueue", w.cat.Queues[w.cat.Services[svc].Queue].Name, "from outside: ascending database id")
}

// CREATE, ALTER and DROP ROUTE change sys.routes; a name is unique in its database.
func TestRTE1_RouteStatements(t *testing.T) {
	w := newWorldOf(t, Config{}, routedInstances())
	b := w.brokers[instA]
	r := Route{Name: "r", ServiceName: "Target", Address: "B", Lifetime: time.Hour}

	require.NoError(t, b.CreateRoute(time.Minute, 0, r))
	require.ErrorContains(t, b.CreateRoute(time.Minute, 0, r), `route "r" already exists`)
	require.ErrorContains(t, b.CreateRoute(time.Minute, 0, Route{Name: "x", Address: "Z"}), `ADDRESS "Z" is not an instance`)
	require.ErrorIs(t, b.CreateRoute(0, 1, r), ErrNotLocal, "dbB is B's")
	assert.Equal(t, []RouteRow{{Route: Route{Name: AutoCreatedLocal, Address: RouteLocal}}, {Route: r, Expires: time.Hour + time.Minute}}, b.Routes(0))

	require.NoError(t, b.AlterRoute(2*time.Minute, 0, "r", Route{ServiceName: "Target", Address: "C"}))
	assert.Equal(t, RouteRow{Route: Route{Name: "r", ServiceName: "Target", Address: "C"}}, b.Routes(0)[1])
	require.ErrorIs(t, b.AlterRoute(0, 0, "nope", r), ErrRouteNotFound)

	require.NoError(t, b.DropRoute(0, Msdb, AutoCreatedLocal))
	assert.Empty(t, b.Routes(Msdb))
	require.ErrorIs(t, b.DropRoute(0, Msdb, AutoCreatedLocal), ErrRouteNotFound)
}

// TRANSPORT: the service name is the address (tcp://INSTANCE:port/...).
func TestRTE3_TransportRouteTakesTheInstanceFromTheServiceName(t *testing.T) {
	assert.Equal(t, "B", transportInstance("tcp://B:4022/Target"))
	assert.Equal(t, "B", transportInstance("TCP://B/x"))
	assert.Equal(t, "B", transportInstance("B/x"))
}
