package tsql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// imported reads scripts (name, text, name, text, ...) with opts and fails the test on
// an error.
func imported(t *testing.T, opts Options, files ...string) *Design {
	t.Helper()
	d, err := read(opts, files...)
	require.NoError(t, err)
	out, err := d.YAML()
	require.NoError(t, err, "the imported scenario loads")
	require.NotEmpty(t, out)
	return d
}

func read(opts Options, files ...string) (*Design, error) {
	var srcs []Source
	for i := 0; i+1 < len(files); i += 2 {
		srcs = append(srcs, Source{Name: files[i], Text: files[i+1]})
	}
	return Read(srcs, opts)
}

// db returns the one database called name.
func db(t *testing.T, d *Design, name string) model.Database {
	t.Helper()
	for _, in := range d.Scenario.Config.Instances {
		for _, x := range in.Databases {
			if x.Name == name {
				return x
			}
		}
	}
	t.Fatalf("no database %s", name)
	return model.Database{}
}

// base is a request/reply design in one database that the statement tests add to.
const base = `USE Shop
CREATE MESSAGE TYPE [//s/Req] VALIDATION = NONE
CREATE MESSAGE TYPE [//s/Rep]
CREATE CONTRACT [//s/C] ([//s/Req] SENT BY INITIATOR, [//s/Rep] SENT BY TARGET)
CREATE QUEUE dbo.ClientQueue
CREATE SERVICE Client ON QUEUE dbo.ClientQueue
CREATE QUEUE dbo.WorkQueue
CREATE SERVICE Work ON QUEUE [dbo].[WorkQueue] ([//s/C])
`

// Each CREATE statement and option gives the catalog object it says.
func TestEachStatementAndOptionMakesItsObject(t *testing.T) {
	d := imported(t, Options{}, "s.sql", base+`
CREATE MESSAGE TYPE A VALIDATION = EMPTY
CREATE MESSAGE TYPE B VALIDATION = WELL_FORMED_XML
CREATE MESSAGE TYPE [C] AUTHORIZATION dbo VALIDATION = VALID_XML WITH SCHEMA COLLECTION dbo.Schemas
CREATE CONTRACT AnyC (A SENT BY ANY, [DEFAULT] SENT BY ANY)
CREATE QUEUE Off WITH STATUS = OFF, RETENTION = ON, POISON_MESSAGE_HANDLING (STATUS = OFF) ON [DEFAULT]
CREATE QUEUE Act WITH ACTIVATION (PROCEDURE_NAME = [dbo].[P], MAX_QUEUE_READERS = 3, EXECUTE AS OWNER)
CREATE QUEUE ActOff WITH ACTIVATION (STATUS = OFF, PROCEDURE_NAME = P, MAX_QUEUE_READERS = 1, EXECUTE AS 'someone')
CREATE SERVICE Two ON QUEUE Off ([//s/C], AnyC)
CREATE BROKER PRIORITY High FOR CONVERSATION SET (CONTRACT_NAME = [//s/C], LOCAL_SERVICE_NAME = Work, REMOTE_SERVICE_NAME = N'Client', PRIORITY_LEVEL = 9)
CREATE BROKER PRIORITY Low FOR CONVERSATION SET (CONTRACT_NAME = ANY, LOCAL_SERVICE_NAME = Client, PRIORITY_LEVEL = DEFAULT)
CREATE BROKER PRIORITY Bare FOR CONVERSATION
ALTER DATABASE Shop SET HONOR_BROKER_PRIORITY ON
GO
CREATE PROCEDURE dbo.P AS
  WAITFOR (RECEIVE TOP (1) * FROM Act), TIMEOUT 1000;
GO
`)
	x := db(t, d, "Shop")
	assert.Equal(t, []model.MessageType{{Name: "//s/Req"}, {Name: "//s/Rep"}, {Name: "A"}, {Name: "B"}, {Name: "C"}}, x.MessageTypes)
	assert.Equal(t, model.Contract{Name: "AnyC", Messages: []model.ContractMessage{{MessageType: "A", SentBy: model.SentByAny},
		{MessageType: "DEFAULT", SentBy: model.SentByAny}}}, x.Contracts[1])
	assert.Equal(t, model.Queue{Name: "Off", Status: model.QueueOff, Retention: true, PoisonMessageHandlingOff: true}, x.Queues[2])
	assert.Equal(t, model.Activation{Status: true, Procedure: "P", MaxQueueReaders: 3}, x.Queues[3].Activation)
	assert.Equal(t, model.Activation{Status: false, Procedure: "P", MaxQueueReaders: 1}, x.Queues[4].Activation)
	assert.Equal(t, model.Service{Name: "Work", Queue: "WorkQueue", Contracts: []string{"//s/C"}}, x.Services[1])
	assert.Equal(t, model.Service{Name: "Two", Queue: "Off", Contracts: []string{"//s/C", "AnyC"}}, x.Services[2])
	assert.Equal(t, []model.BrokerPriority{
		{Name: "High", Contract: "//s/C", LocalService: "Work", RemoteService: "Client", Level: 9},
		{Name: "Low", LocalService: "Client"}, {Name: "Bare"}}, x.Priorities)
	assert.True(t, x.HonorBrokerPriority)
	require.Len(t, d.Scenario.Config.Procedures, 1)
	assert.Equal(t, time.Second, d.Scenario.Config.Procedures[0].WaitFor)
	var notes []string
	for _, n := range d.Notes {
		if n.Kind == NotModelled {
			notes = append(notes, n.Message)
		}
	}
	assert.Len(t, notes, 8, "four VALIDATIONs (one with its schema collection), an AUTHORIZATION, ON [DEFAULT] and two EXECUTE AS are listed: %q", notes)
}

