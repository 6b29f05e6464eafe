package file

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// crashBase is base with a second instance, B, for the crash keys.
const crashBase = base + `  - name: B
    databases:
      - name: E
        queues: [{name: R}]
        services: [{name: T, queue: R}]
`

// The crash keys (G-13) load, and Marshal writes them back: a timeline crash with its
// restart, and crashes drawn at random.
func TestG13_CrashKeysLoadAndRoundTrip(t *testing.T) {
	text := crashBase + `timeline:
  - {at: 30s, crash: B, restart_after: 20s}
crashes: {instances: [A, B], start: 1m, until: 1h, interval: {exponential: 10m}, downtime: {uniform: [5s, 1m]}}
`
	f, err := Load("c.yaml", []byte(text))
	require.NoError(t, err)
	wantTimeline := []scenarios.Change{{At: 30 * time.Second, Crash: &scenarios.CrashChange{Instance: "B", RestartAfter: 20 * time.Second}}}
	wantCrashes := scenarios.RandomCrashes{Instances: []string{"A", "B"}, Start: time.Minute, Until: time.Hour,
		Interval: sim.ExponentialMean(10 * time.Minute), Downtime: sim.UniformBetween(5*time.Second, time.Minute)}
	assert.Equal(t, wantTimeline, f.Config.Timeline)
	assert.Equal(t, wantCrashes, f.Config.Crashes)

	out, err := f.Marshal()
	require.NoError(t, err)
	g, err := Load("c.yaml", out)
	require.NoError(t, err, "written:\n%s", out)
	assert.Equal(t, wantTimeline, g.Config.Timeline, "written:\n%s", out)
	assert.Equal(t, wantCrashes, g.Config.Crashes, "written:\n%s", out)
}

// The crash keys are validated with errors at their place (G-13): an unknown instance, a
// missing or non-positive restart_after, a negative time, crashes without instances or a
// window.
func TestG13_CrashKeysAreValidated(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"unknown instance", "timeline:\n  - {at: 30s, crash: C, restart_after: 20s}\n",
			`c.yaml:14:22: timeline[0].crash: instance "C" does not exist`},
		{"no restart", "timeline:\n  - {at: 30s, crash: B}\n",
			`timeline[0].restart_after: a crash needs restart_after`},
		{"zero restart", "timeline:\n  - {at: 30s, crash: B, restart_after: 0s}\n",
			`timeline[0].crash: timeline 0: crash of B: RestartAfter 0s is not positive`},
		{"negative time", "timeline:\n  - {at: -5s, crash: B, restart_after: 1s}\n",
			`timeline[0].at:`},
		{"random: unknown instance", "crashes: {instances: [A, Z], until: 1h, interval: 1m, downtime: 1s}\n",
			`crashes.instances[1]: instance "Z" does not exist`},
		{"random: no instances", "crashes: {until: 1h, interval: 1m, downtime: 1s}\n",
			`crashes.instances: crashes need instances`},
		{"random: until before start", "crashes: {instances: [A], start: 2h, until: 1h, interval: 1m, downtime: 1s}\n",
			`crashes.until: Crashes: Until 1h0m0s is not after Start 2h0m0s`},
		{"random: no interval", "crashes: {instances: [A], until: 1h, downtime: 1s}\n",
			`crashes.interval: crashes need an interval`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("c.yaml", []byte(crashBase+tc.text))
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tc.want), "got %v, want %q", err, tc.want)
		})
	}
}

// A failover (failover_to, RTE-3 and G-13) loads, is written back, and names a standby
// without databases, at its place in the file.
func TestRTE3_FailoverKeyLoadsRoundTripsAndIsValidated(t *testing.T) {
	standby := crashBase + "  - name: B2\n    databases: []\n"
	f, err := Load("c.yaml", []byte(standby+"timeline:\n  - {at: 30s, crash: B, restart_after: 10s, failover_to: B2}\n"))
	require.NoError(t, err)
	want := []scenarios.Change{{At: 30 * time.Second, Crash: &scenarios.CrashChange{Instance: "B", RestartAfter: 10 * time.Second, FailoverTo: "B2"}}}
	assert.Equal(t, want, f.Config.Timeline)
	out, err := f.Marshal()
	require.NoError(t, err)
	g, err := Load("c.yaml", out)
	require.NoError(t, err, "written:\n%s", out)
	assert.Equal(t, want, g.Config.Timeline, "written:\n%s", out)

	_, err = Load("c.yaml", []byte(crashBase+"timeline:\n  - {at: 30s, crash: B, restart_after: 10s, failover_to: A}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `timeline[0].failover_to: crash of B: FailoverTo: A has databases of its own`)
}
