package scenarios

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden traces in testdata/")

// traceText renders a run's trace, one record per line.
func traceText(t *testing.T, cfg Config, seed uint64) string {
	t.Helper()
	cfg.Trace = true
	res, err := Run(cfg, seed)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	var b strings.Builder
	for i, r := range res.Trace {
		b.WriteString(r.String())
		if i < len(res.Trace)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// INV-11: the same config and seed give a byte-identical trace; another seed another one.
func TestINV11_SameSeedGivesByteIdenticalTrace(t *testing.T) {
	cfg := twoInstances(lossy(0.2, 0.2), Workload{Name: "rr", Dialogs: 30,
		Interarrival: sim.ExponentialMean(50 * time.Millisecond), Messages: 4, Size: UniformSize(0, 30000),
		MessageGap: sim.ExponentialMean(5 * time.Millisecond), Replies: true, ReplySize: UniformSize(0, 9000)})

	first := traceText(t, cfg, 42)
	assert.Equal(t, first, traceText(t, cfg, 42), "same seed")
	assert.NotEqual(t, first, traceText(t, cfg, 43), "another seed")

	// The whole result too, every field of every record included.
	cfg.Trace = true
	a, err := Run(cfg, 42)
	require.NoError(t, err)
	b, err := Run(cfg, 42)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%+v", *a), fmt.Sprintf("%+v", *b))
}

func TestSummarizeUsesNearestRank(t *testing.T) {
	ms := time.Millisecond
	s := summarize([]time.Duration{5 * ms, 1 * ms, 3 * ms, 2 * ms, 4 * ms})
	assert.Equal(t, LatencySummary{Count: 5, Mean: 3 * ms, P50: 3 * ms, P90: 5 * ms, P99: 5 * ms, Max: 5 * ms}, s)
	assert.Equal(t, LatencySummary{}, summarize(nil))
}

// TestGoldenTraceOfOneLossyDialog keeps the trace of one small dialog over a lossy link in
// testdata/, so that any change in protocol behaviour shows up as a diff to review.
// Regenerate with: go test ./scenarios -run Golden -update
func TestGoldenTraceOfOneLossyDialog(t *testing.T) {
	link := faulty.Config{LatencyFixed: 20 * time.Millisecond, LossProbability: 0.3, DuplicateProbability: 0.2}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "one", Dialogs: 1, Messages: 3,
		Size: FixedSize(10000), Replies: true, ReplySize: FixedSize(100)})
	cfg.Broker.FragmentSize = 4096

	got := traceText(t, cfg, 7) + "\n"
	path := filepath.Join("testdata", "one_lossy_dialog.trace")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	assert.Equal(t, string(want), got)
}