// ALTER changes only what it names; DROP removes; each ALTER QUEUE ... ACTIVATION form.
func TestAlterAndDropChangeOnlyWhatTheyName(t *testing.T) {
	d := imported(t, Options{}, "s.sql", base+`
CREATE QUEUE Q1 WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = P, MAX_QUEUE_READERS = 2)
CREATE QUEUE Q2 WITH ACTIVATION (PROCEDURE_NAME = P, MAX_QUEUE_READERS = 2)
CREATE QUEUE Q3 WITH ACTIVATION (PROCEDURE_NAME = P, MAX_QUEUE_READERS = 2)
CREATE QUEUE Q4
CREATE QUEUE Gone
ALTER QUEUE Q1 WITH ACTIVATION (MAX_QUEUE_READERS = 5)
ALTER QUEUE Q2 WITH ACTIVATION (STATUS = OFF)
ALTER QUEUE Q3 WITH ACTIVATION (DROP)
ALTER QUEUE Q4 WITH STATUS = OFF, RETENTION = ON, ACTIVATION (PROCEDURE_NAME = dbo.P, MAX_QUEUE_READERS = 1, EXECUTE AS SELF)
ALTER QUEUE dbo.WorkQueue WITH POISON_MESSAGE_HANDLING (STATUS = OFF)
ALTER QUEUE Q4 REBUILD
DROP QUEUE Gone
CREATE SERVICE S ON QUEUE Q1 ([//s/C])
ALTER SERVICE S ON QUEUE Q2 (ADD CONTRACT [DEFAULT], DROP CONTRACT [//s/C])
CREATE SERVICE Gone ON QUEUE Q1
DROP SERVICE Gone
ALTER MESSAGE TYPE [//s/Rep] VALIDATION = EMPTY
CREATE MESSAGE TYPE Extra
DROP MESSAGE TYPE Extra
CREATE CONTRACT Extra (Extra SENT BY ANY)
DROP CONTRACT Extra
CREATE BROKER PRIORITY P1 FOR CONVERSATION SET (PRIORITY_LEVEL = 3)
ALTER BROKER PRIORITY P1 FOR CONVERSATION SET (LOCAL_SERVICE_NAME = Work)
CREATE BROKER PRIORITY P2 FOR CONVERSATION SET (PRIORITY_LEVEL = 3)
DROP BROKER PRIORITY P2
ALTER DATABASE Shop SET HONOR_BROKER_PRIORITY ON
ALTER DATABASE Shop SET HONOR_BROKER_PRIORITY OFF WITH ROLLBACK IMMEDIATE
GO
CREATE OR ALTER PROCEDURE dbo.P AS
  WAITFOR (RECEIVE * FROM Q1), TIMEOUT 100;
`)
	x := db(t, d, "Shop")
	q := map[string]model.Queue{}
	for _, v := range x.Queues {
		q[v.Name] = v
	}
	assert.Equal(t, model.Activation{Status: true, Procedure: "P", MaxQueueReaders: 5}, q["Q1"].Activation, "ALTER keeps what it does not name")
	assert.Equal(t, model.Activation{Status: false, Procedure: "P", MaxQueueReaders: 2}, q["Q2"].Activation)
	assert.Equal(t, model.Activation{}, q["Q3"].Activation, "ACTIVATION (DROP)")
	assert.Equal(t, model.Queue{Name: "Q4", Status: model.QueueOff, Retention: true,
		Activation: model.Activation{Status: true, Procedure: "P", MaxQueueReaders: 1}}, q["Q4"])
	assert.True(t, q["WorkQueue"].PoisonMessageHandlingOff)
	assert.NotContains(t, q, "Gone")
	var s model.Service
	for _, v := range x.Services {
		assert.NotEqual(t, "Gone", v.Name)
		if v.Name == "S" {
			s = v
		}
	}
	assert.Equal(t, model.Service{Name: "S", Queue: "Q2", Contracts: []string{"DEFAULT"}}, s)
	assert.Len(t, x.MessageTypes, 2)
	assert.Len(t, x.Contracts, 1)
	assert.Equal(t, []model.BrokerPriority{{Name: "P1", LocalService: "Work", Level: 3}}, x.Priorities)
	assert.False(t, x.HonorBrokerPriority, "the last ALTER DATABASE wins")
}

