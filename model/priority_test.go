package model

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reference: CREATE BROKER PRIORITY, spec PRI-4: the first of the eight rows whose criteria
// match gives the level; contract specificity dominates, then the local service, then the
// remote service. Each row is checked by dropping every more specific one in turn.
func TestPRI4_PrecedenceTable(t *testing.T) {
	const c, l, r = "SimpleContract", "InitiatorService", "TargetService"
	rows := []BrokerPriority{
		{Name: "row1", Contract: c, LocalService: l, RemoteService: r, Level: 1},
		{Name: "row2", Contract: c, LocalService: l, RemoteService: Any, Level: 2},
		{Name: "row3", Contract: c, LocalService: Any, RemoteService: r, Level: 3},
		{Name: "row4", Contract: c, LocalService: Any, RemoteService: Any, Level: 4},
		{Name: "row5", Contract: Any, LocalService: l, RemoteService: r, Level: 6},
		{Name: "row6", Contract: Any, LocalService: l, RemoteService: Any, Level: 7},
		{Name: "row7", Contract: Any, LocalService: Any, RemoteService: r, Level: 8},
		{Name: "row8", Contract: Any, LocalService: Any, RemoteService: Any, Level: 9},
	}
	var ps priorities
	for _, p := range rows {
		require.NoError(t, ps.create(p))
	}
	for i, p := range rows {
		assert.Equal(t, p.Level, ps.level(c, l, r), "with rows %d..8 present, row %d wins", i+1, i+1)
		assert.Equal(t, i+1, precedenceRow(p))
		require.NoError(t, ps.drop(p.Name))
	}
	assert.Equal(t, DefaultPriority, ps.level(c, l, r), "no priority left: DEFAULT 5 (PRI-5)")
}

// Reference: spec PRI-4: ANY matches every name, a name only itself (byte for byte, case
// sensitive); with nothing matching the level is 5.
func TestPRI4_AnyAndNoMatch(t *testing.T) {
	var ps priorities
	require.NoError(t, ps.create(BrokerPriority{Name: "contract", Contract: "C", Level: 8}))
	require.NoError(t, ps.create(BrokerPriority{Name: "remote", RemoteService: "R", Level: 2}))
	tests := []struct {
		contract, local, remote string
		want                    PriorityLevel
	}{
		{"C", "L", "R", 8}, // row 4 (C, ANY, ANY) beats row 7 (ANY, ANY, R)
		{"C", "X", "Y", 8}, // ANY local and remote
		{"D", "L", "R", 2}, // only the remote criterion matches
		{"D", "L", "r", 5}, // names are case sensitive: nothing matches
		{"c", "L", "Q", 5}, // nothing matches
		{"D", "R", "L", 5}, // local and remote are not interchangeable
		{"C", "L", "r", 8},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ps.level(tt.contract, tt.local, tt.remote), "%+v", tt)
	}
	require.NoError(t, ps.create(BrokerPriority{Name: "default", Contract: "D", LocalService: "L", RemoteService: "R"}))
	assert.Equal(t, DefaultPriority, ps.level("D", "L", "R"), "PRIORITY_LEVEL = DEFAULT is 5, and row 1 wins")
}

// priorityCatalog has the seed's SimpleContract, with InitiatorService and TargetService in
// one database of instance A (local dialogs), and a RemoteService on instance B.
func priorityCatalog(t *testing.T, honor bool, prios ...BrokerPriority) *Catalog {
	t.Helper()
	contract := Contract{Name: "SimpleContract", Messages: []ContractMessage{
		{"RequestMessage", SentByInitiator}, {"ReplyMessage", SentByTarget}}}
	types := []MessageType{{Name: "RequestMessage"}, {Name: "ReplyMessage"}}
	cat, err := Compile([]Instance{
		{Name: "A", Databases: []Database{{Name: "SalesDB", MessageTypes: types, Contracts: []Contract{contract},
			Queues: []Queue{{Name: "InitiatorQueue"}, {Name: "TargetQueue"}},
			Services: []Service{{Name: "InitiatorService", Queue: "InitiatorQueue"},
				{Name: "TargetService", Queue: "TargetQueue", Contracts: []string{"SimpleContract"}}},
			HonorBrokerPriority: honor, Priorities: prios}}},
		{Name: "B", Databases: []Database{{Name: "RemoteDB", MessageTypes: types, Contracts: []Contract{contract},
			Queues:   []Queue{{Name: "RemoteQueue"}},
			Services: []Service{{Name: "RemoteService", Queue: "RemoteQueue", Contracts: []string{"SimpleContract"}}}}}},
	})
	require.NoError(t, err)
	return cat
}

