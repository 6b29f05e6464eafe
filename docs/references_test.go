package docs

import (
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
)

// The documents cite tests by name and files by path. A test renamed or a file moved
// leaves a citation that points nowhere; these tests find them.

var (
	// citedTestPattern finds a cited test, benchmark or fuzz target: TestPRI12_Honor...,
	// BenchmarkReceive, FuzzLoad. A name followed by an ellipsis (TestG3_…) cites every
	// test whose name begins with it.
	citedTestPattern = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z0-9_][A-Za-z0-9_]*(…)?`)
	// codeSpanPattern finds an inline code span: `scenarios/file/library/`.
	codeSpanPattern = regexp.MustCompile("`([^`\n]+)`")
	// linkPattern finds the target of a Markdown link or image: [text](target).
	linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// goFileNamePattern finds a Go file named in prose without its directory:
	// (checker_test.go). The name must be a file's somewhere in the repository.
	goFileNamePattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])([A-Za-z0-9_]+\.go)\b`)
	// fileExtPattern is how a file's path ends: .go, .yaml, .md.
	fileExtPattern = regexp.MustCompile(`\.(go|ya?ml|md|trace|png|svg|sha256|csv|json|jsonl|mod|sum)$`)
)

// repo is what a citation can point to: the repository's files and directories, its
// top-level entries, and its test functions.
type repo struct {
	root     string
	topLevel map[string]bool // cmd, docs, model, scenarios, ...
	base     map[string]bool // the base name of every file: checker_test.go
	tests    []string        // every Test, Benchmark and Fuzz function of every _test.go file
}

// ignoredAtRoot returns the top-level names .gitignore leaves out (/sbsim-results/, what
// the command writes when it runs from the root): they are outputs, not the repository.
func ignoredAtRoot(root string) map[string]bool {
	out := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "/"); ok {
			if name = strings.TrimSuffix(name, "/"); name != "" && !strings.ContainsAny(name, "/*") {
				out[name] = true
			}
		}
	}
	return out
}

// loadRepo walks the repository from root, leaving out hidden directories, and parses
// every _test.go file for its test functions.
func loadRepo(t *testing.T, root string) *repo {
	t.Helper()
	r := &repo{root: root, topLevel: map[string]bool{}, base: map[string]bool{}}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	ignored := ignoredAtRoot(root)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && !ignored[e.Name()] {
			r.topLevel[e.Name()] = true
		}
	}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor" ||
				filepath.Dir(path) == root && ignored[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		r.base[d.Name()] = true
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && isCheckedTestName(fn.Name.Name) {
				r.tests = append(r.tests, fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(r.tests)
	mustHold(t, len(r.tests) > 100, "found only %d test functions under %s: the walk is broken", len(r.tests), root)
	return r
}

func isCheckedTestName(name string) bool {
	for _, p := range []string{"Test", "Benchmark", "Fuzz"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// hasTest reports whether a test of that name exists, or, for a prefix, one that begins
// with it.
func (r *repo) hasTest(name string, prefix bool) bool {
	if !prefix {
		_, found := slices.BinarySearch(r.tests, name)
		return found
	}
	return slices.ContainsFunc(r.tests, func(t string) bool { return strings.HasPrefix(t, name) })
}

// exists reports whether path names something in the repository, from its root or from
// the directory of the document that cites it; a path with * must match something.
func (r *repo) exists(docDir, path string) bool {
	for _, base := range []string{r.root, docDir} {
		p := filepath.Join(base, filepath.FromSlash(path))
		if strings.Contains(path, "*") {
			if m, _ := filepath.Glob(p); len(m) > 0 {
				return true
			}
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// citedPath returns the repository path a code span's word cites, and whether it cites
// one: a word with a / that ends like a file (.go, .yaml, .md, ...) or names a
// directory of the repository (it starts with a top-level entry: scenarios/file,
// docs/gallery/), in the repository's own terms (./cmd/simulate, ./... stripped).
// Paths outside the repository (../shared/DESIGN.md), URLs, placeholders (<name>, NAME,
// N) and what a run writes (sbsim-results/...) are not citations of it.
func (r *repo) citedPath(word string) (string, bool) {
	word = strings.Trim(word, `'"(),;:`)
	word = strings.TrimSuffix(word, "/...")
	word = strings.TrimPrefix(word, "./")
	switch {
	case !strings.Contains(word, "/"),
		strings.Contains(word, "://"), strings.HasPrefix(word, "/"),
		strings.HasPrefix(word, ".."), strings.ContainsAny(word, "<>{}|=$"):
		return "", false
	}
	first := strings.SplitN(word, "/", 2)[0]
	if r.topLevel[first] {
		return word, true
	}
	return word, fileExtPattern.MatchString(word)
}

// problem is a citation that points nowhere.
type problem struct {
	where, what string
}

