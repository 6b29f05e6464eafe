package results

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// SeedsFile is the JSON Lines file of a check or a sweep: one SeedLine per run, written
// as each finishes (in the order of the runs), so that what finished is kept when the
// command is stopped.
const SeedsFile = "seeds.jsonl"

// SeedLine is one line of seeds.jsonl: one run of a check or a sweep.
type SeedLine struct {
	Scenario string `json:"scenario"`
	// Point is a sweep's values of its parameters, in their order; absent for a check.
	Point []Setting `json:"point,omitempty"`
	Seed  uint64    `json:"seed"`
	// OK is the run's verdict: no invariant violated and, for a check, every expectation held.
	OK bool `json:"ok"`
	// Reasons say why it failed: the invariant violated, each expectation that failed.
	Reasons        []string `json:"reasons"`
	StopReason     string   `json:"stop_reason"`
	StoppedAtLimit bool     `json:"stopped_at_limit"`
	// Faults is an exploration's fault mix for the seed, one line per link and kind
	// (batch.Mix); absent for a check or a sweep.
	Faults []string `json:"faults,omitempty"`
	// Error is set for a run that could not start or panicked (a bug of the simulator).
	Error  string `json:"error,omitempty"`
	Replay string `json:"replay"`
}

// Setting is one parameter's value at a sweep's point.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// BatchReport reports the runs of a check or a sweep as they finish, to the console
// (failing runs at once; every run when verbose) and to seeds.jsonl, and counts them for
// the exit code.
type BatchReport struct {
	out io.Writer
	// Folder is where seeds.jsonl is, and the sweep's files.
	Folder  *Folder
	lines   *Lines
	verbose bool
	// Runs, Failed and Limited count the runs reported, those that failed and those that
	// stopped at a resource limit.
	Runs, Failed, Limited int
	// FailedVerdicts counts the scenarios (a check) or points (a sweep) whose verdict
	// failed: a statistical expectation fails over the seeds, not on one of them.
	FailedVerdicts int
	failing        []failingSeed
	err            error
}

// BatchDir is the folder of a check or a sweep (kind) of arg, a file or a library name:
// out when given, else sbsim-results/KIND-NAME, NAME the file's base name without .yaml.
func BatchDir(out, kind, arg string) string {
	if out != "" {
		return out
	}
	return filepath.Join("sbsim-results", kind+"-"+strings.TrimSuffix(filepath.Base(arg), ".yaml"))
}

// CheckReplay returns the command that replays seed of the check's target called name,
// with the overrides and the extra flags, pinned to the target's scenario text.
func CheckReplay(targets []batch.Target, overrides []file.Override) func(name string, seed uint64, extra ...string) string {
	hashes := map[string]string{}
	for _, t := range targets {
		hashes[t.Name] = t.Scenario.Hash
	}
	return func(name string, seed uint64, extra ...string) string {
		return PinnedReplay(file.Replay(name, overrides, seed, extra...), hashes[name])
	}
}

// NewBatchReport reports to out and to seeds.jsonl in dir, a Folder it opens, before
// anything runs.
func NewBatchReport(out io.Writer, dir string, verbose bool) (*BatchReport, error) {
	f, err := OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	removeKeptSeeds(dir)
	lines, err := f.Lines(SeedsFile)
	if err != nil {
		return nil, err
	}
	return &BatchReport{out: out, Folder: f, lines: lines, verbose: verbose}, nil
}

// keptSeed names the folders of failing seeds a batch keeps (KeepFailingSeeds, explore):
// seed-N, NAME-seed-N.
var keptSeed = regexp.MustCompile(`^(.+-)?seed-[0-9]+$`)

// removeKeptSeeds removes, from a batch's folder, the folders of failing seeds an earlier
// batch kept there: folders of results (they have their own manifest) named as kept seeds.
// A new batch keeps its own; the old ones would be read as its.
func removeKeptSeeds(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, ManifestFile)); err == nil && e.IsDir() && keptSeed.MatchString(e.Name()) {
			os.RemoveAll(sub)
		}
	}
}

