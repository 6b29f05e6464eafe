package batch

import (
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// workersSeeds is how many seeds of each library scenario BenchmarkCheckWorkers checks: 4,
// or SBSIM_WORKERS_SEEDS (40 for issue 15's figure).
func workersSeeds(tb testing.TB) int {
	v := os.Getenv("SBSIM_WORKERS_SEEDS")
	if v == "" {
		return 4
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, "SBSIM_WORKERS_SEEDS")
	return n
}

// workersRatio times work with one worker and with two, in the order that alternates with
// op so that neither always runs first, and reports both times and their ratio (issue 15:
// at least 1.8 on the 2-core machine).
func workersRatio(b *testing.B, op int, work func(workers int)) {
	type cost struct{ wall, cpu, gc float64 } // gc: the collector's share of the busy time
	timed := func(workers int) cost {
		runtime.GC()
		before := cpuSeconds()
		start := time.Now()
		work(workers)
		wall, after := time.Since(start), cpuSeconds()
		return cost{wall.Seconds(), after[0] - before[0], (after[1] - before[1]) / (after[2] - before[2])}
	}
	var one, two cost
	if op%2 == 0 {
		one, two = timed(1), timed(2)
	} else {
		two, one = timed(2), timed(1)
	}
	b.ReportMetric(one.wall, "s-1-worker")
	b.ReportMetric(two.wall, "s-2-workers")
	b.ReportMetric(one.wall/two.wall, "speedup")
	// The CPU the process took (the simulation and the collector) with two workers, as a
	// multiple of that with one: a second worker can give at most 2 divided by it, on an
	// otherwise idle machine, and the collector's share says what the surplus is.
	b.ReportMetric(two.cpu/one.cpu, "cpu-2/cpu-1")
	b.ReportMetric(one.gc, "gc-share-1-worker")
	b.ReportMetric(two.gc, "gc-share-2-workers")
	// On an idle machine one worker runs the simulation on one core and the collector
	// mostly on the other; two share both, so they can be at most 2×(1 - the collector's
	// share) times faster. A loaded machine blurs the measured speedup, not this bound.
	b.ReportMetric(2*(1-two.gc), "speedup-bound")
}

// cpuSeconds is the CPU time the process took so far (user and system, from the kernel),
// then the collector's and all the busy time of the Go runtime's processors (its own
// estimates, which count time the machine gave to other processes too).
func cpuSeconds() [3]float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"},
		{Name: "/cpu/classes/idle:cpu-seconds"}}
	metrics.Read(s)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return [3]float64{tv(ru.Utime) + tv(ru.Stime), s[0].Value.Float64(), s[1].Value.Float64() - s[2].Value.Float64()}
}

// BenchmarkCheckWorkers is check all -seeds 4 (or SBSIM_WORKERS_SEEDS) with one worker and
// with two, in the same op: the speedup a second core gives a check.
//
//	SBSIM_WORKERS_SEEDS=40 go test ./scenarios/batch -run '^$' -bench CheckWorkers -benchtime 1x -count 3 -benchmem
func BenchmarkCheckWorkers(b *testing.B) {
	targets, _, err := Targets([]string{"all"}, nil, workersSeeds(b))
	require.NoError(b, err)
	for op := range b.N {
		workersRatio(b, op, func(workers int) {
			for v := range Check(targets, workers, nil) {
				require.NoError(b, v.Err)
			}
		})
	}
}

// BenchmarkSweepWorkers is a sweep of lossy-wan over three losses on 4 seeds each (or
// SBSIM_WORKERS_SEEDS) with one worker and with two, in the same op.
//
//	SBSIM_WORKERS_SEEDS=10 go test ./scenarios/batch -run '^$' -bench SweepWorkers -benchtime 1x -count 3 -benchmem
func BenchmarkSweepWorkers(b *testing.B) {
	p, err := ParseParam("links.0.both.loss=0.01,0.05,0.1")
	require.NoError(b, err)
	sw, err := NewSweep(library(b, "lossy-wan"), []Param{p}, workersSeeds(b))
	require.NoError(b, err)
	for op := range b.N {
		workersRatio(b, op, func(workers int) {
			for _, err := range sw.Run(workers, nil) {
				require.NoError(b, err)
			}
		})
	}
}
