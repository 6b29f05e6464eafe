package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var benchmarkFunc = regexp.MustCompile(`(?m)^func (Benchmark\w+)\(b \*testing\.B\)`)

// TestPerformancePageListsEveryBenchmark keeps docs/performance.md and the script that
// regenerates its figures (scripts/performance) complete: every benchmark of the
// repository has a row in the page's table and is run by the script.
func TestPerformancePageListsEveryBenchmark(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "performance"))
	if err != nil {
		t.Fatal(err)
	}
	rows := tableRows(t, "performance.md", "| Benchmark | Package | Measures | Goal |")
	listed := map[string]bool{}
	for _, row := range rows {
		for _, m := range backticked.FindAllStringSubmatch(row[0], -1) {
			listed[m[1]] = true
		}
	}
	var runs []*regexp.Regexp // the script's -bench patterns
	for _, line := range strings.Split(string(script), "\n") {
		if f := strings.Split(strings.Trim(strings.TrimSpace(line), `"`), ";"); len(f) == 8 && strings.HasPrefix(f[0], "./") {
			top := strings.Split(strings.ReplaceAll(f[1], `\$`, `$`), "/")[0] // -bench matches the top level first
			runs = append(runs, regexp.MustCompile(top))
		}
	}
	mustHold(t, len(runs) > 0, "scripts/performance: no benchmark line found")
	found := 0
	err = filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range benchmarkFunc.FindAllStringSubmatch(string(src), -1) {
			found++
			name := m[1]
			if !listed[name] {
				t.Errorf("%s (%s) has no row in docs/performance.md's table", name, path)
			}
			run := false
			for _, re := range runs {
				run = run || re.MatchString(name)
			}
			if !run {
				t.Errorf("%s (%s) is not run by scripts/performance", name, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustHold(t, found > 10, "found only %d benchmarks: the walk of %s is broken", found, repoRoot)
}
