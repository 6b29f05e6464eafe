package scenarios_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/scenarios/gen"
)

// TestRTE2_DialogsDelayedUntilTheirRouteAppearsDeliverOnce is the dialog property
// (checkWorldConfig: EOIO, nothing twice, nothing lost once the faults heal, endpoints
// closed) over worlds whose routes to one instance appear only minutes into the run, from
// the timeline (CREATE, and with Twice ALTER and DROP ROUTE): the delayed dialogs wait in
// the transmission queue, find their route at a later try (G-28), and deliver once; the
// liveness phase (INV-12) counts the route's creation as a healing, so none of them is
// late before it.
func TestRTE2_DialogsDelayedUntilTheirRouteAppearsDeliverOnce(t *testing.T) {
	properties := gopter.NewProperties(gen.Parameters(t, 40, 8))
	properties.Property("delayed dialogs deliver once when their route appears", prop.ForAll(
		func(s gen.LateRoute) string { return checkWorldConfig(s.World, s.Config()) },
		gen.LateRoutes()))
	properties.TestingRun(t)
}
