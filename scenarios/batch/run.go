package batch

import (
	"iter"
	"sync"

	"github.com/sbsim/sbsim/scenarios"
)

// Job is one run: a world and a seed.
type Job struct {
	Config scenarios.Config
	Seed   uint64
}

// Outcome is one job run: its index among the jobs, its result, or the error of a config
// that cannot run.
type Outcome struct {
	Index  int
	Seed   uint64
	Result *scenarios.Result
	Err    error
}

// aheadPerWorker bounds how many runs may be done or under way beyond the one the caller
// awaits, per worker: enough to keep every worker busy while one slow run finishes.
const aheadPerWorker = 2

// Run runs the jobs on workers goroutines, one single-threaded run each, and yields their
// outcomes in the jobs' order. At most 2×workers outcomes are held at once, so a long batch
// runs in constant memory when the caller keeps only what it needs of each. Stopping the
// iteration early stops the workers once their current runs end. progress, when not nil,
// is called once per finished run, from the iterating goroutine.
func Run(jobs []Job, workers int, progress func()) iter.Seq[Outcome] {
	return func(yield func(Outcome) bool) {
		workers = max(1, min(workers, len(jobs)))
		if len(jobs) == 0 {
			return
		}
		window := aheadPerWorker * workers
		tokens := make(chan struct{}, window)
		next := make(chan int)
		done := make(chan Outcome, window)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		go func() { // hands out the jobs, never more than window ahead of what was yielded
			defer close(next)
			for i := range jobs {
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
					res, err := scenarios.Run(jobs[i].Config, jobs[i].Seed)
					done <- Outcome{Index: i, Seed: jobs[i].Seed, Result: res, Err: err} // room: a token is held
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
		pending := make(map[int]Outcome, window)
		for want := 0; want < len(jobs); {
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
