package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// MaxDelay is the longest delay a configuration may give and a Distribution samples: ten
// years (87,600 h). Horizon is the last virtual instant at which an event fires, about 146
// years: an instant before it plus a dozen delays of at most MaxDelay each stays below the
// largest time.Duration (about 292 years), so that no sum an engine's user forms from
// validated delays overflows.
const (
	MaxDelay = 10 * 365 * 24 * time.Hour
	Horizon  = time.Duration(math.MaxInt64 / 2)
)

// A Handler reacts to an event when it fires. arg is the value given to Schedule; it lets
// one Handler serve many events without allocating a closure for each.
type Handler interface {
	HandleEvent(arg uint64)
}

// HandlerFunc adapts a function to a Handler. Converting a function to a Handler does not
// allocate; a closure that captures variables allocates once, when it is created.
type HandlerFunc func(arg uint64)

// HandleEvent calls f(arg).
func (f HandlerFunc) HandleEvent(arg uint64) { f(arg) }

// EventID names one scheduled event so that it can be cancelled. The zero EventID names no
// event; cancelling it is a no-op.
type EventID struct {
	slot uint32
	seq  uint64
}

// StopReason says why Run returned.
type StopReason int

const (
	// Drained: no event is left to fire.
	Drained StopReason = iota + 1
	// TimeLimit: the next event is due after Limits.MaxTime.
	TimeLimit
	// EventLimit: Limits.MaxEvents events have fired.
	EventLimit
	// Stopped: a handler called Stop.
	Stopped
	// MemoryLimit: the caller stopped the run at its memory budget. Engine.Run never
	// returns it; a world that checks a budget between calls does (scenarios).
	MemoryLimit
)

// String returns the reason in words, as the command line prints it.
func (r StopReason) String() string {
	switch r {
	case Drained:
		return "drained (no event left)"
	case TimeLimit:
		return "time limit reached"
	case EventLimit:
		return "event limit reached"
	case Stopped:
		return "stopped by a handler"
	case MemoryLimit:
		return "memory budget reached"
	}
	return fmt.Sprintf("StopReason(%d)", int(r))
}

// Limits bound one Run. A zero field means no limit of that kind, but no event fires after
// Horizon, as if MaxTime were Horizon. Both limits are absolute:
// MaxTime is a virtual instant and MaxEvents counts every event fired since New, so a run
// stopped by a limit can be resumed by calling Run again with larger ones.
type Limits struct {
	// MaxTime is the last virtual instant at which an event may fire. When the next event is
	// due later, Run moves the clock to MaxTime and returns TimeLimit.
	MaxTime time.Duration
	// MaxEvents is the number of fired events after which Run returns EventLimit.
	MaxEvents uint64
}

// Engine is the event engine of one run. It is not safe for concurrent use: a run is
// single-threaded, and several runs use several engines.
type Engine struct {
	// now is the virtual time of the event firing, or of the last one fired.
	// Invariant: now never decreases.
	now time.Duration
	// fired counts the events that have fired since New.
	fired uint64
	// seq is the sequence number given to the last scheduled event; it breaks ties between
	// events due at the same instant and tells a live queue entry from a cancelled one.
	seq uint64
	// queue holds scheduled events, some of them cancelled (stale) until they surface.
	queue eventQueue
	// slots hold the handler and argument of each live event; free lists unused slots.
	// Invariant: a slot is live exactly when its seq is non-zero.
	slots []slot
	free  []uint32
	// live counts events scheduled and neither fired nor cancelled.
	live int
	// stop is set by Stop and cleared when Run returns.
	stop bool
	// err is why the run cannot go on (Err); once set, the engine fires nothing more.
	err error

	seed    uint64
	streams map[string]struct{}
}

type slot struct {
	h   Handler
	arg uint64
	seq uint64
}

// New returns an engine at virtual time zero whose random streams derive from seed.
func New(seed uint64) *Engine {
	return &Engine{seed: seed, streams: make(map[string]struct{})}
}

// Now returns the current virtual time.
func (e *Engine) Now() time.Duration { return e.now }

// Seed returns the seed the engine was created with.
func (e *Engine) Seed() uint64 { return e.seed }

// Fired returns the number of events fired since New.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending returns the number of events scheduled that have neither fired nor been cancelled.
func (e *Engine) Pending() int { return e.live }

// Schedule arranges for h.HandleEvent(arg) to run at virtual time at, which must not be
// before Now. Events scheduled for the same time fire in the order they were scheduled.
// An event due after Horizon never fires. A negative time is not a bug of the caller's
// order but a sum of delays that overflowed: instead of panicking, the engine schedules
// nothing, records the error (Err) and stops the run.
func (e *Engine) Schedule(at time.Duration, h Handler, arg uint64) EventID {
	if at < 0 {
		if e.err == nil {
			e.err = fmt.Errorf("sim: event scheduled at %v, a negative time: a sum of delays overflowed at t=%v", at, e.now)
		}
		e.stop = true
		return EventID{}
	}
	if at < e.now {
		panic(fmt.Sprintf("sim: event scheduled at %v, before the current time %v", at, e.now))
	}
	if h == nil {
		panic(fmt.Sprintf("sim: event scheduled at %v with a nil handler", at))
	}
	e.seq++
	return e.insert(at, e.seq, h, arg)
}

