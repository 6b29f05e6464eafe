package file

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadReportsBadLifeCyclesAndPools: end and reuse are checked at their line and
// column, the decoder's errors and the config's alike.
func TestLoadReportsBadLifeCyclesAndPools(t *testing.T) {
	w := func(extra string) string {
		withContract := strings.Replace(base, "queue: Q}", "queue: Q, contracts: [DEFAULT]}", 1)
		return withContract + "workloads: [{name: w, from_service: S, to_service: S, dialogs: 1, messages: 1" + extra + "}]\n"
	}
	for _, tc := range []struct{ name, file, want string }{
		{"unknown life cycle", w(", end: sometimes"),
			`bad.yaml:8:85: workloads[0].end: want one of initiator, target, target-after-reply, fire-and-forget, never, cleanup, got "sometimes"`},
		{"target with replies", w(", replies: on, end: target"),
			`bad.yaml:8:98: workloads[0].end: end: target ends on the last message, without replies: with replies: on, write end: target-after-reply`},
		{"a pool of no dialog", w(", reuse: {senders: 2}"),
			`bad.yaml:8:87: workloads[0].reuse.dialogs: a pool needs dialogs, how many long-lived dialogs it keeps`},
		{"an unknown recycling", w(", reuse: {dialogs: 1, recycle: often}"),
			`bad.yaml:8:109: workloads[0].reuse.recycle: want end or end-of-stream, got "often"`},
		{"an unknown key of a pool", w(", reuse: {dialogs: 1, recycle_every: 5}"),
			`workloads[0].reuse.recycle_every: unknown key "recycle_every" in the reuse`},
		{"a pool with a life cycle", w(", end: never, reuse: {dialogs: 1}"),
			`workloads[0].reuse: reuse: a pool's dialogs end by their recycling (reuse.recycle): leave end out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(tc.file))
			require.Error(t, err, tc.file)
			assert.Contains(t, err.Error(), tc.want)
			assert.Len(t, strings.Split(err.Error(), "\n"), 1, "one error:\n%s", err)
		})
	}
}
