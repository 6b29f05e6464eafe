package file

import (
	"fmt"
	"strings"
)

// Error is one problem with a scenario file, at a line and column (both from 1; zero
// when the problem has no place, like an empty file). Path names the key, in the file's
// own terms: instances[0].databases[1].queues[2].activation.max_queue_readers.
type Error struct {
	File         string
	Line, Column int
	Path         string
	Message      string
	// Err is the error of a later check (model.Compile, Config.Validate) that the position
	// was found for; nil for the errors the loader finds itself.
	Err error
	// Warning marks what is legal but likely wrong (Scenario.Warnings, Lint): it is written
	// "warning: " before the message, and does not stop a load.
	Warning bool
	// ID is a diagnostic's stable identifier (SB101 ..., docs/lint.md), and Fix how to fix
	// it; both empty for the loader's errors. With an ID the severity is written with it,
	// "warning SB105: " or "error SB101: "; a Fix is written after the message, "(fix: ...)".
	ID, Fix string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if e.Path != "" {
		b.WriteString(": ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	switch {
	case e.ID != "" && e.Warning:
		b.WriteString("warning " + e.ID + ": ")
	case e.ID != "":
		b.WriteString("error " + e.ID + ": ")
	case e.Warning:
		b.WriteString("warning: ")
	}
	b.WriteString(e.Message)
	if e.Fix != "" {
		b.WriteString(" (fix: " + e.Fix + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in a scenario file, in the order of the file. Load
// returns one when a file is wrong; errors.As finds the first *Error.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}
