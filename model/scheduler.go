package model

import "time"

// scheduler chooses which dialog sends the next fragment towards one destination instance
// (PRI-11, G-11). The rule:
//
//  1. A dialog's effective level is its transmit level (G-26), raised by one for every
//     StarvationAgingStep its oldest due fragment has waited, up to StarvationAgingCap
//     (without aging, the transmit level). The highest effective level wins.
//  2. Each level offers one candidate: its earliest turn (every dialog has a turn, given
//     when it starts waiting and again each time it sends) when aging has not raised the
//     level, else its longest-waiting dialog, the one that earned the raise.
//  3. Ties at the highest effective level: a raised candidate goes before one that was not,
//     the longest waiting first among raised ones, so that the starvation bound holds
//     however many dialogs wait at the higher level (PRI-15b); among candidates not raised,
//     the earliest turn, which is G-11's round-robin.
//  4. Inside a dialog, fragments go strictly in (sequence, fragment) order.
//
// So at one level a small message interleaves with a large message's fragments (PROTO-6),
// and a dialog waiting long enough passes every younger one (PRI-15b).
//
// Each level keeps two lists of its dialogs: by age (when the oldest due fragment became
// due) and by turn. The turn list only ever grows at the back; the age list keeps an
// in-order first-in-first-out part and a heap for entries that arrive out of order (a
// backlogged dialog's next message, a retransmission due in the past). A decision costs
// O(10 + log n).
//
// Storage: each waiting dialog holds a slot, and the lists hold 24-byte entries (key, tie,
// slot, version) with no pointers, so that a decision over a million dialogs reads a few
// dense arrays and no endpoint but the chosen one, and the collector has nothing to scan
// in them. A dialog whose key changes gets a new entry under a new version
// of its slot, and the stale entry is skipped when it reaches the front; a slot's versions
// only ever grow, so an entry left behind by a dialog that has gone, whose slot another
// dialog now holds, stays stale.
type scheduler struct {
	levels [11]levelQueue // by transmit level; index 0 unused
	size   int
	turn   uint64 // the last turn given
	slots  slotTable
}

// slotTable maps slots to their dialogs and their current versions (age, turn).
type slotTable struct {
	eps  []*endpoint
	vers []slotVersions
	free []uint32
}

type slotVersions struct{ age, turn uint32 }

// take gives ep a slot.
func (t *slotTable) take(ep *endpoint) {
	var s uint32
	if n := len(t.free); n > 0 {
		s, t.free = t.free[n-1], t.free[:n-1]
	} else {
		s = uint32(len(t.eps))
		t.eps = append(t.eps, nil)
		t.vers = append(t.vers, slotVersions{})
	}
	t.eps[s] = ep
	ep.schedSlot = s
}

// release frees ep's slot; every entry under it is stale from now on.
func (t *slotTable) release(ep *endpoint) {
	s := ep.schedSlot
	t.eps[s] = nil
	t.vers[s].age++
	t.vers[s].turn++
	t.free = append(t.free, s)
}

// newScheduler returns an empty scheduler.
func newScheduler() *scheduler {
	s := &scheduler{}
	for l := range s.levels {
		s.levels[l].byTurn.byTurn = true
	}
	return s
}

// levelQueue holds the dialogs of one level.
type levelQueue struct {
	byAge, byTurn orderedList
	live          int
}

// schedEntry is one dialog in one list, with the key it was entered under: its age (when
// its oldest due fragment became due) or its turn.
type schedEntry struct {
	key     int64
	tie     uint64 // (conversation_id, is_initiator first), see tieBreak
	slot    uint32
	version uint32
}

// tieBreak orders equal keys by conversation_id, the initiator first.
func tieBreak(ep *endpoint) uint64 {
	t := uint64(ep.conv) << 1
	if !ep.isInitiator {
		t |= 1
	}
	return t
}

// before orders entries by key, then (conversation_id, is_initiator).
func before(a, b *schedEntry) bool {
	return a.key < b.key || (a.key == b.key && a.tie < b.tie)
}

// orderedList is a list of entries in key order: a ring of entries that arrived in order,
// and a heap for those that arrived out of order. stale counts the entries removals left
// behind; a removal of the first entry, the common case (the dialog just served), takes it
// out at once.
type orderedList struct {
	byTurn bool // which of the slot's versions the entries carry
	ring   []schedEntry
	head   int // index in ring of the first entry; len(ring) is 0 or a power of two
	n      int
	heap   []schedEntry
	stale  int
}

