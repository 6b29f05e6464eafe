package batch

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

func library(t testing.TB, name string) *file.Scenario {
	t.Helper()
	s, err := file.Library(name)
	require.NoError(t, err)
	return s
}

func jobsOf(s *file.Scenario, seeds int) []Job {
	var jobs []Job
	for seed := 1; seed <= seeds; seed++ {
		jobs = append(jobs, Job{Config: s.Config, Seed: uint64(seed)})
	}
	return jobs
}

// fingerprint is what a run's outcome is compared by.
type fingerprint struct {
	index          int
	seed, events   uint64
	end            time.Duration
	delivered, err bool
}

func fingerprints(t *testing.T, jobs []Job, workers int) []fingerprint {
	var out []fingerprint
	for o := range Run(jobs, workers, nil) {
		require.NoError(t, o.Err)
		out = append(out, fingerprint{o.Index, o.Seed, o.Kept.Events, o.Kept.EndTime, o.Kept.Latency.Count > 0, false})
	}
	return out
}

// Outcomes come in the jobs' order, and the same, whatever the number of workers.
func TestRunYieldsTheSameOutcomesInJobOrderWhateverTheWorkers(t *testing.T) {
	jobs := jobsOf(library(t, "poison-message"), 7)

	one := fingerprints(t, jobs, 1)
	three := fingerprints(t, jobs, 3)

	require.Len(t, one, len(jobs))
	for i, f := range one {
		assert.Equal(t, i, f.index)
		assert.Equal(t, uint64(i+1), f.seed)
	}
	assert.Equal(t, one, three)
}

// No more than twice the workers' runs are finished or under way beyond the one awaited:
// the memory of a batch does not grow with its jobs.
func TestRunKeepsAtMostTwiceTheWorkersAhead(t *testing.T) {
	const workers = 2
	jobs := jobsOf(library(t, "poison-message"), 12)
	var finished, yielded, most int
	for range Run(jobs, workers, func() { finished++ }) {
		most = max(most, finished-yielded)
		yielded++
	}
	assert.Equal(t, len(jobs), yielded)
	assert.LessOrEqual(t, most, resultsAheadPerWorker*workers)
}

// Map keeps only what keep returns, so it lets the workers run far ahead of a slow run:
// a slow first job does not leave the second worker idle after a few short ones, and no
// more than keptAheadPerWorker×workers wait.
func TestMapRunsFarAheadOfASlowRun(t *testing.T) {
	const workers = 2
	jobs := jobsOf(library(t, "poison-message"), 40)
	slow := jobs[0].Config
	slow.Workloads = slices.Clone(slow.Workloads)
	slow.Workloads[0].Dialogs *= 200
	jobs[0].Config = slow
	var finished, yielded, most int
	for range Map(jobs, workers, func(int, *scenarios.Result) struct{} { return struct{}{} }, func() { finished++ }) {
		most = max(most, finished-yielded)
		yielded++
	}
	assert.Equal(t, len(jobs), yielded)
	assert.Greater(t, most, resultsAheadPerWorker*workers, "the short runs went on while the slow one ran")
	assert.LessOrEqual(t, most, keptAheadPerWorker*workers)
}

// Stopping early stops the workers: no goroutine is left behind.
func TestRunStoppedEarlyLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	jobs := jobsOf(library(t, "poison-message"), 20)
	n := 0
	for range Run(jobs, 3, nil) {
		if n++; n == 2 {
			break
		}
	}
	for i := 0; i < 1000 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}

func TestCheckPassesAndNamesTheSeedsThatFail(t *testing.T) {
	good := library(t, "single-conversation-activation")
	bad, err := good.With(file.Override{Key: "workloads.0.messages", Value: "1"})
	require.NoError(t, err)

	var got []Verdict
	for v := range Check([]Target{{"good", good, 2}, {"none", good, 0}, {"bad", bad, 3}}, 2, nil) {
		got = append(got, v)
	}

	require.Len(t, got, 3)
	assert.True(t, got[0].OK(), "%+v", got[0])
	assert.Equal(t, "none", got[1].Name)
	assert.True(t, got[1].OK())
	assert.False(t, got[2].OK())
	require.Len(t, got[2].Failures, 3, "every seed fails the changed scenario")
	for i, f := range got[2].Failures {
		assert.Equal(t, uint64(i+1), f.Seed)
		assert.NotEmpty(t, f.Reasons)
		assert.True(t, strings.HasPrefix(f.Reasons[0], "FAILED: "), f.Reasons[0])
	}
}

