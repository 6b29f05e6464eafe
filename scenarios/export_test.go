package scenarios

import (
	"testing"

	"github.com/leanovate/gopter"
)

// This file exports, to the external tests only (package scenarios_test, which can import
// scenarios/gen where the internal tests cannot: gen imports scenarios), the few internal
// helpers their checks need. It is no API: a _test.go file is not part of the package.

// OneInstance is oneInstance, the world of one instance of figures_test.go.
var OneInstance = oneInstance

// FlowOfQueue is r.queueFlow: the flow figures of the queue sel names, or why there are none.
func FlowOfQueue(r *Result, sel string) (QueueFlow, string) { return r.queueFlow(sel) }

// propertyParameters is gen.Parameters, for the properties that stay internal (they check
// unexported parts: the CPU pool, the program checks, the liveness worlds), which cannot
// import scenarios/gen. The external tests set it (SetPropertyParameters, in the init of
// dialog_property_test.go) before any test runs, so that both kinds share one definition.
var propertyParameters func(t testing.TB, tests, short int) *gopter.TestParameters

// SetPropertyParameters sets propertyParameters.
func SetPropertyParameters(f func(t testing.TB, tests, short int) *gopter.TestParameters) {
	propertyParameters = f
}
