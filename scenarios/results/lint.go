package results

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/tsql"
)

// Lint is `simulate lint FILE...` (docs/lint.md). Scenario files (and library names) are
// linted each on its own (file.LintEach); T-SQL scripts and folders of them are imported
// together, as one design (tsql.Import with opts), and their diagnostics are Design's.
// The exit code: ExitUsage when no file is named or one does not load, ExitFailed when one
// has a diagnostic of error severity, ExitOK with warnings only.
func Lint(names []string, opts tsql.Options, stdout, stderr io.Writer) int {
	if len(names) == 0 {
		fmt.Fprintln(stderr, "simulate lint: want one or more scenario files or T-SQL scripts")
		return ExitUsage
	}
	var scenarios, scripts []string
	for _, n := range names {
		if isScript(n) {
			scripts = append(scripts, n)
		} else {
			scenarios = append(scenarios, n)
		}
	}
	unloaded, failing := file.LintEach(scenarios, stdout, stderr)
	if len(scripts) > 0 {
		d, err := tsql.Import(scripts, opts)
		if err != nil {
			fmt.Fprintf(stderr, "%v\n", err)
			unloaded++
		} else if errs, _ := file.PrintDiagnostics(strings.Join(scripts, " "), d.Diagnostics(), stdout, stderr); errs > 0 {
			failing++
		}
	}
	switch {
	case unloaded > 0:
		return ExitUsage
	case failing > 0:
		return ExitFailed
	}
	return ExitOK
}

// isScript reports whether a lint argument is T-SQL: a .sql file or a folder.
func isScript(name string) bool {
	if strings.HasSuffix(strings.ToLower(name), ".sql") {
		return true
	}
	info, err := os.Stat(name)
	return err == nil && info.IsDir()
}

// Import is `simulate import` (docs/import.md): the scripts at paths imported with opts
// into the scenario file out (standard output when empty), the report on stderr; the exit
// code ExitUsage when none is named or a script has an error.
func Import(paths []string, opts tsql.Options, out string, stdout, stderr io.Writer) int {
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "simulate import: want one or more .sql files or folders")
		return ExitUsage
	}
	if err := tsql.ImportFiles(paths, opts, out, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "simulate import: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}

// Validate is `simulate validate`: file.ValidateFiles, ExitUsage when a file is wrong or
// none is named.
func Validate(names []string, stdout, stderr io.Writer) int {
	if len(names) == 0 {
		fmt.Fprintln(stderr, "simulate validate: want one or more scenario files")
		return ExitUsage
	}
	if !file.ValidateFiles(names, stdout, stderr) {
		return ExitUsage
	}
	return ExitOK
}

// List is `simulate list`: the library's scenarios and the question each answers.
func List(stdout, stderr io.Writer) int {
	for _, name := range file.LibraryNames() {
		s, err := file.Library(name)
		if err != nil {
			fmt.Fprintf(stderr, "simulate: library scenario %s: %v\n", name, err)
			return ExitFailed
		}
		fmt.Fprintf(stdout, "%s\n    %s\n", name, s.Question)
	}
	return ExitOK
}
