package scenarios_test

import (
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// crashed is a generated world of any spec, with crashes added.
type crashed[S any] struct {
	Spec  S
	Crash gen.Crash
}

// crashProperty checks a property over worlds drawn by genSpec with crashes added: world
// gives a spec's world (its config and the seed it runs with), and the run must pass
// checkWorldConfig.
func crashProperty[S any](t *testing.T, tests, short int, name string, genSpec gopter.Gen, world func(S) (gen.World, scenarios.Config)) {
	properties := gopter.NewProperties(gen.Parameters(t, tests, short))
	properties.Property(name, prop.ForAll(func(c crashed[S]) string {
		w, cfg := world(c.Spec)
		for i := range cfg.Workloads {
			cfg.Workloads[i].Reuse = nil // a pool is not modelled through crashes (validateReuseCrashes)
		}
		return checkWorldConfig(w, c.Crash.Apply(cfg, w.Seed))
	}, gopgen.Struct(reflect.TypeFor[crashed[S]](), map[string]gopter.Gen{"Spec": genSpec, "Crash": gen.Crashes()})))
	properties.TestingRun(t)
}

// TestG13_DialogsAreExactlyOnceThroughCrashes is the dialog property with instances that
// crash and restart at random instants (G-13): over the same random worlds and fault mixes,
// every dialog still delivers exactly once and in order counting committed receives
// (INV-1), nothing is enqueued twice (INV-2), rows leave the transmission queue only when
// stored (INV-3), everything sent arrives once the faults heal and the last instance is
// back (INV-12), every dialog finishes, and nothing volatile survives a crash (G-13); half
// the worlds send every dialog between instances through a forwarding gateway, which may
// crash while it holds fragments (RTE-5).
func TestG13_DialogsAreExactlyOnceThroughCrashes(t *testing.T) {
	crashProperty(t, 150, 25, "EOIO and liveness through crashes", gen.Worlds(),
		func(s gen.World) (gen.World, scenarios.Config) { return s, s.Config() })
}

// TestG13_LockRulesHoldThroughCrashes is the lock property with crashes (G-13): a crash
// rolls back the transactions of its instance, which release their locks and return what
// they received (INV-4, INV-10), their sessions die and start again after the restart,
// and EOIO on committed receives holds across it.
func TestG13_LockRulesHoldThroughCrashes(t *testing.T) {
	crashProperty(t, 100, 20, "lock rules and EOIO through crashes", gen.LockWorlds(),
		func(s gen.LockWorld) (gen.World, scenarios.Config) { return s.World, s.Config() })
}

// TestG13_ActivationRulesHoldThroughCrashes is the activation property with crashes
// (G-13): a crash ends the activated tasks of its instance (G-32 counts them out), the
// monitor starts again INACTIVE after the restart and activates again for what is left
// (INV-8, ACT-4, G-4), and every dialog finishes.
func TestG13_ActivationRulesHoldThroughCrashes(t *testing.T) {
	crashProperty(t, 100, 20, "activation rules and EOIO through crashes", gen.ActivatedWorlds(),
		func(s gen.ActivatedWorld) (gen.World, scenarios.Config) { return s.World, s.Config() })
}
