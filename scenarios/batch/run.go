package batch

import (
	"fmt"
	"iter"
	"runtime/debug"
	"sync"

	"github.com/sbsim/sbsim/scenarios"
)

// Job is one run: a world and a seed.
type Job struct {
	Config scenarios.Config
	Seed   uint64
}

// Judged is cfg for a run of a batch, which keeps only what the verdicts and the measures
// need: not the trace of a file with trace on (Config.Trace), nor the table of
// conversations it implies, which no verdict reads. The brokers still trace, to a sink that
// drops the records, so that the figures counted from them (conversations.delayed) stay.
func Judged(cfg scenarios.Config) scenarios.Config {
	if cfg.Trace {
		cfg.Trace, cfg.TraceSink = false, scenarios.DiscardTrace
	}
	cfg.Conversations = false
	return cfg
}

// Outcome is one job run: its index among the jobs, its seed, what was kept of its result
// (the result itself, for Run), or the error of a config that cannot run.
type Outcome[T any] struct {
	Index int
	Seed  uint64
	Kept  T
	Err   error
}

// resultsAheadPerWorker bounds how many runs may be done or under way beyond the one the
// caller awaits, per worker, when each outcome holds a whole result (Run): a result can be
// large, so few wait. keptAheadPerWorker is the bound when they hold what keep returned
// (Map), small figures: enough that a slow run does not leave the other workers idle once
// they are that many runs ahead of it (check all runs scenarios whose seeds cost 1 to 100
// times each other's).
const (
	resultsAheadPerWorker = 2
	keptAheadPerWorker    = 64
)

// Run runs the jobs on workers goroutines, one single-threaded run each, and yields their
// outcomes, each with its whole result, in the jobs' order. At most 2×workers results are
// held at once. See Map.
func Run(jobs []Job, workers int, progress func()) iter.Seq[Outcome[*scenarios.Result]] {
	return mapJobs(len(jobs), func(i int) Job { return jobs[i] }, workers, resultsAheadPerWorker,
		func(_ int, res *scenarios.Result) *scenarios.Result { return res }, progress)
}

// Map runs the jobs on workers goroutines, one single-threaded run each, hands each result
// to keep on the goroutine that ran it (so keep must only read what it is given), and
// yields what keep returned, in the jobs' order whatever finished first. Only what keep
// returns waits for its turn: a result is dropped as soon as keep returns, and at most
// 64×workers outcomes are held at once, so a long batch runs in constant memory, and a slow
// run holds the others back only once they are that far ahead. Stopping the iteration
// early stops the workers once their current runs end. progress, when not nil, is called
// once per finished run, from the iterating goroutine. While the batch runs, the collector
// is paced for it (BatchGCPercent).
func Map[T any](jobs []Job, workers int, keep func(i int, res *scenarios.Result) T, progress func()) iter.Seq[Outcome[T]] {
	return mapJobs(len(jobs), func(i int) Job { return jobs[i] }, workers, keptAheadPerWorker, keep, progress)
}

// mapJobs is Map over n jobs made by job(i) when their turn comes, so that a long batch
// need not hold them all, with at most ahead×workers outcomes done or under way beyond the
// one the caller awaits.
func mapJobs[T any](n int, job func(i int) Job, workers, ahead int, keep func(i int, res *scenarios.Result) T, progress func()) iter.Seq[Outcome[T]] {
	return func(yield func(Outcome[T]) bool) {
		workers = max(1, min(workers, n))
		if n == 0 {
			return
		}
		defer paceCollector()() // the collector paced for many short runs (collector.go)
		window := ahead * workers
		tokens := make(chan struct{}, window)
		next := make(chan int)
		done := make(chan Outcome[T], window)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		go func() { // hands out the jobs, never more than window ahead of what was yielded
			defer close(next)
			for i := range n {
				select {
				case tokens <- struct{}{}:
				case <-stop:
					return
				}
				select {
				case next <- i:
				case <-stop:
					return
				}
			}
		}()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					done <- runOne(i, job(i), keep) // room: a token is held
				}
			}()
		}
		defer func() {
			close(stop)
			go func() { // drain what the workers finish after an early stop
				for range done {
				}
			}()
			wg.Wait()
			close(done)
		}()
		pending := make(map[int]Outcome[T], window)
		for want := 0; want < n; {
			o := <-done
			if progress != nil {
				progress()
			}
			pending[o.Index] = o
			for {
				p, ok := pending[want]
				if !ok {
					break
				}
				delete(pending, want)
				want++
				<-tokens
				if !yield(p) {
					return
				}
			}
		}
	}
}

// PanicError is the error of a run that panicked: a bug of the simulator (an assertion of
// the model, say), which the batch reports for its seed instead of ending the process.
type PanicError struct {
	Value any
	Stack string
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("the run panicked, a bug of the simulator: %v\n%s", e.Value, e.Stack)
}

// runOne runs job i and keeps what keep returns; a panic of the run or of keep becomes the
// outcome's error.
func runOne[T any](i int, job Job, keep func(int, *scenarios.Result) T) (o Outcome[T]) {
	o = Outcome[T]{Index: i, Seed: job.Seed}
	defer func() {
		if r := recover(); r != nil {
			o.Err = &PanicError{Value: r, Stack: string(debug.Stack())}
		}
	}()
	res, err := scenarios.Run(job.Config, job.Seed)
	if o.Err = err; err == nil {
		o.Kept = keep(i, res)
	}
	return o
}
