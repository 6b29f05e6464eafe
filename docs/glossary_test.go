// Package docs holds the user documentation of sbsim. Its Go files are tests only: this
// one keeps glossary.md, the table of every rule ID of the specification, in step with the
// specification and with the documents and code that cite those IDs; references_test.go
// and facts_test.go keep the documents' other citations true.
package docs

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite glossary.md from the specification")

const (
	// specPath is the specification, found beside the repository (../shared from the
	// root), as the project's workspace has it. A plain clone has no such file.
	specPath     = "../../shared/spec/servicebroker.md"
	glossaryPath = "glossary.md"
	repoRoot     = ".."
)

// rulePrefixes are the areas of the specification, one per section that numbers rules.
// A rule ID is one of them, a hyphen and a number: PRI-12, G-26.
var rulePrefixes = []string{"ENT", "TXN", "LOCK", "DLG", "QUE", "PRI", "PROTO", "TXQ", "RTE", "ACT", "INV", "G", "CONF"}

var (
	prefixAlternation = strings.Join(rulePrefixes, "|")
	// ruleIDPattern finds a cited rule ID in prose: PRI-12, G-26, ACT-4(b), PRI-15a.
	ruleIDPattern = regexp.MustCompile(`\b(` + prefixAlternation + `)-([0-9]+)`)
	// testNamePattern finds a rule ID in a test's name, written without the hyphen:
	// TestPRI12_..., TestLOCK9_LOCK10_..., TestFinishChecksINV12.
	testNamePattern = regexp.MustCompile(`[A-Z]+[0-9]+`)
	// glossaryLinkPattern finds a link to a glossary row, with its text: [PRI-12](glossary.md#pri-12).
	glossaryLinkPattern = regexp.MustCompile(`\[([^\]]*)\]\(((?:\.\./)?(?:docs/)?glossary\.md)#([^)]*)\)`)
	// glossaryRowPattern reads one row of glossary.md: its anchor and the ID it shows.
	// A source's row is the same without the hyphen: R4.
	glossaryRowPattern = regexp.MustCompile(`^\| <a id="([^"]*)"></a>([A-Z]+-?[0-9]+) \|`)

	specSectionPattern = regexp.MustCompile(`^## ([0-9]+)\. (.*)$`)
	specRulePattern    = regexp.MustCompile(`^- \*\*(` + prefixAlternation + `)-([0-9]+)\b([^*]*)\*\*(.*)$`)
	sourceTagPattern   = regexp.MustCompile(`\[[SRT][0-9]+\]`)
	inferenceTag       = "[D]"
	specSourcePattern  = regexp.MustCompile(`^- ([SRT][0-9]+) (.*)$`)
	learnPattern       = regexp.MustCompile(`(^| )L ([a-z-]+/)`)
	defaultTagPattern  = regexp.MustCompile(`(?:\[P:G-[0-9]+\])+`)
)

// rule is one numbered rule of the specification.
type rule struct {
	id      string // PRI-12
	section string // 6. Conversation priorities (PRI)
	label   string // the words after the ID inside the bold, if any: "Time & determinism."
	text    string // the rule's paragraph after the bold, joined into one line
}

// anchor is the HTML anchor of a rule's row in glossary.md: pri-12.
func anchor(id string) string { return strings.ToLower(id) }

// source is one document the specification cites: S1 (a seed), R4 (a Microsoft Learn
// page), T1 (a non-normative source).
type source struct {
	name string // R4
	text string // RECEIVE — https://learn.microsoft.com/...
}

// learnPrefix is what the specification abbreviates as "L" in its list of sources.
const learnPrefix = "https://learn.microsoft.com/en-us/sql/"

