package results

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// CardPageFile is a counterexample card for people, beside its card.txt: one
// self-contained HTML page drawn from card.txt, chart.svg and counterexample.yaml.
const CardPageFile = "card.html"

// cardPage is what the card's template shows.
type cardPage struct {
	Question string
	// Failure is the rule and what broke, Rule the rule alone.
	Failure, Rule string
	// Header are the card's lines under its failure (the seed, how far it shrank, its
	// notes), Replay the command that replays it.
	Header   []string
	Replay   string
	Sections []cardSection
	// Notes are the card's paragraphs after its sections (no scenario file, say).
	Notes []string
	Chart template.HTML
}

// cardSection is a section of card.txt: its title line and its lines, unindented.
type cardSection struct {
	Title, Text string
	// Chart is set for the sequence chart, which the page draws from chart.svg too.
	Chart bool
}

// ErrNoCard is the error of WriteCardPageFromFolder for a card's folder without its
// card.txt: the page is drawn from it, and only a new shrink writes it again.
var ErrNoCard = errors.New("no " + shrink.CardFile + ": the card cannot be drawn again from this folder; shrink the failure again (simulate explore or check keeps a failing seed's card)")

// WriteCardPageFromFolder writes card.html for the card folder dir from its files: the
// failure first, as the verdict, with how far it shrank and the command that replays it,
// then card.txt's sections (workload, fault plan, ledger, messages) and the sequence chart
// inline from chart.svg. It needs no network to open.
func WriteCardPageFromFolder(w io.Writer, dir string) error {
	text, err := os.ReadFile(filepath.Join(dir, shrink.CardFile))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("card %s: %w", dir, ErrNoCard)
	}
	if err != nil {
		return err
	}
	page, err := parseCard(string(text))
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(dir, shrink.CardFile), err)
	}
	if s, err := file.LoadFile(filepath.Join(dir, shrink.CaseFile)); err == nil {
		page.Question = s.Question
	}
	chart, err := os.ReadFile(filepath.Join(dir, shrink.ChartFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	page.Chart = template.HTML(svgHead.ReplaceAll(chart, []byte("$1")))
	var b bytes.Buffer
	if err := cardTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("card: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// cardHead begins every counterexample card (shrink.Outcome.Card).
const cardHead = "COUNTEREXAMPLE  "

// parseCard reads card.txt: its first paragraph (the failure, the seed, the shrink, the
// replay line), then its sections, each a title line and lines indented by two spaces,
// and any paragraph after them.
func parseCard(text string) (cardPage, error) {
	blocks := strings.Split(strings.TrimRight(text, "\n"), "\n\n")
	head := strings.Split(blocks[0], "\n")
	failure, ok := strings.CutPrefix(head[0], cardHead)
	if !ok {
		return cardPage{}, fmt.Errorf("not a counterexample card: it does not begin with %q", cardHead)
	}
	page := cardPage{Failure: failure, Rule: strings.SplitN(failure, ":", 2)[0]}
	for _, l := range head[1:] {
		if r, ok := strings.CutPrefix(l, "replay: "); ok {
			page.Replay = r
		} else {
			page.Header = append(page.Header, l)
		}
	}
	for _, b := range blocks[1:] {
		lines := strings.Split(b, "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "  ") {
			page.Notes = append(page.Notes, b)
			continue
		}
		for i, l := range lines[1:] {
			lines[i+1] = strings.TrimPrefix(l, "  ")
		}
		page.Sections = append(page.Sections, cardSection{Title: lines[0], Text: strings.Join(lines[1:], "\n"),
			Chart: lines[0] == "sequence chart"})
	}
	return page, nil
}

// writeCardPage writes card.html beside the card WriteCard wrote into dir.
func writeCardPage(dir string) error {
	return writeAtomic(filepath.Join(dir, CardPageFile), func(w io.Writer) error { return WriteCardPageFromFolder(w, dir) })
}

var cardTemplate = template.Must(template.Must(template.New("card").Parse(pageShell)).Parse(`{{template "head" "counterexample"}}: {{.Rule}}{{template "body"}}
<h1>Counterexample: {{.Rule}}</h1>
{{if .Question}}<p class="question">{{.Question}}</p>{{end}}
<h2 id="verdict" class="failed">Verdict: {{.Failure}}</h2>
{{range .Header}}<p>{{.}}</p>
{{end}}{{if .Replay}}<p id="replay">replay: <code>{{.Replay}}</code></p>
{{end}}{{range .Sections}}<h2>{{.Title}}</h2>
{{if and .Chart $.Chart}}<figure id="chart">{{$.Chart}}<figcaption>the packets of the failure between the instances</figcaption></figure>
<details><summary>as text</summary><pre style="overflow-x:auto">{{.Text}}</pre></details>
{{else}}<pre style="overflow-x:auto">{{.Text}}</pre>
{{end}}{{end}}{{range .Notes}}<p>{{.}}</p>
{{end}}{{template "tail"}}`))
