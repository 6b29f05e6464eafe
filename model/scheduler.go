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
// backlogged dialog's next message, a retransmission due in the past). Entries are never
// moved: a dialog whose key changes gets a new entry and a new version, and the stale entry
// is skipped when it reaches the front. A decision costs O(10 + log n).
type scheduler struct {
	levels [11]levelQueue // by transmit level; index 0 unused
	size   int
	turn   uint64 // the last turn given
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
	key       int64
	conv      ConversationID
	initiator bool
	version   uint32
	ep        *endpoint
}

// before orders entries by key, then (conversation_id, is_initiator).
func (a *schedEntry) before(b *schedEntry) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	if a.conv != b.conv {
		return a.conv < b.conv
	}
	return a.initiator && !b.initiator
}

// orderedList is a list of entries in key order: fifo from head on, and heap for the
// entries that arrived out of order. stale counts the entries removals left behind; a
// removal of the first entry, the common case (the dialog just served), takes it out at
// once, so that stale stays zero and looking at the front reads no dialog.
type orderedList struct {
	byTurn bool // which of the endpoint's versions the entries carry
	fifo   []schedEntry
	head   int
	heap   []schedEntry
	stale  int
}

func (l *orderedList) version(ep *endpoint) uint32 {
	if l.byTurn {
		return ep.turnVersion
	}
	return ep.ageVersion
}

func (l *orderedList) isStale(e *schedEntry) bool {
	return !e.ep.scheduled || l.version(e.ep) != e.version
}

// push enters ep under key, with its current version.
func (l *orderedList) push(ep *endpoint, key int64) {
	e := schedEntry{key: key, conv: ep.conv, initiator: ep.isInitiator, version: l.version(ep), ep: ep}
	if n := len(l.fifo); n == l.head || !e.before(&l.fifo[n-1]) {
		l.fifo = append(l.fifo, e)
		return
	}
	l.heap = append(l.heap, e)
	heapUp(l.heap, len(l.heap)-1)
}

// drop forgets ep's entry, which its caller is about to make stale: at once when it is
// first, otherwise it is counted stale.
func (l *orderedList) drop(ep *endpoint) {
	switch f := l.front(); {
	case f != nil && f.ep == ep && l.head < len(l.fifo) && f == &l.fifo[l.head]:
		l.fifo[l.head] = schedEntry{}
		l.head++
	case f != nil && f.ep == ep:
		heapPop(&l.heap)
	default:
		l.stale++
	}
}

// front returns the first live entry, dropping stale ones on the way, or nil.
func (l *orderedList) front() *schedEntry {
	for l.stale > 0 && l.head < len(l.fifo) && l.isStale(&l.fifo[l.head]) {
		l.fifo[l.head] = schedEntry{}
		l.head++
		l.stale--
	}
	if l.head == len(l.fifo) {
		l.fifo, l.head = l.fifo[:0], 0
	} else if l.head > 1024 && l.head > len(l.fifo)/2 {
		n := copy(l.fifo, l.fifo[l.head:])
		clear(l.fifo[n:])
		l.fifo, l.head = l.fifo[:n], 0
	}
	for l.stale > 0 && len(l.heap) > 0 && l.isStale(&l.heap[0]) {
		heapPop(&l.heap)
		l.stale--
	}
	var best *schedEntry
	if l.head < len(l.fifo) {
		best = &l.fifo[l.head]
	}
	if len(l.heap) > 0 && (best == nil || l.heap[0].before(best)) {
		best = &l.heap[0]
	}
	return best
}

// compact drops every stale entry; the fifo keeps its order and the heap is rebuilt.
func (l *orderedList) compact() {
	fifo := l.fifo[:0]
	for _, e := range l.fifo[l.head:] {
		if !l.isStale(&e) {
			fifo = append(fifo, e)
		}
	}
	clear(l.fifo[len(fifo):])
	l.fifo, l.head = fifo, 0
	heap := l.heap[:0]
	for _, e := range l.heap {
		if !l.isStale(&e) {
			heap = append(heap, e)
		}
	}
	clear(l.heap[len(heap):])
	l.heap = heap
	for i := len(heap)/2 - 1; i >= 0; i-- {
		heapDown(heap, i)
	}
	l.stale = 0
}

