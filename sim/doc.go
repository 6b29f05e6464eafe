// Package sim is sbsim's deterministic discrete-event engine: a virtual clock, an ordered
// queue of events, and seeded random streams. It knows nothing of Service Broker; the
// scenarios package wires the broker model and the links onto it.
//
// Virtual time is a time.Duration counted from the start of the run. An event is a Handler
// and a uint64 argument due at a virtual instant. Events fire in (time, scheduling order):
// two events due at the same instant fire in the order they were scheduled. Scheduling in
// the past panics, and a cancelled event never fires.
//
// Time stays finite. A delay a configuration gives should be at most MaxDelay (ten years),
// and no Distribution draws more; no event fires after Horizon (about 146 years), so that
// an instant plus a dozen such delays still fits in a time.Duration. A negative instant,
// the sign of a sum that overflowed anyway, stops the run with an error (Err) instead of a
// panic.
//
// Determinism is the point of the package. An Engine runs on the calling goroutine, reads
// no wall clock and has no global random source: all randomness comes from the run's seed,
// split into named streams (Stream) so that adding a stream never changes what another
// stream draws. The same program with the same seed fires the same events at the same
// instants, on any machine and any GOMAXPROCS.
//
// One limit is known. The samplers write every product out with an explicit float64
// conversion, so that no platform fuses it into a differently rounded FMA, but they rely
// on math.Exp and math.Log (in math/rand/v2's normal and exponential draws, and in
// LogNormal), whose amd64 assembly uses FMA instructions when the CPU has them. Across
// CPUs a draw may then differ in its last bit, which changes a delay in whole nanoseconds
// about once in 10^9 draws. Constant delays are exact everywhere.
//
// The engine allocates nothing per event once its queue has grown to the run's high-water
// mark: handlers are interface values that callers create once, and the argument lets one
// handler serve many events (a link passes the index of the packet in flight).
//
// Usage:
//
//	e := sim.New(seed)
//	rng := e.Stream("workload")
//	e.After(sim.ExponentialMean(time.Second).Sample(rng), sim.HandlerFunc(func(uint64) {
//		// react, schedule more
//	}), 0)
//	reason := e.Run(sim.Limits{MaxTime: time.Hour})
package sim
