package scenarios

import (
	"fmt"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// Run builds the world cfg describes, runs it with seed until no event is left or a limit
// is reached, and returns its results. The same config and seed give the same result, byte
// for byte. Bad input is an error; a broken invariant is reported in Result.Violation.
func Run(cfg Config, seed uint64) (*Result, error) {
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", cfg.Name, err)
	}
	if err := cfg.Validate(cat); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", cfg.Name, err)
	}
	w, err := build(&cfg, cat, seed)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", cfg.Name, err)
	}
	reason := w.run()
	if err := w.e.Err(); err != nil {
		// Validate bounds every delay so that this cannot happen; if it does, the run says
		// so rather than report on a world whose clock broke.
		return nil, fmt.Errorf("scenario %q, seed %d: %w", cfg.Name, seed, err)
	}
	if w.checker != nil && w.violation == nil && reason == sim.Drained {
		// Nothing is left to happen: every fault has healed and every timer has fired, so
		// everything sent must have arrived (INV-12).
		w.violation = w.checker.Finish(w.e.Now())
	}
	return w.result(reason, seed), nil
}
