package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reference: CREATE MESSAGE TYPE, CREATE CONTRACT, CREATE QUEUE, CREATE SERVICE; spec ENT-3,
// ENT-4, ENT-11. Each case changes the valid test catalog in one way, and the error must
// name the object at fault by its path.
func TestCompile_ErrorsNameTheObject(t *testing.T) {
	dbA := func(in []Instance) *Database { return &in[0].Databases[0] }
	dbB := func(in []Instance) *Database { return &in[1].Databases[0] }
	tests := []struct {
		name   string
		mutate func(in []Instance) []Instance
		want   []string // substrings of the error
	}{
		{"no instance", func([]Instance) []Instance { return nil }, []string{"no instance"}},
		{"instance without name", func(in []Instance) []Instance { in[1].Name = ""; return in },
			[]string{"instance has no name"}},
		{"instance defined twice", func(in []Instance) []Instance { in[1].Name = "A"; return in },
			[]string{`instance "A" is defined twice`}},
		{"database defined twice", func(in []Instance) []Instance {
			in[1].Databases = append(in[1].Databases, Database{Name: "dbB"})
			return in
		}, []string{`instance "B": database "dbB" is defined twice`}},
		{"database without name", func(in []Instance) []Instance { dbB(in).Name = ""; return in },
			[]string{`instance "B": a database has no name`}},
		{"message type defined twice", func(in []Instance) []Instance {
			dbA(in).MessageTypes = append(dbA(in).MessageTypes, MessageType{Name: "Reply"})
			return in
		}, []string{`database "dbA"`, `message type "Reply" is defined twice`}},
		{"message type with a system name", func(in []Instance) []Instance {
			dbB(in).MessageTypes = append(dbB(in).MessageTypes, MessageType{Name: MessageTypeEndDialog})
			return in
		}, []string{`database "dbB"`, `message type "` + MessageTypeEndDialog + `"`, "system type"}},
		{"message type named DEFAULT", func(in []Instance) []Instance {
			dbA(in).MessageTypes = append(dbA(in).MessageTypes, MessageType{Name: MessageTypeDefault})
			return in
		}, []string{`message type "DEFAULT"`}},
		{"contract named DEFAULT", func(in []Instance) []Instance {
			dbA(in).Contracts = append(dbA(in).Contracts, Contract{Name: ContractDefault,
				Messages: []ContractMessage{{"Request", SentByAny}}})
			return in
		}, []string{`contract "DEFAULT"`, "system contract"}},
		{"contract defined twice", func(in []Instance) []Instance {
			dbA(in).Contracts = append(dbA(in).Contracts, dbA(in).Contracts[0])
			return in
		}, []string{`database "dbA"`, `contract "RequestReply" is defined twice`}},
		{"contract on a missing message type", func(in []Instance) []Instance {
			dbB(in).Contracts[0].Messages = append(dbB(in).Contracts[0].Messages, ContractMessage{"Nope", SentByAny})
			return in
		}, []string{`database "dbB": contract "RequestReply"`, `message type "Nope" does not exist`}},
		{"contract lists a message type twice", func(in []Instance) []Instance {
			dbA(in).Contracts[1].Messages = append(dbA(in).Contracts[1].Messages, ContractMessage{"Request", SentByTarget})
			return in
		}, []string{`contract "Unaccepted"`, `message type "Request" is listed twice`}},
		{"contract without message types", func(in []Instance) []Instance {
			dbA(in).Contracts = append(dbA(in).Contracts, Contract{Name: "Empty"})
			return in
		}, []string{`contract "Empty"`, "at least one message type"}},
		{"contract defined differently in two databases", func(in []Instance) []Instance {
			dbB(in).Contracts[0].Messages[1].SentBy = SentByAny
			return in
		}, []string{`instance "B": database "dbB": contract "RequestReply" differs`, `instance "A": database "dbA"`}},
		{"queue defined twice", func(in []Instance) []Instance {
			dbB(in).Queues = append(dbB(in).Queues, Queue{Name: "TargetQueue"})
			return in
		}, []string{`database "dbB": queue "TargetQueue" is defined twice`}},
		{"service on a missing queue", func(in []Instance) []Instance {
			dbB(in).Services[0].Queue = "Nope"
			return in
		}, []string{`database "dbB": service "Target": queue "Nope" does not exist`}},
		{"service on an unknown contract", func(in []Instance) []Instance {
			dbB(in).Services[0].Contracts = append(dbB(in).Services[0].Contracts, "Nope")
			return in
		}, []string{`service "Target": contract "Nope" does not exist`}},
		{"service on a contract of another database only", func(in []Instance) []Instance {
			dbA(in).Contracts = append(dbA(in).Contracts, Contract{Name: "OnlyA", Messages: []ContractMessage{{"Request", SentByAny}}})
			dbB(in).Services[0].Contracts = []string{"OnlyA"}
			return in
		}, []string{`service "Target": contract "OnlyA" does not exist in the database`}},
		{"service lists a contract twice", func(in []Instance) []Instance {
			dbB(in).Services[0].Contracts = []string{"RequestReply", "RequestReply"}
			return in
		}, []string{`service "Target": contract "RequestReply" is listed twice`}},
		{"service defined twice in a database", func(in []Instance) []Instance {
			dbA(in).Services = append(dbA(in).Services, Service{Name: "LocalTarget", Queue: "LocalTargetQueue"})
			return in
		}, []string{`instance "A": database "dbA": service "LocalTarget" is defined twice`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat, err := Compile(tt.mutate(testInstances()))
			require.Error(t, err, "the catalog should not compile")
			assert.Nil(t, cat)
			for _, s := range tt.want {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// Reference: spec ENT-3 (a service has one queue), ENT-11 (system message types), DLG-16
// (DEFAULT contract and message type).
func TestCompile_ValidCatalogResolvesNames(t *testing.T) {
	cat, err := Compile(testInstances())
	require.NoError(t, err)

	a, ok := cat.Instance("A")
	require.True(t, ok)
	b, ok := cat.Instance("B")
	require.True(t, ok)
	assert.Equal(t, instA, a)
	assert.Equal(t, instB, b)
	_, ok = cat.Instance("C")
	assert.False(t, ok)

	target, ok := cat.Service("Target")
	require.True(t, ok)
	svc := cat.Services[target]
	assert.Equal(t, "Target", svc.Name)
	assert.Equal(t, instB, svc.Instance)
	assert.Equal(t, "dbB", cat.Databases[svc.Database].Name)
	assert.Equal(t, "TargetQueue", cat.Queues[svc.Queue].Name)
	assert.Equal(t, svc.Database, cat.Queues[svc.Queue].Database)
	assert.Equal(t, QueueOn, cat.Queues[svc.Queue].Status, "STATUS defaults to ON (ENT-4)")
	_, ok = cat.Service("target")
	assert.False(t, ok, "service names are case-sensitive (ENT-3)")

	rr, ok := cat.Contract("RequestReply")
	require.True(t, ok)
	request, ok := cat.MessageType("Request")
	require.True(t, ok)
	reply, ok := cat.MessageType("Reply")
	require.True(t, ok)
	assert.Equal(t, []ContractMessageInfo{{request, SentByInitiator}, {reply, SentByTarget}}, cat.Contracts[rr].Messages)
	assert.Contains(t, svc.Contracts, rr)
	for _, db := range cat.Databases {
		assert.Contains(t, db.Contracts, rr, "a contract is interned once for the world (database %s)", db.Name)
		assert.Contains(t, db.Contracts, DefaultContract, "every database has DEFAULT (database %s)", db.Name)
	}
	initiator, _ := cat.Service("Initiator")
	assert.Empty(t, cat.Services[initiator].Contracts, "a service without contracts can only initiate")
}

// Reference: spec ENT-11: EndDialog, Error and DialogTimer exist in every database; DLG-16:
// the DEFAULT message type and contract.
func TestENT11_SystemMessageTypesAndDefaultContractExist(t *testing.T) {
	cat, err := Compile(testInstances())
	require.NoError(t, err)
	for name, want := range map[string]MessageTypeID{
		MessageTypeDefault:     DefaultMessageType,
		MessageTypeEndDialog:   EndDialogMessageType,
		MessageTypeError:       ErrorMessageType,
		MessageTypeDialogTimer: DialogTimerMessageType,
	} {
		id, ok := cat.MessageType(name)
		if assert.True(t, ok, "message type %s", name) {
			assert.Equal(t, want, id, "message type %s", name)
			assert.Equal(t, name, cat.MessageTypes[id])
		}
	}
	id, ok := cat.Contract(ContractDefault)
	require.True(t, ok)
	assert.Equal(t, DefaultContract, id)
	assert.Equal(t, []ContractMessageInfo{{DefaultMessageType, SentByAny}}, cat.Contracts[id].Messages)

	// The system types cannot be sent with SEND: the broker sends them.
	for _, mt := range []MessageTypeID{EndDialogMessageType, ErrorMessageType, DialogTimerMessageType} {
		assert.False(t, cat.allows(DefaultContract, mt, true), "message type %s on DEFAULT", cat.MessageTypes[mt])
	}
}
