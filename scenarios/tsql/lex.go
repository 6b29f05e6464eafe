package tsql

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a token.
type Kind uint8

const (
	// Word is a keyword or an unquoted identifier; Value is its text, as written.
	Word Kind = iota + 1
	// Ident is a bracketed or double-quoted identifier; Value is the name inside.
	Ident
	// String is a string literal, 'x' or N'x'; Value is the string, quotes undoubled.
	String
	// Number is a numeric literal.
	Number
	// Variable is @name (or @@name).
	Variable
	// Punct is one character of punctuation or an operator: ( ) , ; . = and the rest.
	Punct
)

var kindNames = [...]string{"", "word", "identifier", "string", "number", "variable", "punctuation"}

func (k Kind) String() string { return kindNames[k] }

// Token is one token of a batch, at its place in the script.
type Token struct {
	Kind  Kind
	Value string
	// Pos is where the token begins; End is the place just after it.
	Pos, End Pos
}

// Is reports whether the token is the keyword kw, whatever its case.
func (t Token) Is(kw string) bool { return t.Kind == Word && strings.EqualFold(t.Value, kw) }

// Tokens splits a batch into tokens, comments and white space left out. A string, quoted
// identifier or block comment left open is an error where it began.
func Tokens(b Batch) ([]Token, error) {
	var out []Token
	type open struct {
		pos  Pos
		what string
	}
	var pending *open // a string, identifier or comment that goes on past a line's end
	var buf strings.Builder
	var quote byte
	depth := 0
	var kind Kind
	for i, line := range b.Lines {
		ln := b.Line + i
		col := 1
		for j := 0; j < len(line); {
			if n := len(out); n > 0 && out[n-1].End == (Pos{}) && quote == 0 {
				out[n-1].End = Pos{b.File, ln, col} // the token the last step read ends here
			}
			r, size := utf8.DecodeRuneInString(line[j:])
			at := Pos{b.File, ln, col}
			next := func(n int) { // consume n bytes
				for k := 0; k < n; {
					_, s := utf8.DecodeRuneInString(line[j+k:])
					k += s
					col++
				}
				j += n
			}
			switch {
			case depth > 0: // inside a block comment, which nests
				switch {
				case strings.HasPrefix(line[j:], "*/"):
					depth--
					next(2)
					if depth == 0 {
						pending = nil
					}
				case strings.HasPrefix(line[j:], "/*"):
					depth++
					next(2)
				default:
					next(size)
				}
			case quote != 0: // inside a string or quoted identifier
				if line[j] == quote {
					if j+1 < len(line) && line[j+1] == quote {
						buf.WriteByte(quote)
						next(2)
						continue
					}
					out = append(out, Token{Kind: kind, Value: buf.String(), Pos: pending.pos})
					buf.Reset()
					quote, pending = 0, nil
					next(1)
					out[len(out)-1].End = Pos{b.File, ln, col}
					continue
				}
				buf.WriteString(line[j : j+size])
				next(size)
			case unicode.IsSpace(r):
				next(size)
			case strings.HasPrefix(line[j:], "--"):
				j = len(line)
			case strings.HasPrefix(line[j:], "/*"):
				depth, pending = 1, &open{at, "comment"}
				next(2)
			case r == '\'' || ((r == 'N' || r == 'n') && j+1 < len(line) && line[j+1] == '\''):
				if r != '\'' {
					next(1)
				}
				quote, kind, pending = '\'', String, &open{at, "string"}
				next(1)
			case r == '[' || r == '"':
				quote, kind, pending = ']', Ident, &open{at, "identifier"}
				if r == '"' {
					quote = '"'
				}
				next(1)
			case r == '@':
				k := j + 1
				for k < len(line) && line[k] == '@' {
					k++
				}
				k = wordEnd(line, k)
				out = append(out, Token{Kind: Variable, Value: line[j:k], Pos: at})
				next(k - j)
			case r >= '0' && r <= '9' || (r == '.' && j+1 < len(line) && line[j+1] >= '0' && line[j+1] <= '9'):
				k := j
				for k < len(line) && (line[k] >= '0' && line[k] <= '9' || line[k] == '.') {
					k++
				}
				out = append(out, Token{Kind: Number, Value: line[j:k], Pos: at})
				next(k - j)
			case r == '_' || r == '#' || unicode.IsLetter(r):
				k := wordEnd(line, j)
				out = append(out, Token{Kind: Word, Value: line[j:k], Pos: at})
				next(k - j)
			default:
				out = append(out, Token{Kind: Punct, Value: string(r), Pos: at})
				next(size)
			}
		}
		if n := len(out); n > 0 && out[n-1].End == (Pos{}) && quote == 0 {
			out[n-1].End = Pos{b.File, ln, col}
		}
		if quote != 0 {
			buf.WriteByte('\n')
		}
	}
	if pending != nil {
		return out, errorAt(pending.pos, "this %s is never closed", pending.what)
	}
	return out, nil
}

// wordEnd returns where the word that starts at line[j] ends: letters, digits, _, @, #, $.
func wordEnd(line string, j int) int {
	for j < len(line) {
		r, size := utf8.DecodeRuneInString(line[j:])
		if !(r == '_' || r == '@' || r == '#' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			break
		}
		j += size
	}
	return j
}
