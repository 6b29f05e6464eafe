package tsql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// What a new user's scripts found (issue 17's review), each kept from coming back.

// A CATCH block is the error path: its END CONVERSATION WITH ERROR is no handler's; a
// message type held in a variable is compared as the type it holds, and its DECLARE
// compares nothing.
func TestACatchBlockAndTypeVariablesAreReadAsTheyMean(t *testing.T) {
	p, w, comments := programOf(t, `DECLARE @Req SYSNAME = N'//s/Req';
DECLARE @End NVARCHAR(256) = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog';
WHILE 1 = 1 BEGIN
  BEGIN TRY
    BEGIN TRAN
    WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name FROM WorkQueue), TIMEOUT 5000;
    IF @@ROWCOUNT = 0 BEGIN ROLLBACK; BREAK; END
    IF @t = @Req
      SEND ON CONVERSATION @h MESSAGE TYPE [//s/Rep];
    ELSE IF @t = @End
      END CONVERSATION @h;
    COMMIT
  END TRY
  BEGIN CATCH
    ROLLBACK;
    END CONVERSATION @h WITH ERROR = 50001 DESCRIPTION = 'failed';
    COMMIT;
  END CATCH
END`)
	assert.Empty(t, p.On, "%+v", p.On)
	assert.True(t, w.Replies, "the reply to @Req is the workload's")
	assert.Equal(t, "//s/Rep", w.ReplyType)
	assert.Contains(t, comments, "the CATCH block at")
}

// A handler that replies and does more keeps its handler, and the workload waits for the
// reply (else the target's SEND finds the initiator gone).
func TestAHandlerThatRepliesAndMoreStillMakesTheWorkloadWait(t *testing.T) {
	p, w, _ := programOf(t, `WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name FROM WorkQueue), TIMEOUT 5000;
IF @t = N'//s/Req' BEGIN
  SEND ON CONVERSATION @h MESSAGE TYPE [//s/Rep];
  BEGIN CONVERSATION TIMER (@h) TIMEOUT = 60;
END`)
	require.Len(t, p.On, 1)
	assert.True(t, w.Replies)
	assert.Equal(t, "//s/Rep", w.ReplyType)
}

// A SEND or END on a conversation the procedure neither received nor began is left out,
// with a comment; a program that would not validate loses its handlers, and the import
// still writes a scenario that loads.
func TestWhatAProgramCannotFollowIsLeftOutNotFatal(t *testing.T) {
	p, _, comments := programOf(t, `WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name FROM WorkQueue), TIMEOUT 5000;
IF @t = N'//s/Req' BEGIN
  SEND ON CONVERSATION @order MESSAGE TYPE [//s/Rep];
  BEGIN CONVERSATION TIMER (@h) TIMEOUT = 60;
END`)
	assert.Contains(t, comments, "SEND at ")
	assert.Equal(t, []scenarios.Handler{{MessageType: "//s/Req", Do: []scenarios.Statement{{Kind: scenarios.StatementTimer, Timeout: 60e9}}}}, p.On)

	p, _, comments = programOf(t, `WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name FROM WorkQueue), TIMEOUT 5000;
IF @t = N'//s/Req' BEGIN
  END CONVERSATION @h;
  SEND ON CONVERSATION @h MESSAGE TYPE [//s/Rep];
END`)
	assert.Empty(t, p.On)
	assert.Contains(t, comments, "do not make a valid program")
}

// A service that a procedure begins dialogs to gets no skeleton workload of its own, and
// its handler stays: the procedure's dialogs need it.
func TestAServiceAProcedureCallsKeepsItsHandler(t *testing.T) {
	d := imported(t, Options{}, "c.sql", base+`CREATE QUEUE StockQueue WITH ACTIVATION (PROCEDURE_NAME = Stock, MAX_QUEUE_READERS = 1)
CREATE SERVICE StockSvc ON QUEUE StockQueue ([//s/C])
ALTER QUEUE WorkQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = Order1, MAX_QUEUE_READERS = 1)
GO
CREATE PROCEDURE Order1 AS
WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name FROM WorkQueue), TIMEOUT 5000;
IF @t = N'//s/Req' BEGIN
  BEGIN DIALOG @s FROM SERVICE Work TO SERVICE 'StockSvc' ON CONTRACT [//s/C];
  SEND ON CONVERSATION @s MESSAGE TYPE [//s/Req];
END
GO
CREATE PROCEDURE Stock AS
WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name FROM StockQueue), TIMEOUT 5000;
IF @t = N'//s/Req' BEGIN SEND ON CONVERSATION @h MESSAGE TYPE [//s/Rep]; END CONVERSATION @h; END
`)
	cfg := d.Scenario.Config
	for _, w := range cfg.Workloads {
		assert.NotEqual(t, "StockSvc", w.To)
	}
	for _, p := range cfg.Procedures {
		if p.Name == "Stock" {
			assert.Len(t, p.On, 1, "the reply to Order1's dialogs")
		}
	}
}

