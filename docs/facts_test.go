package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
)

// Some tables of the documents copy a table of the code; these tests keep them equal.

// tableRows returns the rows of the Markdown table of doc whose header line is header,
// each split into its cells, trimmed.
func tableRows(t *testing.T, doc, header string) [][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", doc))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	i := slices.Index(lines, header)
	mustHold(t, i >= 0, "docs/%s has no table with the header %q", doc, header)
	var rows [][]string
	for _, line := range lines[i+2:] { // past the header and its |---| line
		if !strings.HasPrefix(line, "|") {
			break
		}
		rows = append(rows, splitRow(line))
	}
	mustHold(t, len(rows) > 0, "docs/%s: the table %q has no row", doc, header)
	return rows
}

// splitRow splits a table row into its cells, trimmed; an escaped \| is no border.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	start := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '|' && (i == 0 || line[i-1] != '\\') {
			cells = append(cells, strings.TrimSpace(line[start:i]))
			start = i + 1
		}
	}
	return append(cells, strings.TrimSpace(line[start:]))
}

var backticked = regexp.MustCompile("`([^`]*)`")

// metricNames reads a Metric cell: `latency.p50`, `latency.p90` or, after a first name,
// the shorthand `.p90` for the same prefix.
func metricNames(cell string) []string {
	var names []string
	prefix := ""
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		name := m[1]
		if strings.HasPrefix(name, ".") {
			name = prefix + name
		} else if i := strings.LastIndex(name, "."); i > 0 {
			prefix = name[:i]
		}
		names = append(names, name)
	}
	return names
}

// narrowingKeys reads a "Narrowed by" cell: the keys it lists, and those marked (needed).
func narrowingKeys(cell string) (takes, needs []string) {
	for _, part := range strings.Split(cell, ",") {
		m := backticked.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		takes = append(takes, m[1])
		if strings.Contains(part, "(needed)") {
			needs = append(needs, m[1])
		}
	}
	return takes, needs
}

// The metrics reference of scenario-files.md is scenarios.Metrics: the same metrics, in
// the same order, each with its unit and the keys it takes and needs.
func TestMetricsReferenceIsTheTableOfMetrics(t *testing.T) {
	type row struct {
		unit         string
		takes, needs []string
	}
	documented := map[string]row{}
	var order []string
	for _, cells := range tableRows(t, "scenario-files.md", "| Metric | Unit | Narrowed by | Measures |") {
		mustHold(t, len(cells) == 4, "a metrics row without four cells: %q", cells)
		takes, needs := narrowingKeys(cells[2])
		for _, name := range metricNames(cells[0]) {
			if _, dup := documented[name]; dup {
				t.Errorf("scenario-files.md documents metric %s twice", name)
			}
			documented[name] = row{strings.Trim(cells[1], "`"), takes, needs}
			order = append(order, name)
		}
	}
	var want []string
	for _, m := range scenarios.Metrics() {
		want = append(want, m.Name)
		d, ok := documented[m.Name]
		if !ok {
			t.Errorf("scenario-files.md#metrics does not document metric %s (%s)", m.Name, m.Doc)
			continue
		}
		if d.unit != m.Unit.String() {
			t.Errorf("metric %s: the reference gives the unit %q, the table of metrics %q", m.Name, d.unit, m.Unit)
		}
		if !slices.Equal(d.takes, m.Takes.Names()) {
			t.Errorf("metric %s: the reference says it is narrowed by %v, the table of metrics %v", m.Name, d.takes, m.Takes.Names())
		}
		if !slices.Equal(d.needs, m.Needs.Names()) {
			t.Errorf("metric %s: the reference says it needs %v, the table of metrics %v", m.Name, d.needs, m.Needs.Names())
		}
	}
	if !slices.Equal(order, want) {
		t.Errorf("the metrics reference lists\n  %v\nscenarios.Metrics() is\n  %v", order, want)
	}
}

// The list of rules in outputs.md is invariant.Rules: the same IDs in the same order, each
// with the description summary.json and the report give it.
func TestOutputsListsEveryRuleOfTheChecker(t *testing.T) {
	rows := tableRows(t, "outputs.md", "| Rule | Asserts |")
	var got, want []string
	for _, cells := range rows {
		got = append(got, cells[0])
	}
	for i, r := range invariant.Rules() {
		want = append(want, r.ID)
		if i < len(rows) && rows[i][0] == r.ID && !strings.HasPrefix(rows[i][1], r.Description) {
			t.Errorf("outputs.md: rule %s asserts %q, but the checker's description is %q", r.ID, rows[i][1], r.Description)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("outputs.md lists the rules\n  %v\ninvariant.Rules() is\n  %v", got, want)
	}
}

var (
	headingPattern = regexp.MustCompile(`^#{1,6} (.*)$`)
	htmlAnchor     = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	docLinkPattern = regexp.MustCompile(`\]\(([A-Za-z0-9_.-]*\.md)?#([^)\s]+)\)`)
	slugDrop       = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors returns the anchors of a Markdown document as GitHub makes them: each heading's
// text, lower-cased, without punctuation, spaces as hyphens (a repeated heading gets -1,
// -2, ...), and every <a id> in it.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := headingPattern.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

func TestAnchorsAreGitHubs(t *testing.T) {
	got := anchors("# Scenario files\n## Anchors, merge keys and `x-` keys\n## `go run ./cmd/simulate`: the showcase run\n### Metrics\n### Metrics\n```\n# not a heading\n```\n| <a id=\"pri-12\"></a>PRI-12 |")
	for _, want := range []string{"scenario-files", "anchors-merge-keys-and-x--keys", "go-run-cmdsimulate-the-showcase-run", "metrics", "metrics-1", "pri-12"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code block made an anchor")
	}
}

// Every link from one document of docs/ to a place in another (outputs.md#metrics), or in
// itself (#overrides), points to a heading or an anchor that exists; and the report's
// pointer to the metrics reference does too.
func TestLinksToHeadingsPointToHeadingsThatExist(t *testing.T) {
	docs := docsFiles(t)
	byName := map[string]map[string]bool{}
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		byName[filepath.Base(d)] = anchors(string(data))
	}
	links := 0
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range docLinkPattern.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if target == "" {
					target = filepath.Base(d)
				}
				as, ok := byName[target]
				if !ok {
					continue // not a document of docs/; TestDocsCiteOnlyTestsAndPathsThatExist checks the file
				}
				links++
				if !as[m[2]] {
					t.Errorf("%s:%d: a link to %s#%s, which has no such heading or anchor", fromRoot(d), i+1, target, m[2])
				}
			}
		}
	}
	mustHold(t, links > 50, "found only %d links to headings: the pattern is broken", links)
	// scenarios/results/report.go prints "figures (... docs/scenario-files.md#metrics)".
	if !byName["scenario-files.md"]["metrics"] {
		t.Error("scenario-files.md has no #metrics heading, which the text report points to")
	}
}
