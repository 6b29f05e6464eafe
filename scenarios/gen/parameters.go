package gen

import (
	"os"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
)

// PropertySeed is the seed of gopter's generator that Parameters gives when the
// environment names none: the project's CI explores the same worlds on every run.
const PropertySeed = 20261130

// Parameters returns gopter's parameters for a property of tests worlds (short under
// go test -short) drawn from PropertySeed. The environment overrides both, to explore
// further or to repeat a run:
//
//	SBSIM_PROP_SEED=7 SBSIM_PROP_TESTS=5000 go test ./scenarios -run EveryFaultMix
//
// A value that is not a number fails t. gopter prints the seed of a failing property.
func Parameters(t testing.TB, tests, short int) *gopter.TestParameters {
	seed := int64(PropertySeed)
	if s := os.Getenv("SBSIM_PROP_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("SBSIM_PROP_SEED=%q: %v", s, err)
		}
		seed = v
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = tests
	if testing.Short() {
		params.MinSuccessfulTests = short
	}
	if s := os.Getenv("SBSIM_PROP_TESTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SBSIM_PROP_TESTS=%q: %v", s, err)
		}
		params.MinSuccessfulTests = v
	}
	return params
}
