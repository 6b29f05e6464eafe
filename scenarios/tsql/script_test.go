package tsql

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A deployment script: SQLCMD variables, a :CONNECT, GO with a count, and a GO inside a
// block comment and a string, which end no batch.
func TestSplitReadsGoBatchesAndSqlcmdMode(t *testing.T) {
	src := `:setvar DB "Orders"
:setvar Svc //orders/Submit
USE [$(DB)];
GO
/* not a separator:
GO
*/
CREATE QUEUE dbo.q;
SELECT 'a
GO
b';
go 2
:CONNECT $(Server)
CREATE SERVICE [$(Svc)] ON QUEUE dbo.q;
:r other.sql
GO -- done
`
	s, err := Split("deploy.sql", src, map[string]string{"server": "SQL2", "DB": "Override"})
	require.NoError(t, err)
	require.Len(t, s.Batches, 3)
	assert.Equal(t, 1, s.Batches[0].Line, "the :setvar lines stay, empty, in the first batch")
	assert.Equal(t, "USE [Override];", strings.TrimSpace(s.Batches[0].Text()), "-var wins over :setvar")
	assert.Equal(t, 5, s.Batches[1].Line)
	assert.Equal(t, 2, s.Batches[1].Repeat)
	assert.Contains(t, s.Batches[1].Text(), "GO\nb'", "a GO inside a string is text")
	assert.Contains(t, s.Batches[1].Text(), "not a separator:\nGO\n*/", "a GO inside a comment is text")
	assert.Equal(t, "SQL2", s.Batches[2].Connect)
	assert.Contains(t, s.Batches[2].Text(), "CREATE SERVICE [//orders/Submit]")
	assert.Equal(t, 14, s.Batches[2].Line+strings.Count(s.Batches[2].Text()[:strings.Index(s.Batches[2].Text(), "CREATE")], "\n"),
		"lines keep their numbers across SQLCMD lines")
	require.Len(t, s.Directives, 1)
	assert.Equal(t, Pos{"deploy.sql", 15, 1}, s.Directives[0].Pos)
}

func TestSplitErrorsHaveTheirPlace(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"SELECT 1\nCREATE QUEUE [$(Missing)]", "f.sql:2:15: SQLCMD variable $(Missing) is not defined"},
		{":setvar\n", "f.sql:1:1: :setvar needs a variable name"},
		{"SELECT 1\nGO 0\n", "f.sql:2:1: GO 0: the count must be at least 1"},
	} {
		_, err := Split("f.sql", c.src, nil)
		require.Error(t, err, c.src)
		assert.Contains(t, err.Error(), c.want)
	}
}

// Tokens: keywords in any case, bracketed and double-quoted identifiers with their
// escapes, N'...' strings with doubled quotes, numbers, variables, nested block comments,
// line comments; places in runes.
func TestTokensOfABatch(t *testing.T) {
	b := Batch{File: "f.sql", Line: 10, Lines: []string{
		`create QUEUE [my]]q] WITH STATUS = ON, -- a comment`,
		`  ACTIVATION (PROCEDURE_NAME = "dbo"."p", MAX_QUEUE_READERS = 5) /* a /* nested */ comment */`,
		`SEND ON CONVERSATION @h MESSAGE TYPE [//m] (N'é''s'); SELECT 1.5`,
	}}
	toks, err := Tokens(b)
	require.NoError(t, err)
	var got []string
	for _, tk := range toks {
		got = append(got, tk.Kind.String()+":"+tk.Value)
	}
	assert.Equal(t, []string{"word:create", "word:QUEUE", "identifier:my]q", "word:WITH", "word:STATUS", "punctuation:=", "word:ON",
		"punctuation:,", "word:ACTIVATION", "punctuation:(", "word:PROCEDURE_NAME", "punctuation:=", "identifier:dbo",
		"punctuation:.", "identifier:p", "punctuation:,", "word:MAX_QUEUE_READERS", "punctuation:=", "number:5", "punctuation:)",
		"word:SEND", "word:ON", "word:CONVERSATION", "variable:@h", "word:MESSAGE", "word:TYPE", "identifier://m",
		"punctuation:(", "string:é's", "punctuation:)", "punctuation:;", "word:SELECT", "number:1.5"}, got)
	assert.True(t, toks[1].Is("queue"))
	assert.Equal(t, Pos{"f.sql", 10, 14}, toks[2].Pos)
	assert.Equal(t, Pos{"f.sql", 12, 45}, toks[28].Pos, "an N'' string is where its N is")
	assert.Equal(t, Pos{"f.sql", 12, 52}, toks[29].Pos, "columns count runes: é is one")
}

func TestTokensOfAnOpenStringOrCommentFailWhereItBegan(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"SELECT 'abc", "def"}, "f.sql:1:8: this string is never closed"},
		{[]string{"CREATE QUEUE [q"}, "f.sql:1:14: this identifier is never closed"},
		{[]string{"/* a /* b */", "c"}, "f.sql:1:1: this comment is never closed"},
	} {
		_, err := Tokens(Batch{File: "f.sql", Line: 1, Lines: c.lines})
		require.Error(t, err)
		assert.Equal(t, c.want, err.Error())
	}
}

// FuzzReader: on any input, Split, Tokens and Statements end without a panic, and every token lies
// inside its batch.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{"CREATE QUEUE q\nGO\n", ":setvar a b\nSELECT $(a)\nGO 3", "/* /* */ */ N'x''y' [a]]b] \"c\"\"d\"",
		"SELECT '\nGO\n'", ":connect x\n:r y", "@@x @y #t 1.2.3 .5",
		base + "CREATE QUEUE A WITH ACTIVATION (PROCEDURE_NAME = P, MAX_QUEUE_READERS = 1)\nGO\nCREATE PROCEDURE P AS WAITFOR (RECEIVE TOP(1) * FROM A), TIMEOUT 5\n",
		"CREATE ROUTE R WITH ADDRESS = 'TCP://x:1'\nCREATE ENDPOINT E AS TCP (LISTENER_PORT = 1) FOR SERVICE_BROKER (MESSAGE_FORWARDING = ENABLED)",
		"CREATE BROKER PRIORITY P FOR CONVERSATION SET (PRIORITY_LEVEL = 3)\nALTER QUEUE Q WITH ACTIVATION (DROP)"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if d, err := Read([]Source{{"fuzz.sql", src}}, Options{}); err == nil {
			if _, err := d.YAML(); err != nil {
				t.Fatalf("an import that reads writes a scenario that does not load: %v", err)
			}
		}
		s, err := Split("fuzz.sql", src, map[string]string{"A": "1"})
		if err != nil {
			return
		}
		for _, b := range s.Batches {
			toks, _ := Tokens(b)
			for _, st := range Statements(toks) {
				if len(st.Tokens) == 0 {
					t.Fatalf("an empty statement at %v", st.Pos)
				}
			}
			for _, tk := range toks {
				if tk.Pos.Line < b.Line || tk.Pos.Line >= b.Line+len(b.Lines) || tk.Pos.Col < 1 ||
					tk.Pos.Col > utf8.RuneCountInString(b.Lines[tk.Pos.Line-b.Line])+1 {
					t.Fatalf("token %+v outside its batch", tk)
				}
			}
		}
	})
}
