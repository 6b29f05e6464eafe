package results

import (
	"bytes"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// cardOf shrinks how-many-readers on a broker that activates beyond MAX_QUEUE_READERS
// (INV-8, seed 1) as explore does for a kept seed, into a new seed folder, and returns the
// folder and what it printed.
func cardOf(t *testing.T) (string, string) {
	t.Helper()
	s, err := file.Library("how-many-readers")
	require.NoError(t, err)
	cfg := batch.Judged(s.Config)
	cfg.Broker.Defects = model.DefectActivateBeyondMax
	out := filepath.Join(t.TempDir(), "seed-1")
	var stdout, stderr bytes.Buffer
	writeCard(&stdout, &stderr, cfg, 1, out, 40)
	require.Empty(t, stderr.String())
	require.FileExists(t, filepath.Join(out, CardFolder, shrink.CardFile), stdout.String())
	cardLine(&stdout, "seed 1", out)
	return out, stdout.String()
}

// The card's page of a real shrunk failure says the failure first as its verdict, then how
// far it shrank and the command that replays it, then card.txt's sections, with the
// sequence chart inline as chart.svg draws it; it needs nothing from the network, and the
// line that names the card names the page too.
func TestTheCardPageSaysTheFailureTheReplayAndHoldsTheChart(t *testing.T) {
	out, printed := cardOf(t)
	dir := filepath.Join(out, CardFolder)
	data, err := os.ReadFile(filepath.Join(dir, CardPageFile))
	require.NoError(t, err)
	page := string(data)
	text, err := os.ReadFile(filepath.Join(dir, shrink.CardFile))
	require.NoError(t, err)
	failure, _, _ := strings.Cut(strings.TrimPrefix(string(text), cardHead), "\n")
	require.True(t, strings.HasPrefix(failure, "INV-8: "), failure)

	verdict := strings.Index(page, `<h2 id="verdict" class="failed">Verdict: `+html.EscapeString(failure)+`</h2>`)
	require.Positive(t, verdict, page[:min(len(page), 3000)])
	assert.Contains(t, page, "<h1>Counterexample: INV-8</h1>")
	assert.Contains(t, page, `<p class="question">Does the counterexample still fail INV-8?`)
	replay := strings.Index(page, `<p id="replay">replay: <code>sh path/to/this/folder/replay.sh, from the root of sbsim&#39;s source (go run ./cmd/simulate run counterexample.yaml -seed `)
	assert.Greater(t, replay, verdict, "the replay after the verdict")
	assert.Regexp(t, `<p>shrunk from \d+ steps .* in \d+ runs</p>`, page)
	last := replay
	for _, section := range []string{"<h2>workload</h2>", "<h2>fault plan</h2>", "<h2>ledger", "<h2>sequence chart</h2>"} {
		at := strings.Index(page, section)
		assert.Greater(t, at, last, "%s in card.txt's order", section)
		last = at
	}
	assert.Contains(t, page, html.EscapeString("INV-8 violated"), "the ledger ends with the violation")
	chart, err := os.ReadFile(filepath.Join(dir, shrink.ChartFile))
	require.NoError(t, err)
	assert.Contains(t, page, `<figure id="chart">`+string(chart), "the chart inline, as chart.svg draws it")
	assert.Equal(t, 1, strings.Count(page, "<svg"))
	for _, external := range []string{`src="http`, `href="http`, `@import`, `url(http`, "<link"} {
		assert.NotContains(t, page, external)
	}
	assert.Less(t, len(page), 1<<20, "a card under 1 MB")
	assert.Contains(t, printed, "seed 1: its counterexample card is "+filepath.Join(dir, shrink.CardFile)+" ("+filepath.Join(dir, CardPageFile)+" in a browser)")

	// simulate report DIR writes it again, byte for byte; a card folder without its
	// card.txt cannot be drawn again, and says so.
	require.NoError(t, os.Remove(filepath.Join(dir, CardPageFile)))
	var stdout, stderr bytes.Buffer
	require.Equal(t, ExitOK, Report([]string{dir}, &stdout, &stderr), stderr.String())
	again, err := os.ReadFile(filepath.Join(dir, CardPageFile))
	require.NoError(t, err)
	assert.Equal(t, page, string(again))
	require.NoError(t, os.Remove(filepath.Join(dir, shrink.CardFile)))
	stderr.Reset()
	assert.Equal(t, ExitUsage, Report([]string{dir}, io.Discard, &stderr))
	assert.Contains(t, stderr.String(), "no card.txt: the card cannot be drawn again from this folder")
}

// parseCard reads every section of a card and the paragraph after them, and refuses a
// file that is no card.
func TestParseCardReadsTheSectionsOfACard(t *testing.T) {
	page, err := parseCard("COUNTEREXAMPLE  INV-2: twice\nseed 3\nreplay: sh replay.sh\n\nworkload\n  a: 1 dialog\n\nsequence chart\n  A  |  B\n  t=1s A --> B\n\nno scenario file (a hook)\n")
	require.NoError(t, err)
	assert.Equal(t, "INV-2: twice", page.Failure)
	assert.Equal(t, "INV-2", page.Rule)
	assert.Equal(t, []string{"seed 3"}, page.Header)
	assert.Equal(t, "sh replay.sh", page.Replay)
	assert.Equal(t, []cardSection{{Title: "workload", Text: "a: 1 dialog"}, {Title: "sequence chart", Text: "A  |  B\nt=1s A --> B", Chart: true}}, page.Sections)
	assert.Equal(t, []string{"no scenario file (a hook)"}, page.Notes)
	_, err = parseCard("summary\n")
	assert.ErrorContains(t, err, "not a counterexample card")
}
