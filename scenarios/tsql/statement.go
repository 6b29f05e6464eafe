package tsql

import "strings"

// Statement is one statement of a batch: its verb (CREATE, ALTER, DROP, USE, ...), the
// kind of object it is about (QUEUE, SERVICE, MESSAGE TYPE, BROKER PRIORITY, ...; empty
// for a statement on none), the object's name as written (schema parts joined by dots),
// its tokens, and where it begins.
type Statement struct {
	Verb, Object, Name string
	Tokens             []Token
	Pos                Pos
}

// starters begin a statement when they come outside parentheses. SET is not one: it is
// part of ALTER DATABASE ... SET, and a statement SET (SET NOCOUNT ON) is kept with the one
// before it, which the reader reports as not modelled in any case.
var starters = map[string]bool{"CREATE": true, "ALTER": true, "DROP": true, "USE": true, "GRANT": true, "DENY": true,
	"REVOKE": true, "EXEC": true, "EXECUTE": true, "DECLARE": true, "PRINT": true, "IF": true, "INSERT": true,
	"UPDATE": true, "DELETE": true, "SELECT": true, "BEGIN": true, "RAISERROR": true, "THROW": true,
	"END": true, "SEND": true, "RECEIVE": true, "WAITFOR": true, "GET": true, "MOVE": true, "COMMIT": true,
	"ROLLBACK": true, "WHILE": true, "RETURN": true, "ENABLE": true, "DISABLE": true}

// objects are the kinds of object CREATE, ALTER and DROP name, longest first where one
// begins another.
var objects = [][]string{
	{"MESSAGE", "TYPE"}, {"BROKER", "PRIORITY"}, {"EVENT", "NOTIFICATION"}, {"REMOTE", "SERVICE", "BINDING"},
	{"MASTER", "KEY"}, {"CONTRACT"}, {"QUEUE"}, {"SERVICE"}, {"ROUTE"}, {"ENDPOINT"}, {"DATABASE"},
	{"PROCEDURE"}, {"PROC"}, {"CERTIFICATE"}, {"USER"}, {"LOGIN"}, {"TABLE"}, {"SCHEMA"}, {"ROLE"}, {"VIEW"},
	{"FUNCTION"}, {"TRIGGER"}, {"INDEX"},
}

// Statements cuts a batch's tokens into statements: at semicolons, and where a starter
// keyword comes outside parentheses. A CREATE or ALTER PROCEDURE runs to the end of its
// batch, as T-SQL has it: its body's statements are its own.
func Statements(toks []Token) []Statement {
	var out []Statement
	var cur []Token
	depth := 0
	body := false // inside a procedure's body: nothing ends it but the batch
	flush := func() {
		if len(cur) > 0 {
			out = append(out, classify(cur))
		}
		cur = nil
	}
	for _, t := range toks {
		switch {
		case body:
		case t.Kind == Punct && t.Value == ";" && depth == 0:
			flush()
			continue
		case t.Kind == Word && depth == 0 && len(cur) > 0 && starters[strings.ToUpper(t.Value)] && !continues(cur[len(cur)-1]):
			flush()
		}
		if t.Kind == Punct {
			switch t.Value {
			case "(":
				depth++
			case ")":
				depth = max(depth-1, 0)
			}
		}
		cur = append(cur, t)
		if !body && isProcedure(cur) {
			body = true
		}
	}
	flush()
	return out
}

// continues reports whether a starter after t belongs to t's statement: WITH ROLLBACK
// IMMEDIATE, GRANT SEND ON SERVICE::s, GRANT EXECUTE, a list's next permission.
func continues(t Token) bool {
	return t.Is("WITH") || t.Is("GRANT") || t.Is("DENY") || t.Is("REVOKE") || t.Is("OR") || (t.Kind == Punct && t.Value == ",")
}

// classify names a statement's verb, object and name.
func classify(toks []Token) Statement {
	s := Statement{Tokens: toks, Pos: toks[0].Pos}
	if toks[0].Kind != Word {
		return s
	}
	s.Verb = strings.ToUpper(toks[0].Value)
	rest := toks[1:]
	if s.Verb == "CREATE" && len(rest) >= 2 && rest[0].Is("OR") && rest[1].Is("ALTER") {
		rest = rest[2:] // CREATE OR ALTER
	}
	if s.Verb == "CREATE" || s.Verb == "ALTER" || s.Verb == "DROP" {
		for _, o := range objects {
			if len(rest) >= len(o) && matches(rest, o) {
				s.Object = strings.Join(o, " ")
				rest = rest[len(o):]
				break
			}
		}
	}
	if s.Verb == "DROP" && len(rest) >= 2 && rest[0].Is("IF") && rest[1].Is("EXISTS") {
		rest = rest[2:]
	}
	if s.Verb == "USE" || s.Object != "" {
		s.Name = name(rest)
	}
	return s
}

// isProcedure reports whether toks begin CREATE [OR ALTER] PROCEDURE or ALTER PROCEDURE.
func isProcedure(toks []Token) bool {
	i := 1
	if len(toks) > 3 && toks[0].Is("CREATE") && toks[1].Is("OR") && toks[2].Is("ALTER") {
		i = 3
	}
	return len(toks) > i && (toks[0].Is("CREATE") || toks[0].Is("ALTER")) && (toks[i].Is("PROCEDURE") || toks[i].Is("PROC"))
}

func matches(toks []Token, words []string) bool {
	for i, w := range words {
		if !toks[i].Is(w) {
			return false
		}
	}
	return true
}

// name reads a possibly dotted name (dbo.q, [dbo].[q]) at the start of toks.
func name(toks []Token) string {
	var parts []string
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.Kind != Word && t.Kind != Ident {
			break
		}
		parts = append(parts, t.Value)
		if i+1 < len(toks) && toks[i+1].Kind == Punct && toks[i+1].Value == "." {
			i++
			continue
		}
		break
	}
	return strings.Join(parts, ".")
}
