package scenarios

import (
	"fmt"

	"github.com/sbsim/sbsim/model"
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
	w.finish(reason) // INV-12: everything sent arrived, or the run says why not
	return w.result(reason, seed), nil
}
