package results_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// expectationFor writes an expectation on a metric's subject that holds for any value.
func expectationFor(m results.MetricValue) string {
	if m.Metric == "invariants" {
		return "  - {invariants: hold}\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  - {metric: %s", m.Metric)
	if m.Level != 0 {
		fmt.Fprintf(&b, ", level: %d", m.Level)
	}
	for _, kv := range [][2]string{{"queue", m.Queue}, {"workload", m.Workload}, {"instance", m.Instance}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, ", %s: %q", kv[0], kv[1])
		}
	}
	b.WriteString(", at_least: 0}\n")
	return b.String()
}

// Over the library, every metric of the table appears in summary.json, on every subject the
// run has, and every value there can be named in an expectation, which then measures the
// same value; every rule the checker knows has a verdict line in the text report.
func TestEveryMetricIsInTheSummaryAndNamableAndEveryRuleInTheReport(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range file.LibraryNames() {
		t.Run(name, func(t *testing.T) {
			s, err := file.Library(name)
			require.NoError(t, err)
			res, err := scenarios.Run(s.Config, 1)
			require.NoError(t, err)
			sum := results.NewSummary(res, name, s.Hash, nil)

			for _, m := range scenarios.Metrics() {
				want := len(m.Measures(res))
				got := 0
				for _, v := range sum.Metrics {
					if v.Metric == m.Name {
						got++
					}
				}
				assert.Equal(t, want, got, "summary.json values of %s", m.Name)
				if got > 0 {
					seen[m.Name] = true
				}
			}

			text, err := file.LibraryText(name)
			require.NoError(t, err)
			var extra strings.Builder
			extra.WriteString(string(text))
			for _, v := range sum.Metrics {
				extra.WriteString(expectationFor(v))
			}
			named, err := file.Load(name+".yaml", []byte(extra.String()))
			require.NoError(t, err, "every metric value is namable in an expectation")
			for _, v := range named.Check(res) {
				assert.True(t, v.OK, "%v", v)
			}

			var out bytes.Buffer
			results.WriteReport(&out, results.Run{Name: name, Result: res})
			if res.InvariantsChecked {
				for _, r := range invariant.Rules() {
					assert.Regexp(t, `\n  `+regexp.QuoteMeta(r.ID)+` +(ok|VIOLATED|unchecked) `, out.String(), "the report has no verdict for %s", r.ID)
				}
			}
			for _, m := range scenarios.Metrics() {
				if len(m.Measures(res)) > 0 {
					assert.Contains(t, out.String(), "    "+m.Name+" ", "the report has no row for %s", m.Name)
				}
			}
		})
	}
	for _, m := range scenarios.Metrics() {
		assert.True(t, seen[m.Name], "no library scenario has a value of %s", m.Name)
	}
}
