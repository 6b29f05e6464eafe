package scenarios

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// cpuRequest is one request of CPU time: at At, for D.
type cpuRequest struct{ At, D time.Duration }

// fifoStarts is the plainly correct slow version of cpuPool.run: in a first-come,
// first-served queue of c servers, request i starts once it has arrived, once request i-1
// has started, and once fewer than c earlier requests are still running, that is at the
// c-th latest end among the earlier ones.
func fifoStarts(c int, reqs []cpuRequest) []time.Duration {
	starts := make([]time.Duration, len(reqs))
	var ends []time.Duration
	for i, r := range reqs {
		s := r.At
		if i > 0 {
			s = max(s, starts[i-1])
		}
		if len(ends) >= c {
			sorted := slices.Clone(ends)
			slices.Sort(sorted)
			s = max(s, sorted[len(sorted)-c])
		}
		starts[i] = s
		ends = append(ends, s+r.D)
	}
	return starts
}

// The CPUs of an instance serve their requests first come, first served: each ends when
// the slow FIFO queue of as many servers says, and at no instant do more requests run
// than there are CPUs.
func TestCostCPUPoolIsAFIFOQueueOfItsCPUs(t *testing.T) {
	properties := gopter.NewProperties(propertyParameters(t, 300, 50))
	properties.Property("cpuPool.run is the FIFO c-server queue", prop.ForAll(func(c int, gaps, ds []int) string {
		n := min(len(gaps), len(ds))
		reqs := make([]cpuRequest, n)
		at := time.Duration(0)
		for i := range n {
			at += time.Duration(gaps[i]) * time.Microsecond
			reqs[i] = cpuRequest{at, time.Duration(ds[i]) * time.Microsecond}
		}
		p := cpuPool{freeAt: make([]time.Duration, c)}
		want := fifoStarts(c, reqs)
		var spans [][2]time.Duration
		for i, r := range reqs {
			end := p.run(r.At, r.D)
			if r.D > 0 && end != want[i]+r.D {
				return fmt.Sprintf("request %d (%v at %v) ends at %v, FIFO says %v", i, r.D, r.At, end, want[i]+r.D)
			}
			spans = append(spans, [2]time.Duration{end - r.D, end})
		}
		for _, s := range spans {
			running := 0
			for _, o := range spans {
				if o[0] <= s[0] && s[0] < o[1] {
					running++
				}
			}
			if running > c {
				return fmt.Sprintf("%d requests run at %v on %d CPUs", running, s[0], c)
			}
		}
		return ""
	}, gen.IntRange(1, 4), gen.SliceOf(gen.IntRange(0, 50)), gen.SliceOf(gen.IntRange(0, 100))))
	properties.TestingRun(t)
}

// Log flushes of one database are serial, and a commit is written by the first flush that
// starts at or after its request (group commit): never before it asked, never later than
// the flush after the one under way.
func TestCostLogFlushesAreSerialWithGroupCommit(t *testing.T) {
	properties := gopter.NewProperties(propertyParameters(t, 300, 50))
	properties.Property("flushes serial, each commit in the first flush that starts after it", prop.ForAll(func(f int, gaps []int) string {
		d := time.Duration(f) * time.Microsecond
		p := cpuPool{flushStart: make([]time.Duration, 1), flushEnd: make([]time.Duration, 1)}
		at := time.Duration(0)
		var flushes [][2]time.Duration // distinct flushes, in order
		for i, g := range gaps {
			at += time.Duration(g) * time.Microsecond
			done := p.flush(at, 0, d)
			if n := len(flushes); n == 0 || flushes[n-1][1] != done {
				flushes = append(flushes, [2]time.Duration{done - d, done})
			}
			start := done - d
			if start < at {
				return fmt.Sprintf("commit %d at %v written by a flush that began at %v", i, at, start)
			}
			if n := len(flushes); n >= 2 && flushes[n-2][0] > at {
				return fmt.Sprintf("commit %d at %v waited for the flush at %v, though %v began after it", i, at, start, flushes[n-2][0])
			}
		}
		for i := 1; i < len(flushes); i++ {
			if flushes[i][0] < flushes[i-1][1] {
				return fmt.Sprintf("flush %d %v overlaps flush %d %v", i, flushes[i], i-1, flushes[i-1])
			}
		}
		return ""
	}, gen.IntRange(1, 100), gen.SliceOf(gen.IntRange(0, 150))))
	properties.TestingRun(t)
}
