package check

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/gen"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// Options say which seeds a check runs, and how.
type Options struct {
	// Seeds are the seeds to run, in this order; when empty, seeds 1 to N.
	Seeds []uint64
	// N is how many seeds to run when Seeds is empty: for File, 0 is the file's own
	// seeds (its seeds key), else 10; for Seeds, 0 is 10.
	N int
	// Swarm runs each seed in a world of its own: the design with the fault mix that
	// gen.Swarm draws for the seed, printed with a failure. Only the invariants and design
	// findings are judged then, not a file's expectations, which describe its own faults.
	Swarm bool
	// Workers is how many seeds run at once; 0 is GOMAXPROCS.
	Workers int
	// ShrinkRuns bounds the runs that shrink a seed that broke an invariant into a
	// counterexample card (scenarios/shrink); 0 is DefaultShrinkRuns, negative does not
	// shrink. CardDir is where the card's files go (card.txt, chart.svg,
	// counterexample.yaml), in a folder per test and seed; empty is the system's temporary
	// folder.
	ShrinkRuns int
	CardDir    string
}

// DefaultShrinkRuns bounds the shrinking of a failing seed.
const DefaultShrinkRuns = 1000

// SeedsVariable is the environment variable whose comma-separated seeds replace those of
// every check: a failure's replay line sets it.
const SeedsVariable = "SBSIM_SEEDS"

// Seeds runs cfg on the seeds opts names, with its invariants checked, and fails t on
// the first seed, in the seeds' order, whose run cannot start, breaks an invariant or has
// a design finding.
func Seeds(t testing.TB, cfg scenarios.Config, opts Options) {
	t.Helper()
	run(t, design{cfg: cfg}, opts)
}

// File loads the scenario file at path (scenarios/file) and runs it as Seeds does. Without
// a swarm, it judges the file's expectations too, as simulate check does: a seed fails when
// one of the per-seed ones does not hold, and once every seed passed, the statistical ones
// are judged over the seeds. A file that does not load fails t.
func File(t testing.TB, path string, opts Options) {
	t.Helper()
	s, err := file.LoadFile(path)
	if err != nil {
		t.Fatalf("sbsim: %v", err)
	}
	if opts.N == 0 {
		opts.N = batch.Seeds(s)
	}
	run(t, design{cfg: s.Config, file: s, path: path}, opts)
}

// design is what a check runs: a config, and the scenario file it comes from, if any.
type design struct {
	cfg  scenarios.Config
	file *file.Scenario
	path string
}

// failure is why one seed failed, kept by the worker that ran it: the rule and its message,
// the records that led to it, the expectations that did not hold.
type failure struct {
	rule, message string
	records       []model.TraceRecord
	expectations  []string
	// violation says the run broke an invariant: shrinking makes a card of it.
	violation bool
}

// chunkPerWorker is how many seeds a check hands batch.Map at once, per worker: the jobs of
// a chunk are all that a check holds, so that its memory does not grow with its seeds.
const chunkPerWorker = 64