func (l *orderedList) version(t *slotTable, slot uint32) uint32 {
	if l.byTurn {
		return t.vers[slot].turn
	}
	return t.vers[slot].age
}

func (l *orderedList) isStale(t *slotTable, e *schedEntry) bool {
	return l.version(t, e.slot) != e.version
}

func (l *orderedList) ringAt(i int) *schedEntry { return &l.ring[(l.head+i)&(len(l.ring)-1)] }

func (l *orderedList) ringPush(e schedEntry) {
	if l.n == len(l.ring) {
		grown := make([]schedEntry, max(16, 2*len(l.ring)))
		for i := range l.n {
			grown[i] = *l.ringAt(i)
		}
		l.ring, l.head = grown, 0
	}
	*l.ringAt(l.n) = e
	l.n++
}

func (l *orderedList) ringPop() {
	l.head = (l.head + 1) & (len(l.ring) - 1)
	l.n--
}

// push enters slot under key, with its current version.
func (l *orderedList) push(t *slotTable, ep *endpoint, key int64) {
	e := schedEntry{key: key, tie: tieBreak(ep), slot: ep.schedSlot, version: l.version(t, ep.schedSlot)}
	if l.n == 0 || !before(&e, l.ringAt(l.n-1)) {
		l.ringPush(e)
		return
	}
	l.heap = append(l.heap, e)
	heapUp(l.heap, len(l.heap)-1)
}

// drop forgets slot's entry, which its caller is about to make stale: at once when it is
// first, otherwise it is counted stale.
func (l *orderedList) drop(t *slotTable, slot uint32) {
	switch f := l.front(t); {
	case f != nil && f.slot == slot && l.n > 0 && f == l.ringAt(0):
		l.ringPop()
	case f != nil && f.slot == slot:
		heapPop(&l.heap)
	default:
		l.stale++
	}
}

// front returns the first live entry, dropping stale ones on the way, or nil.
func (l *orderedList) front(t *slotTable) *schedEntry {
	for l.stale > 0 && l.n > 0 && l.isStale(t, l.ringAt(0)) {
		l.ringPop()
		l.stale--
	}
	for l.stale > 0 && len(l.heap) > 0 && l.isStale(t, &l.heap[0]) {
		heapPop(&l.heap)
		l.stale--
	}
	var best *schedEntry
	if l.n > 0 {
		best = l.ringAt(0)
	}
	if len(l.heap) > 0 && (best == nil || before(&l.heap[0], best)) {
		best = &l.heap[0]
	}
	return best
}

// compact drops every stale entry; the ring keeps its order and the heap is rebuilt.
func (l *orderedList) compact(t *slotTable) {
	kept := 0
	for i := range l.n {
		if e := *l.ringAt(i); !l.isStale(t, &e) {
			*l.ringAt(kept) = e
			kept++
		}
	}
	l.n = kept
	heap := l.heap[:0]
	for _, e := range l.heap {
		if !l.isStale(t, &e) {
			heap = append(heap, e)
		}
	}
	l.heap = heap
	for i := (len(heap) - 2) / heapArity; len(heap) > 1 && i >= 0; i-- {
		heapDown(heap, i)
	}
	l.stale = 0
}

func (l *orderedList) maybeCompact(t *slotTable, live int) {
	if l.stale > 64 && l.stale > live {
		l.compact(t)
	}
}

// push enters ep, which waits from now on, at its transmit level with a new turn.
func (s *scheduler) push(ep *endpoint) {
	l := ep.txLevel.Level()
	ep.schedLevel = uint8(l)
	ep.scheduled = true
	s.slots.take(ep)
	s.turn++
	ep.turn = s.turn
	q := &s.levels[l]
	q.byAge.push(&s.slots, ep, int64(ep.readySince))
	q.byTurn.push(&s.slots, ep, int64(ep.turn))
	q.live++
	s.size++
}

// rekey moves ep after its readySince changed; served gives it a new turn too.
func (s *scheduler) rekey(ep *endpoint, served bool) {
	t, slot := &s.slots, ep.schedSlot
	q := &s.levels[ep.schedLevel]
	q.byAge.drop(t, slot)
	t.vers[slot].age++
	q.byAge.push(t, ep, int64(ep.readySince))
	q.byAge.maybeCompact(t, q.live)
	if served {
		q.byTurn.drop(t, slot)
		t.vers[slot].turn++
		s.turn++
		ep.turn = s.turn
		q.byTurn.push(t, ep, int64(ep.turn))
		q.byTurn.maybeCompact(t, q.live)
	}
}

