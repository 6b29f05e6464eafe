// Package mydesign is a user's own module that tests its Service Broker design with sbsim
// from go test (docs/testing-from-go.md): the design is a scenario file, orders.yaml, and
// the tests run its seeds with scenarios/check, as its own seeds, as a swarm of fault
// mixes, and as a Go config built from the file. CI runs it (.ci/run), so that the API
// stays usable from outside the project.
package mydesign

import (
	"testing"
	"time"

	"github.com/sbsim/sbsim/scenarios/check"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// The design holds on its own seeds: every invariant, and the file's expectations.
func TestOrdersHoldOnTheirSeeds(t *testing.T) {
	check.File(t, "orders.yaml", check.Options{})
}

// The design holds whatever the WAN does: each seed runs in a world of its own, with a
// fault mix drawn for it (loss, duplication, corruption, jitter, a partition, bandwidth,
// queue flips, crashes), printed with a failure.
func TestOrdersSurviveASwarmOfFaultMixes(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 8
	}
	check.File(t, "orders.yaml", check.Options{N: n, Swarm: true})
}

// A design built in Go is checked the same way: here the file's, with a longer warehouse
// procedure, on a fixed list of seeds.
func TestASlowerWarehouseStillDeliversExactlyOnce(t *testing.T) {
	s, err := file.LoadFile("orders.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.Config
	cfg.Procedures[0].ProcessingTime = sim.ExponentialMean(200 * time.Millisecond)
	check.Seeds(t, cfg, check.Options{Seeds: []uint64{1, 2, 3, 1000}})
}
