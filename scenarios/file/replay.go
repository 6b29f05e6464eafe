package file

import (
	"strconv"
	"strings"
)

// Replay returns the command line that repeats, byte for byte, a run of the scenario arg
// names (a path or a library name) with the overrides, on seed, with the extra flags of
// simulate run (-out DIR, -trace). It is the one form of a replay line: the command prints
// it for every run, a check for a failing seed, a sweep for a run that broke an invariant.
func Replay(arg string, overrides []Override, seed uint64, extra ...string) string {
	parts := []string{"go run ./cmd/simulate run", quoteArg(arg)}
	for _, o := range overrides {
		parts = append(parts, "-set", quoteArg(o.String()))
	}
	parts = append(parts, "-seed", strconv.FormatUint(seed, 10))
	for _, f := range extra {
		parts = append(parts, quoteArg(f))
	}
	return strings.Join(parts, " ")
}

// quoteArg quotes a command-line argument for a POSIX shell when it needs it: in single
// quotes, inside which the shell expands nothing ($HOME, `cmd`), a single quote written '\”.
func quoteArg(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n'\"$`\\{}[]*?;&|<>()#~!") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