// Seed reports one seed of a check, with the command that replays it.
func (b *BatchReport) Seed(r batch.SeedResult, replay string) {
	line := SeedLine{Scenario: r.Name, Seed: r.Seed, OK: r.OK(), Reasons: append([]string{}, r.Reasons...), Replay: replay}
	if r.Err != nil {
		line.Error = r.Err.Error()
	} else {
		line.StopReason, line.StoppedAtLimit = stopReason(r.Stop), StoppedAtLimit(r.Stop)
	}
	b.add(line, r.Name)
}

// SweepRun reports one run of a sweep at its point, with the command that replays it.
func (b *BatchReport) SweepRun(name string, overrides []file.Override, r batch.SweepRun, replay string) {
	var point []Setting
	for _, o := range overrides {
		point = append(point, Setting{Key: o.Key, Value: o.Value})
	}
	line := SeedLine{Scenario: name, Point: point, Seed: r.Seed, OK: r.Violation == nil, Reasons: []string{},
		StopReason: stopReason(r.Stop), StoppedAtLimit: StoppedAtLimit(r.Stop), Replay: replay}
	if v := r.Violation; v != nil {
		line.Reasons = append(line.Reasons, v.Rule+" violated")
	}
	var where []string
	for _, s := range point {
		where = append(where, s.Key+"="+s.Value)
	}
	b.add(line, name+" with "+strings.Join(where, ", "))
}

// Explored reports one seed of an exploration, its fault mix printed under it when it
// fails, with the command that replays it.
func (b *BatchReport) Explored(name string, e batch.ExploredSeed, replay string) {
	line := SeedLine{Scenario: name, Seed: e.Seed, OK: e.OK(), Reasons: []string{},
		Faults: strings.Split(e.Mix.String(), "\n"), Replay: replay}
	if e.Err == nil {
		line.StopReason, line.StoppedAtLimit = stopReason(e.Stop), StoppedAtLimit(e.Stop)
	}
	for i := range line.Faults {
		line.Faults[i] = strings.TrimSpace(line.Faults[i])
	}
	if e.Err != nil {
		line.Error, line.OK = e.Err.Error(), false
		line.Reasons = append(line.Reasons, line.Error)
	} else if e.Failure != "" {
		line.Reasons = append(line.Reasons, e.Failure)
	}
	b.explored(line)
}

// explored reports a line of an exploration's seeds.jsonl: written, counted, and printed
// as Explored prints its seed, from the line alone, so that a merge of shards prints what
// the one exploration did.
func (b *BatchReport) explored(line SeedLine) {
	b.add(line, line.Scenario)
	if line.Error != "" {
		fmt.Fprintf(b.out, "      %s seed %d: %s\n        replay: %s\n", line.Scenario, line.Seed, line.Error, line.Replay)
	}
	if !line.OK || b.verbose {
		for _, f := range line.Faults {
			fmt.Fprintf(b.out, "        %s\n", f)
		}
	}
}

// add counts a line, writes it to seeds.jsonl and, when it failed or verbose, to the console.
func (b *BatchReport) add(l SeedLine, what string) {
	b.Runs++
	switch {
	case !l.OK:
		b.Failed++
	case l.StoppedAtLimit:
		b.Limited++
	}
	if b.err == nil {
		b.err = b.lines.Add(l)
	}
	switch {
	case l.Error != "":
		// the verdict reports it, with its stack
	case !l.OK:
		fmt.Fprintf(b.out, "      %s seed %d: %s\n        replay: %s\n", what, l.Seed, strings.Join(l.Reasons, "; "), l.Replay)
	case l.StoppedAtLimit:
		fmt.Fprintf(b.out, "      %s seed %d: stopped at a limit (%s) before its end\n", what, l.Seed, l.StopReason)
	case b.verbose:
		fmt.Fprintf(b.out, "      %s seed %d: ok\n", what, l.Seed)
	}
}

