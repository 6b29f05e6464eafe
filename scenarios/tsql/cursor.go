package tsql

import (
	"strconv"
	"strings"
)

// cursor reads a statement's tokens from left to right. Its methods that expect something
// return an *Error at the token where it is missing; at the end of the statement that is
// the place just after the last token.
type cursor struct {
	toks []Token
	i    int
	stmt string // "CREATE QUEUE", for the errors
}

func newCursor(s Statement) *cursor {
	return &cursor{toks: s.Tokens, stmt: strings.TrimSpace(s.Verb + " " + s.Object)}
}

func (c *cursor) done() bool { return c.i >= len(c.toks) }

// peek returns the next token, or a zero Token at the end.
func (c *cursor) peek() Token {
	if c.done() {
		return Token{}
	}
	return c.toks[c.i]
}

// pos is where the next token is, or just past the last one at the end.
func (c *cursor) pos() Pos {
	if !c.done() {
		return c.toks[c.i].Pos
	}
	if len(c.toks) == 0 {
		return Pos{}
	}
	return c.toks[len(c.toks)-1].End
}

func (c *cursor) next() Token {
	t := c.peek()
	if !c.done() {
		c.i++
	}
	return t
}

// is reports whether the next tokens are the keywords words.
func (c *cursor) is(words ...string) bool {
	if c.i+len(words) > len(c.toks) {
		return false
	}
	for k, w := range words {
		if !c.toks[c.i+k].Is(w) {
			return false
		}
	}
	return true
}

// accept skips the keywords words if they come next.
func (c *cursor) accept(words ...string) bool {
	if !c.is(words...) {
		return false
	}
	c.i += len(words)
	return true
}

// punct reports whether the next token is the punctuation p.
func (c *cursor) punct(p string) bool {
	t := c.peek()
	return t.Kind == Punct && t.Value == p
}

func (c *cursor) acceptPunct(p string) bool {
	if c.punct(p) {
		c.i++
		return true
	}
	return false
}

func (c *cursor) errorf(format string, args ...any) error {
	return errorAt(c.pos(), c.stmt+": "+format, args...)
}

// what names the next token for an error.
func (c *cursor) what() string {
	if c.done() {
		return "the end of the statement"
	}
	t := c.peek()
	if t.Kind == String {
		return strconv.Quote(t.Value)
	}
	return "'" + t.Value + "'"
}

// expect skips the keywords words; where one is missing, the error is at the first that
// does not match.
func (c *cursor) expect(words ...string) error {
	start := c.i
	for _, w := range words {
		if !c.accept(w) {
			err := c.errorf("want %s, found %s", strings.Join(words, " "), c.what())
			c.i = start
			return err
		}
	}
	return nil
}

func (c *cursor) expectPunct(p string) error {
	if !c.acceptPunct(p) {
		return c.errorf("want '%s', found %s", p, c.what())
	}
	return nil
}

// name reads a name, dotted or not ([db].[dbo].[q], dbo.q, q), and returns its parts.
func (c *cursor) name(what string) ([]string, Pos, error) {
	at := c.pos()
	var parts []string
	for {
		t := c.peek()
		if t.Kind != Word && t.Kind != Ident {
			return nil, at, c.errorf("want %s, found %s", what, c.what())
		}
		c.i++
		parts = append(parts, t.Value)
		if !c.acceptPunct(".") {
			return parts, at, nil
		}
	}
}

// lastName reads a name and returns its last part: a queue's or procedure's name
// without its database and schema.
func (c *cursor) lastName(what string) (string, Pos, error) {
	parts, at, err := c.name(what)
	if err != nil {
		return "", at, err
	}
	return parts[len(parts)-1], at, nil
}

// objectName reads the name of a Service Broker object that no schema holds (a service,
// contract, message type, route, priority): one identifier, as written.
func (c *cursor) objectName(what string) (string, Pos, error) {
	at := c.pos()
	t := c.peek()
	if t.Kind != Word && t.Kind != Ident {
		return "", at, c.errorf("want %s, found %s", what, c.what())
	}
	c.i++
	return t.Value, at, nil
}

// stringValue reads a string literal, or an identifier where T-SQL takes either.
func (c *cursor) stringValue(what string) (string, Pos, error) {
	at := c.pos()
	t := c.peek()
	if t.Kind != String && t.Kind != Ident && t.Kind != Word {
		return "", at, c.errorf("want %s, found %s", what, c.what())
	}
	c.i++
	return t.Value, at, nil
}

// integer reads a whole number.
func (c *cursor) integer(what string) (int64, Pos, error) {
	at := c.pos()
	t := c.peek()
	if t.Kind != Number {
		return 0, at, c.errorf("want %s, a number, found %s", what, c.what())
	}
	n, err := strconv.ParseInt(t.Value, 10, 64)
	if err != nil {
		return 0, at, c.errorf("want %s, a whole number, found %s", what, c.what())
	}
	c.i++
	return n, at, nil
}

// onOff reads ON or OFF.
func (c *cursor) onOff(what string) (bool, Pos, error) {
	at := c.pos()
	switch {
	case c.accept("ON"):
		return true, at, nil
	case c.accept("OFF"):
		return false, at, nil
	}
	return false, at, c.errorf("%s: want ON or OFF, found %s", what, c.what())
}

// skipValue skips one option's value: a token, or a parenthesised group.
func (c *cursor) skipValue() {
	if !c.punct("(") {
		c.next()
		return
	}
	depth := 0
	for !c.done() {
		t := c.next()
		if t.Kind == Punct && t.Value == "(" {
			depth++
		}
		if t.Kind == Punct && t.Value == ")" {
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// rest is the text of the tokens left, for notes.
func (c *cursor) rest() string {
	var parts []string
	for _, t := range c.toks[c.i:] {
		parts = append(parts, t.Value)
	}
	return strings.Join(parts, " ")
}
