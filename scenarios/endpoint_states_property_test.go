package scenarios_test

import (
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// The counts of endpoints by state that the series of conversation endpoints reads at
// every sample are the rows of sys.conversation_endpoints grouped by state (DLG-4), at
// every instant, over random worlds and fault mixes: dialogs that end both ways and with
// errors, lifetimes that expire (DLG-5), closed targets retained and then forgotten
// (G-16), forwarders and notifications left aside. The first rows a snapshot keeps
// (EndpointsUpTo, and keepOldest over EachTransmissionQueueRow) are those of the whole
// views.
func TestDLG4_EndpointCountsByStateAreTheEndpointsUnderEveryFaultMix(t *testing.T) {
	properties := gopter.NewProperties(gen.Parameters(t, 60, 15))
	properties.Property("endpoint counts by state match sys.conversation_endpoints", prop.ForAll(func(s gen.World) string {
		return scenarios.CheckEndpointCounts(s.Config(), s.Seed)
	}, gen.Worlds()))
	properties.TestingRun(t)
}
