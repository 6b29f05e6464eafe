package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// fireAndForget is the world of the trustworthy-runs issue: two instances on a 50 ms link,
// 40 dialogs of two 1,000-byte messages whose initiator ends right after its second SEND,
// a reader on the target's queue, and the link as given.
func fireAndForget(link faulty.PairConfig, partitions []faulty.Partition, lifetime time.Duration) Config {
	inst := func(name, service string, contracts []string) model.Instance {
		return model.Instance{Name: name, Databases: []model.Database{{Name: name,
			Queues:   []model.Queue{{Name: name + "Q"}},
			Services: []model.Service{{Name: service, Queue: name + "Q", Contracts: contracts}}}}}
	}
	return Config{Name: "fire-and-forget", CheckInvariants: true, MaxTime: 24 * time.Hour,
		Instances: []model.Instance{inst("A", "AS", nil), inst("B", "BS", []string{"DEFAULT"})},
		Links:     []Link{{A: "A", B: "B", PairConfig: faulty.PairConfig{AToB: link.AToB, BToA: link.BToA, Partitions: partitions}}},
		Workloads: []Workload{{Name: "w", From: "AS", To: "BS", Dialogs: 40, Interarrival: sim.ExponentialMean(50 * time.Millisecond),
			Messages: 2, Size: FixedSize(1000), Lifetime: lifetime}},
		Readers: []Reader{{Queue: "BQ", Top: 10, ProcessingTime: sim.Fixed(2 * time.Millisecond)}},
	}
}

func perfect50ms() faulty.PairConfig {
	c := faulty.Config{LatencyFixed: 50 * time.Millisecond}
	return faulty.PairConfig{AToB: c, BToA: c}
}

// cutBoth is one partition of the pair, both ways.
func cutBoth(from, until time.Duration) []faulty.Partition {
	return []faulty.Partition{{Window: faulty.Window{From: from, Until: until}}}
}

// requireOnlyFindings checks that the run held every invariant, drained, and reported
// design findings, each of an initiator in the state given (DO: it still retried; CD: a
// copy it sent before it closed was still on its way) re-creating a forgotten target.
func requireOnlyFindings(t *testing.T, res *Result, initiator model.EndpointState, why string) {
	t.Helper()
	require.Nil(t, res.Violation, "Service Broker's own behaviour is no violation of the model")
	assert.Equal(t, sim.Drained, res.StopReason)
	require.Positive(t, res.FindingCount, "the late retries re-created forgotten targets")
	for _, f := range res.Findings {
		assert.Equal(t, invariant.FindingReopened, f.ID)
		assert.Equal(t, initiator, f.InitiatorState, f.Message)
		assert.GreaterOrEqual(t, f.At, f.ForgottenAt)
		assert.Contains(t, f.Message, why)
	}
}

// TestG16_FireAndForgetPastTheRetentionIsADesignFinding: the case of the issue. With a
// partition from 2 s to 31 min, seed 2's conversation c100000000001d delivered its
// messages and EndDialog, its target closed, the acknowledgements were lost, the target
// was forgotten 30 min later (G-16), and the retry at 31m57s created a new target that
// stored message 0 again: INV-2 broke. Service Broker does the same (DLG-3, DLG-4, [T3]):
// the checkers now report it as a design finding, the invariants hold, and dialogs.reopened
// counts it. A shorter partition, or a LIFETIME shorter than the retention (DLG-5), has none.
func TestG16_FireAndForgetPastTheRetentionIsADesignFinding(t *testing.T) {
	res, err := Run(fireAndForget(perfect50ms(), cutBoth(2*time.Second, 31*time.Minute), 0), 2)
	require.NoError(t, err)
	requireOnlyFindings(t, res, model.DisconnectedOutbound, "fire-and-forget past the retention")
	assert.Greater(t, res.Latency.Count, int64(80), "the re-created targets delivered messages a second time")
	v, reason := MetricReopened, ""
	for _, m := range Measures(res) {
		if m.Metric == v {
			assert.Equal(t, float64(res.FindingCount), m.Value)
			reason = "measured"
		}
	}
	assert.Equal(t, "measured", reason, "the metric %s reports the findings", v)

	for _, c := range []struct {
		name     string
		until    time.Duration
		lifetime time.Duration
	}{
		{"a partition shorter than the retention", 20 * time.Minute, 0},
		{"a lifetime shorter than the retention", 31 * time.Minute, 10 * time.Minute},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(fireAndForget(perfect50ms(), cutBoth(2*time.Second, c.until), c.lifetime), 2)
			require.NoError(t, err)
			require.Nil(t, res.Violation)
			assert.Zero(t, res.FindingCount, "%v", res.Findings)
		})
	}
}

// TestG16_ASlowLinkThatHoldsAcksPastTheRetentionIsADesignFinding: a link of 10 bytes per
// second, no partition. The initiator's retries queue on the link behind each other for
// longer than the retention (G-16 asks it to exceed the network's age, and nothing bounds
// that age on such a link): a target is forgotten while copies for it are still on the
// way, and the first to arrive re-creates it. A design finding again, never an INV-2.
func TestG16_ASlowLinkThatHoldsAcksPastTheRetentionIsADesignFinding(t *testing.T) {
	c := faulty.Config{LatencyFixed: 50 * time.Millisecond, Bandwidth: 10}
	cfg := fireAndForget(faulty.PairConfig{AToB: c, BToA: c}, nil, 0)
	// The default liveness bound (DefaultLivenessWithin) counts retries and round trips, not
	// a backlog of hours on the wire: this link takes about 4 h to carry the retries.
	cfg.Liveness.Within = 24 * time.Hour
	res, err := Run(cfg, 1)
	require.NoError(t, err)
	requireOnlyFindings(t, res, model.Closed, "the network held a copy")
}

// TestG16_PartitionGridHasFindingsButNoViolation is the sweep: partitions ending at
// 20 min, 31 min, 40 min and 2 h, starting at 2 s, 5 s and 8 s, ten seeds each. 24 of the
// 120 runs broke INV-2; none may now, and only partitions longer than the retention may
// have findings.
func TestG16_PartitionGridHasFindingsButNoViolation(t *testing.T) {
	findings := 0
	for _, until := range []time.Duration{20 * time.Minute, 31 * time.Minute, 40 * time.Minute, 2 * time.Hour} {
		for _, from := range []time.Duration{2 * time.Second, 5 * time.Second, 8 * time.Second} {
			for seed := uint64(1); seed <= 10; seed++ {
				res, err := Run(fireAndForget(perfect50ms(), cutBoth(from, until), 0), seed)
				require.NoError(t, err)
				where := fmt.Sprintf("partition %v-%v, seed %d", from, until, seed)
				require.Nil(t, res.Violation, where)
				assert.Equal(t, sim.Drained, res.StopReason, where)
				if until-from < 30*time.Minute {
					assert.Zero(t, res.FindingCount, where)
				}
				findings += res.FindingCount
			}
		}
	}
	assert.Positive(t, findings)
}
