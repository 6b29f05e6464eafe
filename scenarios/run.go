package scenarios

import (
	"fmt"
	"reflect"

	"github.com/sbsim/sbsim/model"
)

// Run builds the world cfg describes, runs it with seed until no event is left or a limit
// is reached, and returns its results. The same config and seed give the same result, byte
// for byte. Bad input is an error; a broken invariant is reported in Result.Violation.
//
// The checkers keep no history of the records they check, which costs time and memory in
// every run: a run whose checkers report a violation or a design finding runs a second
// time, keeping the histories of the conversations they name, to give their records
// (Violation.Records, Finding.Records).
// The second run must reach the same verdict, since runs are deterministic; if it does
// not, Run returns an error that says how the two differ. Hooks run twice then, and
// TraceSink and PacketSink see the records and packets of the first run only.
func Run(cfg Config, seed uint64) (*Result, error) {
	res, err := runOnce(cfg, seed, histories{})
	if err != nil || !cfg.CheckInvariants || (res.Violation == nil && len(res.Findings) == 0) {
		return res, err
	}
	return withHistories(cfg, seed, res)
}

// runOnce is Run, with the checkers keeping the histories h says.
func runOnce(cfg Config, seed uint64, h histories) (*Result, error) {
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return nil, fmt.Errorf("scenario %q: %w", cfg.Name, err)
	}
	if err := cfg.Validate(cat); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", cfg.Name, err)
	}
	w, err := buildKeeping(&cfg, cat, seed, h)
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

// withHistories runs cfg with seed again, its checkers keeping the histories of the
// conversations that res's violation and findings name (and of the transactions and queue
// monitors), and gives res, the result of the run without them, the records of its
// violation and findings. Keeping only those, the second run needs the memory of the
// first.
func withHistories(cfg Config, seed uint64, res *Result) (*Result, error) {
	if cfg.TraceSink != nil {
		cfg.TraceSink = DiscardTrace // it has the records; the run traces as before
	}
	cfg.PacketSink = nil // it has the packets
	h := histories{of: []model.ConversationID{}}
	if res.Violation != nil {
		h.of = append(h.of, res.Violation.Conversation)
	}
	for _, f := range res.Findings {
		h.of = append(h.of, f.Conversation)
	}
	again, err := runOnce(cfg, seed, h)
	if err != nil {
		return nil, err
	}
	if msg := verdictDifference(res, again); msg != "" {
		return nil, fmt.Errorf("scenario %q, seed %d: the run is not deterministic: run again with the checkers' histories, %s",
			cfg.Name, seed, msg)
	}
	if res.Violation != nil {
		res.Violation.Records = again.Violation.Records
	}
	for i := range res.Findings {
		res.Findings[i].Records = again.Findings[i].Records
	}
	return res, nil
}

// verdictDifference says how the checkers' verdict in result b differs from the one in a,
// but for the records, or "".
func verdictDifference(a, b *Result) string {
	if a.Events != b.Events {
		return fmt.Sprintf("it took %d events where it took %d", b.Events, a.Events)
	}
	if (a.Violation == nil) != (b.Violation == nil) {
		return fmt.Sprintf("it ended with violation %v where it ended with %v", b.Violation, a.Violation)
	}
	if a.Violation != nil {
		va, vb := *a.Violation, *b.Violation
		va.Records, vb.Records = nil, nil
		if !reflect.DeepEqual(va, vb) {
			return fmt.Sprintf("it found %v where it found %v", &vb, &va)
		}
	}
	if a.FindingCount != b.FindingCount || len(a.Findings) != len(b.Findings) {
		return fmt.Sprintf("it found %d design findings where it found %d", b.FindingCount, a.FindingCount)
	}
	for i := range a.Findings {
		fa, fb := a.Findings[i], b.Findings[i]
		fa.Records, fb.Records = nil, nil
		if !reflect.DeepEqual(fa, fb) {
			return fmt.Sprintf("its design finding %d is %v where it was %v", i, &fb, &fa)
		}
	}
	return ""
}
