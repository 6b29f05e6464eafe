package tsql

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// withProcedure is base with WorkQueue activated by procedure P, whose body is body.
func withProcedure(body string) string {
	return base + "ALTER QUEUE WorkQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.P, MAX_QUEUE_READERS = 2)\nGO\n" +
		"CREATE PROCEDURE dbo.P\nAS\nBEGIN\n  SET NOCOUNT ON;\n" + body + "\nEND\nGO\n"
}

// programOf imports a design whose WorkQueue runs body, and returns its procedure P, the
// workload to Work, and the comments on the procedure.
func programOf(t *testing.T, body string) (scenarios.Procedure, scenarios.Workload, string) {
	t.Helper()
	return programWith(t, "", body)
}

// programWith is programOf with more statements before the procedure.
func programWith(t *testing.T, extra, body string) (scenarios.Procedure, scenarios.Workload, string) {
	t.Helper()
	d := imported(t, Options{}, "p.sql", extra+withProcedure(body))
	cfg := d.Scenario.Config
	var p scenarios.Procedure
	var comments string
	for i, x := range cfg.Procedures {
		if x.Name == "P" {
			p = x
			comments = strings.Join(d.Comments[index("procedures", i)], "\n")
		}
	}
	require.Equal(t, "P", p.Name, "procedures: %+v", cfg.Procedures)
	var w scenarios.Workload
	for _, x := range cfg.Workloads {
		if x.To == "Work" {
			w = x
		}
	}
	require.Equal(t, "Work", w.To)
	return p, w, comments
}

func index(list string, i int) string { return list + "[" + string(rune('0'+i)) + "]" }

// The loop of the Service Broker documentation's target: a reply and END CONVERSATION
// for the request, END CONVERSATION for EndDialog and Error. It becomes a RECEIVE TOP(1)
// loop with a 5 s TIMEOUT, and the workload's replies and life cycle.
func TestTheDocumentationsTargetLoopBecomesAReaderProgram(t *testing.T) {
	p, w, comments := programOf(t, `  DECLARE @h UNIQUEIDENTIFIER, @type SYSNAME, @body VARBINARY(MAX);
  WHILE (1 = 1)
  BEGIN
    BEGIN TRANSACTION;
    WAITFOR (
      RECEIVE TOP (1) @h = conversation_handle, @type = message_type_name, @body = message_body
      FROM dbo.WorkQueue
    ), TIMEOUT 5000;
    IF (@@ROWCOUNT = 0)
    BEGIN
      ROLLBACK TRANSACTION;
      BREAK;
    END
    IF @type = N'//s/Req'
    BEGIN
      SEND ON CONVERSATION @h MESSAGE TYPE [//s/Rep] (N'<done/>');
      END CONVERSATION @h;
    END
    ELSE IF @type IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog',
                      N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
      END CONVERSATION @h;
    COMMIT TRANSACTION;
  END`)
	assert.Equal(t, scenarios.Procedure{Name: "P", Mode: scenarios.ReceiveLoop, Top: 1, WaitFor: 5 * time.Second}, p)
	assert.True(t, w.Replies)
	assert.Equal(t, "//s/Rep", w.ReplyType)
	assert.Equal(t, scenarios.EndTargetAfterReply, w.End)
	assert.NotContains(t, comments, "Not understood", "the empty queue's ROLLBACK; BREAK is the loop's exit")
	assert.Empty(t, p.On, "END CONVERSATION on EndDialog and Error, IN (...), is the default")
}

// Each form of the loop: TOP from a variable, GET CONVERSATION GROUP, no WAITFOR, no
// TIMEOUT, WAITFOR DELAY as processing time, a reply without END, END without a reply.
func TestEachFormOfTheLoop(t *testing.T) {
	cases := []struct {
		name, body string
		want       scenarios.Procedure
		replies    bool
		end        scenarios.LifeCycle
		comment    string
	}{
		{"TOP from a variable", "DECLARE @batch INT = 50;\nWAITFOR (RECEIVE TOP (@batch) * FROM WorkQueue), TIMEOUT 250;\nCOMMIT;",
			scenarios.Procedure{Name: "P", Top: 50, WaitFor: 250 * time.Millisecond}, false, scenarios.EndInitiator, "no WHILE loop"},
		{"GET CONVERSATION GROUP", "WHILE 1 = 1 BEGIN\nBEGIN TRAN\nWAITFOR (GET CONVERSATION GROUP @g FROM WorkQueue), TIMEOUT 2000;\n" +
			"RECEIVE TOP (10) * FROM WorkQueue WHERE conversation_group_id = @g;\nEND CONVERSATION @h;\nCOMMIT\nEND",
			scenarios.Procedure{Name: "P", Mode: scenarios.GroupLoop, Top: 10, WaitFor: 2 * time.Second}, false, scenarios.EndTarget, "mode get-conversation-group"},
		{"no WAITFOR", "RECEIVE TOP (1) @h = conversation_handle FROM WorkQueue;\nSEND ON CONVERSATION @h MESSAGE TYPE [//s/Rep];\nCOMMIT;",
			scenarios.Procedure{Name: "P", Top: 1, WaitFor: time.Millisecond}, true, scenarios.EndInitiator, "RECEIVE without WAITFOR"},
		{"no TIMEOUT", "WAITFOR (RECEIVE TOP (1) * FROM WorkQueue);\nEND CONVERSATION @h;",
			scenarios.Procedure{Name: "P", Top: 1}, false, scenarios.EndTarget, "has no TIMEOUT"},
		{"WAITFOR DELAY", "WAITFOR (RECEIVE TOP (1) * FROM WorkQueue), TIMEOUT 1000;\nWAITFOR DELAY '00:00:00.050';\nEND CONVERSATION @h;",
			scenarios.Procedure{Name: "P", Top: 1, WaitFor: time.Second, ProcessingTime: sim.Fixed(50 * time.Millisecond)}, false, scenarios.EndTarget, "WAITFOR DELAY '00:00:00.050'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, w, comments := programOf(t, c.body)
			assert.Equal(t, c.want, p)
			assert.Equal(t, c.replies, w.Replies)
			assert.Equal(t, c.end, w.End)
			assert.Contains(t, comments, c.comment)
		})
	}
}