// levels begins a same-instance dialog InitiatorService → TargetService, sends a request,
// and returns the level of each endpoint.
func levels(t *testing.T, b *Broker, cat *Catalog) (initiator, target PriorityLevel) {
	t.Helper()
	from, _ := cat.Service("InitiatorService")
	to, _ := cat.Service("TargetService")
	c, _ := cat.Contract("SimpleContract")
	mt, _ := cat.MessageType("RequestMessage")
	h, err := b.BeginDialog(0, from, cat.NameOf(to), c, BeginDialogOptions{})
	require.NoError(t, err)
	require.NoError(t, b.Send(0, h, mt, 10))
	ie, _ := b.Endpoint(h)
	for _, ep := range b.Endpoints() {
		if ep.ConversationID == ie.ConversationID && !ep.IsInitiator {
			return ie.Priority, ep.Priority
		}
	}
	t.Fatal("no target endpoint")
	return 0, 0
}

// Reference: the seed's example (conversation priorities, "InitiatorToTargetPriority" and
// "TargetToInitiatorPriority", both level 3), with both services in one database: each
// endpoint takes its own side's priority (PRI-2), so both are 3.
func TestPRI2_SeedExampleBothSidesInOneDatabase(t *testing.T) {
	cat := priorityCatalog(t, true,
		BrokerPriority{Name: "InitiatorToTargetPriority", Contract: "SimpleContract", LocalService: "InitiatorService",
			RemoteService: "TargetService", Level: 3},
		BrokerPriority{Name: "TargetToInitiatorPriority", Contract: "SimpleContract", LocalService: "TargetService",
			RemoteService: "InitiatorService", Level: 3})
	b, err := NewBroker(cat, 0, Config{})
	require.NoError(t, err)

	i, tg := levels(t, b, cat)

	assert.Equal(t, PriorityLevel(3), i)
	assert.Equal(t, PriorityLevel(3), tg)
}

// Reference: the seed's example of PRI-6: the initiator endpoint at level 10 and the target
// endpoint at level 1. Messages are received at the receiving endpoint's level.
func TestPRI6_InitiatorLevel10TargetLevel1(t *testing.T) {
	cat := priorityCatalog(t, true,
		BrokerPriority{Name: "high", LocalService: "InitiatorService", Level: 10},
		BrokerPriority{Name: "low", LocalService: "TargetService", Level: 1})
	b, err := NewBroker(cat, 0, Config{})
	require.NoError(t, err)

	i, tg := levels(t, b, cat)
	require.Equal(t, PriorityLevel(10), i)
	require.Equal(t, PriorityLevel(1), tg)

	tq := cat.Services[mustService(t, cat, "TargetService")].Queue
	msgs, err := b.Receive(0, tq, 0, nil)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, PriorityLevel(1), msgs[0].Priority, "received at the target endpoint's level")
}

func mustService(t *testing.T, cat *Catalog, name string) ServiceID {
	t.Helper()
	s, ok := cat.Service(name)
	require.True(t, ok, name)
	return s
}

