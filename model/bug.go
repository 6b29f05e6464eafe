package model

import "fmt"

// bug panics with the report of a broken invariant: a bug in the model, never trouble in
// the simulated world, which is modelled state (STYLE.md §5). The report reads like a bug
// report, naming the object, the values and the virtual time. Call it only once a check
// has failed, `if !ok { bug(...) }`, so that a check that holds formats nothing: a helper
// invariant(ok, format, args...) would box its arguments on every call, and allocate on
// the hot path.
func bug(format string, args ...any) {
	panic(fmt.Sprintf("model: "+format, args...))
}
