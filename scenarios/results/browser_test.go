package results

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/file"
)

// browserTimeout bounds everything the browser does in TestTheReportInABrowser, so that a
// browser that hangs fails the test rather than hanging it.
const browserTimeout = 60 * time.Second

// chromium finds the browser the test drives: the path in SBSIM_CHROMIUM, else chromium,
// chromium-browser or google-chrome on PATH; "" when there is none.
func chromium() string {
	if p := os.Getenv("SBSIM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// runFolderOf writes the folder simulate run NAME -seed 1 -out DIR writes, with the
// overrides sets (-set), and returns it with its summary.
func runFolderOf(t *testing.T, name string, sets ...string) (string, Summary) {
	t.Helper()
	var overrides []file.Override
	for _, v := range sets {
		o, err := file.ParseOverride(v)
		require.NoError(t, err)
		overrides = append(overrides, o)
	}
	dir := filepath.Join(t.TempDir(), "run")
	var stdout, stderr bytes.Buffer
	RunOne(context.Background(), &stdout, &stderr, RunOptions{Arg: name, Overrides: overrides, Seed: 1, Out: dir})
	require.FileExists(t, filepath.Join(dir, ReportFile), "simulate run %s %v: %s%s", name, sets, stdout.String(), stderr.String())
	var sum Summary
	require.NoError(t, readFile(filepath.Join(dir, SummaryFile), func(r io.Reader) (err error) {
		sum, err = ReadSummary(r)
		return err
	}))
	return dir, sum
}

// pageTrouble gathers, from the browser's events, what a page must not do: write an error
// to the console (console.error, console.assert, an uncaught exception, an error in the
// browser's log), fail to load something, or ask for anything but a file.
type pageTrouble struct {
	mu       sync.Mutex
	urls     map[network.RequestID]string
	troubles []string
}

// listen is the browser's event listener; it runs on the tab's goroutine, so it only notes.
func (p *pageTrouble) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p.troubles = append(p.troubles, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		p.troubles = append(p.troubles, fmt.Sprintf("uncaught exception at line %d: %s", d.LineNumber+1, text))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			p.troubles = append(p.troubles, fmt.Sprintf("log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		p.urls[ev.RequestID] = ev.Request.URL
		if !strings.HasPrefix(ev.Request.URL, "file://") {
			p.troubles = append(p.troubles, "a request to a URL that is not a file: "+ev.Request.URL)
		}
	case *network.EventLoadingFailed:
		p.troubles = append(p.troubles, fmt.Sprintf("failed to load %s: %s", p.urls[ev.RequestID], ev.ErrorText))
	}
}

// take returns what went wrong since the last take, and forgets it.
func (p *pageTrouble) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.troubles
	p.troubles = nil
	return t
}

// browse starts headless Chromium, with a fresh profile and nothing that talks to the
// network, and returns a tab, the listener of its troubles, and a func that closes the
// browser and checks that none of its processes is left.
func browse(t *testing.T, path string) (context.Context, *pageTrouble, func()) {
	t.Helper()
	// chromedp makes the profile (--user-data-dir) in os.TempDir, kills what still uses it
	// once the browser ends, and removes it; here, under a directory of the test's own.
	profiles := t.TempDir()
	t.Setenv("TMPDIR", profiles)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), browserTimeout)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(path), chromedp.WindowSize(1280, 900),
		chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-sync", true),
		chromedp.CombinedOutput(io.Discard))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	closeBrowser := func() {
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		cancelTimeout()
		assert.Empty(t, processesUsing(profiles), "Chromium processes left behind")
	}
	if err := chromedp.Do(tab); err != nil { // starts the browser and opens the tab
		closeBrowser()
		require.NoError(t, err, "start %s", path)
	}
	trouble := &pageTrouble{urls: map[network.RequestID]string{}}
	require.NoError(t, chromedp.Listen(tab, trouble.listen))
	return tab, trouble, closeBrowser
}

// processesUsing lists the processes whose command line names a profile under dir.
func processesUsing(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte("--user-data-dir="+dir)) {
			found = append(found, e.Name())
		}
	}
	return found
}

// loadedPage is what the test reads of a page once it has loaded.
type loadedPage struct {
	Text         string     `json:"text"`         // document.body.innerText
	BrokenImages []string   `json:"brokenImages"` // the <img> that did not load
	EmptySVGs    []string   `json:"emptySVGs"`    // the inline <svg> shown (not in a closed <details>) with no area
	Plots        int        `json:"plots"`        // how many plots (figure#plot-NAME > svg) there are
	Figures      [][]string `json:"figures"`      // the cells of table#figures, row by row
	// Verdicts are the verdict heading, each rule's verdict and each expectation's "held"
	// cell, with whether it is drawn in red (more red than green).
	Verdicts []struct {
		Text string `json:"text"`
		Red  bool   `json:"red"`
	} `json:"verdicts"`
}