// checkReferences returns the citations of a document that point nowhere: the tests it
// names that no _test.go file defines, the repository paths in its code spans and the
// targets of its relative links that do not exist, and the Go files it names that the
// repository does not have. path names the document, relative to the repository's root.
func (r *repo) checkReferences(path string, text []byte) []problem {
	var out []problem
	docDir := filepath.Join(r.root, filepath.Dir(filepath.FromSlash(path)))
	inFence := false
	for i, line := range strings.Split(string(text), "\n") {
		where := fmt.Sprintf("%s:%d", path, i+1)
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		for _, m := range citedTestPattern.FindAllStringSubmatch(line, -1) {
			name, prefix := strings.TrimSuffix(m[0], "…"), m[1] != ""
			if !r.hasTest(name, prefix) {
				what := "test " + name + ", which no _test.go file of the repository defines"
				if prefix {
					what = "tests " + m[0] + ", but no test's name begins with " + name
				}
				out = append(out, problem{where, what})
			}
		}
		for _, m := range goFileNamePattern.FindAllStringSubmatch(line, -1) {
			if !r.base[m[1]] {
				out = append(out, problem{where, "the Go file " + m[1] + ", which the repository does not have"})
			}
		}
		var spans []string
		if inFence {
			spans = []string{line} // a command in a code block: its ./paths and repository paths
		} else {
			for _, m := range codeSpanPattern.FindAllStringSubmatch(line, -1) {
				spans = append(spans, m[1])
			}
			for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
				target := strings.SplitN(m[1], "#", 2)[0]
				if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if !r.exists(docDir, target) && !r.existsFromDoc(docDir, target) {
					out = append(out, problem{where, "a link to " + m[1] + ", which does not exist"})
				}
			}
		}
		for _, span := range spans {
			words := strings.Fields(span)
			for _, w := range words {
				if inFence && !strings.HasPrefix(w, "./") && !r.topLevel[strings.SplitN(strings.TrimPrefix(w, "./"), "/", 2)[0]] {
					continue // in a code block, only what names the repository
				}
				if len(words) > 1 && !inFence && !strings.HasPrefix(w, "./") && !fileExtPattern.MatchString(w) && !strings.HasSuffix(w, "/") {
					continue // a word of prose in a code span: `go doc ./model Broker`
				}
				p, ok := r.citedPath(w)
				if ok && !r.exists(docDir, p) {
					out = append(out, problem{where, "the path " + p + ", which the repository does not have"})
				}
			}
		}
	}
	return out
}

// existsFromDoc resolves a link target from the document's directory only (a link, unlike
// a code span, is always relative to its document).
func (r *repo) existsFromDoc(docDir, target string) bool {
	_, err := os.Stat(filepath.Join(docDir, filepath.FromSlash(target)))
	return err == nil
}

// docsFiles are the documents whose references are checked: docs/*.md.
func docsFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	mustHold(t, len(files) > 5, "found only %d documents in docs/", len(files))
	return files
}

// Every test, benchmark and fuzz target a document names exists, and so does every file
// and directory of the repository it cites.
func TestDocsCiteOnlyTestsAndPathsThatExist(t *testing.T) {
	r := loadRepo(t, repoRoot)
	cited := 0
	for _, doc := range docsFiles(t) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		cited += len(citedTestPattern.FindAll(text, -1))
		for _, p := range r.checkReferences(fromRoot(doc), text) {
			t.Errorf("%s cites %s", p.where, p.what)
		}
	}
	mustHold(t, cited > 100, "found only %d test names cited in docs/*.md: the pattern is broken", cited)
}

// The check finds what it is for: a test, a prefix, a path, a directory, a link, a Go file
// and a command's package that do not exist, and passes what does.
func TestReferenceCheckFindsWrongCitations(t *testing.T) {
	r := loadRepo(t, repoRoot)
	doc := strings.Join([]string{
		"Checked by TestDocsCiteOnlyTestsAndPathsThatExist and TestTestName… (glossary_test.go),",
		"FuzzLoad and the files `scenarios/file/library/`, `scenarios/file/library/*.yaml`, `docs/glossary.md`,",
		"`go doc ./scenarios/file`, `scenarios/results`, [a plot](gallery/lossy-wan-latency-cdf.png) and",
		"`../shared/DESIGN.md`, `sbsim-results/lossy-wan-seed-N/`, `instance/database/queue`, `crypto/rand`.",
		"```sh",
		"cp scenarios/file/library/queue-off-on.yaml my-design.yaml",
		"go run ./cmd/simulate run my-design.yaml -out results/my-design",
		"```",
		"Wrong: TestNoSuchTest, TestNoSuchPrefix_…, BenchmarkNoSuch, FuzzNoSuch, (no_such_test.go),",
		"`scenarios/library/`, `cmd/simulate/output`, `scenarios/file/testdata/files/lossy-wan.yaml`,",
		"`go doc ./cmd/simulate/output`, `spec/servicebroker.md`, [a link](no-such.md#x).",
		"```sh",
		"cp scenarios/library/queue-off-on.yaml my-design.yaml",
		"```",
	}, "\n")
	var got []string
	for _, p := range r.checkReferences("docs/example.md", []byte(doc)) {
		got = append(got, p.where+": "+p.what)
	}
	want := []string{
		"docs/example.md:9: test TestNoSuchTest, which no _test.go file of the repository defines",
		"docs/example.md:9: tests TestNoSuchPrefix_…, but no test's name begins with TestNoSuchPrefix_",
		"docs/example.md:9: test BenchmarkNoSuch, which no _test.go file of the repository defines",
		"docs/example.md:9: test FuzzNoSuch, which no _test.go file of the repository defines",
		"docs/example.md:9: the Go file no_such_test.go, which the repository does not have",
		"docs/example.md:10: the path scenarios/library/, which the repository does not have",
		"docs/example.md:10: the path cmd/simulate/output, which the repository does not have",
		"docs/example.md:10: the path scenarios/file/testdata/files/lossy-wan.yaml, which the repository does not have",
		"docs/example.md:11: a link to no-such.md#x, which does not exist",
		"docs/example.md:11: the path cmd/simulate/output, which the repository does not have",
		"docs/example.md:11: the path spec/servicebroker.md, which the repository does not have",
		"docs/example.md:13: the path scenarios/library/queue-off-on.yaml, which the repository does not have",
	}
	if !slices.Equal(got, want) {
		t.Errorf("checkReferences found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
