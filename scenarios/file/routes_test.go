package file

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// routedSites is twoSites with explicit routes: A's D routes T to B, B's E routes S back
// to A. Line 10 holds D's routes, line 18 E's, line 23 the workload.
var routedSites = strings.Replace(strings.Replace(twoSites,
	"        services: [{name: S, queue: QA}]\n",
	"        services: [{name: S, queue: QA}]\n        routes: [{name: toT, service_name: T, address: B}]\n", 1),
	"        services: [{name: T, queue: QB, contracts: [C]}]\n",
	"        services: [{name: T, queue: QB, contracts: [C]}]\n        routes: [{name: toS, service_name: S, broker_instance: A/D, address: A}]\n", 1)

func loadRouted(t *testing.T, text string) *Scenario {
	t.Helper()
	f, err := Load("routes.yaml", []byte(text))
	require.NoError(t, err)
	return f
}

// RTE-1: the keys of routes, broker instances and forwarding decode into the catalog's
// definitions: a database's routes and broker instance (a GUID in any case, written in
// upper case; instance/database for that database's GUID), msdb's routes, the
// AutoCreatedLocal switches, MESSAGE_FORWARDING and its size, a workload's broker instance.
func TestRTE1_LoadReadsRoutesBrokerInstancesAndForwarding(t *testing.T) {
	text := strings.Replace(routedSites, "routes: [{name: toS, service_name: S, broker_instance: A/D, address: A}]",
		"routes: [{name: toS, service_name: S, broker_instance: A/D, address: A, mirror_address: B, lifetime: 1h}]\n"+
			"        broker_instance: 0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d\n        auto_created_local: false\n"+
			"    msdb_routes: [{name: here, address: local}, {name: any, broker_instance: 0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D, address: transport}]\n"+
			"    auto_created_local: off\n    forwarding: {enabled: true, max_size: 5MiB}", 1)
	text = strings.Replace(text, "message_type: Ask, dialogs: 2", "message_type: Ask, to_broker_instance: B/E, dialogs: 2", 1)

	f := loadRouted(t, text)

	a, b := f.Config.Instances[0], f.Config.Instances[1]
	assert.Equal(t, []model.Route{{Name: "toT", ServiceName: "T", Address: "B"}}, a.Databases[0].Routes)
	assert.False(t, a.Databases[0].NoAutoCreatedLocal)
	assert.Equal(t, []model.Route{{Name: "toS", ServiceName: "S", BrokerInstance: model.BrokerGUID("A", "D"), Address: "A",
		MirrorAddress: "B", Lifetime: time.Hour}}, b.Databases[0].Routes, "A/D stands for D's GUID")
	assert.Equal(t, "0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D", b.Databases[0].BrokerInstance)
	assert.True(t, b.Databases[0].NoAutoCreatedLocal)
	assert.Equal(t, []model.Route{{Name: "here", Address: model.RouteLocal},
		{Name: "any", BrokerInstance: "0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D", Address: model.RouteTransport}}, b.Routes)
	assert.True(t, b.NoAutoCreatedLocal)
	assert.Equal(t, model.Forwarding{Enabled: true, MaxBytes: 5 << 20}, b.Forwarding)
	assert.Equal(t, model.Forwarding{}, a.Forwarding)
	assert.Equal(t, "B/E", f.Config.Workloads[0].ToBrokerInstance)
}

// routeTimeline is a timeline of every kind of route change, after routedSites' workload.
const routeTimeline = `timeline:
  - {at: 1s, create_route: {database: A/D, name: spare, service_name: T, broker_instance: B/E, address: B, lifetime: 10m}}
  - {at: 2s, alter_route: {database: A/D, name: spare, address: A}}
  - {at: 3s, drop_route: {database: A/D, name: spare}}
  - {at: 4s, create_route: {msdb: B, name: gate, address: LOCAL}}
  - {at: 5s, alter_route: {msdb: B, name: gate, lifetime: 1h}}
`

