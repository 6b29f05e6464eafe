package results

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// limitsWorld is a scenario of one workload from East to West, with %s replaced by what a
// case adds at the top level and %s in the workload and the link.
const limitsWorld = `
name: limits
instances:
  - name: East
    databases:
      - name: East
        message_types: [Event]
        contracts: [{name: C, messages: [{message_type: Event, sent_by: initiator}]}]
        queues: [{name: EastQueue}]
        services: [{name: EastService, queue: EastQueue}]
  - name: West
    databases:
      - name: West
        message_types: [Event]
        contracts: [{name: C, messages: [{message_type: Event, sent_by: initiator}]}]
        queues: [{name: WestQueue}]
        services: [{name: WestService, queue: WestQueue, contracts: [C]}]
links:
  - between: [East, West]
    both: {latency: 50ms}
%s
workloads:
  - name: events
    from_service: EastService
    to_service: WestService
    contract: C
    message_type: Event
    size: 1000
%s
%s
`

// Each way a run used to grow without bound (issue 12, item 4) now ends, with what the
// user sees: idle virtual time and a tiny sample interval cost a bounded series, a fault
// that never heals stops at the default limits, a trace that outgrows the memory budget
// stops the run saying so, and a workload too large for the budget is refused when the
// file loads, with an estimate.
func TestRunsThatUsedToExhaustMemoryEndWithAClearWord(t *testing.T) {
	const forever = "    partitions: [{from: 0s, until: 87600h}]" // ten years, the longest delay a file may give
	for _, tc := range []struct {
		name                 string
		link, workload, top  string
		loadError            string // a part of the loading error; "" when it loads
		machine              bool   // the error depends on the machine's budget: more than 20.7 GiB accepts the file
		reason               sim.StopReason
		atLimit, memoryLimit bool
		endTime              time.Duration // the virtual time the run ends at, or 0 for any
		report               string        // a part of the report's engine line
	}{
		{name: "a workload that starts after 720 hours of idle time", workload: "    dialogs: 3\n    messages: 2\n    start: 720h\n    interarrival: 1s",
			reason: sim.Drained, report: "engine: drained (no event left) at virtual time 720h3"},
		{name: "a sample interval of one nanosecond", workload: "    dialogs: 3\n    messages: 2\n    interarrival: 1s", top: "sample_interval: 1ns",
			reason: sim.Drained, report: "engine: drained (no event left)"},
		{name: "a partition that never heals, without limits", link: forever, workload: "    dialogs: 1\n    messages: 2\n    interarrival: 1s",
			reason: sim.TimeLimit, atLimit: true, endTime: scenarios.DefaultMaxTime,
			report: "engine: time limit reached at virtual time 1000h0m0s"},
		{name: "a trace that outgrows the memory budget", link: forever, workload: "    dialogs: 200\n    messages: 2\n    interarrival: 1s",
			top: "trace: on\nlimits: {max_memory: 4MiB}", reason: sim.MemoryLimit, atLimit: true, memoryLimit: true,
			report: "engine: memory budget reached at virtual time"},
		{name: "2,147,483,647 dialogs against the machine's budget", workload: "    dialogs: 2147483647\n    messages: 1\n    interarrival: 1ns",
			top: "limits: {max_events: 139_000_000}", machine: true,
			loadError: "workloads[0].dialogs: workload 0 (events): Dialogs 2147483647 with 1 messages each need about 20.7 GiB (139000000 dialogs begun within the limits of time and events), and the workloads together 20.7 GiB, more than the memory budget of"},
		{name: "2,147,483,647 dialogs a nanosecond apart, within a limit of 3e9 events", workload: "    dialogs: 2147483647\n    messages: 1\n    interarrival: 1ns",
			top:       "limits: {max_events: 3_000_000_000}",
			loadError: "workload 0 (events): Dialogs 2147483647 with 1 messages each need about 320.0 GiB (2147483647 dialogs begun within the limits of time and events), and the workloads together 320.0 GiB, more than the memory budget of"},
		{name: "2,147,483,647 dialogs against a budget of 1 GiB", workload: "    dialogs: 2147483647\n    messages: 1\n    interarrival: 1s",
			top:       "limits: {max_memory: 256MiB}",
			loadError: "limits.yaml:29:14: workloads[0].dialogs: workload 0 (events): Dialogs 2147483647 with 1 messages each need about 549.3 MiB (3600001 dialogs begun within the limits of time and events), and the workloads together 549.3 MiB, more than the memory budget of 256.0 MiB (MaxMemory): a run keeps what it needs to check and report every dialog and message until it ends"},
		{name: "a negative budget", workload: "    dialogs: 1\n    interarrival: 1s", top: "limits: {max_memory: -1}",
			loadError: "limits.yaml:31:22: limits.max_memory: size -1 is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := fmt.Sprintf(limitsWorld, tc.link, tc.workload, tc.top)
			f, err := file.Load("limits.yaml", []byte(text))
			if tc.machine && scenarios.DefaultMaxMemory() > 20<<30 {
				t.Skipf("the machine's budget, %s, holds the 20.7 GiB the file needs", scenarios.FormatBytes(scenarios.DefaultMaxMemory()))
			}
			if tc.loadError != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.loadError)
				return
			}
			require.NoError(t, err)

			res, err := scenarios.Run(f.Config, 1)

			require.NoError(t, err)
			assert.Equal(t, tc.reason, res.StopReason, "stop reason")
			assert.Equal(t, tc.atLimit, res.AtLimit(), "at a limit")
			assert.Equal(t, tc.memoryLimit, res.MemoryLimit != nil, "memory limit")
			if tc.endTime > 0 {
				assert.Equal(t, tc.endTime, res.EndTime)
			}
			rows := len(res.Series.Levels) + len(res.Series.Databases) + len(res.Series.Links) + len(res.Series.Instances)
			for _, q := range res.Queues {
				rows += len(q.Samples)
			}
			assert.LessOrEqual(t, rows, scenarios.MaxSeriesRows, "series rows")
			var report strings.Builder
			WriteReport(&report, Run{Name: f.Config.Name, Result: res})
			assert.Contains(t, report.String(), tc.report)
			if tc.memoryLimit {
				m := res.MemoryLimit
				assert.Equal(t, int64(4<<20), m.Budget)
				assert.Greater(t, m.Estimate, m.Budget)
				assert.Less(t, m.Estimate, m.Budget*3/2, "stopped soon after the estimate crossed the budget")
				assert.Contains(t, report.String(), "trace records", "what grew")
				s := NewSummary(res, "", "", nil)
				assert.Equal(t, "memory_limit", s.StopReason)
				require.NotNil(t, s.MemoryLimit)
				assert.Equal(t, "trace records", s.MemoryLimit.Uses[0].What)
			}
		})
	}
}