// parseSpec reads every rule of the specification in its order, and its list of sources.
// A rule is a list item that begins with its bold ID (`- **PRI-12** ...`,
// `- **G-26 Title.** ...`) and runs over the indented lines that follow it (a table
// inside a rule is left out), until the next line that is not indented.
func parseSpec(spec []byte) ([]rule, []source, error) {
	var rules []rule
	var sources []source
	seen := map[string]bool{}
	section := ""
	var current *rule
	for i, line := range strings.Split(string(spec), "\n") {
		if m := specSectionPattern.FindStringSubmatch(line); m != nil {
			section = m[1] + ". " + m[2]
			current = nil
			continue
		}
		if m := specRulePattern.FindStringSubmatch(line); m != nil {
			id := m[1] + "-" + m[2]
			if seen[id] {
				return nil, nil, fmt.Errorf("spec line %d: rule %s defined twice", i+1, id)
			}
			if section == "" {
				return nil, nil, fmt.Errorf("spec line %d: rule %s before the first section", i+1, id)
			}
			seen[id] = true
			rules = append(rules, rule{id: id, section: section, label: strings.TrimSpace(m[3]), text: strings.TrimSpace(m[4])})
			current = &rules[len(rules)-1]
			continue
		}
		if m := specSourcePattern.FindStringSubmatch(line); m != nil && strings.HasPrefix(section, "14.") {
			text := learnPattern.ReplaceAllString(m[2], "${1}"+learnPrefix+"$2")
			sources = append(sources, source{name: m[1], text: text})
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case current == nil:
		case trimmed == "" || strings.HasPrefix(trimmed, "|"):
			// A blank line or a table row inside the rule.
		case strings.HasPrefix(line, "  "):
			if strings.HasSuffix(current.text, "-") {
				current.text += trimmed // a word hyphenated across lines: time-\n to-live
			} else {
				current.text += " " + trimmed
			}
		default:
			current = nil
		}
	}
	if len(rules) == 0 {
		return nil, nil, errors.New("spec: no rules found")
	}
	return rules, sources, nil
}

// meaningMin and meaningMax bound the length, in characters, of a meaning: sentences are
// taken until there are meaningMin characters, and the result is cut beyond meaningMax.
const (
	meaningMin = 100
	meaningMax = 240
)

// meaning is the rule's one-line meaning: its label and the first sentences of its text,
// without source tags and reasons, cut at a clause or a word when it is long.
func meaning(r rule) string {
	label := strings.TrimSpace(r.label)
	text := firstSentences(cleanRuleText(r.text, r.id), meaningMin)
	switch {
	case label == "":
	case strings.HasPrefix(label, "(") && strings.HasSuffix(label, ")"):
		text = strings.Trim(label, "()") + ": " + text // INV-1 (EOIO)
	case strings.HasSuffix(label, "."):
		text = strings.TrimSuffix(label, ".") + ": " + text // G-1 Time & determinism.
	default:
		text = label + " " + text // G-23 Target endpoint creation** at ..., G-26 ...;** ...
	}
	return shorten(text, meaningMax)
}

// cleanRuleText removes a proposed default's reason (*Reason:* ...) and the source tags
// ([S2], [R4], [T1], [D]), and turns the tags that point to proposed defaults ([P:G-26])
// into plain IDs. The conflicts (CONF) name their sources as subjects, so there the tags
// stay, as links to the list of sources.
func cleanRuleText(s, id string) string {
	if i := strings.Index(s, "*Reason:*"); i >= 0 {
		s = s[:i]
	}
	s = defaultTagPattern.ReplaceAllStringFunc(s, func(tags string) string {
		ids := strings.Split(strings.Trim(tags, "[]"), "][")
		for i := range ids {
			ids[i] = strings.TrimPrefix(ids[i], "P:")
		}
		return strings.Join(ids, ", ")
	})
	if strings.HasPrefix(id, "CONF-") {
		s = sourceTagPattern.ReplaceAllStringFunc(s, func(tag string) string {
			name := strings.Trim(tag, "[]")
			return "[" + name + "](#" + strings.ToLower(name) + ")"
		})
	} else {
		s = sourceTagPattern.ReplaceAllString(s, "")
	}
	s = strings.ReplaceAll(s, inferenceTag, "")
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range []string{".", ";", ",", ":", ")"} {
		s = strings.ReplaceAll(s, " "+p, p)
	}
	return strings.TrimSpace(s)
}

// firstSentences returns the sentences that begin s, as many as it takes to reach min
// characters. A sentence ends at a full stop followed by a space and a capital letter (or
// an emphasis), or at the end of s; "e.g." and "i.e." end no sentence.
func firstSentences(s string, min int) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '.' || strings.HasSuffix(s[:i+1], "e.g.") || strings.HasSuffix(s[:i+1], "i.e.") {
			continue
		}
		if i+2 < len(s) && s[i+1] == ' ' && (s[i+2] >= 'A' && s[i+2] <= 'Z' || s[i+2] == '*') &&
			utf8.RuneCountInString(s[:i+1]) >= min {
			return s[:i+1]
		}
	}
	return s
}