// RTE-1: the timeline's create_route, alter_route and drop_route decode into route changes,
// in a database or in msdb.
func TestRTE1_LoadReadsTheTimelinesRouteChanges(t *testing.T) {
	f := loadRouted(t, routedSites+routeTimeline)

	rc := func(c scenarios.Change) scenarios.RouteChange { require.NotNil(t, c.Route); return *c.Route }
	tl := f.Config.Timeline
	require.Len(t, tl, 5)
	assert.Equal(t, scenarios.RouteChange{Instance: "A", Database: "D", Op: scenarios.CreateRoute, Route: model.Route{Name: "spare",
		ServiceName: "T", BrokerInstance: model.BrokerGUID("B", "E"), Address: "B", Lifetime: 10 * time.Minute}}, rc(tl[0]))
	assert.Equal(t, scenarios.RouteChange{Instance: "A", Database: "D", Op: scenarios.AlterRoute, Route: model.Route{Name: "spare", Address: "A"}}, rc(tl[1]))
	assert.Equal(t, scenarios.RouteChange{Instance: "A", Database: "D", Op: scenarios.DropRoute, Route: model.Route{Name: "spare"}}, rc(tl[2]))
	assert.Equal(t, scenarios.RouteChange{Instance: "B", Op: scenarios.CreateRoute, Route: model.Route{Name: "gate", Address: "LOCAL"}}, rc(tl[3]))
	assert.Equal(t, scenarios.RouteChange{Instance: "B", Op: scenarios.AlterRoute, Route: model.Route{Name: "gate", Lifetime: time.Hour}}, rc(tl[4]))
	assert.Equal(t, 4*time.Second, tl[3].At)
}

// RTE-1: Marshal writes every route key back, and the file it writes loads to the same
// scenario.
func TestRTE1_MarshalWritesRoutesBack(t *testing.T) {
	text := strings.Replace(routedSites+routeTimeline, "        routes: [{name: toT", "        broker_instance: 0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d\n        auto_created_local: false\n        routes: [{name: toT", 1)
	text = strings.Replace(text, "  - name: B\n", "  - name: B\n    msdb_routes: [{name: m, service_name: T, address: B, mirror_address: A}]\n    auto_created_local: false\n    forwarding: {enabled: true, max_size: 10MB}\n", 1)
	text = strings.Replace(text, "message_type: Ask, dialogs: 2", "message_type: Ask, to_broker_instance: B/E, dialogs: 2", 1)
	f := loadRouted(t, text)

	out, err := f.Marshal()
	require.NoError(t, err)
	g, err := Load("again.yaml", out)
	require.NoError(t, err, "%s", out)

	assert.Equal(t, f.Config, g.Config, "%s", out)
	assert.Contains(t, string(out), "forwarding: {enabled: true, max_size: 10000000}")
	assert.Contains(t, string(out), "create_route: {database: A/D, name: spare")
	assert.Contains(t, string(out), "alter_route: {msdb: B, name: gate, lifetime: 1h}")
}

