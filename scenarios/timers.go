package scenarios

import (
	"time"

	"github.com/sbsim/sbsim/model"
)

// timerSlab keeps the broker timers waiting in the engine; an event's argument is the
// index of its slot, so that arming a timer allocates nothing once the slab has grown.
//
// The retention timers of closed target endpoints (G-16), which a run holds by the
// hundred thousand, wait in one lane per instance instead: they are armed in the order
// they fall due, ClosedTargetRetention after each close, so only the first of a lane needs
// an event in the engine, and the next one is scheduled when it fires. Each keeps the place
// among same-instant events that it took when armed (sim.Engine.Reserve), so the run fires
// the same events at the same times in the same order as with a timer each: only the
// engine's queue is shorter. A retention timer due before the last of its lane (one armed
// again after an arrival extended the retention, or after a restart) goes to the engine
// on its own.
type timerSlab struct {
	w     *world
	slots []timerSlot
	free  []uint32
	// lanes holds the retention timers of each instance, by InstanceID, in the order they
	// fall due; deferred counts those of them that wait outside the engine.
	lanes    []timerLane
	deferred int
	// direct puts every timer in the engine, a lane's too: the tests compare.
	direct bool
}

type timerSlot struct {
	inst model.InstanceID
	t    model.Timer
	// inLane is set on a timer of a lane: when it fires, the next of its lane is scheduled.
	inLane bool
}

// timerLane is a FIFO of retention timers due in nondecreasing time; waiting[head] is in
// the engine, the others are not.
type timerLane struct {
	waiting []laneTimer
	head    int
}

// laneTimer is a timer of a lane: its slot, when it falls due and its reserved place.
type laneTimer struct {
	at   time.Duration
	seq  uint64
	slot uint32
}

func (s *timerSlab) schedule(inst model.InstanceID, t model.Timer) {
	var i uint32
	if n := len(s.free); n > 0 {
		i = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		i = uint32(len(s.slots))
		s.slots = append(s.slots, timerSlot{})
	}
	at := max(t.At, s.w.e.Now())
	if t.Kind == model.TimerRetention && !s.direct && s.enqueue(inst, at, i) {
		s.slots[i] = timerSlot{inst, t, true}
		return
	}
	s.slots[i] = timerSlot{inst, t, false}
	s.w.e.Schedule(at, s, uint64(i))
}

// enqueue adds the timer in slot i, due at at, to the lane of inst, and reports whether it
// could: a timer due before the lane's last waits in the engine on its own.
func (s *timerSlab) enqueue(inst model.InstanceID, at time.Duration, i uint32) bool {
	if s.lanes == nil {
		s.lanes = make([]timerLane, len(s.w.brokers))
	}
	l := &s.lanes[inst]
	n := len(l.waiting)
	if n > l.head && at < l.waiting[n-1].at {
		return false
	}
	lt := laneTimer{at: at, seq: s.w.e.Reserve(), slot: i}
	if n == l.head {
		l.waiting, l.head = l.waiting[:0], 0
		s.w.e.ScheduleReserved(lt.at, lt.seq, s, uint64(i))
	} else {
		s.deferred++
	}
	l.waiting = append(l.waiting, lt)
	return true
}

// next takes the timer that fired off the lane of inst and puts the following one in the
// engine.
func (s *timerSlab) next(inst model.InstanceID) {
	l := &s.lanes[inst]
	l.head++
	if l.head == len(l.waiting) {
		l.waiting, l.head = l.waiting[:0], 0
		return
	}
	lt := l.waiting[l.head]
	s.deferred--
	s.w.e.ScheduleReserved(lt.at, lt.seq, s, uint64(lt.slot))
	if l.head > 64 && l.head > len(l.waiting)/2 {
		n := copy(l.waiting, l.waiting[l.head:])
		l.waiting, l.head = l.waiting[:n], 0
	}
}

// pendingEvents is the engine's Pending with the timers that wait in a lane: what the
// engine would hold with an event for each timer, as the memory budget counts it.
func (s *timerSlab) pendingEvents() int { return s.w.e.Pending() + s.deferred }

func (s *timerSlab) HandleEvent(i uint64) {
	slot := s.slots[i]
	s.free = append(s.free, uint32(i))
	if slot.inLane {
		s.next(slot.inst)
	}
	if s.w.brokers[slot.inst].Down() {
		return // armed before the crash: a down instance takes no input (G-13)
	}
	s.w.step(slot.inst, func(b *model.Broker) { b.TimerFired(s.w.now(), slot.t) })
}