func (l *orderedList) maybeCompact(live int) {
	if l.stale > 64 && l.stale > live {
		l.compact()
	}
}

// push enters ep, which waits from now on, at its transmit level with a new turn.
func (s *scheduler) push(ep *endpoint) {
	l := ep.txLevel.Level()
	ep.schedLevel = uint8(l)
	ep.scheduled = true
	ep.ageVersion++
	ep.turnVersion++
	s.turn++
	ep.turn = s.turn
	q := &s.levels[l]
	q.byAge.push(ep, int64(ep.readySince))
	q.byTurn.push(ep, int64(ep.turn))
	q.live++
	s.size++
}

// rekey moves ep after its readySince changed; served gives it a new turn too.
func (s *scheduler) rekey(ep *endpoint, served bool) {
	q := &s.levels[ep.schedLevel]
	q.byAge.drop(ep)
	ep.ageVersion++
	q.byAge.push(ep, int64(ep.readySince))
	q.byAge.maybeCompact(q.live)
	if served {
		q.byTurn.drop(ep)
		ep.turnVersion++
		s.turn++
		ep.turn = s.turn
		q.byTurn.push(ep, int64(ep.turn))
		q.byTurn.maybeCompact(q.live)
	}
}

// remove takes ep out.
func (s *scheduler) remove(ep *endpoint) {
	q := &s.levels[ep.schedLevel]
	q.byAge.drop(ep)
	q.byTurn.drop(ep)
	ep.scheduled = false
	ep.ageVersion++
	ep.turnVersion++
	q.live--
	s.size--
	q.byAge.maybeCompact(q.live)
	q.byTurn.maybeCompact(q.live)
}

func heapUp(h []schedEntry, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func heapDown(h []schedEntry, i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].before(&h[m]) {
			m = l
		}
		if r < len(h) && h[r].before(&h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

func heapPop(h *[]schedEntry) {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = schedEntry{}
	*h = old[:n]
	heapDown(*h, 0)
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

// candidate returns a level's dialog for the decision at now and its effective level: the
// earliest turn when aging has not raised the level, else its longest-waiting dialog.
func (q *levelQueue) candidate(cfg *Config, level int, now time.Duration) (*endpoint, int) {
	oldest := q.byAge.front()
	eff := effectiveLevel(cfg, level, time.Duration(oldest.key), now)
	if eff == level {
		return q.byTurn.front().ep, eff
	}
	return oldest.ep, eff
}

// bestWaiting returns the highest effective level of any dialog waiting, computed from each
// level's longest-waiting dialog apart from pick's comparisons, for the online check of
// PRI-15(a) and G-11.
func (s *scheduler) bestWaiting(cfg *Config, now time.Duration) int {
	best := 0
	for l := 1; l <= 10; l++ {
		if s.levels[l].live > 0 {
			best = max(best, effectiveLevel(cfg, l, time.Duration(s.levels[l].byAge.front().key), now))
		}
	}
	return best
}

// pick returns the dialog that sends next, or nil when none waits. It leaves the dialog in
// the scheduler: the caller sends one fragment, then reschedules it as served.
func (s *scheduler) pick(cfg *Config, now time.Duration) *endpoint {
	var best *endpoint
	bestLevel, bestRaised := 0, false
	for l := 10; l >= 1; l-- {
		if s.levels[l].live == 0 {
			continue
		}
		ep, eff := s.levels[l].candidate(cfg, l, now)
		raised := eff > l
		if best == nil || eff > bestLevel || (eff == bestLevel && wins(ep, raised, best, bestRaised)) {
			best, bestLevel, bestRaised = ep, eff, raised
		}
	}
	return best
}

// wins breaks a tie between two candidates at the same effective level: one that aging
// raised goes before one that was not, the longer waiting of two raised ones first (so the
// starvation bound holds however many dialogs wait at the higher level), and of two that
// were not raised, the earlier turn (G-11's round-robin).
func wins(a *endpoint, aRaised bool, b *endpoint, bRaised bool) bool {
	switch {
	case aRaised != bRaised:
		return aRaised
	case aRaised:
		return a.readySince < b.readySince || (a.readySince == b.readySince && a.turn < b.turn)
	}
	return a.turn < b.turn
}