// run runs d on the seeds of opts, a chunk at a time through batch.Map, and fails t on the
// first failing seed in the seeds' order (the same whatever the workers), or when a file's
// statistical expectations do not hold over the seeds.
func run(t testing.TB, d design, opts Options) {
	t.Helper()
	seeds, err := seedList(opts)
	if err != nil {
		t.Fatalf("sbsim: %v", err)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	d.cfg.CheckInvariants = true
	var over *batch.OverSeeds // the file's statistical expectations, without a swarm
	if d.file != nil && !opts.Swarm {
		over = batch.NewOverSeeds(d.file)
	}
	chunk := chunkPerWorker * workers
	for start := 0; start < seeds.n; start += chunk {
		jobs := make([]batch.Job, 0, min(chunk, seeds.n-start))
		for i := start; i < start+cap(jobs); i++ {
			seed := seeds.at(i)
			jobs = append(jobs, batch.Job{Config: batch.Judged(d.world(seed, opts.Swarm)), Seed: seed})
		}
		keep := func(_ int, res *scenarios.Result) judged {
			j := judged{failure: d.judge(res, opts.Swarm)}
			if over != nil {
				j.samples = batch.Samples(d.file, res)
			}
			return j
		}
		var failed batch.Outcome[judged]
		for o := range batch.Map(jobs, workers, keep, nil) {
			if o.Err != nil {
				o.Kept.failure = &failure{rule: "the run", message: o.Err.Error()}
			}
			if o.Kept.failure != nil {
				failed = o
				break // stops the workers once their runs end
			}
			if over != nil {
				over.Add(o.Seed, o.Kept.samples)
			}
		}
		if failed.Kept.failure != nil {
			t.Fatal(d.report(t, failed.Seed, failed.Kept.failure, opts.Swarm, opts))
		}
	}
	if over != nil {
		if f, seed := overSeedsFailure(over.Verdicts(), seeds); f != nil {
			t.Fatal(d.report(t, seed, f, false, opts))
		}
	}
	t.Logf("sbsim: %s: %d seeds passed", d.name(), seeds.n)
}

// judged is what a worker keeps of one run: why it failed, if it did, and the samples of
// the file's statistical expectations.
type judged struct {
	failure *failure
	samples []file.Sample
}

// overSeedsFailure is the failure of the statistical expectations that did not hold over
// the seeds, and the seed to replay (the first that missed one), or nil.
func overSeedsFailure(vs []batch.OverSeedsVerdict, s seeds) (*failure, uint64) {
	if batch.OverSeedsHeld(vs) {
		return nil, 0
	}
	f := &failure{rule: "expectations over the seeds"}
	seed := s.at(0)
	missed := false
	n := 0
	for _, v := range vs {
		if !v.OK {
			n++
			f.expectations = append(f.expectations, v.ExpectationVerdict.String())
			if v.FirstMiss != 0 && !missed {
				seed, missed = v.FirstMiss, true
			}
		}
	}
	f.message = fmt.Sprintf("%d of the file's expectations over %d seeds did not hold; the seed below is the first that missed one", n, s.n)
	return f, seed
}

// world is the config seed runs: the design's, or with a swarm the design with the seed's
// fault mix.
func (d design) world(seed uint64, swarm bool) scenarios.Config {
	if !swarm {
		return d.cfg
	}
	cfg, _ := gen.Swarm(d.cfg, seed)
	return cfg
}

// judge says why a run failed, or returns nil: its violation; else, for a file without a
// swarm, the per-seed expectations that failed (among them a design finding the file does
// not expect); else its first design finding.
func (d design) judge(res *scenarios.Result, swarm bool) *failure {
	if v := res.Violation; v != nil {
		return &failure{rule: v.Rule, message: strings.SplitN(v.Error(), "\n", 2)[0], records: v.Records, violation: true}
	}
	if d.file == nil || swarm {
		if len(res.Findings) == 0 {
			return nil
		}
		f := &res.Findings[0]
		return &failure{rule: f.ID, message: f.Error(), records: f.Records}
	}
	var failed []string
	for _, v := range d.file.Check(res) {
		if !v.Expectation.Statistical() && !v.OK {
			failed = append(failed, v.String())
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &failure{rule: "expectations", message: fmt.Sprintf("%d of the file's expectations did not hold", len(failed)), expectations: failed}
}

// name names the design in messages: its file, else its config's name.
func (d design) name() string {
	if d.path != "" {
		return d.path
	}
	if d.cfg.Name != "" {
		return strconv.Quote(d.cfg.Name)
	}
	return "the design"
}

// report is the message a failing seed fails the test with.
func (d design) report(t testing.TB, seed uint64, f *failure, swarm bool, opts Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sbsim: %s, seed %d: %s failed\n%s\n", d.name(), seed, f.rule, f.message)
	if swarm {
		_, mix := gen.Swarm(d.cfg, seed)
		fmt.Fprintf(&b, "fault mix of the seed: %v\n", mix)
	}
	for _, e := range f.expectations {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	if len(f.records) > 0 {
		b.WriteString("records that led to it, oldest first:\n")
		for _, r := range f.records {
			fmt.Fprintf(&b, "  %s\n", r.String())
		}
	}
	b.WriteString(d.replay(t, seed, swarm))
	if f.violation {
		b.WriteString(d.card(t, seed, swarm, opts))
	}
	return b.String()
}

// card shrinks a seed that broke an invariant and returns its counterexample card, with
// where its files are.
func (d design) card(t testing.TB, seed uint64, swarm bool, opts Options) string {
	if opts.ShrinkRuns < 0 {
		return ""
	}
	runs := opts.ShrinkRuns
	if runs == 0 {
		runs = DefaultShrinkRuns
	}
	out, err := shrink.Shrink(batch.Judged(d.world(seed, swarm)), seed, shrink.Options{MaxRuns: runs})
	if err != nil {
		return fmt.Sprintf("\nno counterexample card: %v\n", err)
	}
	base := opts.CardDir
	if base == "" {
		base = filepath.Join(os.TempDir(), "sbsim-cards")
	}
	dir := filepath.Join(base, fmt.Sprintf("%s-seed-%d", strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), seed))
	card, err := out.WriteCard(dir)
	if err != nil {
		return fmt.Sprintf("\nno counterexample card: %v\n", err)
	}
	if _, err := os.Stat(filepath.Join(dir, shrink.ReplayFile)); err != nil {
		return fmt.Sprintf("\n%s\ncard.txt and chart.svg in %s\n", card, dir)
	}
	return fmt.Sprintf("\n%s\ncard, chart.svg, counterexample.yaml and replay.sh in %s (sh %s)\n", card, dir, filepath.Join(dir, shrink.ReplayFile))
}

// replay is how to replay seed: the test, with SBSIM_SEEDS; the Go call; and for a file,
// the command line of simulate (explore -swarm's seed, in a swarm).
func (d design) replay(t testing.TB, seed uint64, swarm bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay: %s=%d go test -run '%s' .\n", SeedsVariable, seed, runPattern(t.Name()))
	if swarm {
		fmt.Fprintf(&b, "  in Go: world, _ := gen.Swarm(cfg, %d); scenarios.Run(world, %d)\n", seed, seed)
	} else {
		fmt.Fprintf(&b, "  in Go: cfg.CheckInvariants = true; scenarios.Run(cfg, %d)\n", seed)
	}
	switch {
	case d.path != "" && swarm:
		fmt.Fprintf(&b, "  or, from a checkout of sbsim: %s\n", batch.ExploreReplay(d.path, nil, seed, true))
	case d.path != "":
		fmt.Fprintf(&b, "  or, from a checkout of sbsim: %s\n", file.Replay(d.path, nil, seed))
	}
	return b.String()
}

// runPattern is the go test -run pattern that selects the test named name alone: each
// level of a subtest anchored.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// seeds is the seeds of a check: n of them, a listed one or 1 to n.
type seeds struct {
	list []uint64
	n    int
}

func (s seeds) at(i int) uint64 {
	if s.list != nil {
		return s.list[i]
	}
	return uint64(i + 1)
}

// seedList is the seeds of opts, or those of SBSIM_SEEDS when it is set.
func seedList(opts Options) (seeds, error) {
	if env := os.Getenv(SeedsVariable); env != "" {
		var list []uint64
		for _, f := range strings.Split(env, ",") {
			s, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return seeds{}, fmt.Errorf("%s=%q: %w", SeedsVariable, env, err)
			}
			list = append(list, s)
		}
		return seeds{list: list, n: len(list)}, nil
	}
	if len(opts.Seeds) > 0 {
		return seeds{list: opts.Seeds, n: len(opts.Seeds)}, nil
	}
	if opts.N < 0 {
		return seeds{}, fmt.Errorf("options: N %d is negative", opts.N)
	}
	if opts.N == 0 {
		return seeds{n: 10}, nil
	}
	return seeds{n: opts.N}, nil
}
