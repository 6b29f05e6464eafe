package scenarios

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/sbsim/sbsim/sim"
)

// A queue with one reader that receives one message per RECEIVE and processes it for an
// exponential time, fed by Poisson arrivals on a local dialog, is an M/M/1 queue: its mean
// time in queue is Wq = ρ/(μ−λ). The test runs many seeds, takes the mean time in queue of
// each (the time_in_queue.mean metric), and checks that Wq lies in the Student t
// confidence interval of the mean of those per-seed means: the interval is computed from
// the runs, no tolerance is fixed by hand.
//
// What "time in queue" means here, and why it is M/M/1's Wq: M/M/1's waiting time runs
// from a customer's arrival to the start of its service. The model's time in queue runs
// from the message becoming ready on the queue to the RECEIVE that returned it. On a local
// dialog a message is ready on the target queue at its SEND's commit (no network, no
// transmission queue: PRI-13), so ready is the arrival; the reader's processing starts the
// moment RECEIVE returns the row and its commit is followed at once by the next RECEIVE,
// so RECEIVE is the start of service, and the processing time is the service time. A
// message that finds the reader waiting in RECEIVE is returned at once: a wait of zero,
// as a customer who finds the server idle. The dialog's one EndDialog, at the very end,
// is the only other message the reader takes.
//
// Each seed starts from an empty queue (M/M/1's transient), and a message's time in queue
// is recorded to the microsecond: at ρ = 0.5 and 4,000 messages a seed, both are far
// below the interval's width.
func TestTimeInQueueOfOneExponentialReaderMatchesMM1(t *testing.T) {
	const (
		lambda = 5.0  // arrivals per second
		mu     = 10.0 // services per second
	)
	seeds, messages := 40, 4000
	if testing.Short() {
		seeds, messages = 20, 2000
	}
	second := float64(time.Second)
	cfg := oneInstance(Workload{Name: "poisson", Dialogs: 1, Messages: messages,
		MessageGap: sim.ExponentialMean(time.Duration(second / lambda)), Size: FixedSize(100)})
	cfg.Readers = []Reader{{Queue: "TargetQueue", Top: 1, ProcessingTime: sim.ExponentialMean(time.Duration(second / mu))}}
	cfg.CheckInvariants = false

	means := make([]float64, seeds)
	for i := range means {
		res, err := Run(cfg, uint64(i+1))
		require.NoError(t, err)
		require.Equal(t, sim.Drained, res.StopReason)
		require.Equal(t, float64(messages), metricValue(t, res, "messages.received", Subject{Queue: "TargetQueue"}))
		means[i] = metricValue(t, res, "time_in_queue.mean", Subject{Queue: "TargetQueue"}) / second
	}

	rho := lambda / mu
	wq := rho / (mu - lambda)
	mean, sd := stat.MeanStdDev(means, nil)
	const confidence = 0.99
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(seeds - 1)}.Quantile(1 - (1-confidence)/2)
	half := tq * sd / math.Sqrt(float64(seeds))
	t.Logf("M/M/1 ρ=%.2f: Wq = %.4fs; over %d seeds, mean time in queue %.4fs, %.0f%% interval ±%.4fs", rho, wq, seeds, mean, confidence*100, half)
	require.True(t, math.Abs(mean-wq) <= half,
		"Wq = %.4fs lies outside the %.0f%% confidence interval [%.4f, %.4f] of the mean time in queue over %d seeds",
		wq, confidence*100, mean-half, mean+half, seeds)
}
