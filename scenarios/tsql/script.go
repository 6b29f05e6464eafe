package tsql

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a place in a script: its file, line and column, from 1. Columns count runes.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is a mistake in a script, at a place.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorAt(p Pos, format string, args ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// Batch is the text between two GO separators, its SQLCMD variables substituted: Lines
// holds its lines, Line the script line of the first; Connect is the server the last
// :CONNECT before it named ("" for none); Repeat is GO's count (GO 3 runs it three times).
type Batch struct {
	File    string
	Line    int
	Lines   []string
	Connect string
	Repeat  int
	// GoLine is the line of the GO that ends the batch (zero at the end of the script).
	GoLine int
}

// Text returns the batch's text.
func (b Batch) Text() string { return strings.Join(b.Lines, "\n") }

// Directive is a SQLCMD command the reader does not act on (:r, :on error, :out, ...),
// kept so that a report can list it.
type Directive struct {
	Pos  Pos
	Text string
}

// Script is a script split into batches.
type Script struct {
	Batches    []Batch
	Directives []Directive
	// Vars are the SQLCMD variables once the script has run: the caller's, then :setvar's.
	Vars map[string]string
}

var (
	goLine     = regexp.MustCompile(`(?i)^\s*go(?:\s+(\d+))?\s*(?:--.*|/\*.*\*/\s*(?:--.*)?)?$`)
	setvarLine = regexp.MustCompile(`(?i)^\s*:setvar\s+([A-Za-z_][A-Za-z0-9_]*)(?:\s+(.*?))?\s*$`)
	connectArg = regexp.MustCompile(`(?i)^\s*:connect\s+(\S+)`)
	varRef     = regexp.MustCompile(`\$\(([^)]*)\)`)
)

// Split reads a script: GO lines (alone on their line, with an optional count and
// comment) end batches; :setvar NAME VALUE sets a variable (a quoted value loses its
// quotes), vars given by the caller (-var) win over the script's own; $(NAME) is replaced
// by its value everywhere else, an undefined one being an error at its place; :CONNECT
// says on which server the batches after it run. Other SQLCMD commands are kept as
// Directives. A GO inside a block comment or a string does not end a batch.
func Split(file, src string, vars map[string]string) (*Script, error) {
	s := &Script{Vars: map[string]string{}}
	fixed := map[string]bool{}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys) // names equal but for case: the last in sorted order wins, whatever the map's order
	for _, k := range keys {
		s.Vars[strings.ToUpper(k)] = vars[k]
		fixed[strings.ToUpper(k)] = true
	}
	src = strings.TrimPrefix(src, "\ufeff") // the byte order mark editors on Windows write
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	cur := Batch{File: file, Line: 1}
	connect := ""
	var lx lineState
	flush := func(next, repeat int) {
		if len(strings.TrimSpace(strings.Join(cur.Lines, ""))) > 0 {
			cur.Repeat = repeat
			if next <= len(lines) {
				cur.GoLine = next - 1
			}
			s.Batches = append(s.Batches, cur)
		}
		cur = Batch{File: file, Line: next, Connect: connect}
	}
	for i, line := range lines {
		n := i + 1
		if lx.plain() {
			if m := goLine.FindStringSubmatch(line); m != nil {
				repeat := 1
				if m[1] != "" {
					repeat, _ = strconv.Atoi(m[1])
					if repeat < 1 {
						return nil, errorAt(Pos{file, n, 1}, "GO %s: the count must be at least 1", m[1])
					}
				}
				flush(n+1, repeat)
				continue
			}
			if t := strings.TrimSpace(line); strings.HasPrefix(t, ":") {
				col := strings.Index(line, ":") + 1
				switch m := setvarLine.FindStringSubmatchIndex(line); {
				case m != nil:
					name := strings.ToUpper(line[m[2]:m[3]])
					var value string
					var err error
					if m[4] >= 0 {
						value, err = substitute(line[m[4]:m[5]], s.Vars, Pos{file, n, utf8.RuneCountInString(line[:m[4]]) + 1})
					}
					if err != nil {
						return nil, err
					}
					if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
						value = value[1 : len(value)-1]
					}
					if !fixed[name] {
						s.Vars[name] = value
					}
				case connectArg.MatchString(line):
					m := connectArg.FindStringSubmatchIndex(line)
					server, err := substitute(line[m[2]:m[3]], s.Vars, Pos{file, n, utf8.RuneCountInString(line[:m[2]]) + 1})
					if err != nil {
						return nil, err
					}
					// sqlcmd runs a batch on the connection it has at GO: lines before
					// :CONNECT in the same batch (comments, most often) run there too.
					connect, cur.Connect = server, server
				case strings.HasPrefix(strings.ToLower(t), ":setvar"):
					return nil, errorAt(Pos{file, n, col}, ":setvar needs a variable name")
				default:
					s.Directives = append(s.Directives, Directive{Pos: Pos{file, n, col}, Text: t})
				}
				cur.Lines = append(cur.Lines, "") // the line stays, empty, so that lines keep their numbers
				continue
			}
		}
		text, err := substitute(line, s.Vars, Pos{file, n, 1})
		if err != nil {
			return nil, err
		}
		lx.scan(text)
		cur.Lines = append(cur.Lines, text)
	}
	flush(len(lines)+1, 1)
	return s, nil
}

// substitute replaces the $(NAME) references of text.
func substitute(text string, vars map[string]string, at Pos) (string, error) {
	var err error
	out := varRef.ReplaceAllStringFunc(text, func(ref string) string {
		name := strings.ToUpper(ref[2 : len(ref)-1])
		v, ok := vars[name]
		if !ok && err == nil {
			col := at.Col + len([]rune(text[:strings.Index(text, ref)]))
			err = errorAt(Pos{at.File, at.Line, col}, "SQLCMD variable %s is not defined: give it with :setvar or -var %s=VALUE", ref, ref[2:len(ref)-1])
		}
		return v
	})
	return out, err
}

// lineState follows, across lines, whether the text so far ends inside a block comment
// (T-SQL nests them), a string or a quoted identifier: a GO line there is text.
type lineState struct {
	comment int
	quote   byte // ', " or ] while inside one
}

func (l *lineState) plain() bool { return l.comment == 0 && l.quote == 0 }

func (l *lineState) scan(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case l.quote != 0:
			if c == l.quote {
				if i+1 < len(s) && s[i+1] == l.quote { // doubled: an escaped quote
					i++
				} else {
					l.quote = 0
				}
			}
		case l.comment > 0:
			if c == '*' && i+1 < len(s) && s[i+1] == '/' {
				l.comment--
				i++
			} else if c == '/' && i+1 < len(s) && s[i+1] == '*' {
				l.comment++
				i++
			}
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			return // a line comment ends the line
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			l.comment++
			i++
		case c == '\'':
			l.quote = '\''
		case c == '"':
			l.quote = '"'
		case c == '[':
			l.quote = ']'
		}
	}
}
