package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// mirroredWorld is the two-instance world whose target B is mirrored to a standby host
// B2: A's route to Target names B as ADDRESS and, unless plain, B2 as MIRROR_ADDRESS. B
// routes its acknowledgements back to A. B fails over to B2 at 5 s and answers there 10 s
// later.
func mirroredWorld(plain bool) Config {
	link := faulty.Config{LatencyFixed: 10 * time.Millisecond, LatencyJitter: sim.ExponentialMean(2 * time.Millisecond)}
	cfg := twoInstances(faulty.PairConfig{AToB: link, BToA: link}, Workload{Name: "orders", Dialogs: 60,
		Interarrival: sim.ExponentialMean(250 * time.Millisecond), Messages: 3, MessageGap: sim.ExponentialMean(100 * time.Millisecond),
		Size: FixedSize(2000)})
	route := model.Route{Name: "target", ServiceName: "Target", Address: "B", MirrorAddress: "B2"}
	if plain {
		route.MirrorAddress = ""
	}
	cfg.Instances[0].Databases[0].Routes = []model.Route{route}
	cfg.Instances[1].Databases[0].Routes = []model.Route{{Name: "back", ServiceName: "Initiator", Address: "A"}}
	cfg.Instances = append(cfg.Instances, model.Instance{Name: "B2"})
	cfg.Links = append(cfg.Links, Link{A: "A", B: "B2", PairConfig: faulty.PairConfig{AToB: link, BToA: link}})
	cfg.Timeline = []Change{{At: 5 * time.Second, Crash: &CrashChange{Instance: "B", RestartAfter: 10 * time.Second, FailoverTo: "B2"}}}
	return cfg
}

// RTE-3 and G-13: a principal fails over to its mirror; the dialogs whose route names the
// mirror follow it, and every message arrives once, through the mirror's host after the
// failover; nothing is sent to the old host any more once the senders know.
func TestRTE3_APrincipalFailsOverToItsMirrorAddress(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := Run(mirroredWorld(false), seed)
		require.NoError(t, err)
		require.Nil(t, res.Violation, "seed %d: %v", seed, res.Violation)
		assert.Equal(t, sim.Drained, res.StopReason)
		assert.Equal(t, int64(180), res.Latency.Count, "every message received once (seed %d)", seed)
		for _, in := range res.Instances {
			assert.Zero(t, in.TransmissionQueueRows, in.Name)
		}
		links := map[string]faulty.Counters{}
		for _, l := range res.Links {
			links[l.Name] = l.Counters
		}
		assert.Positive(t, links["A->B2"].Delivered, "after the failover the target answers at B2")
		assert.Positive(t, links["B2->A"].Delivered, "and sends from B2's host")
		require.Len(t, res.Crashes, 1)
		resume, ok := res.Crashes[0].Resumed()
		assert.True(t, ok)
		assert.Less(t, resume, 70*time.Second)
	}
}

// Without MIRROR_ADDRESS, the dialogs keep sending to the old address, where nothing
// answers after the failover: what was not delivered before it never is.
func TestRTE3_WithoutAMirrorAddressAFailoverLosesTheService(t *testing.T) {
	cfg := mirroredWorld(true)
	cfg.Liveness = Liveness{Off: true}
	cfg.MaxTime = 30 * time.Minute
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Less(t, res.Latency.Count, int64(180))
	assert.Positive(t, res.Instances[0].TransmissionQueueRows, "left in A's transmission queue, retried for ever")
}

// A failover's standby must be an instance without databases, and exist.
func TestG13_FailoverToIsValidated(t *testing.T) {
	for _, tt := range []struct {
		to, want string
	}{
		{"Z", `FailoverTo: instance "Z" does not exist`},
		{"B", `FailoverTo is the instance itself`},
		{"A", `FailoverTo: A has databases of its own`},
	} {
		cfg := mirroredWorld(false)
		cfg.Timeline[0].Crash.FailoverTo = tt.to
		_, err := Run(cfg, 1)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// A standby takes over one instance and does not crash of its own: two failovers onto one
// standby, and a crash of a standby, are refused before the run.
func TestG13_AStandbyTakesOverOneInstanceAndDoesNotCrash(t *testing.T) {
	twice := mirroredWorld(false)
	twice.Timeline = append(twice.Timeline, Change{At: 20 * time.Second, Crash: &CrashChange{Instance: "A", RestartAfter: time.Second, FailoverTo: "B2"}})
	_, err := Run(twice, 1)
	require.ErrorContains(t, err, "B2 is already the standby of B")

	down := mirroredWorld(false)
	down.Timeline = append(down.Timeline, Change{At: 40 * time.Second, Crash: &CrashChange{Instance: "B2", RestartAfter: time.Second}})
	_, err = Run(down, 1)
	require.ErrorContains(t, err, "crash of B2: it is the standby of B; crash B")

	random := mirroredWorld(false)
	random.Crashes = RandomCrashes{Instances: []string{"A", "B2"}, Until: time.Minute, Interval: sim.Fixed(10 * time.Second), Downtime: sim.Fixed(time.Second)}
	_, err = Run(random, 1)
	require.ErrorContains(t, err, "B2 is the standby of B and does not crash")
}

// RTE-5 in the series: a forwarder's samples count what it forwarded and what it holds.
func TestRTE5_TheSeriesCountWhatAForwarderPassesOn(t *testing.T) {
	cfg := throughputThroughGateway(20, 5)
	cfg.CheckInvariants = true
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	var last InstanceSample
	for _, s := range res.Series.Instances {
		if s.Instance == "G" {
			assert.True(t, s.Forwarder)
			last = s
		} else {
			assert.False(t, s.Forwarder, s.Instance)
		}
	}
	assert.GreaterOrEqual(t, last.Forwarded, int64(100), "every message's fragment went through G")
	assert.Zero(t, last.ForwardHeldBytes, "nothing held once the run drained")
}
