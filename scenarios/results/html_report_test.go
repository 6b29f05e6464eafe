package results

import (
	"bytes"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// reportOf runs a library scenario on seed 1 with sets applied, writes its folder, and
// returns the folder, its summary and its report.html.
func reportOf(t *testing.T, name string, sets ...string) (string, Summary, string) {
	t.Helper()
	s := libraryWith(t, name, sets...)
	cfg := s.Config
	cfg.Conversations = true
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	dir := t.TempDir()
	sum := NewSummary(res, name, s.Hash, Verdicts(s, res))
	_, err = WriteAll(dir, res, sum, nil)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteReportFromFolder(&b, dir, s.Question))
	return dir, sum, b.String()
}

// libraryWith is the library scenario name with sets applied.
func libraryWith(t *testing.T, name string, sets ...string) *file.Scenario {
	t.Helper()
	s, err := file.Library(name)
	require.NoError(t, err)
	for _, v := range sets {
		o, err := file.ParseOverride(v)
		require.NoError(t, err)
		s, err = s.With(o)
		require.NoError(t, err)
	}
	return s
}

// The report puts the question and the verdict first, lists every invariant and
// expectation with its value, inlines every plot the run drew, and needs nothing from the
// network: no script, style or image from elsewhere.
func TestTheReportSaysTheVerdictAndHoldsItsPlots(t *testing.T) {
	dir, sum, page := reportOf(t, "lossy-wan")
	require.True(t, sum.OK)
	verdict := strings.Index(page, "Verdict: ok")
	require.Positive(t, verdict)
	assert.Less(t, verdict, strings.Index(page, `<h2 id="plots">Plots</h2>`), "the verdict comes before the plots")
	assert.Contains(t, page, "<title>lossy-wan, seed 1: ok")
	for _, e := range sum.Expectations {
		assert.Contains(t, page, html.EscapeString(e.Name))
	}
	for _, r := range sum.Invariants.Rules {
		assert.Contains(t, page, "<td>"+r.Rule+"</td>")
	}
	svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	require.NotEmpty(t, svgs)
	assert.Equal(t, len(svgs), strings.Count(page, "<svg"), "every plot inline")
	assert.NotContains(t, page, "<?xml")
	for _, external := range []string{`src="http`, `href="http`, `@import`, `url(http`} {
		assert.NotContains(t, page, external)
	}
	assert.Less(t, len(page), 5<<20, "a report under 5 MB")
}

// A run that fails says so first, naming the expectation that did not hold and its value.
func TestTheReportOfAFailingRunNamesWhatFailed(t *testing.T) {
	_, sum, page := reportOf(t, "lossy-wan", "limits.max_events=100")
	require.False(t, sum.OK)
	assert.Contains(t, page, `<h2 id="verdict" class="failed">Verdict: FAILED</h2>`)
	for _, e := range sum.Expectations {
		if !e.OK {
			first, rest, folded := strings.Cut(e.Detail, "\n")
			assert.Contains(t, page, html.EscapeString(e.Name)+": got "+html.EscapeString(first))
			if folded { // a violation's records, folded under the line that says it
				assert.Contains(t, page, "<pre>"+html.EscapeString(rest)+"</pre>")
			}
		}
	}
}
