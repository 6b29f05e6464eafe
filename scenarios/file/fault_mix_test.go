package file

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// Every field a fault mix sets on a Config (scenarios.FaultMix.Apply: the links' faults,
// partitions, the timeline's slow links, crashes and queue outages, the readers' and
// procedures' rollbacks until the heal, the liveness phase, the time limit) can be
// written: the library's scenarios with the swarm mixes of seeds 1 to 20, written and
// loaded again, give the same Config. A counterexample card is such a file. The mixes
// tried hold every kind of fault.
func TestAScenarioWithAFaultMixRoundTrips(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range LibraryNames() {
		f, err := Library(name)
		require.NoError(t, err)
		for seed := uint64(1); seed <= 20; seed++ {
			t.Run(fmt.Sprintf("%s seed %d", name, seed), func(t *testing.T) {
				mix := scenarios.DrawFaultMix(&f.Config, seed, true)
				noteKinds(seen, mix, &f.Config)
				g := *f
				g.Config = mix.Apply(f.Config)
				out, err := g.Marshal()
				require.NoError(t, err)
				h, err := Load(name+".yaml", out)
				require.NoError(t, err, "written:\n%s", out)
				assert.Equal(t, g.Config, h.Config, "written:\n%s", out)
			})
		}
	}
	for _, kind := range []string{"loss", "burst", "duplicate", "corrupt", "jitter", "slow", "partition", "crash", "queue off",
		"reader rollback", "procedure rollback"} {
		assert.True(t, seen[kind], "no mix tried had %s", kind)
	}
}

// noteKinds records the kinds of fault a mix has.
func noteKinds(seen map[string]bool, m scenarios.FaultMix, cfg *scenarios.Config) {
	for _, l := range m.Links {
		seen["loss"] = seen["loss"] || l.Loss > 0 && !l.Burst
		seen["burst"] = seen["burst"] || l.Burst
		seen["duplicate"] = seen["duplicate"] || l.Duplicate > 0
		seen["corrupt"] = seen["corrupt"] || l.Corrupt > 0
		seen["jitter"] = seen["jitter"] || l.Jitter > 0
		seen["slow"] = seen["slow"] || l.Slow
		seen["partition"] = seen["partition"] || len(l.Partitions) > 0
	}
	seen["crash"] = seen["crash"] || len(m.Crashes) > 0
	seen["queue off"] = seen["queue off"] || len(m.QueuesOff) > 0
	seen["reader rollback"] = seen["reader rollback"] || m.RollbackRate > 0 && len(cfg.Readers) > 0
	seen["procedure rollback"] = seen["procedure rollback"] || m.RollbackRate > 0 && len(cfg.Procedures) > 0
}