// shorten cuts s to at most max characters: at the last "; " that leaves at least half of
// it, else at the last space, and marks the cut with an ellipsis.
func shorten(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut := []rune(s)[:max]
	head := string(cut)
	if i := strings.LastIndex(head, "; "); i >= len(head)/2 {
		return head[:i] + "; …"
	}
	if i := strings.LastIndex(head, " "); i > 0 {
		head = head[:i]
	}
	return strings.TrimRight(head, ",;: ") + " …"
}

// renderGlossary writes glossary.md: a short introduction, then one table per section of
// the specification, one row per rule with its anchor.
func renderGlossary(rules []rule, sources []source) []byte {
	var b bytes.Buffer
	b.WriteString(`# Rule glossary

<!-- Generated by glossary_test.go from ../shared/spec/servicebroker.md: do not edit.
     Regenerate with: go test ./docs -update -->

Every rule of the Service Broker specification that sbsim reproduces, by ID, with its
meaning in one line (its first sentences, cut when long). Documents, code comments and
test names cite these IDs; each row has an anchor, so that a document links a rule as
` + "`[PRI-12](glossary.md#pri-12)`" + `. The areas: ENT entities, TXN transactions, LOCK
conversation group locks, DLG dialogs and conversation endpoints, QUE queues and RECEIVE,
PRI conversation priorities, PROTO the dialog protocol, TXQ the transmission queue, RTE
routing and forwarding, ACT activation, INV the invariants the property tests check,
G the simulator's proposed defaults where the documentation leaves a gap (none of them is
documented behaviour), CONF the conflicts between documents and how sbsim resolves them.
Rules marked RETIRED are kept so that old citations still resolve.

The rules without their full text are a map, not the specification: where a meaning is
cut, the rule says more.
`)
	section := ""
	for _, r := range rules {
		if r.section != section {
			section = r.section
			fmt.Fprintf(&b, "\n## %s\n\n| Rule | Meaning |\n|---|---|\n", section)
		}
		fmt.Fprintf(&b, "| <a id=%q></a>%s | %s |\n", anchor(r.id), r.id, tableCell(meaning(r)))
	}
	if len(sources) > 0 {
		b.WriteString("\n## Sources\n\nThe documents the specification cites: S the seed documents, R the Microsoft Learn pages,\nT non-normative sources. A rule no document states, which the specification infers from\nthe documented ones, is tagged [D] there.\n\n| Source | Document |\n|---|---|\n")
		for _, s := range sources {
			fmt.Fprintf(&b, "| <a id=%q></a>%s | %s |\n", anchor(s.name), s.name, tableCell(s.text))
		}
	}
	return b.Bytes()
}

// tableCell makes text safe inside a Markdown table cell and links the rule IDs it cites
// to their own rows.
func tableCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return ruleIDPattern.ReplaceAllStringFunc(s, func(id string) string {
		return "[" + id + "](#" + anchor(id) + ")"
	})
}

// readSpec reads the specification, or skips the test when it is absent (a plain clone,
// CI): then glossary.md is checked against the citations only. With -update an absent
// specification fails the test, since there is nothing to write the glossary from.
func readSpec(t *testing.T) (spec []byte, rules []rule, sources []source) {
	t.Helper()
	spec, err := os.ReadFile(specPath)
	if errors.Is(err, fs.ErrNotExist) {
		if *update {
			t.Fatalf("-update needs the specification at %s, which is absent", specPath)
		}
		t.Skipf("no specification at %s (a plain clone): glossary.md is checked against the citations only", specPath)
	}
	if err != nil {
		t.Fatalf("read the specification: %v", err)
	}
	rules, sources, err = parseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	return spec, rules, sources
}

