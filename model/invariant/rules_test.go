package invariant

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ruleID is what a rule's identifier looks like.
var ruleID = regexp.MustCompile(`^(INV|PRI|ACT|PROTO|LOCK|TXQ|DLG|QUE|TXN|RTE|G)-[0-9]+$`)

// Every rule a violation can name (a rule ID written as a string in the checker's code) is in
// Rules, and every rule of Rules is named by the code: the list the report and summary.json
// print is the list the checker checks.
func TestRulesAreTheRulesTheCheckerNames(t *testing.T) {
	named := map[string]bool{}
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") || e.Name() == "rules.go" {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && ruleID.MatchString(s) {
					named[s] = true
				}
			}
			return true
		})
	}
	var listed []string
	for _, r := range Rules() {
		listed = append(listed, r.ID)
		assert.NotEmpty(t, r.Description, r.ID)
		assert.True(t, named[r.ID], "%s is listed but no violation names it", r.ID)
	}
	for id := range named {
		assert.Contains(t, listed, id, "a violation can name %s, which Rules does not list", id)
	}
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(listed))), len(listed), "a rule listed twice")
}

// The package comment names every rule of Rules.
func TestPackageCommentNamesEveryRule(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "checker.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	doc := f.Doc.Text()
	for _, r := range Rules() {
		assert.Regexp(t, `\b`+regexp.QuoteMeta(r.ID)+`\b`, doc, "the package comment does not name %s", r.ID)
	}
}