func TestSweepPointsVaryTheFirstParameterSlowest(t *testing.T) {
	s := library(t, "poison-message")
	sw, err := NewSweep(s, []Param{{"readers.0.rollback_rate", []string{"0", "1"}}, {"readers.0.top", []string{"1", "2", "3"}}}, 2)
	require.NoError(t, err)

	require.Len(t, sw.Points, 6)
	assert.Equal(t, []string{"0", "1"}, sw.Points[0].Values)
	assert.Equal(t, []string{"1", "3"}, sw.Points[5].Values)
	assert.Equal(t, "readers.0.rollback_rate=1, readers.0.top=3", sw.Describe(sw.Points[5]))
	assert.Equal(t, 3, sw.Points[5].Scenario.Config.Readers[0].Top)

	n := 0
	for r, err := range sw.Run(2, nil) {
		require.NoError(t, err)
		assert.Equal(t, n/2, r.Point)
		assert.Equal(t, uint64(n%2+1), r.Seed)
		assert.NotEmpty(t, r.Measures)
		n++
	}
	assert.Equal(t, 12, n)

	_, err = NewSweep(s, []Param{{"readers.0.top", []string{"-1"}}}, 2)
	assert.ErrorContains(t, err, "-set readers.0.top=-1")
}

// The 95% interval uses Student's t for few seeds: 3.182 standard errors for 4 values
// (the normal 1.96 would make the band about 40% too narrow).
func TestIntervalIsTheMeanWithNinetyFivePercentBounds(t *testing.T) {
	iv := NewInterval([]float64{1, 2, 3, 4})
	se := 1.2909944487358056 / 2 // sample standard deviation over the square root of 4
	assert.Equal(t, 2.5, iv.Mean)
	assert.InDelta(t, 2.5-3.182446305284263*se, iv.Lo, 1e-9)
	assert.InDelta(t, 2.5+3.182446305284263*se, iv.Hi, 1e-9)
	many := make([]float64, 10_000)
	for i := range many {
		many[i] = float64(i % 2)
	}
	wide := NewInterval(many)
	assert.InDelta(t, 1.96*0.5/100, wide.Hi-wide.Mean, 1e-4, "for many seeds t is the normal 1.96")
	assert.Equal(t, Interval{Mean: 7, Lo: 7, Hi: 7, N: 1}, NewInterval([]float64{7}))
	assert.Equal(t, Interval{}, NewInterval(nil))
}

// heapPeaks runs a check of the scenario on seeds and returns the most heap its objects took
// while it ran (live and not yet collected), sampled every millisecond and at every
// finished run.
func heapPeaks(tb testing.TB, s *file.Scenario, seeds, workers int) uint64 {
	return peakHeap(func(read func()) {
		for v := range Check([]Target{{"memory", s, seeds}}, workers, read) {
			require.NoError(tb, v.Err)
			require.Equal(tb, seeds, v.Seeds)
		}
	})
}

// peakHeap calls work and returns the most heap its objects took while it ran (live and
// not yet collected), sampled every millisecond and whenever work calls read.
func peakHeap(work func(read func())) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var mu sync.Mutex
	var peak uint64
	read := func() {
		mu.Lock()
		defer mu.Unlock()
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	work(read)
	close(stop)
	<-done
	read()
	return peak
}

// memorySeeds is how many seeds BenchmarkCheckMemory's large check runs: 200, or
// SBSIM_MEMORY_SEEDS (1000 for the figure issue 12 asks of it).
func memorySeeds(tb testing.TB) int {
	v := os.Getenv("SBSIM_MEMORY_SEEDS")
	if v == "" {
		return 200
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "SBSIM_MEMORY_SEEDS")
	return n
}

// BenchmarkCheckMemory reports the peak heap of check priority-flood as users run it (every
// core, the collector at its default pacing) over 20 seeds and over 200, or over
// SBSIM_MEMORY_SEEDS, and their ratio. The peak is that of the runs under way at their
// heaviest, so it varies from one measurement to the next (1.14 to 1.98 times at 1,000
// seeds on the 2-core machine, median 1.28); what does not grow with the seeds is asserted
// by TestCheckRetainsNothingFromRunToRun.
//
//	SBSIM_MEMORY_SEEDS=1000 go test ./scenarios/batch -run '^$' -bench CheckMemory -benchtime 1x -count 5
func BenchmarkCheckMemory(b *testing.B) {
	s := library(b, "priority-flood")
	seeds := memorySeeds(b)
	for range b.N {
		small := heapPeaks(b, s, 20, runtime.GOMAXPROCS(0))
		large := heapPeaks(b, s, seeds, runtime.GOMAXPROCS(0))
		b.ReportMetric(float64(small)/1e6, "MB-peak-20-seeds")
		b.ReportMetric(float64(large)/1e6, fmt.Sprintf("MB-peak-%d-seeds", seeds))
		b.ReportMetric(float64(large)/float64(small), "ratio")
	}
}