const readPage = `(() => {
document.querySelectorAll("details").forEach(d => { d.open = true; }); // what a click unfolds is on the page too
const name = e => (e.closest("figure") || e).id || e.outerHTML.slice(0, 80);
const shown = [...document.querySelectorAll("svg")].filter(s => !s.parentElement.closest("svg"));
return {
	text: document.body.innerText,
	brokenImages: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
	emptySVGs: shown.filter(s => { const r = s.getBoundingClientRect(); return r.width === 0 || r.height === 0; }).map(name),
	plots: document.querySelectorAll('figure[id^="plot-"] > svg').length,
	figures: [...document.querySelectorAll("#figures tbody tr")].map(r => [...r.cells].map(c => c.textContent)),
	verdicts: [...document.querySelectorAll("#verdict, #invariants tbody td:nth-child(2), #expectations tbody td:nth-child(2)")].map(e => {
		const [r, g] = getComputedStyle(e).color.match(/\d+/g).map(Number);
		return {text: e.textContent, red: r > g};
	}),
};
})()`

// load opens the report of the run folder dir and reads it; it fails the test on any
// trouble while it loads, an image that did not load or a plot drawn with no area.
func load(t *testing.T, tab context.Context, trouble *pageTrouble, dir string) loadedPage {
	t.Helper()
	url := "file://" + filepath.Join(dir, ReportFile)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(url)), url)
	p, err := chromedp.Run(tab, chromedp.Evaluate[loadedPage](readPage))
	require.NoError(t, err, url)
	assert.Empty(t, trouble.take(), "%s: console errors, failed or foreign requests", url)
	assert.Empty(t, p.BrokenImages, "%s: images that did not load", url)
	assert.Empty(t, p.EmptySVGs, "%s: plots drawn with no width or height", url)
	svgs, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	require.NoError(t, err)
	assert.Equal(t, len(svgs), p.Plots, "%s: every plot of the folder drawn", url)
	for _, v := range p.Verdicts {
		failed := v.Text == VerdictViolated || v.Text == "no" || strings.HasPrefix(v.Text, "Verdict: FAILED")
		assert.Equal(t, failed, v.Red, "%s: %q drawn in red if and only if it failed", url, v.Text)
	}
	return p
}

// words is s with its runs of white space made one space, as a page shows it.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestTheReportInABrowser opens report.html in headless Chromium, as a user would, for a
// library run and for a failing one: nothing goes wrong while it loads (no console error,
// no request that fails or leaves the folder, every plot drawn), the text it shows says the
// verdict, every expectation with its value and the figures of summary.json, a click on a
// heading sorts the figures, and a screenshot of the whole page is taken (to the path in
// SBSIM_SCREENSHOT when set). Without Chromium the test is skipped, unless
// SBSIM_BROWSER_REQUIRED=1 (CI sets it when it installed the browser).
func TestTheReportInABrowser(t *testing.T) {
	path := chromium()
	if path == "" {
		const why = "no Chromium: set SBSIM_CHROMIUM, or put chromium, chromium-browser or google-chrome on PATH"
		if os.Getenv("SBSIM_BROWSER_REQUIRED") == "1" {
			t.Fatal(why + " (SBSIM_BROWSER_REQUIRED=1)")
		}
		t.Skip(why)
	}
	okDir, okSum := runFolderOf(t, "lossy-wan")
	require.True(t, okSum.OK, "lossy-wan, seed 1, holds")
	failedDir, failedSum := runFolderOf(t, "lossy-wan", "limits.max_events=100")
	require.False(t, failedSum.OK, "lossy-wan with limits.max_events=100 fails")

	tab, trouble, closeBrowser := browse(t, path)
	defer closeBrowser()

	page := load(t, tab, trouble, okDir)
	text := words(page.Text)
	assert.Contains(t, text, "Verdict: ok")
	assert.NotContains(t, text, "Verdict: FAILED")
	for _, e := range okSum.Expectations {
		assert.Contains(t, text, words(e.Name+" yes "+e.Detail), "expectation %q with its value", e.Name)
	}
	for _, r := range okSum.Invariants.Rules {
		assert.Contains(t, text, r.Rule+" "+r.Verdict, "invariant %s with its verdict", r.Rule)
	}
	checkFigures(t, page.Figures, okSum.Metrics)
	for _, m := range okSum.Metrics[:min(3, len(okSum.Metrics))] {
		rounded, err := strconv.ParseFloat(strconv.FormatFloat(m.Value, 'g', 6, 64), 64)
		require.NoError(t, err)
		assert.Contains(t, page.Text, strconv.FormatFloat(rounded, 'f', -1, 64), "the value of %s as printed: six digits, no exponent", m.Metric)
	}
	checkSorting(t, tab)
	screenshot(t, tab)
	assert.Empty(t, trouble.take(), "console errors while sorting or taking the screenshot")

	page = load(t, tab, trouble, failedDir)
	text = words(page.Text)
	assert.Contains(t, text, "Verdict: FAILED")
	failed := 0
	for _, e := range failedSum.Expectations {
		if !e.OK {
			failed++
			first, _, _ := strings.Cut(e.Detail, "\n") // the records under it are folded
			assert.Contains(t, text, words(e.Name+": got "+first), "the failed expectation %q named first", e.Name)
			assert.Contains(t, text, words(e.Name+" no "+first), "the failed expectation %q in the table", e.Name)
		}
	}
	assert.Positive(t, failed, "the failing run has an expectation that failed")
	checkFigures(t, page.Figures, failedSum.Metrics)
}