func TestGlossaryMatchesTheSpecification(t *testing.T) {
	_, rules, sources := readSpec(t)
	want := renderGlossary(rules, sources)
	if *update {
		if err := os.WriteFile(glossaryPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d rules", glossaryPath, len(rules))
		return
	}
	got, err := os.ReadFile(glossaryPath)
	if err != nil {
		t.Fatalf("read %s: %v (create it with go test ./docs -update)", glossaryPath, err)
	}
	if !bytes.Equal(got, want) {
		n := firstDifferentLine(got, want)
		t.Errorf("%s differs from the specification at line %d:\n  has:  %q\n  want: %q\nregenerate with go test ./docs -update and review the diff",
			glossaryPath, n, lineAt(got, n), lineAt(want, n))
	}
}

// TestSpecificationRulesAreAllFound guards the parser: every bold rule ID of the
// specification becomes a rule, so none is silently left out of the glossary.
func TestSpecificationRulesAreAllFound(t *testing.T) {
	spec, rules, _ := readSpec(t)
	parsed := map[string]bool{}
	for _, r := range rules {
		parsed[r.id] = true
		if strings.TrimSpace(meaning(r)) == "" {
			t.Errorf("rule %s has an empty meaning", r.id)
		}
	}
	// Any bold text that starts like an ID, in any area: a new area must be added to
	// rulePrefixes, and a rule written in an unexpected shape must be read.
	for _, m := range regexp.MustCompile(`\*\*([A-Z]+-[0-9]+)`).FindAllStringSubmatch(string(spec), -1) {
		if !parsed[m[1]] {
			t.Errorf("the specification defines %s, which the glossary's parser does not read", m[1])
		}
	}
}

func firstDifferentLine(a, b []byte) int {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

func lineAt(s []byte, n int) string {
	lines := strings.Split(string(s), "\n")
	if n < 1 || n > len(lines) {
		return "(end of file)"
	}
	return lines[n-1]
}

// glossaryIDs reads the rule IDs of glossary.md from its rows, checking that each row's
// anchor is its ID and that no ID appears twice.
func glossaryIDs(t *testing.T) map[string]bool {
	t.Helper()
	ids, _ := glossaryRows(t)
	return ids
}

// glossaryRows reads the rows of glossary.md: the rule IDs, and the anchors of every row,
// rules' and sources', with the name each row shows.
func glossaryRows(t *testing.T) (ids map[string]bool, anchors map[string]string) {
	t.Helper()
	data, err := os.ReadFile(glossaryPath)
	if err != nil {
		t.Fatalf("read %s: %v", glossaryPath, err)
	}
	ids, anchors = map[string]bool{}, map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| <a id=") {
			continue
		}
		m := glossaryRowPattern.FindStringSubmatch(line)
		switch {
		case m == nil:
			t.Errorf("%s:%d: a row that does not read `| <a id=\"x-n\"></a>X-n | meaning |`: %q", glossaryPath, i+1, line)
		case m[1] != anchor(m[2]):
			t.Errorf("%s:%d: rule %s has the anchor %q, want %q", glossaryPath, i+1, m[2], m[1], anchor(m[2]))
		case anchors[m[1]] != "":
			t.Errorf("%s:%d: %s appears twice", glossaryPath, i+1, m[2])
		default:
			anchors[m[1]] = m[2]
			if strings.Contains(m[2], "-") { // a rule; a source (R4) has no hyphen
				ids[m[2]] = true
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("%s holds no rule rows", glossaryPath)
	}
	return ids, anchors
}

// citation is one rule ID named in a document or in Go code.
type citation struct {
	where string // file:line
	id    string
}

func TestEveryCitedRuleIsInTheGlossary(t *testing.T) {
	ids := glossaryIDs(t)
	var cites []citation
	for _, doc := range markdownFiles(t) {
		cites = append(cites, markdownCitations(t, doc)...)
	}
	goCites := goCitations(t)
	mustHold(t, len(goCites) > 0, "found no rule cited in any Go file: the walk of %s is broken", repoRoot)
	cites = append(cites, goCites...)
	mustHold(t, len(cites) > len(goCites), "found no rule cited in README.md or docs/*.md")
	for _, c := range cites {
		if !ids[c.id] {
			t.Errorf("%s cites %s, which is not a rule of the specification (not in %s)", c.where, c.id, glossaryPath)
		}
	}
}

// TestGlossaryLinksPointToTheirRule checks every link into glossary.md: its anchor is a
// row, and a link whose text is a rule ID points to that rule's row.
func TestGlossaryLinksPointToTheirRule(t *testing.T) {
	_, anchors := glossaryRows(t)
	for _, doc := range markdownFiles(t) {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range glossaryLinkPattern.FindAllStringSubmatch(line, -1) {
				text, target, frag := m[1], m[2], m[3]
				where := fmt.Sprintf("%s:%d", fromRoot(doc), i+1)
				if want := glossaryTarget(doc); target != want {
					t.Errorf("%s: link %s to %s, want %s from this file", where, m[0], target, want)
				}
				id, ok := anchors[frag]
				if !ok {
					t.Errorf("%s: link %s to #%s, which is no row of the glossary", where, m[0], frag)
					continue
				}
				if ruleIDPattern.MatchString(text) && ruleIDPattern.FindString(text) != id {
					t.Errorf("%s: link %s shows %s but points to %s", where, m[0], ruleIDPattern.FindString(text), id)
				}
			}
		}
	}
}

// glossaryTarget is how a document refers to glossary.md: beside it in docs/, or through
// docs/ from the root.
func glossaryTarget(doc string) string {
	if filepath.Dir(doc) == filepath.Join(repoRoot, "docs") {
		return "glossary.md"
	}
	return "docs/glossary.md"
}

// fromRoot names a file as seen from the repository's root: docs/priorities.md.
func fromRoot(path string) string {
	if rel, err := filepath.Rel(repoRoot, path); err == nil {
		return rel
	}
	return path
}

func mustHold(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

// markdownFiles are the documents whose citations are checked: README.md and docs/*.md,
// except the glossary itself.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(repoRoot, "README.md")}
	for _, d := range docs {
		if filepath.Base(d) != glossaryPath {
			files = append(files, d)
		}
	}
	slices.Sort(files)
	return files
}

func markdownCitations(t *testing.T, path string) []citation {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var cites []citation
	for i, line := range strings.Split(string(data), "\n") {
		for _, id := range ruleIDPattern.FindAllString(line, -1) {
			cites = append(cites, citation{fmt.Sprintf("%s:%d", fromRoot(path), i+1), id})
		}
	}
	return cites
}

// goCitations reads every Go file of the repository and returns the rule IDs named in
// its comments and in the names of its tests, benchmarks, fuzz targets and examples.
// String literals are not read: a test may name an unknown rule on purpose.
func goCitations(t *testing.T) []citation {
	t.Helper()
	var cites []citation
	fset := token.NewFileSet()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != repoRoot && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		for _, group := range f.Comments {
			for _, c := range group.List {
				for _, id := range ruleIDPattern.FindAllString(c.Text, -1) {
					cites = append(cites, citation{fromRoot(fset.Position(c.Pos()).String()), id})
				}
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !isTestName(fn.Name.Name) {
				continue
			}
			for _, id := range testNameIDs(fn.Name.Name) {
				cites = append(cites, citation{fromRoot(fset.Position(fn.Pos()).String()) + " " + fn.Name.Name, id})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cites
}

func isTestName(name string) bool {
	for _, p := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// testNameIDs returns the rule IDs a test's name cites: a run of capitals that is exactly
// an area, followed by digits (TestLOCK9_LOCK10_... cites LOCK-9 and LOCK-10).
func testNameIDs(name string) []string {
	var ids []string
	for _, m := range testNamePattern.FindAllString(name, -1) {
		i := strings.IndexAny(m, "0123456789")
		if slices.Contains(rulePrefixes, m[:i]) {
			ids = append(ids, m[:i]+"-"+m[i:])
		}
	}
	return ids
}

func TestTestNameIDs(t *testing.T) {
	cases := map[string][]string{
		"TestPRI12_HonorBrokerPriorityOrdersTheBacklog":      {"PRI-12"},
		"TestLOCK9_LOCK10_LOCK11_StatementsTakeGroupLocks":   {"LOCK-9", "LOCK-10", "LOCK-11"},
		"TestACT4b_ACT5_AReaderWaitingOnALockedConversation": {"ACT-4", "ACT-5"},
		"TestFinishChecksINV12":                              {"INV-12"},
		"TestG16_EndpointTransitions":                        {"G-16"},
		"TestSHA256OfEveryFile":                              nil,
		"TestEngineAllocatesNothingPerEvent":                 nil,
	}
	for name, want := range cases {
		if got := testNameIDs(name); !slices.Equal(got, want) {
			t.Errorf("testNameIDs(%q) = %v, want %v", name, got, want)
		}
	}
}
