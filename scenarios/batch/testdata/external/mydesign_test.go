// Package mydesign is what a user's own module looks like when it checks a design with
// sbsim from its own go test: it loads a scenario, runs seeds through the batch library and
// checks the verdicts, as simulate check does. CI runs it (.ci/run), so the library's
// public API stays usable from outside the project.
package mydesign

import (
	"testing"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

func TestTheLibrarysLossyWANHoldsOnThreeSeeds(t *testing.T) {
	s, err := file.Library("lossy-wan")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for v := range batch.Check([]batch.Target{{Name: "lossy-wan", Scenario: s, Seeds: 3}}, 2, nil) {
		n++
		if v.Err != nil {
			t.Fatal(v.Err)
		}
		for _, f := range v.Failures {
			t.Errorf("seed %d: %v; replay: %s", f.Seed, f.Reasons, file.Replay("lossy-wan", nil, f.Seed))
		}
		if v.Seeds != 3 {
			t.Errorf("checked %d seeds, want 3", v.Seeds)
		}
	}
	if n != 1 {
		t.Fatalf("%d verdicts, want 1", n)
	}
}

// The verdicts are real: a design changed so that an expectation cannot hold fails on
// every seed.
func TestAChangedDesignFails(t *testing.T) {
	s, err := file.Library("lossy-wan")
	if err != nil {
		t.Fatal(err)
	}
	broken, err := s.With(file.Override{Key: "workloads.orders.dialogs", Value: "3"}) // the file expects 8 to end
	if err != nil {
		t.Fatal(err)
	}
	for v := range batch.Check([]batch.Target{{Name: "broken", Scenario: broken, Seeds: 3}}, 2, nil) {
		if len(v.Failures) != 3 {
			t.Errorf("%d of 3 seeds failed, want all: %+v", len(v.Failures), v)
		}
	}
}