// remove takes ep out.
func (s *scheduler) remove(ep *endpoint) {
	t := &s.slots
	q := &s.levels[ep.schedLevel]
	q.byAge.drop(t, ep.schedSlot)
	q.byTurn.drop(t, ep.schedSlot)
	t.release(ep)
	ep.scheduled = false
	q.live--
	s.size--
	q.byAge.maybeCompact(t, q.live)
	q.byTurn.maybeCompact(t, q.live)
}

// The out-of-order entries are a 4-ary heap: half the depth of a binary one, and a node's
// children share a cache line or two.
const heapArity = 4

func heapUp(h []schedEntry, i int) {
	e := h[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if !before(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func heapDown(h []schedEntry, i int) {
	e := h[i]
	for {
		first := heapArity*i + 1
		if first >= len(h) {
			break
		}
		m := first
		for c := first + 1; c < min(first+heapArity, len(h)); c++ {
			if before(&h[c], &h[m]) {
				m = c
			}
		}
		if !before(&h[m], &e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
}

func heapPop(h *[]schedEntry) {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	if n > 0 {
		heapDown(*h, 0)
	}
}

// effectiveLevel is a dialog's level for the decision at now: its transmit level, aged by
// the wait of its oldest due fragment (G-11).
func effectiveLevel(cfg *Config, level int, readySince, now time.Duration) int {
	if cfg.StarvationAgingOff || level >= int(cfg.StarvationAgingCap) {
		return level
	}
	raised := level + int((now-readySince)/cfg.StarvationAgingStep)
	return min(raised, int(cfg.StarvationAgingCap))
}

// candidate is a level's offer for one decision: its dialog's slot, the key it competes
// with (its age when raised, else its turn), and its effective level.
type candidate struct {
	slot   uint32
	key    int64
	eff    int
	raised bool
}

// candidate returns a level's offer for the decision at now: the earliest turn when aging
// has not raised the level, else its longest-waiting dialog.
func (q *levelQueue) candidate(t *slotTable, cfg *Config, level int, now time.Duration) candidate {
	oldest := q.byAge.front(t)
	eff := effectiveLevel(cfg, level, time.Duration(oldest.key), now)
	if eff == level {
		first := q.byTurn.front(t)
		return candidate{slot: first.slot, key: first.key, eff: eff}
	}
	return candidate{slot: oldest.slot, key: oldest.key, eff: eff, raised: true}
}

// bestWaiting returns the highest effective level of any dialog waiting, computed from each
// level's longest-waiting dialog apart from pick's comparisons, for the online check of
// PRI-15(a) and G-11.
func (s *scheduler) bestWaiting(cfg *Config, now time.Duration) int {
	best := 0
	for l := 1; l <= 10; l++ {
		if s.levels[l].live > 0 {
			best = max(best, effectiveLevel(cfg, l, time.Duration(s.levels[l].byAge.front(&s.slots).key), now))
		}
	}
	return best
}

// pick returns the dialog that sends next, or nil when none waits. It leaves the dialog in
// the scheduler: the caller sends one fragment, then reschedules it as served. aged says
// that starvation prevention chose it over a dialog of a higher level (G-11).
func (s *scheduler) pick(cfg *Config, now time.Duration) (ep *endpoint, aged bool) {
	var best candidate
	top, bestLevel := 0, 0
	for l := 10; l >= 1; l-- {
		if s.levels[l].live == 0 {
			continue
		}
		top = max(top, l)
		c := s.levels[l].candidate(&s.slots, cfg, l, now)
		if bestLevel == 0 || c.eff > best.eff || (c.eff == best.eff && s.wins(&c, &best)) {
			best, bestLevel = c, l
		}
	}
	if bestLevel == 0 {
		return nil, false
	}
	return s.slots.eps[best.slot], bestLevel < top
}

// wins breaks a tie between two candidates at the same effective level: one that aging
// raised goes before one that was not, the longer waiting of two raised ones first (so the
// starvation bound holds however many dialogs wait at the higher level), and of two that
// were not raised, the earlier turn (G-11's round-robin).
func (s *scheduler) wins(a, b *candidate) bool {
	switch {
	case a.raised != b.raised:
		return a.raised
	case a.raised && a.key != b.key:
		return a.key < b.key
	case a.raised:
		return s.slots.eps[a.slot].turn < s.slots.eps[b.slot].turn // rare: equal ages
	}
	return a.key < b.key
}