// Reference: spec PRI-3: a level is assigned once, when the endpoint is created; creating,
// altering or dropping priorities later changes only endpoints created afterwards (INV-7).
func TestPRI3_LaterPriorityStatementsLeaveExistingEndpointsAlone(t *testing.T) {
	cat := priorityCatalog(t, true)
	b, err := NewBroker(cat, 0, Config{})
	require.NoError(t, err)
	first, _ := levels(t, b, cat)
	require.Equal(t, DefaultPriority, first)
	firstHandle := b.Endpoints()[0].ConversationHandle

	db := DatabaseID(0)
	require.NoError(t, b.CreateBrokerPriority(time.Second, db, BrokerPriority{Name: "p", LocalService: "InitiatorService", Level: 9}))
	second, _ := levels(t, b, cat)
	two := PriorityLevel(2)
	require.NoError(t, b.AlterBrokerPriority(2*time.Second, db, "p", BrokerPriorityChange{Level: &two}))
	third, _ := levels(t, b, cat)
	require.NoError(t, b.DropBrokerPriority(3*time.Second, db, "p"))
	fourth, _ := levels(t, b, cat)

	assert.Equal(t, []PriorityLevel{9, 2, 5}, []PriorityLevel{second, third, fourth})
	ep, _ := b.Endpoint(firstHandle)
	assert.Equal(t, DefaultPriority, ep.Priority, "the first endpoint keeps its level")
}

// Reference: spec PRI-5: levels are never transmitted; each side takes its own database's
// priorities, and a database without any gives 5.
func TestPRI5_LevelsAreNotTransmitted(t *testing.T) {
	cat := priorityCatalog(t, true, BrokerPriority{Name: "all", Level: 9})
	a, err := NewBroker(cat, 0, Config{})
	require.NoError(t, err)
	bb, err := NewBroker(cat, 1, Config{})
	require.NoError(t, err)
	from := mustService(t, cat, "InitiatorService")
	to := mustService(t, cat, "RemoteService")
	c, _ := cat.Contract("SimpleContract")
	mt, _ := cat.MessageType("RequestMessage")
	h, err := a.BeginDialog(0, from, cat.NameOf(to), c, BeginDialogOptions{})
	require.NoError(t, err)
	require.NoError(t, a.Send(0, h, mt, 10))
	for _, p := range a.Effects().Transmit {
		bb.PacketArrived(time.Millisecond, &p, false)
	}

	ie, _ := a.Endpoint(h)
	assert.Equal(t, PriorityLevel(9), ie.Priority)
	require.Len(t, bb.Endpoints(), 1)
	assert.Equal(t, DefaultPriority, bb.Endpoints()[0].Priority)
}

// Reference: spec PRI-1 and G-36: invalid levels, unknown names and duplicate criteria are
// errors that name the priority, at CREATE and in the catalog alike.
func TestPRI1_InvalidPrioritiesAreRefused(t *testing.T) {
	tests := []struct {
		p    BrokerPriority
		want string
	}{
		{BrokerPriority{Name: "p", Level: 11}, `broker priority "p": PRIORITY_LEVEL 11 is outside 1..10`},
		{BrokerPriority{Name: "p", Contract: "Nope"}, `broker priority "p": CONTRACT_NAME "Nope" does not exist in the database`},
		{BrokerPriority{Name: "p", LocalService: "RemoteService"}, `broker priority "p": LOCAL_SERVICE_NAME "RemoteService" is not a service of the database`},
		{BrokerPriority{Name: "existing", Level: 2}, `broker priority "existing" already exists`},
		{BrokerPriority{Name: "twin", Contract: "SimpleContract", Level: 2},
			`broker priority "twin" has the criteria of "existing": (contract "SimpleContract", local ANY, remote ANY)`},
		{BrokerPriority{Level: 2}, "a broker priority has no name"},
	}
	existing := BrokerPriority{Name: "existing", Contract: "SimpleContract", Level: 7}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			b, err := NewBroker(priorityCatalog(t, true, existing), 0, Config{})
			require.NoError(t, err)
			assert.ErrorContains(t, b.CreateBrokerPriority(0, 0, tt.p), tt.want)

			_, err = Compile(withPriorities(t, existing, tt.p))
			assert.ErrorContains(t, err, tt.want, "the catalog refuses it too")
		})
	}
	b, err := NewBroker(priorityCatalog(t, true, existing), 0, Config{})
	require.NoError(t, err)
	assert.ErrorIs(t, b.AlterBrokerPriority(0, 0, "missing", BrokerPriorityChange{}), ErrPriorityNotFound)
	assert.ErrorIs(t, b.DropBrokerPriority(0, 0, "missing"), ErrPriorityNotFound)
	assert.ErrorIs(t, b.CreateBrokerPriority(0, 1, BrokerPriority{Name: "x"}), ErrNotLocal)
	twelve := PriorityLevel(12)
	require.Error(t, b.AlterBrokerPriority(0, 0, "existing", BrokerPriorityChange{Level: &twelve}))
	assert.Equal(t, []BrokerPriority{existing}, b.BrokerPriorities(0), "a refused ALTER changes nothing")
}