// Addresses: an IP is its instance, never another IP's; a three-part queue name is in the
// database it names.
func TestIPAddressesAndThreePartNames(t *testing.T) {
	side := func(ip, db, other string) string {
		return ":CONNECT " + ip + "\nUSE " + db + "\nCREATE QUEUE Q\nCREATE SERVICE " + db + " ON QUEUE Q ([DEFAULT])\n" +
			"CREATE ROUTE R WITH SERVICE_NAME = '" + other + "', ADDRESS = 'TCP://" + map[string]string{"One": "10.0.0.5", "Two": "10.0.0.4"}[db] + ":4022'\nGO\n"
	}
	d := imported(t, Options{}, "ip.sql", side("10.0.0.4", "One", "Two")+side("10.0.0.5", "Two", "One"))
	cfg := d.Scenario.Config
	require.Len(t, cfg.Instances, 2)
	assert.Equal(t, "10.0.0.5", cfg.Instances[0].Databases[0].Routes[0].Address)
	assert.Equal(t, "10.0.0.4", cfg.Instances[1].Databases[0].Routes[0].Address)

	d = imported(t, Options{}, "q.sql", "USE Hub\nCREATE QUEUE [Archive].[dbo].[ArchiveQueue]\nGO\nUSE Archive\nCREATE SERVICE A ON QUEUE ArchiveQueue\n")
	assert.Equal(t, "ArchiveQueue", db(t, d, "Archive").Queues[0].Name)
}

// The scripts' own grammar: '=' where T-SQL wants it, GO with a block comment, CREATE OR
// ALTER PROCEDURE, an application's statements listed at their place, GO n at its GO.
func TestTheGrammarOfTheReviewsScripts(t *testing.T) {
	_, err := read(Options{}, "e.sql", "CREATE QUEUE Q WITH STATUS OFF")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "e.sql:1:28: CREATE QUEUE: want '='")

	d := imported(t, Options{}, "g.sql", base+"GO /* next */\nCREATE QUEUE Later\nGO 2\nCREATE OR ALTER PROCEDURE dbo.P AS RETURN\nGO\n"+
		"BEGIN CONVERSATION TIMER (@h) TIMEOUT = 5\n")
	var notes []string
	for _, n := range d.Notes {
		notes = append(notes, n.String())
	}
	joined := strings.Join(notes, "\n")
	assert.NotContains(t, joined, "CREATE OR", "CREATE OR ALTER is one statement")
	assert.NotContains(t, joined, "not modelled: GO")
	assert.Contains(t, joined, "g.sql:11:1: inferred: GO 2")
	assert.Contains(t, joined, "g.sql:14:1: not modelled: BEGIN CONVERSATION: an application's statement")
	assert.Len(t, db(t, d, "Shop").Queues, 3)

	_, err = read(Options{}, "empty.sql", "-- nothing here\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "empty.sql:0:0: no Service Broker statement")
}

// SB101 and SB110 reach T-SQL: a contract the initiator can send nothing on gets no
// skeleton workload (which would not load) but its diagnostic; poison handling OFF with a
// procedure that rolls back is SB110 at its POISON_MESSAGE_HANDLING.
func TestSB101AndSB110FromTSQL(t *testing.T) {
	got := diagnostics(t, "k.sql", "USE D\nCREATE MESSAGE TYPE M\nCREATE CONTRACT C (M SENT BY TARGET)\nCREATE QUEUE Q\nCREATE SERVICE S ON QUEUE Q (C)\nCREATE QUEUE Q2\nCREATE SERVICE S2 ON QUEUE Q2\n")
	assert.Contains(t, got, file.LintContractInitiatorSendsNothing+" k.sql:3:1", "%v", got)

	got = diagnostics(t, "p.sql", withProcedure(`WAITFOR (RECEIVE TOP (1) @h = conversation_handle FROM WorkQueue), TIMEOUT 5000;
BEGIN TRY COMMIT END TRY BEGIN CATCH ROLLBACK END CATCH`)+"ALTER QUEUE WorkQueue WITH POISON_MESSAGE_HANDLING (STATUS = OFF)\n")
	found := false
	for _, g := range got {
		found = found || strings.HasPrefix(g, file.LintPoisonHandling+" p.sql:")
	}
	assert.True(t, found, "%v", got)
}

// A script saved as UTF-16 (with its byte order mark) reads as the same script in UTF-8.
func TestAUTF16ScriptReads(t *testing.T) {
	dir := t.TempDir()
	units := utf16.Encode([]rune("\ufeff" + base))
	data := make([]byte, 0, 2*len(units))
	for _, u := range units {
		data = append(data, byte(u), byte(u>>8))
	}
	p := filepath.Join(dir, "s.sql")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	d, err := Import([]string{p}, Options{})
	require.NoError(t, err)
	assert.Equal(t, imported(t, Options{}, "s.sql", base).Scenario.Config.Instances, d.Scenario.Config.Instances)
}
