package model

import "time"

// scheduler chooses which dialog sends the next fragment towards one destination instance
// (PRI-11, G-11). Each dialog waits at its transmit level (G-26), in a heap ordered by how
// long its oldest pending fragment has waited; a decision looks at the ten heap tops.
//
// The rule: the highest effective level wins, where the effective level is the transmit
// level raised by one for every StarvationAgingStep the dialog's oldest pending fragment has
// waited, up to StarvationAgingCap (G-11; without aging, the transmit level). Ties go to the
// dialog whose oldest pending fragment has waited longest, then to the lower
// (conversation_id, is_initiator). Inside a dialog fragments go strictly in (sequence,
// fragment) order. A decision costs O(10 + log n) for n waiting dialogs.
type scheduler struct {
	levels [11]dialogHeap // by transmit level; index 0 unused
	size   int
}

// dialogHeap is a min-heap of endpoints by (readySince, conversation, side). Each endpoint
// knows its index in it, so that it can be moved or removed in O(log n).
type dialogHeap []*endpoint

func before(a, b *endpoint) bool {
	if a.readySince != b.readySince {
		return a.readySince < b.readySince
	}
	if a.conv != b.conv {
		return a.conv < b.conv
	}
	return a.isInitiator && !b.isInitiator
}

func (h dialogHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !before(h[i], h[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h dialogHeap) down(i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && before(h[l], h[m]) {
			m = l
		}
		if r < len(h) && before(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func (h dialogHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].schedIndex, h[j].schedIndex = int32(i), int32(j)
}

// push adds ep, which must not be in the scheduler, at its transmit level.
func (s *scheduler) push(ep *endpoint) {
	l := ep.txLevel.Level()
	h := s.levels[l]
	ep.schedLevel = uint8(l)
	ep.schedIndex = int32(len(h))
	h = append(h, ep)
	h.up(len(h) - 1)
	s.levels[l] = h
	s.size++
}

// fix restores the order after ep's readySince changed.
func (s *scheduler) fix(ep *endpoint) {
	h := s.levels[ep.schedLevel]
	i := int(ep.schedIndex)
	h.up(i)
	h.down(int(ep.schedIndex))
}

// remove takes ep out of the scheduler.
func (s *scheduler) remove(ep *endpoint) {
	h := s.levels[ep.schedLevel]
	i, last := int(ep.schedIndex), len(h)-1
	if i != last {
		h.swap(i, last)
	}
	h[last] = nil
	h = h[:last]
	if i != last {
		h.up(i)
		h.down(i)
	}
	s.levels[ep.schedLevel] = h
	ep.schedIndex = -1
	s.size--
}

// effectiveLevel is a dialog's level for the decision at now: its transmit level, aged by
// the wait of its oldest pending fragment (G-11).
func effectiveLevel(cfg *Config, level int, readySince, now time.Duration) int {
	if cfg.StarvationAgingOff || level >= int(cfg.StarvationAgingCap) {
		return level
	}
	raised := level + int((now-readySince)/cfg.StarvationAgingStep)
	return min(raised, int(cfg.StarvationAgingCap))
}

// pick returns the dialog that sends next, or nil when none waits. It leaves the dialog in
// the scheduler: the caller sends one fragment, then reschedules it.
func (s *scheduler) pick(cfg *Config, now time.Duration) *endpoint {
	var best *endpoint
	bestLevel := 0
	for l := 10; l >= 1; l-- {
		h := s.levels[l]
		if len(h) == 0 {
			continue
		}
		top := h[0]
		eff := effectiveLevel(cfg, l, top.readySince, now)
		if best == nil || eff > bestLevel || (eff == bestLevel && before(top, best)) {
			best, bestLevel = top, eff
		}
	}
	return best
}
