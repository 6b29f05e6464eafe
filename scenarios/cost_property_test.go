package scenarios_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/scenarios/gen"
)

// TestLockRulesHoldWithCostsAndBatchedCommits is TestLockRulesHoldWithManyReaders with
// the cost model on (LOCK-3, LOCK-6, LOCK-7 through INV-4 and INV-5, EOIO through INV-1):
// transactions that wait for CPUs and log flushes while they hold their locks, and batch
// several RECEIVEs before one COMMIT, break no lock rule, lose or repeat no message, and
// every run still ends with every dialog finished.
func TestLockRulesHoldWithCostsAndBatchedCommits(t *testing.T) {
	properties := gopter.NewProperties(gen.Parameters(t, 60, 10))
	properties.Property("lock rules, EOIO, no hang, with costs and commit_every", prop.ForAll(func(s gen.CostWorld) string {
		return checkWorldConfig(s.Lock.World, s.Config())
	}, gen.CostWorlds()))
	properties.TestingRun(t)
}