// routeErrors are files whose routes are wrong, with the error at the key to change.
var routeErrors = []struct {
	name, file string
	want       string
}{
	{"a route to an unknown instance (RTE-1)", strings.Replace(routedSites, "service_name: T, address: B}", "service_name: T, address: Mars}", 1),
		`bad.yaml:10:56: instances[0].databases[0].routes[0].address: instance "A": database "D": route "toT": ADDRESS "Mars" is not an instance, 'LOCAL' or 'TRANSPORT'`},
	{"an msdb route to an unknown instance", strings.Replace(routedSites, "  - name: B\n", "  - name: B\n    msdb_routes: [{name: m, address: Venus}]\n", 1),
		`bad.yaml:12:38: instances[1].msdb_routes[0].address: instance "B": msdb: route "m": ADDRESS "Venus" is not an instance, 'LOCAL' or 'TRANSPORT'`},
	{"a mirror that is no instance", strings.Replace(routedSites, "service_name: T, address: B}", "service_name: T, address: B, mirror_address: Pluto}", 1),
		`bad.yaml:10:75: instances[0].databases[0].routes[0].mirror_address: instance "A": database "D": route "toT": MIRROR_ADDRESS "Pluto" is not an instance`},
	{"a route without an address", strings.Replace(routedSites, "service_name: T, address: B}", "service_name: T}", 1),
		`bad.yaml:10:18: instances[0].databases[0].routes[0].address: the route needs a address`},
	{"a route defined twice", strings.Replace(routedSites, "service_name: T, address: B}", "service_name: T, address: B}, {name: toT, address: B}", 1),
		`bad.yaml:10:60: instances[0].databases[0].routes[1]: instance "A": database "D": route "toT" is defined twice`},
	{"a broker instance of no database", strings.Replace(routedSites, "broker_instance: A/D", "broker_instance: A/Nope", 1),
		`bad.yaml:18:64: instances[1].databases[0].routes[0].broker_instance: broker instance "A/Nope": no database "Nope" on an instance "A"`},
	{"a broker instance that is no GUID", strings.Replace(routedSites, "broker_instance: A/D", "broker_instance: 1234", 1),
		`bad.yaml:18:64: instances[1].databases[0].routes[0].broker_instance: want a GUID (service_broker_guid) or instance/database, got "1234"`},
	{"a database's broker instance is a GUID", strings.Replace(routedSites, "        routes: [{name: toT", "        broker_instance: A/D\n        routes: [{name: toT", 1),
		`bad.yaml:10:26: instances[0].databases[0].broker_instance: want a GUID (service_broker_guid), got "A/D"`},
	{"a workload's broker instance of no database", strings.Replace(routedSites, "message_type: Ask, dialogs: 2", "message_type: Ask, to_broker_instance: B/Nope, dialogs: 2", 1),
		`bad.yaml:23:99: workloads[0].to_broker_instance: broker instance "B/Nope" is no database's (write a GUID or instance/database)`},
	{"forwarding with an unknown key", strings.Replace(routedSites, "  - name: B\n", "  - name: B\n    forwarding: {enable: true}\n", 1),
		`bad.yaml:12:18: instances[1].forwarding.enable: unknown key "enable" in the forwarding (did you mean "enabled"?); known keys: enabled, max_size`},
	{"a route change in an unknown database", routedSites + "timeline:\n  - {at: 1s, create_route: {database: A/Nope, name: r, address: B}}\n",
		`bad.yaml:25:39: timeline[0].create_route.database: instance "A" has no database "Nope"`},
	{"a route change on an unknown instance's msdb", routedSites + "timeline:\n  - {at: 1s, drop_route: {msdb: Z, name: r}}\n",
		`bad.yaml:25:33: timeline[0].drop_route.msdb: instance "Z" does not exist`},
	{"a route change to an unknown instance", routedSites + "timeline:\n  - {at: 1s, create_route: {database: A/D, name: r, address: Mars}}\n",
		`bad.yaml:25:62: timeline[0].create_route.address: timeline 0: Route: CREATE ROUTE in A/D: route "r": ADDRESS "Mars" is not an instance, 'LOCAL' or 'TRANSPORT'`},
	{"a route dropped that does not exist", routedSites + "timeline:\n  - {at: 1s, drop_route: {database: A/D, name: gone}}\n",
		`bad.yaml:25:26: timeline[0].drop_route: timeline 0: Route: DROP ROUTE "gone" in A/D: the route does not exist`},
	{"a route created twice, the later first", routedSites + "timeline:\n  - {at: 2s, create_route: {database: A/D, name: toT, address: B}}\n",
		`bad.yaml:25:28: timeline[0].create_route: timeline 0: Route: CREATE ROUTE "toT" in A/D: the route already exists`},
	{"two route changes in one", routedSites + "timeline:\n  - {at: 1s, create_route: {database: A/D, name: r, address: B}, drop_route: {database: A/D, name: toT}}\n",
		`bad.yaml:25:66: timeline[0].drop_route: one change creates, alters or drops one route`},
	{"a route change and a queue change in one", routedSites + "timeline:\n  - {at: 1s, create_route: {database: A/D, name: r, address: B}, alter_queue: QA}\n",
		`bad.yaml:25:66: timeline[0].alter_queue: a change alters a route, a link or a queue, one of them`},
	{"a drop with an address", routedSites + "timeline:\n  - {at: 1s, drop_route: {database: A/D, name: toT, address: B}}\n",
		`bad.yaml:25:53: timeline[0].drop_route.address: unknown key "address" in the drop route; known keys: name, database`},
}

// A route that names no instance is refused at the line and column of its address (RTE-1),
// and every other route error at the key to change.
func TestRTE1_LoadPlacesRouteErrorsAtTheirKeys(t *testing.T) {
	for _, tt := range routeErrors {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(tt.file))
			var errs Errors
			require.True(t, errors.As(err, &errs), "got %v", err)
			assert.Equal(t, tt.want, errs[0].Error())
		})
	}
}

