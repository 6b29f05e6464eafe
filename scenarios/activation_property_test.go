package scenarios_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/scenarios/gen"
)

// TestActivationRulesHold is the activation property (each task runs its procedure in a
// session and transactions of its own, TXN-4): over random arrival patterns, group
// layouts, reader speeds, rollback rates, MAX_QUEUE_READERS and link faults, with queues
// read only by activated (or externally activated) readers, the online checkers find no
// violation of INV-8 (never more than MAX_QUEUE_READERS tasks), INV-9 (one notification
// per time-out window), ACT-4 (a reader starts only when activation is needed), nor of
// EOIO and the lock rules; and every run ends with every dialog finished: activation
// always comes back for messages that arrive after the readers left (ACT-4a).
func TestActivationRulesHold(t *testing.T) {
	properties := gopter.NewProperties(gen.Parameters(t, 150, 25))
	properties.Property("INV-8, INV-9, ACT-4, EOIO and locks; every dialog finishes", prop.ForAll(func(s gen.ActivatedWorld) string {
		return checkWorldConfig(s.World, s.World.Programs.Apply(s.World, s.Config()))
	}, gen.ActivatedWorlds()))
	properties.TestingRun(t)
}
