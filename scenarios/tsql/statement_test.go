package tsql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func statementsOf(t *testing.T, src string) []Statement {
	t.Helper()
	s, err := Split("f.sql", src, nil)
	require.NoError(t, err)
	var out []Statement
	for _, b := range s.Batches {
		toks, err := Tokens(b)
		require.NoError(t, err)
		out = append(out, Statements(toks)...)
	}
	return out
}

// Statements end at semicolons or where a statement keyword begins outside parentheses;
// ALTER DATABASE ... SET stays one statement, EXECUTE AS inside ACTIVATION (...) does not
// begin one, and a procedure keeps its body to the end of its batch.
func TestStatementsOfADeploymentScript(t *testing.T) {
	got := statementsOf(t, `USE [Orders]
ALTER DATABASE Orders SET ENABLE_BROKER
CREATE MESSAGE TYPE [//orders/Submit] VALIDATION = WELL_FORMED_XML;
create contract [//orders/Contract] ([//orders/Submit] SENT BY INITIATOR)
CREATE QUEUE dbo.OrderQueue WITH STATUS = ON,
  ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.Process, MAX_QUEUE_READERS = 4, EXECUTE AS OWNER)
CREATE SERVICE [//orders/Service] ON QUEUE [dbo].[OrderQueue] ([//orders/Contract])
CREATE BROKER PRIORITY High FOR CONVERSATION SET (PRIORITY_LEVEL = 8)
GO
CREATE PROCEDURE dbo.Process AS
BEGIN
  DECLARE @h UNIQUEIDENTIFIER;
  WAITFOR (RECEIVE TOP (1) @h = conversation_handle FROM dbo.OrderQueue), TIMEOUT 5000;
  END CONVERSATION @h;
END
GO
DROP ROUTE OldRoute
`)
	var summary []string
	for _, s := range got {
		summary = append(summary, s.Verb+"|"+s.Object+"|"+s.Name)
	}
	assert.Equal(t, []string{"USE||Orders", "ALTER|DATABASE|Orders", "CREATE|MESSAGE TYPE|//orders/Submit",
		"CREATE|CONTRACT|//orders/Contract", "CREATE|QUEUE|dbo.OrderQueue", "CREATE|SERVICE|//orders/Service",
		"CREATE|BROKER PRIORITY|High", "CREATE|PROCEDURE|dbo.Process", "DROP|ROUTE|OldRoute"}, summary)
	assert.Equal(t, Pos{"f.sql", 5, 1}, got[4].Pos)
	assert.True(t, got[4].Tokens[len(got[4].Tokens)-1].Value == ")", "the queue's ACTIVATION clause is its own")
	assert.Greater(t, len(got[7].Tokens), 20, "the procedure keeps its body")
}