// checkFigures checks that the figures table has one row per metric of summary.json, in
// its order, with the metric's name and its value as printed (six significant digits).
func checkFigures(t *testing.T, rows [][]string, metrics []MetricValue) {
	t.Helper()
	require.Len(t, rows, len(metrics), "one row of the figures per metric of summary.json")
	var wrong []string
	for i, m := range metrics {
		v, err := figureValue(rows[i][len(rows[i])-1])
		unit := m.Unit
		if unit == "duration" {
			unit = "s"
		}
		if rows[i][0] != m.Metric || rows[i][2] != unit || err != nil || math.Abs(v-m.Value) > 1e-5*max(1, math.Abs(m.Value)) {
			wrong = append(wrong, fmt.Sprintf("row %d %v for %s = %v", i, rows[i], m.Metric, m.Value))
		}
	}
	assert.Empty(t, wrong, "figures unlike summary.json's metrics")
}

// figureValue reads a value of the figures table: a plain number, its unit in the column
// before it.
func figureValue(cell string) (float64, error) {
	return strconv.ParseFloat(cell, 64)
}

// checkSorting clicks the heading Value of the figures table, twice, and checks that the
// rows are then in ascending and in descending order of value; and that a click on
// Metric sorts them by name, as the page's own collation orders them.
func checkSorting(t *testing.T, tab context.Context) {
	t.Helper()
	column := func(i int) []string {
		cells, err := chromedp.Run(tab, chromedp.Evaluate[[]string](fmt.Sprintf(
			`[...document.querySelectorAll("#figures tbody tr")].map(r => r.cells[%d].textContent)`, i)))
		require.NoError(t, err)
		return cells
	}
	values := func() []float64 {
		var vs []float64
		for _, c := range column(3) {
			v, err := figureValue(c)
			require.NoError(t, err, c)
			vs = append(vs, v)
		}
		return vs
	}
	before := values()
	require.False(t, slices.IsSorted(before), "the figures are not in order of value before the click")
	click := func(heading int) {
		require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS(fmt.Sprintf("#figures thead th:nth-child(%d)", heading)))))
	}
	click(4)
	ascending := values()
	assert.True(t, slices.IsSorted(ascending), "a click on Value sorts the figures by value: %v", ascending)
	assert.ElementsMatch(t, before, ascending, "sorting keeps every row")
	click(4)
	descending := values()
	slices.Reverse(descending)
	assert.True(t, slices.IsSorted(descending), "a second click sorts them the other way: %v", descending)
	click(1)
	sorted, err := chromedp.Run(tab, chromedp.Evaluate[bool](
		`(() => { const c = [...document.querySelectorAll("#figures tbody tr")].map(r => r.cells[0].textContent);
		return c.every((x, i) => i === 0 || c[i-1].localeCompare(x) <= 0); })()`))
	require.NoError(t, err)
	assert.True(t, sorted, "a click on Metric sorts the figures by name: %v", column(0))
}

// screenshot takes a PNG of the whole page, to SBSIM_SCREENSHOT when set, and checks it
// is an image of some size.
func screenshot(t *testing.T, tab context.Context) {
	t.Helper()
	data, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := os.Getenv("SBSIM_SCREENSHOT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "report.png")
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err, "the screenshot is a PNG")
	size := img.Bounds().Size()
	assert.Equal(t, 1280, size.X, "the screenshot is as wide as the window")
	assert.Greater(t, size.Y, 900, "the screenshot holds the whole page, longer than the window")
	t.Logf("screenshot: %s (%dx%d, %d bytes)", path, size.X, size.Y, len(data))
}