// A body that does more than reply and end keeps handlers: BEGIN DIALOG onward, a
// conversation timer and its DialogTimer, END CONVERSATION WITH ERROR.
func TestABodyThatDoesMoreKeepsItsHandlers(t *testing.T) {
	p, w, _ := programWith(t, "USE Shop\nCREATE QUEUE NextQueue\nCREATE SERVICE Next ON QUEUE NextQueue ([//s/C])\n", `WHILE 1 = 1 BEGIN
  BEGIN TRAN
  WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @type = message_type_name FROM WorkQueue), TIMEOUT 5000;
  IF @@ROWCOUNT = 0 BEGIN ROLLBACK; BREAK; END
  IF @type = N'//s/Req'
  BEGIN
    BEGIN DIALOG CONVERSATION @next FROM SERVICE [Work] TO SERVICE N'Next' ON CONTRACT [//s/C] WITH ENCRYPTION = OFF;
    SEND ON CONVERSATION @next MESSAGE TYPE [//s/Req] (@body);
    BEGIN CONVERSATION TIMER (@h) TIMEOUT = 30;
  END
  ELSE IF @type IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer', N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
    END CONVERSATION @h WITH ERROR = 50001 DESCRIPTION = 'too slow';
  COMMIT
END`)
	assert.Equal(t, scenarios.EndInitiator, w.End, "the workload keeps its default")
	require.Len(t, p.On, 3, "%+v", p.On)
	assert.Equal(t, scenarios.Handler{MessageType: "//s/Req", Do: []scenarios.Statement{
		{Kind: scenarios.StatementBeginDialog, ToServices: []string{"Next"}, Contract: "//s/C", MessageType: "//s/Req", Messages: 1},
		{Kind: scenarios.StatementTimer, Timeout: 30 * time.Second}}}, p.On[0])
	assert.Equal(t, scenarios.Handler{MessageType: "DialogTimer", Do: []scenarios.Statement{{Kind: scenarios.StatementEnd, ErrorCode: 50001}}}, p.On[1])
	assert.Equal(t, scenarios.Handler{MessageType: "Error", Do: []scenarios.Statement{{Kind: scenarios.StatementEnd, ErrorCode: 50001}}}, p.On[2], "IN (...) names both")
}

// A body that does not read its queue, or a procedure no script creates, becomes the
// reference program (G-7), with a comment saying what was not understood.
func TestAnUnrecognisedBodyBecomesTheReferenceProgram(t *testing.T) {
	p, _, comments := programOf(t, `DECLARE c CURSOR FOR SELECT id FROM dbo.Work;
OPEN c;
EXEC dbo.DoTheWork;
EXEC sp_executesql N'SELECT 1';`)
	assert.Equal(t, scenarios.Procedure{Name: "P", Top: 1, WaitFor: 5 * time.Second}, p)
	for _, want := range []string{"A reference program (G-7", "no RECEIVE or GET CONVERSATION GROUP", "a CURSOR at", "EXEC dbo.DoTheWork at", "dynamic SQL at"} {
		assert.Contains(t, comments, want)
	}
	d := imported(t, Options{}, "m.sql", base+"ALTER QUEUE WorkQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = Elsewhere, MAX_QUEUE_READERS = 1)\n")
	require.Len(t, d.Scenario.Config.Procedures, 1)
	assert.Equal(t, scenarios.Procedure{Name: "Elsewhere", Top: 1, WaitFor: 5 * time.Second}, d.Scenario.Config.Procedures[0])
	assert.Contains(t, strings.Join(d.Comments["procedures[0]"], " "), "no script creates the procedure Elsewhere")
}