// BenchmarkIdleVirtualTimeMemory reports the peak heap of a run of partition-heals whose
// workload starts after 720 hours of idle virtual time (issue 12: sampled every second, it
// ran out of memory), and fails above 100 MB: idle time costs a bounded series
// (scenarios.MaxSeriesRows) and nothing else.
//
//	go test ./scenarios/batch -run '^$' -bench IdleVirtualTimeMemory -benchtime 1x
func BenchmarkIdleVirtualTimeMemory(b *testing.B) {
	s, err := library(b, "partition-heals").With(file.Override{Key: "workloads.0.start", Value: "720h"})
	require.NoError(b, err)
	for range b.N {
		var res *scenarios.Result
		peak := peakHeap(func(func()) {
			res, err = scenarios.Run(s.Config, 1)
			require.NoError(b, err)
		})
		require.Greater(b, res.EndTime, 720*time.Hour)
		b.ReportMetric(float64(peak)/1e6, "MB-peak")
		b.ReportMetric(float64(res.Events), "events")
		if peak > 100e6 {
			b.Errorf("a run of 720 h of idle virtual time took %.1f MB of heap at its peak, more than 100 MB", float64(peak)/1e6)
		}
	}
}

// liveAfterEachRun runs the scenario on seeds one after another through Map, as Check
// does, and returns the most live heap found by a full collection at the end of each run,
// its result still held: what earlier runs left behind, plus one result.
func liveAfterEachRun(t *testing.T, s *file.Scenario, seeds int) uint64 {
	var peak uint64
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	keep := func(_ int, res *scenarios.Result) runJudgement {
		runtime.GC()
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
		return judgeRun(s, res)
	}
	n := 0
	for o := range Map(jobsOf(s, seeds), 1, keep, nil) {
		require.NoError(t, o.Err)
		n++
	}
	require.Equal(t, seeds, n)
	return peak
}

// The memory of a batch does not grow with its seeds: after every one of 1,000 runs of
// priority-flood, the live heap is at most 1.5 times what it is after each of 20 (issue 11;
// before batch streamed, check kept every result: 82 MB at 20 seeds, 986 MB at 400 and out
// of memory at 1,000 for check all). Measured at the same point of every run, with one
// worker, it varies only with the size of a result.
func TestCheckRetainsNothingFromRunToRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1,020 seeds of priority-flood")
	}
	s := library(t, "priority-flood")
	small := liveAfterEachRun(t, s, 20)
	large := liveAfterEachRun(t, s, 1000)
	t.Logf("live heap at the end of a run of priority-flood, at most: %.2f MB over 20 seeds, %.2f MB over 1,000 (%.2f times)",
		float64(small)/1e6, float64(large)/1e6, float64(large)/float64(small))
	assert.LessOrEqual(t, float64(large), 1.5*float64(small))
}

// A run that panics (a bug of the simulator) becomes its seed's error, and the batch goes
// on: the caller can say which seed to replay instead of losing the whole batch.
func TestMapReportsAPanickingRunAsItsSeedsError(t *testing.T) {
	jobs := jobsOf(library(t, "poison-message"), 4)
	keep := func(i int, res *scenarios.Result) uint64 {
		if i == 2 {
			panic("model: a deliberately broken assertion")
		}
		return res.Events
	}
	var errs []error
	n := 0
	for o := range Map(jobs, 2, keep, nil) {
		n++
		if o.Err != nil {
			var pe *PanicError
			require.ErrorAs(t, o.Err, &pe)
			assert.Equal(t, uint64(3), o.Seed)
			assert.Contains(t, o.Err.Error(), "a deliberately broken assertion")
			errs = append(errs, o.Err)
			continue
		}
		assert.Positive(t, o.Kept)
	}
	assert.Equal(t, 4, n)
	assert.Len(t, errs, 1)
}

func TestParseParamKeepsCommasInsideAValue(t *testing.T) {
	p, err := ParseParam("links.0.both.jitter={uniform: [1ms, 5ms]},{exponential: 2ms},3ms")
	require.NoError(t, err)
	assert.Equal(t, Param{"links.0.both.jitter", []string{"{uniform: [1ms, 5ms]}", "{exponential: 2ms}", "3ms"}}, p)
	_, err = ParseParam("a={b: [1, 2}")
	assert.Error(t, err)
	_, err = ParseParam("novalues")
	assert.Error(t, err)
}

// A batch's run of a file with trace on keeps no trace and no table of conversations, which
// no verdict reads, and measures and judges what the run that kept them does (issue 15:
// keep only what the verdicts and outputs need), with the checkers on and off (then the
// trace alone counts the delayed conversations).
func TestABatchRunKeepsNoTraceAndMeasuresTheSame(t *testing.T) {
	s := library(t, "lossy-wan")
	require.True(t, s.Config.Trace, "lossy-wan has trace on")
	for _, checked := range []bool{true, false} {
		cfg := s.Config
		cfg.CheckInvariants = checked
		kept, err := scenarios.Run(cfg, 3)
		require.NoError(t, err)
		require.NotEmpty(t, kept.Trace)
		run, err := scenarios.Run(Judged(cfg), 3)
		require.NoError(t, err)
		assert.Nil(t, run.Trace, "checked %v", checked)
		assert.Empty(t, run.Conversations, "checked %v", checked)
		assert.Equal(t, scenarios.Measures(kept), scenarios.Measures(run), "checked %v", checked)
		if checked {
			assert.Equal(t, judgeRun(s, kept), judgeRun(s, run))
		}
	}
}
