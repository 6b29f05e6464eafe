package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// livenessScenario is 100 messages, 10 dialogs of 10, from A to B over a 20 ms link with
// the given link keys, then the rest of the file.
func livenessScenario(link, rest string) string {
	return `name: liveness
instances:
  - name: A
    databases:
      - name: A
        message_types: [Event]
        contracts:
          - {name: //sbsim/Event, messages: [{message_type: Event, sent_by: initiator}]}
        queues: [{name: AQueue}]
        services: [{name: AService, queue: AQueue}]
  - name: B
    databases:
      - name: B
        message_types: [Event]
        contracts:
          - {name: //sbsim/Event, messages: [{message_type: Event, sent_by: initiator}]}
        queues: [{name: BQueue}]
        services: [{name: BService, queue: BQueue, contracts: [//sbsim/Event]}]
links:
  - between: [A, B]
` + link + `
workloads:
  - {name: events, from_service: AService, to_service: BService, contract: //sbsim/Event, message_type: Event,
     dialogs: 10, interarrival: 100ms, messages: 10, size: 500}
` + rest
}

// A run that does not finish says so and fails (INV-12, the liveness phase), and so do
// send failures nobody expected; the rules after a violation that stopped the run say
// they were not checked to the end. Each case: the command, its exit code, what its
// output says.
func TestVerdictsOfRunsThatDoNotFinishOrFailToSend(t *testing.T) {
	lost := "    both: {latency: 20ms, loss: 1.0}"
	partitioned := "    both: {latency: 20ms}\n    partitions: [{from: 500ms, until: 25m}]"
	// Each dialog's reply comes after its lifetime ran out: the target's SEND fails.
	lifetime := strings.Replace(livenessScenario("    both: {latency: 20ms}", "readers: [{queue: BQueue, processing_time: 2s}]\n"),
		"messages: 10, size: 500}", "messages: 1, size: 500, replies: true, reply_type: Event, lifetime: 1s}", 1)
	// The target replies with Event too, which the contract must let it send (DLG-16).
	lifetime = strings.ReplaceAll(lifetime, "{message_type: Event, sent_by: initiator}", "{message_type: Event, sent_by: any}")
	cases := []struct {
		name     string
		command  string
		text     string
		wantCode int
		want     []string
	}{
		{"loss 1.0 over 100 messages fails, naming the first conversation", "run",
			livenessScenario(lost, "limits: {max_time: 1h}\n"), 1,
			[]string{"  INV-12  VIOLATED ", "INV-12 violated at t=1h0m0s on conversation c1000000000002: the run stopped at 1h0m0s (time limit reached) with messages undelivered",
				"messages still in sys.transmission_queue of A (the last's transmission_status \"sent, waiting for acknowledgement\")",
				"no target endpoint on B", "verdict: FAILED"}},
		{"check fails it too", "check", livenessScenario(lost, "limits: {max_time: 1h}\n"), 1,
			[]string{"(2 of 2 seeds)", "seed 1: INV-12 violated at t=1h0m0s on conversation c1000000000002: the run stopped at 1h0m0s"}},
		{"a scenario that expects not to drain passes", "run",
			livenessScenario(lost, "limits: {max_time: 1h}\nliveness: off\n"), 0,
			[]string{"  INV-12  unchecked (the run did not drain, as its scenario expects: liveness: off) ",
				"verdict: ok, every invariant held, INV-12 unchecked: the run did not drain, as its scenario expects (liveness: off)"}},
		{"the faults heal at the time the scenario names, and everything is delivered", "run",
			livenessScenario(lost, "limits: {max_time: 2h}\nliveness: {after: 10m}\n"), 0,
			[]string{"  INV-12  ok ", "verdict: ok"}},
		{"a long partition that heals passes the liveness phase", "run",
			livenessScenario(partitioned, ""), 0, []string{"  INV-12  ok ", "verdict: ok"}},
		{"a bound shorter than the retry back-off fails, and the other rules were not checked to the end", "run",
			livenessScenario(partitioned, "liveness: {within: 10s}\n"), 1,
			[]string{"not finished 10s after the faults healed at 25m0s", "  INV-1   not checked to the end ",
				"not checked to the end: the run stopped at the INV-12 violation at 25m10", "verdict: FAILED"}},
		{"send failures fail the verdict", "run", lifetime, 1,
			[]string{"FAILED: send_failures equals 0 (implicit: no expectation names send_failures, so none may fail) (got 10: 10 in workload \"events\")"}},
		{"send failures a scenario expects pass", "run", lifetime + "expect:\n  - {metric: send_failures, equals: 10}\n", 0,
			[]string{"ok: send_failures equals 10 (got 10)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "liveness.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
			args := []string{tc.command, path, "-seed", "1"}
			if tc.command == "check" {
				args = []string{"check", path, "-seeds", "2"}
			}

			code, out, errOut := runCommand(args...)

			assert.Equal(t, tc.wantCode, code, "%s%s", out, errOut)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
		})
	}
}