// Reserve takes, without scheduling anything, the place among events due at one instant
// that an event scheduled now would get, for ScheduleReserved to give an event later. A
// caller that keeps a queue of its own of events due in nondecreasing time (a timer wheel,
// a FIFO of time-outs) and lets only its first wait in the engine thus fires every one of
// them exactly when, and in exactly the order with other events that, Schedule called at
// reservation time would have.
func (e *Engine) Reserve() uint64 {
	e.seq++
	return e.seq
}

// ScheduleReserved is Schedule with a place among same-instant events reserved by Reserve.
// Each reservation may be used once; at must not be before Now.
func (e *Engine) ScheduleReserved(at time.Duration, seq uint64, h Handler, arg uint64) EventID {
	switch {
	case at < e.now:
		panic(fmt.Sprintf("sim: event scheduled at %v, before the current time %v", at, e.now))
	case h == nil:
		panic(fmt.Sprintf("sim: event scheduled at %v with a nil handler", at))
	case seq == 0 || seq > e.seq:
		panic(fmt.Sprintf("sim: event scheduled at %v with place %d, which Reserve never gave (last %d)", at, seq, e.seq))
	}
	return e.insert(at, seq, h, arg)
}

// insert puts an event with sequence number seq in the queue.
func (e *Engine) insert(at time.Duration, seq uint64, h Handler, arg uint64) EventID {
	var s uint32
	if n := len(e.free); n > 0 {
		s = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		s = uint32(len(e.slots))
		e.slots = append(e.slots, slot{})
	}
	e.slots[s] = slot{h: h, arg: arg, seq: seq}
	e.queue.push(entry{at: at, seq: seq, slot: s})
	e.live++
	return EventID{slot: s, seq: seq}
}

// After arranges for h.HandleEvent(arg) to run delay after Now. A negative delay panics.
func (e *Engine) After(delay time.Duration, h Handler, arg uint64) EventID {
	if delay < 0 {
		panic(fmt.Sprintf("sim: event scheduled after a negative delay %v at %v", delay, e.now))
	}
	return e.Schedule(e.now+delay, h, arg)
}

// Cancel removes a scheduled event so that it never fires, and reports whether it was still
// pending. Cancelling an event that has fired, was cancelled, or is the zero EventID does
// nothing and returns false.
func (e *Engine) Cancel(id EventID) bool {
	if id.seq == 0 || int(id.slot) >= len(e.slots) || e.slots[id.slot].seq != id.seq {
		return false
	}
	e.release(id.slot)
	// The queue entry stays, stale, until it surfaces or the queue is compacted. Compact when
	// stale entries outnumber live ones, so that memory stays within twice the live events.
	if stale := e.queue.len() - e.live; stale > 64 && stale > e.live {
		e.queue.compact(func(en entry) bool { return e.slots[en.slot].seq == en.seq })
	}
	return true
}

func (e *Engine) release(s uint32) {
	e.slots[s] = slot{}
	e.free = append(e.free, s)
	e.live--
}

// Stop asks Run to return Stopped once the current handler returns.
func (e *Engine) Stop() { e.stop = true }

// Err returns why the engine stopped on its own, nil if it did not: a delay that overflowed
// virtual time (Schedule). A run that has an error is Stopped and cannot be resumed.
func (e *Engine) Err() error { return e.err }

// Run fires events in (time, scheduling order) until none is left, a limit is reached or a
// handler calls Stop, and says which.
func (e *Engine) Run(l Limits) StopReason {
	defer func() { e.stop = false }()
	maxTime := l.MaxTime
	if maxTime <= 0 || maxTime > Horizon {
		maxTime = Horizon
	}
	for {
		if e.err != nil {
			return Stopped
		}
		next, ok := e.peek()
		if !ok {
			return Drained
		}
		if next.at > maxTime {
			if e.now < l.MaxTime {
				e.now = min(l.MaxTime, maxTime)
			}
			return TimeLimit
		}
		if l.MaxEvents > 0 && e.fired >= l.MaxEvents {
			return EventLimit
		}
		e.queue.pop()
		sl := e.slots[next.slot]
		e.release(next.slot)
		e.now = next.at
		e.fired++
		sl.h.HandleEvent(sl.arg)
		if e.stop {
			return Stopped
		}
	}
}

// peek returns the earliest live entry, discarding the stale entries of cancelled events
// that sit before it.
func (e *Engine) peek() (entry, bool) {
	for e.queue.len() > 0 {
		top := e.queue.top()
		if e.slots[top.slot].seq == top.seq {
			return top, true
		}
		e.queue.pop()
	}
	return entry{}, false
}

// HasStream reports whether the stream called name has been requested already.
func (e *Engine) HasStream(name string) bool {
	_, ok := e.streams[name]
	return ok
}

// Stream returns the random stream called name. Its draws depend only on the engine's seed
// and on name, never on which other streams exist or in what order they were made, so a
// component added to a scenario leaves every other component's randomness as it was.
// Asking twice for the same name panics: two components drawing the same numbers would be
// silently correlated.
func (e *Engine) Stream(name string) *rand.Rand {
	if _, dup := e.streams[name]; dup {
		panic(fmt.Sprintf("sim: random stream %q requested twice", name))
	}
	e.streams[name] = struct{}{}
	return newStream(e.seed, name)
}
