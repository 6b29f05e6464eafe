package batch

import (
	"math"
	"os"
	"runtime/debug"
	"sync"

	"github.com/sbsim/sbsim/scenarios"
)

// BatchGCPercent is the collector's pacing (GOGC) while a batch runs. A run allocates
// mostly short-lived objects (samples, histograms, the model's fragments) over a small
// live heap, so at the default pacing (100) the collector runs often: with one worker it
// marks on the otherwise idle second core, unseen, but with a worker on every core it
// takes their time (issue 15: check all gained 1.30 times from a second worker). Letting
// the heap grow four times its live size between collections cuts the collector's work
// about four times; the heap stays flat over the seeds, a constant factor larger, and the
// soft limit of memory (the memory budgets of two runs, twice scenarios.DefaultMaxMemory,
// when the process sets none) makes the collector work harder before the machine runs
// short.
const BatchGCPercent = 400

// collector counts the batches under way, so that the first sets the pacing and the last
// puts back what was there.
var collector struct {
	sync.Mutex
	batches        int
	percent, limit int64
	mine           bool
}

// paceCollector sets the collector's pacing for a batch (BatchGCPercent), unless the
// environment chose one (GOGC, GOMEMLIMIT), and returns what restores it once the batch
// ends. It changes no result: the collector decides when memory is reused, never what a
// run computes.
func paceCollector() (restore func()) {
	collector.Lock()
	defer collector.Unlock()
	if collector.batches++; collector.batches == 1 {
		collector.mine = os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == ""
		if collector.mine {
			collector.percent = int64(debug.SetGCPercent(BatchGCPercent))
			collector.limit = debug.SetMemoryLimit(-1)
			if collector.limit == math.MaxInt64 {
				debug.SetMemoryLimit(2 * scenarios.DefaultMaxMemory()) // the budgets of two runs
			}
		}
	}
	return func() {
		collector.Lock()
		defer collector.Unlock()
		if collector.batches--; collector.batches == 0 && collector.mine {
			debug.SetGCPercent(int(collector.percent))
			debug.SetMemoryLimit(collector.limit)
		}
	}
}
