package batch

import (
	"fmt"
	"iter"
	"reflect"
	"runtime"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// Pass is how one of the determinism check's two passes ran its jobs: with this
// GOMAXPROCS, on this many workers (as many as the batch of jobs allows).
type Pass struct {
	GOMAXPROCS int
	Workers    int
}

func (p Pass) String() string {
	w := "workers"
	if p.Workers == 1 {
		w = "worker"
	}
	return fmt.Sprintf("GOMAXPROCS %d, %d %s", p.GOMAXPROCS, p.Workers, w)
}

// Divergence is a job whose two runs of the determinism check differ, or that could not
// run: its two passes' digests and, from two more runs side by side, the first trace
// record that differs. Error gives the report.
type Divergence struct {
	// Index is the job's among the jobs; Scenario is its config's name.
	Index    int
	Seed     uint64
	Scenario string
	Passes   [2]Pass
	Digests  [2]TraceDigest
	// Err is the error of a run that could not start or panicked, in either pass.
	Err error
	// Side is what the two runs side by side found.
	Side SideBySide
}

// contextRecords is how many records the same in both runs a divergence shows before the
// first that differs.
const contextRecords = 3

// determinismChunk is how many jobs the check runs in each pass before the other: it
// keeps one digest per job of a chunk, so that its memory does not grow with the jobs.
const determinismChunk = 1024

// Determinism runs every job twice and yields, in the jobs' order, each job whose two runs
// differ (or that could not run). The first pass runs the jobs on workers at the process's
// GOMAXPROCS; the second on one more worker, with GOMAXPROCS set to 1 (or to 2 when it is
// 1) and restored after. Each run's trace records are folded into a running hash as they
// are emitted (TraceDigest), and only the digests are compared, so that memory does not
// grow with the length of the runs, nor with the number of jobs (they run in chunks of
// 1024, each chunk in both passes before the next). A job whose digests differ runs twice
// more, side by side, to find the first record that differs (SideBySide). progress, when
// not nil, is called once per finished run of the passes.
//
// A deterministic simulator gives no divergence: a run is a pure function of its config
// and seed, whatever the other runs and the threads. Nothing else may change GOMAXPROCS
// while Determinism runs.
func Determinism(jobs []Job, workers int, progress func()) iter.Seq[Divergence] {
	return func(yield func(Divergence) bool) {
		for start := 0; start < len(jobs); start += determinismChunk {
			chunk := jobs[start:min(len(jobs), start+determinismChunk)]
			passes := DeterminismPasses(workers, len(chunk))
			first := digests(chunk, passes[0], progress)
			second := digests(chunk, passes[1], progress)
			for i, job := range chunk {
				a, b := first[i], second[i]
				if a.Err == nil && b.Err == nil && a.Kept == b.Kept {
					continue
				}
				d := Divergence{Index: start + i, Seed: job.Seed, Scenario: job.Config.Name, Passes: passes,
					Digests: [2]TraceDigest{a.Kept, b.Kept}}
				if d.Err = a.Err; d.Err == nil {
					d.Err = b.Err
				}
				if d.Err == nil {
					d.Side = CompareSideBySide(job)
				}
				if !yield(d) {
					return
				}
			}
		}
	}
}

// DeterminismPasses returns how Determinism runs its two passes of jobs runs with
// workers: at the process's GOMAXPROCS on workers, then at GOMAXPROCS 1 (2 when it is 1)
// on one more, each time on no more workers than runs (nor than a chunk's).
func DeterminismPasses(workers, jobs int) [2]Pass {
	procs := runtime.GOMAXPROCS(0)
	other := 1
	if procs == 1 {
		other = 2
	}
	most := max(1, min(jobs, determinismChunk))
	w := max(1, workers)
	return [2]Pass{{GOMAXPROCS: procs, Workers: min(w, most)}, {GOMAXPROCS: other, Workers: min(w+1, most)}}
}

// CheckDeterminism runs job twice, as Determinism does, and returns the Divergence, an
// error, when the runs differ or could not run.
func CheckDeterminism(job Job) error {
	for d := range Determinism([]Job{job}, 1, nil) {
		return &d
	}
	return nil
}

// digests runs the jobs as pass p says, each with a traceHasher for its sink, and returns
// each one's digest, in the jobs' order.
func digests(jobs []Job, p Pass, progress func()) []Outcome[TraceDigest] {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p.GOMAXPROCS))
	hashers := make([]*traceHasher, len(jobs))
	hashed := make([]Job, len(jobs))
	for i, j := range jobs {
		hashers[i] = newTraceHasher()
		hashed[i] = Job{Config: tracedTo(j.Config, hashers[i]), Seed: j.Seed}
	}
	out := make([]Outcome[TraceDigest], len(jobs))
	keep := func(i int, res *scenarios.Result) TraceDigest { return hashers[i].digest(res) }
	for o := range Map(hashed, p.Workers, keep, progress) {
		out[o.Index] = o
	}
	return out
}

// tracedTo is cfg with its trace records handed to sink only: none kept in the result.
func tracedTo(cfg scenarios.Config, sink scenarios.TraceSink) scenarios.Config {
	cfg.Trace, cfg.Conversations, cfg.TraceSink = false, false, sink
	return cfg
}

// Error reports the divergence: the seed, each pass's digest, and the first record that
// differs in the runs side by side, with the records before it, or what else differs.
func (d *Divergence) Error() string {
	var b strings.Builder
	if d.Err != nil {
		fmt.Fprintf(&b, "%s seed %d: a run of the determinism check failed: %v", d.Scenario, d.Seed, d.Err)
		return b.String()
	}
	fmt.Fprintf(&b, "%s seed %d: the run is not deterministic: its two runs differ\n", d.Scenario, d.Seed)
	for i, dg := range d.Digests {
		fmt.Fprintf(&b, "  run %d (%v): %d trace records, hash %016x, %d events, %v, measures hash %016x\n",
			i+1, d.Passes[i], dg.Records, dg.Hash, dg.Events, dg.Stop, dg.Measures)
	}
	b.WriteString(d.Side.report())
	return strings.TrimSuffix(b.String(), "\n")
}

// fieldDifferences names each field in which a and b differ, with both values.
func fieldDifferences(a, b *model.TraceRecord) string {
	va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
	var out []string
	for i := range va.NumField() {
		x, y := va.Field(i).Interface(), vb.Field(i).Interface()
		if x != y {
			out = append(out, fmt.Sprintf("%s %s / %s", va.Type().Field(i).Name, shown(x), shown(y)))
		}
	}
	return strings.Join(out, ", ")
}

// shown is v as a record's field shows it: "none" for a value that prints as nothing (the
// zero Reason).
func shown(v any) string {
	if s := fmt.Sprint(v); s != "" {
		return s
	}
	return "none"
}