// withPriorities returns the definitions of priorityCatalog with the given priorities.
func withPriorities(t *testing.T, prios ...BrokerPriority) []Instance {
	t.Helper()
	contract := Contract{Name: "SimpleContract", Messages: []ContractMessage{{"RequestMessage", SentByInitiator}}}
	return []Instance{
		{Name: "A", Databases: []Database{{Name: "SalesDB", MessageTypes: []MessageType{{Name: "RequestMessage"}},
			Contracts: []Contract{contract}, Queues: []Queue{{Name: "Q"}},
			Services: []Service{{Name: "InitiatorService", Queue: "Q"}}, Priorities: prios}}},
		{Name: "B", Databases: []Database{{Name: "RemoteDB", Queues: []Queue{{Name: "R"}},
			Services: []Service{{Name: "RemoteService", Queue: "R"}}}}},
	}
}

func TestPriorityLevelDefault(t *testing.T) {
	assert.Equal(t, 5, PriorityLevel(0).Level())
	assert.Equal(t, 10, PriorityLevel(10).Level())
	assert.Equal(t, "(contract ANY, local \"L\", remote ANY)",
		fmt.Sprintf("(contract %s, local %s, remote %s)", anyName(Any), anyName("L"), anyName(Any)))
}

// Reference: ALTER BROKER PRIORITY: a clause left out keeps its value; one given replaces it,
// ANY included; the result must still be unique (G-36).
func TestPRI1_AlterKeepsTheClausesLeftOut(t *testing.T) {
	b, err := NewBroker(priorityCatalog(t, true,
		BrokerPriority{Name: "p", Contract: "SimpleContract", LocalService: "InitiatorService", Level: 7},
		BrokerPriority{Name: "q", Contract: "SimpleContract", Level: 3}), 0, Config{})
	require.NoError(t, err)

	nine := PriorityLevel(9)
	require.NoError(t, b.AlterBrokerPriority(0, 0, "p", BrokerPriorityChange{Level: &nine}))
	assert.Equal(t, BrokerPriority{Name: "p", Contract: "SimpleContract", LocalService: "InitiatorService", Level: 9},
		b.BrokerPriorities(0)[0], "only the level changed")

	remote, anyService := "TargetService", Any
	require.NoError(t, b.AlterBrokerPriority(0, 0, "p", BrokerPriorityChange{RemoteService: &remote}))
	assert.Equal(t, BrokerPriority{Name: "p", Contract: "SimpleContract", LocalService: "InitiatorService",
		RemoteService: "TargetService", Level: 9}, b.BrokerPriorities(0)[0])

	err = b.AlterBrokerPriority(0, 0, "p", BrokerPriorityChange{LocalService: &anyService, RemoteService: &anyService})
	assert.ErrorContains(t, err, `has the criteria of "q"`, "it would duplicate q's criteria (G-36)")
	assert.Equal(t, "InitiatorService", b.BrokerPriorities(0)[0].LocalService, "a refused ALTER changes nothing")
}