// A mistake in a Service Broker statement is an error at its line and column; every
// statement with one is reported, not only the first.
func TestASyntaxErrorInAServiceBrokerStatementHasItsPosition(t *testing.T) {
	cases := []struct{ src, at, msg string }{
		{"CREATE CONTRACT K (A SENT INITIATOR)", "e.sql:1:27", "want SENT BY"},
		{"CREATE CONTRACT K (A SENT BY NOBODY)", "e.sql:1:30", "want INITIATOR, TARGET or ANY"},
		{"CREATE CONTRACT K A SENT BY ANY", "e.sql:1:19", "want '('"},
		{"CREATE QUEUE Q WITH STATUS = MAYBE", "e.sql:1:30", "want ON or OFF"},
		{"CREATE QUEUE Q WITH SPEED = 3", "e.sql:1:21", "want STATUS, RETENTION, ACTIVATION or POISON_MESSAGE_HANDLING"},
		{"CREATE QUEUE Q WITH ACTIVATION (MAX_QUEUE_READERS = many)", "e.sql:1:53", "MAX_QUEUE_READERS, a number"},
		{"CREATE QUEUE Q WITH ACTIVATION (PROCEDURE_NAME = P", "e.sql:1:51", "want ')'"},
		{"CREATE QUEUE Q WITH\n  ACTIVATION (LOUDNESS = 3)", "e.sql:2:15", "ACTIVATION: want STATUS"},
		{"CREATE SERVICE S ON Q", "e.sql:1:21", "want ON QUEUE"},
		{"CREATE SERVICE S ON QUEUE Q (ADD CONTRACT K)", "e.sql:1:34", "want ')', found 'CONTRACT'"},
		{"CREATE ROUTE R WITH SERVICE_NAME = 'S'", "e.sql:1:1", "ADDRESS is required"},
		{"CREATE ROUTE R WITH SPEED = 1", "e.sql:1:21", "want SERVICE_NAME"},
		{"CREATE ROUTE R WITH LIFETIME = 'long', ADDRESS = 'LOCAL'", "e.sql:1:32", "LIFETIME, a number"},
		{"CREATE BROKER PRIORITY P FOR CONVERSATION SET (PRIORITY_LEVEL = 11)", "e.sql:1:65", "PRIORITY_LEVEL 11 is outside 1..10"},
		{"CREATE BROKER PRIORITY P FOR DIALOG", "e.sql:1:30", "want FOR CONVERSATION"},
		{"CREATE MESSAGE TYPE M VALIDATION = JSON", "e.sql:1:36", "want NONE, EMPTY"},
		{"CREATE MESSAGE TYPE", "e.sql:1:20", "want a message type name"},
		{"CREATE ENDPOINT E AS TCP (LISTENER_PORT = 4022) FOR SERVICE_BROKER (MESSAGE_FORWARDING = MAYBE)", "e.sql:1:90", "want ENABLED or DISABLED"},
		{"CREATE EVENT NOTIFICATION N ON QUEUE Q FOR QUEUE_ACTIVATION TO SERVICE 'S'", "e.sql:1:75", "want ','"},
		{"ALTER CONTRACT K (A SENT BY ANY)", "e.sql:1:1", "T-SQL has no such statement"},
		{"CREATE QUEUE Q\nCREATE QUEUE q", "e.sql:2:14", `"q" already exists (e.sql:1:1)`},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			_, err := read(Options{}, "e.sql", c.src)
			require.Error(t, err)
			var e *Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Equal(t, c.at, e.Pos.String(), "%v", err)
			assert.Contains(t, e.Msg, c.msg)
		})
	}
	_, err := read(Options{}, "e.sql", "CREATE QUEUE Q WITH STATUS = MAYBE\nCREATE CONTRACT K A\nCREATE QUEUE Fine")
	var es Errors
	require.True(t, errors.As(err, &es))
	assert.Len(t, es, 2, "both mistakes: %v", err)
}

