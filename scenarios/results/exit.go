package results

import (
	"slices"

	"github.com/sbsim/sbsim/sim"
)

// The exit codes of simulate, for every subcommand. When several apply, the first of
// this order wins: usage, interrupted, results not written, failed, stopped at a limit.
// docs/outputs.md lists them for users.
const (
	// ExitOK: every invariant and expectation held, on every run.
	ExitOK = 0
	// ExitFailed: an invariant was violated or an expectation did not hold.
	ExitFailed = 1
	// ExitUsage: bad input (a scenario that does not load, a bad flag or argument);
	// nothing ran.
	ExitUsage = 2
	// ExitNotWritten: the results could not be written (an -out that cannot be created
	// or written, a full disk); found before the runs when it can be.
	ExitNotWritten = 3
	// ExitLimit: a run stopped at a resource limit (StoppedAtLimit) before it ended,
	// and nothing failed in what it ran: its results are partial.
	ExitLimit = 4
	// ExitInterrupted: SIGINT or SIGTERM stopped the command; what finished was
	// written and said (128 + SIGINT's number, as a shell reports it).
	ExitInterrupted = 130
)

// StoppedAtLimit reports whether a run that stopped for reason stopped at a resource
// limit: a budget of the simulator (limits.max_events today), rather than at its end
// (drained, or the scenario's time horizon limits.max_time) or at a violation. It is the
// one place that says so: a new budget (a memory limit) adds its stop reason here.
func StoppedAtLimit(reason sim.StopReason) bool {
	return reason == sim.EventLimit || reason == sim.MemoryLimit
}

// RunExitCode is the exit code of a run whose verdict is ok and that stopped for reason.
func RunExitCode(ok bool, reason sim.StopReason) int {
	switch {
	case !ok:
		return ExitFailed
	case StoppedAtLimit(reason):
		return ExitLimit
	}
	return ExitOK
}

// exitOrder is the order in which exit codes win when several apply.
var exitOrder = []int{ExitUsage, ExitInterrupted, ExitNotWritten, ExitFailed, ExitLimit, ExitOK}

// Worst returns the code that wins among codes (exitOrder); an unknown code wins over all.
func Worst(codes ...int) int {
	best, rank := ExitOK, len(exitOrder)
	for _, c := range codes {
		r := slices.Index(exitOrder, c)
		if r < rank {
			best, rank = c, r
		}
	}
	return best
}
