package docs

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/sbsim/sbsim/"

// allowed lists, for each package of the project, the project packages it may import: the
// dependency direction of ARCHITECTURE.md. A package not listed here fails the test, so
// that a new package states its place.
var allowed = map[string][]string{
	"sim":               {},
	"net/faulty":        {"sim"},
	"model":             {},
	"model/invariant":   {"model"},
	"plots":             {},
	"plots/diagram":     {},
	"scenarios":         {"sim", "net/faulty", "model", "model/invariant"},
	"scenarios/file":    {"sim", "net/faulty", "model", "scenarios"},
	"scenarios/batch":   {"sim", "model", "model/invariant", "scenarios", "scenarios/file"},
	"scenarios/gen":     {"sim", "net/faulty", "model", "scenarios"},
	"scenarios/shrink":  {"sim", "net/faulty", "model", "plots/diagram", "scenarios", "scenarios/file"},
	"scenarios/tsql":    {"sim", "model", "scenarios", "scenarios/file"},
	"scenarios/check":   {"model", "scenarios", "scenarios/file", "scenarios/batch", "scenarios/gen", "scenarios/shrink"},
	"scenarios/results": {"sim", "net/faulty", "model", "model/invariant", "plots", "plots/diagram", "scenarios", "scenarios/file", "scenarios/batch", "scenarios/shrink", "scenarios/tsql"},
	"cmd/simulate":      {"scenarios", "scenarios/file", "scenarios/batch", "scenarios/results", "scenarios/tsql"},
	"docs":              {},
}

// The import graph follows the dependency direction: model and sim import nothing of the
// project, model and model/invariant nothing but the standard library (and the model),
// nothing imports the command, and no package imports one above it.
func TestImportsFollowTheDependencyDirection(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "gallery") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
			return filepath.SkipDir // another module (examples/mydesign): a user of the project, not a part
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		want, ok := allowed[rel]
		if !assert.True(t, ok, "package %s is not in the dependency table of architecture_test.go", rel) {
			return nil
		}
		seen++
		for _, imp := range pkg.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				assert.True(t, slices.Contains(want, dep), "%s imports %s, against the dependency direction", rel, dep)
			} else if rel == "model" || rel == "model/invariant" {
				assert.NotContains(t, imp, ".", "%s imports %s: it takes only the standard library", rel, imp)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, len(allowed), seen, "every package of the table was found")
}