// A catalog mistake the model finds (a service on a queue no script creates) is reported
// at the statement that made the object it names.
func TestACatalogMistakeIsReportedAtItsStatement(t *testing.T) {
	_, err := read(Options{}, "c.sql", "USE Shop\nCREATE QUEUE Q\n  CREATE SERVICE S ON QUEUE Missing")
	require.Error(t, err)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "c.sql:3:3", e.Pos.String(), "%v", err)
	assert.Contains(t, e.Msg, `"Missing"`)
}

// Statements the scenario has no place for are listed with their places, never dropped.
func TestUnmodelledStatementsAreListedWithTheirPlaces(t *testing.T) {
	d := imported(t, Options{}, "u.sql", base+`CREATE CERTIFICATE Cert WITH SUBJECT = 'x'
CREATE USER U WITHOUT LOGIN
GRANT SEND ON SERVICE::[Work] TO U
CREATE REMOTE SERVICE BINDING B TO SERVICE 'Work' WITH USER = U
CREATE TABLE dbo.T (id INT)
IF NOT EXISTS (SELECT * FROM sys.service_queues WHERE name = 'X')
  CREATE QUEUE X
:on error exit
`)
	var got []string
	for _, n := range d.Notes {
		got = append(got, n.Pos.String()+" "+n.Kind.String()+" "+strings.SplitN(n.Message, " (", 2)[0])
	}
	for _, want := range []string{"u.sql:9:1 not modelled CREATE CERTIFICATE Cert", "u.sql:10:1 not modelled CREATE USER U",
		"u.sql:11:1 not modelled GRANT", "u.sql:12:1 not modelled CREATE REMOTE SERVICE BINDING B",
		"u.sql:13:1 not modelled CREATE TABLE dbo.T", "u.sql:14:1 control flow IF: control flow, not modelled: the DDL it guards is read as if it ran",
		"u.sql:16:1 not modelled SQLCMD :on error: not acted on"} {
		assert.Contains(t, got, want)
	}
	assert.Len(t, db(t, d, "Shop").Queues, 3, "the guarded CREATE QUEUE is read")
	out, err := d.YAML()
	require.NoError(t, err)
	assert.Contains(t, string(out), "# u.sql:9:1: CREATE CERTIFICATE Cert (security")
}

// Each object's place in the scripts is its place in the scenario, for lint and errors.
func TestObjectsKeepTheirPlaceInTheScripts(t *testing.T) {
	d := imported(t, Options{}, "p.sql", base+"CREATE QUEUE A WITH STATUS = ON,\n  ACTIVATION (PROCEDURE_NAME = P, MAX_QUEUE_READERS = 0)\nGO\nCREATE PROCEDURE P AS RECEIVE * FROM A\n")
	places := d.Scenario.Places
	assert.Equal(t, 5, places["instances[0].databases[0].queues[0]"].Line)
	assert.Equal(t, 9, places["instances[0].databases[0].queues[2]"].Line)
	p := places["instances[0].databases[0].queues[2].activation.max_queue_readers"]
	assert.Equal(t, [2]int{10, 35}, [2]int{p.Line, p.Column})
	assert.Equal(t, "p.sql", p.File)
	assert.Equal(t, 8, places["instances[0].databases[0].services[1]"].Line)
	assert.Equal(t, 12, places["procedures[0]"].Line)
}

