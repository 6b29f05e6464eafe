package results_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// checkerOnlyMetrics are the metrics that only a checked run measures: the checkers'
// verdict, their design findings (G-16's dialogs run twice), and the delays counted from
// the trace records, which the brokers emit only for the checkers or a kept trace.
var checkerOnlyMetrics = []string{"invariants", scenarios.MetricReopened, "conversations.delayed"}

// withoutChecks returns the summary of a run as it would be without the checkers' own
// results: their verdicts, the figures counted from their records, and the expectations.
func withoutChecks(s results.Summary) results.Summary {
	s = s.WithoutInvariantChecks()
	s.Metrics = slices.DeleteFunc(slices.Clone(s.Metrics), func(m results.MetricValue) bool {
		return slices.Contains(checkerOnlyMetrics, m.Metric)
	})
	s.Instances = slices.Clone(s.Instances)
	for i := range s.Instances {
		s.Instances[i].ConversationsDelayed = 0
	}
	s.Expectations, s.OK = nil, false
	return s
}

// summaryOf runs seed 1 of sc, checked or not, and returns its summary.json and series.csv
// without the checkers' own results.
func summaryOf(t *testing.T, sc *file.Scenario, checked bool) (string, string) {
	cfg := sc.Config
	cfg.CheckInvariants = checked
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	var summary, series bytes.Buffer
	require.NoError(t, results.WriteSummary(&summary, withoutChecks(results.NewSummary(res, sc.Config.Name, sc.Hash, nil))))
	require.NoError(t, results.WriteSeries(&series, res))
	return summary.String(), series.String()
}

// The invariant checkers only watch: every library scenario, run for seed 1 with the
// checkers on and off, gives the same summary.json and series.csv apart from the checkers'
// own verdicts and findings (issue 15's golden test across the checkers' change).
func TestCheckedAndUncheckedRunsOfTheLibraryAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every library scenario twice")
	}
	for _, name := range file.LibraryNames() {
		t.Run(name, func(t *testing.T) {
			sc, err := file.Library(name)
			require.NoError(t, err)
			checkedSummary, checkedSeries := summaryOf(t, sc, true)
			uncheckedSummary, uncheckedSeries := summaryOf(t, sc, false)
			assert.Equal(t, uncheckedSummary, checkedSummary, "summary.json, checked against unchecked")
			assert.Equal(t, uncheckedSeries, checkedSeries, "series.csv, checked against unchecked")
		})
	}
}