// RTE-2 (step 7: delayed routing is legal): a workload whose target no route reaches, or
// that has no route back, loads with a warning at its key, which simulate validate prints
// without failing; a route the timeline creates later is a way.
func TestRTE2_LoadWarnsOfTargetsNoRouteReaches(t *testing.T) {
	noRoute := strings.Replace(routedSites, "        routes: [{name: toT, service_name: T, address: B}]\n", "", 1)
	f := loadRouted(t, noRoute)
	require.Len(t, f.Warnings, 1)
	assert.Equal(t, `routes.yaml:22:44: workloads[0].to_service: warning SB105: no route of A/D reaches a service "T" (RTE-2, over its routes and the timeline's route changes): its messages would never arrive, but wait in sys.transmission_queue (delayed, or retried for ever)`+
		` (fix: add a route for the service to the initiator's database (and to the msdb of each forwarder on the way), or a TRANSPORT or wildcard route that reaches it)`,
		f.Warnings[0].Error())

	later := loadRouted(t, noRoute+"timeline:\n  - {at: 2m, create_route: {database: A/D, name: toT, service_name: T, address: B}}\n")
	assert.Empty(t, later.Warnings)

	noBack := loadRouted(t, strings.Replace(routedSites, "broker_instance: A/D, address: A", "broker_instance: A/D, address: LOCAL", 1))
	require.Len(t, noBack.Warnings, 1)
	assert.Equal(t, `routes.yaml:23:29: workloads[0].from_service: warning SB112: the target "T" of B/E has no route back to service "S" of A/D (RTE-2): it could not acknowledge, and the initiator would retry for ever`+
		` (fix: give the target's database a route to the initiator's service (each side routes its own messages))`,
		noBack.Warnings[0].Error())

	assert.Empty(t, loadRouted(t, twoSites).Warnings, "a world without routes has routes made for it")
	assert.Empty(t, loadRouted(t, routedSites).Warnings)
}

// simulate validate (file.ValidateFiles) prints the warnings to stderr and still passes
// the file; an error fails it.
func TestValidateFilesPrintsWarningsWithoutFailing(t *testing.T) {
	dir := t.TempDir()
	warned := dir + "/warned.yaml"
	bad := dir + "/bad.yaml"
	require.NoError(t, os.WriteFile(warned, []byte(strings.Replace(routedSites, "        routes: [{name: toT, service_name: T, address: B}]\n", "", 1)), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte(strings.Replace(routedSites, "service_name: T, address: B}", "service_name: T, address: Mars}", 1)), 0o644))

	var stdout, stderr bytes.Buffer
	assert.True(t, ValidateFiles([]string{warned}, &stdout, &stderr))
	assert.Equal(t, warned+": ok, 1 warning\n", stdout.String())
	assert.Contains(t, stderr.String(), warned+":22:44: workloads[0].to_service: warning SB105: no route of A/D reaches")

	stdout.Reset()
	stderr.Reset()
	assert.False(t, ValidateFiles([]string{bad, warned}, &stdout, &stderr))
	assert.Equal(t, warned+": ok, 1 warning\n", stdout.String())
	assert.Contains(t, stderr.String(), bad+":10:56: instances[0].databases[0].routes[0].address:")
}

// G-28, RTE-2 step 7: a world declared in a file, whose branch has no route to the target
// until its timeline creates one, runs: cut before the route, its messages wait in
// sys.transmission_queue with SQL Server's status, its dialogs delayed; run to the end,
// they are routed at their next try, every message arrives once, nothing is left.
func TestG28_AFileWorldDelaysItsDialogsUntilItsTimelineCreatesTheRoute(t *testing.T) {
	text := strings.Replace(routedSites, "        routes: [{name: toT, service_name: T, address: B}]\n", "", 1) +
		"timeline:\n  - {at: 1m, create_route: {database: A/D, name: toT, service_name: T, address: B}}\n"
	f := loadRouted(t, strings.Replace(text, "dialogs: 2, messages: 2", "dialogs: 4, messages: 3, interarrival: 5s", 1))

	cut, err := f.With(Override{Key: "limits.max_time", Value: "50s"}, Override{Key: "liveness", Value: "off"})
	require.NoError(t, err)
	res, err := scenarios.Run(cut.Config, 1)
	require.NoError(t, err)
	a := res.Instances[0]
	require.Len(t, a.TransmissionQueue, 1)
	assert.Equal(t, scenarios.TransmissionQueueGroup{Database: "D", ToService: "T", TransmissionStatus: model.TransmissionStatusNoRoute,
		Rows: 16}, a.TransmissionQueue[0], "4 dialogs of 3 messages and an EndDialog")
	assert.Equal(t, 4, a.DelayedConversations)

	res, err = scenarios.Run(f.Config, 1)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	for _, v := range f.Check(res) {
		assert.True(t, v.OK, "%v", v)
	}
	assert.Equal(t, int64(12), res.Latency.Count)
	assert.GreaterOrEqual(t, res.Latency.Max, 45*time.Second)
	assert.Equal(t, int64(4), res.Instances[0].ConversationsDelayed)
	assert.Zero(t, res.Instances[0].TransmissionQueueRows)
	assert.Len(t, res.Instances[0].Databases[0].Routes, 2, "AutoCreatedLocal and the route created")
}