// :CONNECT and -map put databases on instances; msdb's routes go to their instance;
// addresses become instances by host name, -map, or a local host's endpoint port.
func TestInstancesComeFromConnectAndMap(t *testing.T) {
	a := `:CONNECT alpha.example.com
USE Orders
CREATE QUEUE Q
CREATE SERVICE Orders ON QUEUE Q
CREATE ROUTE ToStock WITH SERVICE_NAME = 'Stock', ADDRESS = 'TCP://beta.example.com:4022'
GO
USE msdb
CREATE ROUTE Back WITH SERVICE_NAME = 'Orders', ADDRESS = 'LOCAL'
CREATE ENDPOINT SB STATE = STARTED AS TCP (LISTENER_PORT = 4022) FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS, MESSAGE_FORWARDING = ENABLED, MESSAGE_FORWARD_SIZE = 20)
`
	b := `:CONNECT beta
USE Stock
CREATE QUEUE Q
CREATE SERVICE Stock ON QUEUE Q ([DEFAULT])
CREATE ROUTE ToOrders WITH SERVICE_NAME = 'Orders', BROKER_INSTANCE = 'B6A0F9C4-0000-4000-8000-000000000001', ADDRESS = 'TCP://alpha:4022'
`
	d := imported(t, Options{}, "a.sql", a, "b.sql", b)
	cfg := d.Scenario.Config
	require.Len(t, cfg.Instances, 2)
	alpha, beta := cfg.Instances[0], cfg.Instances[1]
	assert.Equal(t, "alpha.example.com", alpha.Name)
	assert.Equal(t, "beta", beta.Name)
	assert.Equal(t, "beta", alpha.Databases[0].Routes[0].Address, "TCP://beta.example.com:4022 is beta")
	assert.Equal(t, []model.Route{{Name: "Back", ServiceName: "Orders", Address: "LOCAL"}}, alpha.Routes)
	assert.Equal(t, model.Forwarding{Enabled: true, MaxBytes: 20 << 20}, alpha.Forwarding)
	assert.Equal(t, "B6A0F9C4-0000-4000-8000-000000000001", alpha.Databases[0].BrokerInstance,
		"the GUID a route names is the database's that has the service")
	require.Len(t, cfg.Links, 1)
	assert.Equal(t, [2]string{"alpha.example.com", "beta"}, [2]string{cfg.Links[0].A, cfg.Links[0].B})
	require.Len(t, cfg.Workloads, 1)
	assert.Equal(t, scenarios.Workload{Name: "to Stock", From: "Orders", To: "Stock", Dialogs: SkeletonDialogs,
		Interarrival: cfg.Workloads[0].Interarrival, Messages: 1, Size: scenarios.FixedSize(SkeletonSize)}, cfg.Workloads[0])

	// -map wins over :CONNECT; one host with two ports is told apart by the endpoints.
	local := func(port, db, other, otherPort string) string {
		return "USE " + db + "\nCREATE QUEUE Q\nCREATE SERVICE " + db + " ON QUEUE Q ([DEFAULT])\n" +
			"CREATE ROUTE R WITH SERVICE_NAME = '" + other + "', ADDRESS = 'TCP://localhost:" + otherPort + "'\n" +
			"CREATE ENDPOINT E AS TCP (LISTENER_PORT = " + port + ") FOR SERVICE_BROKER\n"
	}
	d = imported(t, Options{Map: map[string]string{"One": "First", "Two": "Second"}},
		"1.sql", ":CONNECT ignored\n"+local("4022", "One", "Two", "4023"), "2.sql", local("4023", "Two", "One", "4022"))
	cfg = d.Scenario.Config
	require.Len(t, cfg.Instances, 2)
	assert.Equal(t, "First", cfg.Instances[0].Name)
	assert.Equal(t, "Second", cfg.Instances[0].Databases[0].Routes[0].Address)
	assert.Equal(t, "First", cfg.Instances[1].Databases[0].Routes[0].Address)

	// An address no instance has leaves the route out, with a warning naming -map.
	d = imported(t, Options{}, "w.sql", base+"CREATE ROUTE Far WITH SERVICE_NAME = 'X', ADDRESS = 'TCP://elsewhere:4022'\n")
	assert.Empty(t, db(t, d, "Shop").Routes)
	var warned bool
	for _, n := range d.Notes {
		warned = warned || (n.Kind == Warning && n.Pos.Line == 9 && n.ID == "SB104" && strings.Contains(n.Fix, "-map TCP://elsewhere:4022=INSTANCE"))
	}
	assert.True(t, warned, "%v", d.Notes)
	d = imported(t, Options{Map: map[string]string{"tcp://elsewhere:4022": "Far"}}, "w.sql",
		base+"CREATE ROUTE Far WITH SERVICE_NAME = 'X', ADDRESS = 'TCP://elsewhere:4022'\n")
	assert.Equal(t, "Far", db(t, d, "Shop").Routes[0].Address)
}

