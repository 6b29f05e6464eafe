package batch

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// A seed's mix is a function of the seed alone: drawn twice, it is the same; two seeds
// draw different mixes.
func TestAMixIsTheSeedsAlone(t *testing.T) {
	s := library(t, "lossy-wan")
	for seed := uint64(1); seed <= 50; seed++ {
		for _, swarm := range []bool{false, true} {
			a, b := scenarios.DrawFaultMix(&s.Config, seed, swarm), scenarios.DrawFaultMix(&s.Config, seed, swarm)
			assert.Equal(t, a, b, "seed %d", seed)
			assert.Equal(t, a.String(), b.String())
		}
	}
	assert.NotEqual(t, scenarios.DrawFaultMix(&s.Config, 1, false), scenarios.DrawFaultMix(&s.Config, 2, false))
}

// The mixes cover the whole fault space over many seeds: every kind of fault, outages
// longer than every timer of the broker (30 minutes of G-16's retention, RetryIntervalMax),
// slow links, one-way partitions; with swarm, seeds with each kind off.
func TestMixesDrawTheWholeFaultSpace(t *testing.T) {
	s := library(t, "lossy-wan")
	var longest time.Duration
	seen := map[string]int{}
	for seed := uint64(1); seed <= 500; seed++ {
		for _, swarm := range []bool{false, true} {
			m := scenarios.DrawFaultMix(&s.Config, seed, swarm)
			for _, l := range m.Links {
				count(seen, "loss", l.Loss > 0 && !l.Burst)
				count(seen, "burst", l.Burst)
				count(seen, "duplication", l.Duplicate > 0)
				count(seen, "corruption", l.Corrupt > 0)
				count(seen, "reordering", l.Jitter > 0)
				count(seen, "slow", l.Slow)
				count(seen, "no loss, swarm", swarm && l.Loss == 0)
				for _, p := range l.Partitions {
					longest = max(longest, p.Until-p.From)
					count(seen, "partition "+p.Direction.String(), true)
				}
			}
			count(seen, "crash", len(m.Crashes) > 0)
			count(seen, "queue off", len(m.QueuesOff) > 0)
			count(seen, "rollbacks", m.RollbackRate > 0)
			count(seen, "no crash, swarm", swarm && len(m.Crashes) == 0)
		}
	}
	for _, kind := range []string{"loss", "burst", "duplication", "corruption", "reordering", "slow", "partition both",
		"partition a-to-b", "partition b-to-a", "crash", "queue off", "rollbacks", "no loss, swarm", "no crash, swarm"} {
		assert.Greater(t, seen[kind], 10, "%s drawn in %d mixes of 1,000", kind, seen[kind])
	}
	assert.Greater(t, longest, time.Hour, "outages past the 30-minute retention of closed targets (G-16)")
}

func count(seen map[string]int, kind string, ok bool) {
	if ok {
		seen[kind]++
	}
}

// INV-12 and the rest hold over the mixes of the library's scenarios: the correct broker
// delivers everything after the faults heal, whatever was drawn.
func TestExploreHoldsOverTheLibrary(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for _, name := range file.LibraryNames() {
		s := library(t, name)
		for _, swarm := range []bool{false, true} {
			n := 0
			for e := range Explore(s, seeds, swarm, 2, nil) {
				n++
				require.NoError(t, e.Err, "%s seed %d", name, e.Seed)
				assert.True(t, e.OK(), "%s seed %d (swarm %t): %s\n%s\nreplay: %s", name, e.Seed, swarm, e.Failure, e.Mix,
					ExploreReplay(name, nil, e.Seed, swarm))
				assert.Equal(t, uint64(n), e.Seed, "seeds in order")
			}
			assert.Equal(t, seeds, n)
		}
	}
}

// A broker that does not retransmit in time is caught: explore's partitions and losses
// leave messages that only a retry delivers, and INV-12 fails on some seed.
func TestExploreCatchesABrokerThatDoesNotRetransmit(t *testing.T) {
	s, err := library(t, "lossy-wan").With(file.Override{Key: "broker.retry_interval_min", Value: "1000h"},
		file.Override{Key: "broker.retry_interval_max", Value: "1000h"},
		file.Override{Key: "broker.closed_target_retention", Value: "2001h"})
	require.NoError(t, err)
	s.Config.Liveness.Within = 10 * time.Minute // the healthy broker's bound, not the broken one's
	failed := 0
	for e := range Explore(s, 4, false, 2, nil) {
		require.NoError(t, e.Err)
		if !e.OK() {
			failed++
			assert.Equal(t, "INV-12", e.Rule, e.Failure)
		}
	}
	assert.Positive(t, failed, "the broken broker passed every seed")
}

// A mix never crashes an instance while it is down, by the scenario's own timeline or by
// another crash of the mix: such a crash would be dropped (and the scenario's own, a
// failover's, say, with it), though the mix printed it.
func TestAMixNeverCrashesAnInstanceThatIsDown(t *testing.T) {
	for _, name := range []string{"mirror-failover", "lossy-wan", "three-sites"} {
		s := library(t, name)
		for seed := uint64(1); seed <= 500; seed++ {
			m := scenarios.DrawFaultMix(&s.Config, seed, false)
			cfg := m.Apply(s.Config)
			down := map[string][][2]time.Duration{}
			for _, ch := range cfg.Timeline {
				if c := ch.Crash; c != nil {
					for _, w := range down[c.Instance] {
						require.False(t, w[0] <= ch.At+c.RestartAfter && ch.At <= w[1],
							"%s seed %d: %s crashes at %v while down %v", name, seed, c.Instance, ch.At, w)
					}
					down[c.Instance] = append(down[c.Instance], [2]time.Duration{ch.At, ch.At + c.RestartAfter})
				}
			}
		}
	}
}

// The scenario's own link changes before the faults heal keep the mix's faults: a change
// that set the link anew would wipe them, though the mix printed them.
func TestAMixKeepsItsFaultsThroughTheScenariosLinkChanges(t *testing.T) {
	s := library(t, "lossy-wan")
	own := s.Config.Links[0]
	base := s.Config
	changed := own.AToB
	changed.LatencyFixed = 80 * time.Millisecond
	base.Timeline = append(slices.Clone(base.Timeline), scenarios.Change{At: time.Second,
		Link: &scenarios.LinkChange{A: own.B, B: own.A, AToB: &changed, BToA: &changed}})
	seen := 0
	for seed := uint64(1); seed <= 200; seed++ {
		m := scenarios.DrawFaultMix(&base, seed, false)
		if m.Links[0].Duplicate == 0 {
			continue
		}
		cfg := m.Apply(base)
		ch := cfg.Timeline[len(base.Timeline)-1].Link
		require.NotNil(t, ch)
		assert.GreaterOrEqual(t, ch.AToB.DuplicateProbability, m.Links[0].Duplicate, "seed %d", seed)
		assert.Equal(t, changed.DuplicateProbability, base.Timeline[len(base.Timeline)-1].Link.AToB.DuplicateProbability,
			"the scenario's change is left as it was")
		seen++
	}
	assert.Positive(t, seen)
}
