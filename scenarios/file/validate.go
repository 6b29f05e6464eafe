package file

import (
	"errors"
	"fmt"
	"io"
)

// ValidateFiles loads each scenario file (or library name, as Open takes it) and reports
// whether every one loaded: for a file that does not, each error with its line and column
// goes to stderr (or why it could not be read); for one that does, its warnings
// (Scenario.Warnings) go to stderr and "NAME: ok" to stdout, with how many warnings it
// has. Warnings do not fail a file: delayed routing is legal.
func ValidateFiles(names []string, stdout, stderr io.Writer) bool {
	ok := true
	for _, p := range names {
		f, err := Open(p)
		if err != nil {
			printLoadError(p, err, stderr)
			ok = false
			continue
		}
		for _, w := range f.Warnings {
			fmt.Fprintf(stderr, "%v\n", w)
		}
		switch n := len(f.Warnings); n {
		case 0:
			fmt.Fprintf(stdout, "%s: ok\n", p)
		case 1:
			fmt.Fprintf(stdout, "%s: ok, 1 warning\n", p)
		default:
			fmt.Fprintf(stdout, "%s: ok, %d warnings\n", p, n)
		}
	}
	return ok
}

// printLoadError writes why the scenario file p did not load: each error with its line
// and column, or why it could not be read.
func printLoadError(p string, err error, stderr io.Writer) {
	var errs Errors
	if errors.As(err, &errs) {
		fmt.Fprintf(stderr, "%v\n", err) // the diagnostics: file:line:column of every error
	} else {
		fmt.Fprintf(stderr, "%s: %v\n", p, err) // the file could not be read
	}
}