// SQLCMD variables come from :setvar, and -var wins.
func TestSqlcmdVariablesNameTheDatabase(t *testing.T) {
	src := ":setvar Db Shop\nUSE [$(Db)]\nCREATE QUEUE Q\nCREATE SERVICE S ON QUEUE Q\n"
	d := imported(t, Options{}, "v.sql", src)
	assert.Equal(t, "Shop", d.Scenario.Config.Instances[0].Databases[0].Name)
	d = imported(t, Options{Vars: map[string]string{"db": "Other"}}, "v.sql", src)
	assert.Equal(t, "Other", d.Scenario.Config.Instances[0].Databases[0].Name)
	d = imported(t, Options{Database: "Proj"}, "v.sql", "CREATE QUEUE Q\nCREATE SERVICE S ON QUEUE Q\n")
	assert.Equal(t, "Proj", d.Scenario.Config.Instances[0].Databases[0].Name, "the statements before any USE")
	assert.Equal(t, DefaultInstance, d.Scenario.Config.Instances[0].Name)
}

// CREATE EVENT NOTIFICATION ... FOR QUEUE_ACTIVATION becomes the catalog's notification
// and an external activator with a reference program.
func TestAnEventNotificationBecomesAnExternalActivator(t *testing.T) {
	d := imported(t, Options{}, "n.sql", base+`CREATE QUEUE NotifyQueue
CREATE SERVICE Notify ON QUEUE NotifyQueue ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification])
CREATE EVENT NOTIFICATION Wake ON QUEUE dbo.WorkQueue FOR QUEUE_ACTIVATION TO SERVICE 'Notify', 'current database'
CREATE EVENT NOTIFICATION Other ON DATABASE FOR CREATE_TABLE TO SERVICE 'Notify', 'current database'
`)
	x := db(t, d, "Shop")
	assert.Equal(t, []model.EventNotification{{Name: "Wake", Queue: "WorkQueue", Service: "Notify"}}, x.EventNotifications)
	cfg := d.Scenario.Config
	require.Len(t, cfg.ExternalActivators, 1)
	assert.Equal(t, "NotifyQueue", cfg.ExternalActivators[0].Queue)
	assert.Equal(t, "WorkQueue", cfg.ExternalActivators[0].Target)
	for _, w := range cfg.Workloads {
		assert.NotEqual(t, "Notify", w.To, "no workload to the notification service")
	}
}

// A byte order mark and CRLF line ends, as Windows editors write scripts, change nothing.
func TestAByteOrderMarkAndCRLFChangeNothing(t *testing.T) {
	plain := imported(t, Options{}, "s.sql", base)
	windows := imported(t, Options{}, "s.sql", "\ufeff"+strings.ReplaceAll(base, "\n", "\r\n"))
	assert.Equal(t, plain.Scenario.Config, windows.Scenario.Config)
	assert.Equal(t, plain.Scenario.Places, windows.Scenario.Places, "the same lines and columns")
}
