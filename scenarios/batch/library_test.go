package batch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/file"
)

// librarySeeds is how many seeds the library is checked on here, as CI's check all -seeds 3.
const librarySeeds = 3

// Every library scenario passes a check of its seeds 1 to 3: its per-seed expectations on
// each, its statistical ones (file.OverSeeds) over the three.
func TestLibraryPassesACheckOfThreeSeeds(t *testing.T) {
	var targets []Target
	for _, name := range file.LibraryNames() {
		targets = append(targets, Target{name, library(t, name), librarySeeds})
	}
	for v := range Check(targets, 2, nil) {
		assert.True(t, v.OK(), "%s: %+v", v.Name, v)
	}
}

// A library scenario's expectations are about the behaviour it demonstrates: changing that
// behaviour in its file makes a check of the same seeds fail, whether the expectation that
// fails is judged on each seed or over them (file.OverSeeds).
func TestLibraryExpectationsFailWhenTheBehaviourChanges(t *testing.T) {
	for _, c := range []struct {
		scenario string
		changes  [][2]string // from, to
	}{
		{"lossy-wan", [][2]string{{"      loss: 5%", "      loss: 60%"}}},
		{"queue-off-on", [][2]string{{"  - {at: 40s, alter_queue: OrderQueue, status: on}\n", ""}}},
		// Its lock waits come from readers sharing groups, from several readers, and from
		// touching other conversations: only without all three does no statement wait.
		{"lock-contention", [][2]string{{"    sessions: 8\n", "    sessions: 1\n"}, {"    group_size: 10\n", "    group_size: 1\n"},
			{"    touch_rate: 0.2\n", "    touch_rate: 0\n"}}},
		{"priority-flood", [][2]string{{"honor_broker_priority: on", "honor_broker_priority: off"}}},
		{"honor-priority-off", [][2]string{{"honor_broker_priority: off", "honor_broker_priority: on"}}},
		{"poison-message", [][2]string{{"rollback_rate: 1", "rollback_rate: 0"}}},
		{"partition-heals", [][2]string{{"from: 20s, until: 60s", "from: 20s, until: 21s"}}},
		{"single-conversation-activation", [][2]string{{"max_queue_readers: 5", "max_queue_readers: 1"}}},
		{"activation-burst", [][2]string{{"max_queue_readers: 4", "max_queue_readers: 2"}}},
		{"external-activation", [][2]string{{"max_readers: 3", "max_readers: 4"}}},
		// A full partition shorter than the retention of closed targets (G-16): nothing is
		// forgotten, nothing delivered twice.
		{"fire-and-forget-outage", [][2]string{{"{from: 5m, until: 40m}", "{from: 5m, until: 30m}"}}},
		// The route there from the start: no dialog waits, none is delayed (RTE-2 step 7, G-28).
		{"missing-route-added-later", [][2]string{{"  - at: 2m\n    create_route:", "  - at: 0s\n    create_route:"}}},
		// One route instead of two: every dialog goes to HQ1 (RTE-3).
		{"balanced-service", [][2]string{{"          - {name: OrdersAtHQ2, service_name: Orders, address: HQ2}\n", ""}}},
		// A WAN a hundred times wider: no backlog at the gateway, no retry storm, and the
		// urgent orders arrive at once (RTE-5, PRI-14 cost nothing without a bottleneck).
		{"branch-gateway", [][2]string{{"bandwidth: 250000", "bandwidth: 25000000"}}},
		// A route without MIRROR_ADDRESS: the Shop keeps sending to the dead principal (RTE-3).
		{"mirror-failover", [][2]string{{", mirror_address: WarehouseMirror}", "}"}}},
		// Without the crash (G-13) nothing waits for a restart.
		{"target-crash", [][2]string{{"  - {at: 5s, crash: Warehouse, restart_after: 30s}\n", ""}}},
		// A target that ends: nothing leaks in DISCONNECTED_INBOUND (DLG-4, lifecycles.md).
		{"endpoint-leak", [][2]string{{"size: 500, end: fire-and-forget}", "size: 500, end: target}"}}},
		// No reuse: the reused loop begins a dialog per message too, and costs what it costs.
		{"reused-dialogs", [][2]string{{"    reuse: {dialogs: 1, senders: 1, recycle_after_messages: 250, recycle: end-of-stream}\n", ""}}},
		// The slowest of the saga's services ten times slower: the answers wait for it.
		{"order-saga", [][2]string{{"processing_time: {exponential: 150ms}", "processing_time: {exponential: 1500ms}"}}},
		// A WAN twice as far: four crossings of 60 ms.
		{"service-chain", [][2]string{{"latency: 30ms", "latency: 60ms"}}},
		// Eight CPUs on Many: its readers are no longer bound by two.
		{"how-many-readers", [][2]string{{"  - name: Many\n    cpus: 2\n", "  - name: Many\n    cpus: 8\n"}}},
		// A commit per message on the batched queue too.
		{"receive-batching", [][2]string{{"{queue: BatchedQueue, top: 1, commit_every: 100}", "{queue: BatchedQueue, top: 1}"}}},
		// A job that takes no time: no drift, 177 Ticks.
		{"timer-scheduler", [][2]string{{"        processing_time: 300ms\n", ""}}},
		// A commit per message: the commits' CPU time grows a hundredfold.
		{"batched-receive", [][2]string{{"    commit_every: 100\n", "    commit_every: 1\n"}}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			data, err := file.LibraryText(c.scenario)
			require.NoError(t, err)
			changed := string(data)
			for _, ch := range c.changes {
				next := strings.Replace(changed, ch[0], ch[1], 1)
				require.NotEqual(t, changed, next, "the change %q applies", ch[0])
				changed = next
			}
			f, err := file.Load(c.scenario+".yaml", []byte(changed))
			require.NoError(t, err)
			for v := range Check([]Target{{c.scenario, f, librarySeeds}}, 2, nil) {
				require.NoError(t, v.Err)
				assert.False(t, v.OK(), "the changes %q break no expectation", c.changes)
			}
		})
	}
}
