package file

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// The cost keys load (costs: default, a partial mapping, off; cpus; commit_every) and
// Marshal writes them back to the same config.
func TestCostKeysLoadAndRoundTrip(t *testing.T) {
	partial := scenarios.DefaultCosts
	partial.ReceiveRow, partial.LogFlush, partial.ProcessingOnCPU = 200*time.Microsecond, 2*time.Millisecond, true
	for _, tc := range []struct {
		name, text string
		want       *scenarios.Costs
	}{
		{"default", "costs: default\n", &scenarios.DefaultCosts},
		{"on", "costs: on\n", &scenarios.DefaultCosts},
		{"empty mapping", "costs: {}\n", &scenarios.DefaultCosts},
		{"empty value", "costs:\n", &scenarios.DefaultCosts},
		{"some costs", "costs: {receive_row: 200us, log_flush: 2ms, processing_on_cpu: on}\n", &partial},
		{"off", "costs: off\n", nil},
		{"absent", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(crashBase, "  - name: B\n", "  - name: B\n    cpus: 8\n", 1) + tc.text +
				"readers:\n  - {queue: R, top: 1, commit_every: 100}\n"
			f, err := Load("c.yaml", []byte(text))
			require.NoError(t, err, text)
			assert.Equal(t, tc.want, f.Config.Costs)
			assert.Equal(t, map[string]int{"B": 8}, f.Config.CPUs)
			assert.Equal(t, 100, f.Config.Readers[0].CommitEvery)

			out, err := f.Marshal()
			require.NoError(t, err)
			g, err := Load("c.yaml", out)
			require.NoError(t, err, "written:\n%s", out)
			assert.Equal(t, f.Config.Costs, g.Config.Costs, "written:\n%s", out)
			assert.Equal(t, f.Config.CPUs, g.Config.CPUs, "written:\n%s", out)
			assert.Equal(t, f.Config.Readers, g.Config.Readers, "written:\n%s", out)
		})
	}
}

// Bad cost keys are errors at their place in the file.
func TestCostKeysAreValidatedAtTheirPlace(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"unknown cost", "costs: {recieve_row: 1ms}\n", `c.yaml:13:9: costs.recieve_row: unknown key "recieve_row" in the costs (did you mean "receive_row"?)`},
		{"negative cost", "costs: {send: -1ms}\n", `c.yaml:13:15: costs.send: duration -1ms is negative`},
		{"cost above the cap", "costs: {log_flush: 2h}\n", `costs.log_flush: a cost of 2h0m0s is above the 1h cap`},
		{"bad word", "costs: sometimes\n", `c.yaml:13:8: costs: want default, off or a mapping of costs`},
		{"zero cpus", "instances:\n  - {name: A, cpus: 0, databases: [{name: D}]}\n", `instances[0].cpus:`},
		{"negative commit_every", "readers:\n  - {queue: R, commit_every: -1}\n", `readers[0].commit_every:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := crashBase + tc.text
			if strings.HasPrefix(tc.text, "instances:") {
				text = "name: t\n" + tc.text
			}
			_, err := Load("c.yaml", []byte(text))
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "got %v, want %q", err, tc.want)
		})
	}
}