// Verdict reports a scenario's check once its seeds ran; replay gives the command that
// replays a seed.
func (b *BatchReport) Verdict(v batch.Verdict, replay func(seed uint64) string) {
	switch {
	case v.Err != nil: // a run that could not start, or panicked: a bug, with its replay line
		fmt.Fprintf(b.out, "FAIL  %s: %v\n      replay: %s\n", v.Name, v.Err, replay(v.ErrSeed))
	case v.OK():
		fmt.Fprintf(b.out, "PASS  %s (%d seeds)\n%s%s", v.Name, v.Seeds, v.OverSeedsText(), v.MarksText())
	default:
		b.FailedVerdicts++
		if len(v.Failures) > 0 {
			b.failing = append(b.failing, failingSeed{v.Name, v.Failures[0].Seed})
		}
		fmt.Fprintf(b.out, "FAIL  %s (%d of %d seeds)\n%s%s", v.Name, len(v.Failures), v.Seeds, v.OverSeedsText(),
			v.Marks.MissingText(v.MissingMarks))
		fmt.Fprintf(b.out, "      replay one: %s\n%s", replay(v.ReplaySeed()), v.Marks.NeverReachedText())
	}
}

// failingSeed is the first failing seed of a check's scenario.
type failingSeed struct {
	name string
	seed uint64
}

// KeepFailingSeeds keeps the first failing seed of each of the first limit scenarios
// that failed, in a folder NAME-seed-N of the check's folder each, which keep writes (a
// check runs the seed again into it, as simulate run NAME -seed N -out DIR -trace writes
// it; a merge copies it from its shard), and says where: results, trace and replay.sh of a
// failure, which simulate recheck reads. It returns the names of the folders kept. Call it
// before Close.
func (b *BatchReport) KeepFailingSeeds(ctx context.Context, stderr io.Writer, limit int, keep func(name string, seed uint64, out string) bool) []string {
	kept := []string{}
	for i, f := range b.failing {
		if i == limit || ctx.Err() != nil {
			break
		}
		folder := fmt.Sprintf("%s-seed-%d", strings.TrimSuffix(filepath.Base(f.name), ".yaml"), f.seed)
		out := filepath.Join(b.Folder.Dir(), folder)
		if !keep(f.name, f.seed, out) {
			continue
		}
		kept = append(kept, folder)
		fmt.Fprintf(b.out, "      %s seed %d: its results and trace are in %s (simulate recheck %s)\n", f.name, f.seed, out, out)
		if _, err := os.Stat(filepath.Join(out, CardFolder, shrink.CardFile)); err == nil {
			cardLine(b.out, fmt.Sprintf("%s seed %d", f.name, f.seed), out)
		}
	}
	return kept
}

// Close closes seeds.jsonl and the folder, says where it is and how many of total runs
// finished when the command was interrupted, and returns the exit code.
func (b *BatchReport) Close(total int, interrupted bool, stderr io.Writer) int {
	if err := b.lines.Close(); b.err == nil {
		b.err = err
	}
	if err := b.Folder.Close(); b.err == nil {
		b.err = err
	}
	where := ""
	if b.err == nil {
		where = fmt.Sprintf("; each one's result is in %s", b.lines.Path())
	}
	switch {
	case interrupted:
		fmt.Fprintf(stderr, "simulate: interrupted: %d of %d runs finished (%d failed)%s\n", b.Runs, total, b.Failed, where)
		return ExitInterrupted
	case b.err != nil:
		fmt.Fprintf(stderr, "simulate: %v\n", b.err)
		return ExitNotWritten
	case b.Failed > 0 || b.FailedVerdicts > 0:
		return ExitFailed
	case b.Limited > 0:
		fmt.Fprintf(stderr, "simulate: %d of %d runs stopped at a resource limit before their end: their results are partial\n", b.Limited, b.Runs)
		return ExitLimit
	}
	return ExitOK
}
