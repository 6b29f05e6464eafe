package scenarios_test

import (
	"fmt"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/gen"
)

// checkPrograms adds to the property's checks what a program must have done: no SEND or
// END failed but for a dialog that failed (lifetimes, END WITH ERROR) or a reply that a
// fire-and-forget initiator no longer takes (counted in send_failures), and a saga gathered
// every reply of the relays.
func checkPrograms(p gen.Program, w gen.World, res *scenarios.Result) []string {
	if p.Kind == 0 {
		return nil
	}
	var problems []string
	var relayed, gathered, failures, refused int64
	for _, wl := range res.Workloads {
		if wl.End == scenarios.EndFireAndForget {
			refused += wl.SendFailures // the replies a fire-and-forget initiator cannot get (DLG-11)
		}
	}
	for _, r := range res.Readers {
		if len(r.Queue) > 3 && r.Queue[:3] == "PQI" {
			relayed += r.Messages
			continue
		}
		gathered += r.Ends
		failures += r.StatementFailures
	}
	if failures > refused && w.LifetimeMs <= 0 && !w.EndWithError {
		problems = append(problems, fmt.Sprintf("programs: %d statements failed in a world where no dialog fails (%d refused replies of fire-and-forget)", failures, refused))
	}
	if p.Kind == 3 && w.LifetimeMs <= 0 && !w.EndWithError && gathered != relayed {
		problems = append(problems, fmt.Sprintf("programs: %d sub-dialogs ended by the sagas for %d requests the relays answered", gathered, relayed))
	}
	return problems
}
