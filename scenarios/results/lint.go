package results

import (
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/file"
)

// Lint is `simulate lint FILE...` (docs/lint.md): each file's load errors, or its
// diagnostics (file.LintEach), and the exit code: ExitUsage when no file is named or one
// does not load, ExitFailed when one has a diagnostic of error severity, ExitOK with
// warnings only.
func Lint(names []string, stdout, stderr io.Writer) int {
	if len(names) == 0 {
		fmt.Fprintln(stderr, "simulate lint: want one or more scenario files")
		return ExitUsage
	}
	switch unloaded, failing := file.LintEach(names, stdout, stderr); {
	case unloaded > 0:
		return ExitUsage
	case failing > 0:
		return ExitFailed
	}
	return ExitOK
}
