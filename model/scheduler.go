package model

import "time"

// scheduler chooses which dialog sends the next fragment towards one destination instance
// (PRI-11, G-11). Each dialog waits at its transmit level (G-26), ordered by when its oldest
// due fragment became due; a decision looks at the ten levels' oldest dialogs.
//
// The rule: the highest effective level wins, where the effective level is the transmit
// level raised by one for every StarvationAgingStep the dialog's oldest due fragment has
// waited, up to StarvationAgingCap (G-11; without aging, the transmit level). Ties go to the
// dialog that has waited longest, then to the lower (conversation_id, is_initiator). Inside
// a dialog fragments go strictly in (sequence, fragment) order.
//
// A dialog's key is when its oldest due fragment became due: the SEND commit of its next
// message, or the due time of a retransmission. Ties at one effective level therefore go
// oldest message first, across dialogs: a dialog with a backlog sends it before a dialog
// whose first message came later, which is not G-11's round-robin (docs/priorities.md).
//
// Each level keeps its dialogs in a first-in-first-out list in key order, with a heap beside
// it for the entries that arrive out of order: a dialog whose next message is older than
// the youngest already waiting, which is common when dialogs have backlogs, and a
// retransmission due in the past. Inserting at the back of the list is O(1); into the heap
// O(log n). Entries are never moved: a dialog whose key changes gets a new entry and a new
// version, and the stale entry is skipped when it reaches the front.
type scheduler struct {
	levels [11]levelQueue // by transmit level; index 0 unused
	size   int
}

// schedEntry is one dialog waiting at a level, with the key it was entered under.
type schedEntry struct {
	since     time.Duration
	conv      ConversationID
	initiator bool
	version   uint32
	ep        *endpoint
}

// before orders entries: the longest waiting first, then (conversation_id, is_initiator).
func (a *schedEntry) before(b *schedEntry) bool {
	if a.since != b.since {
		return a.since < b.since
	}
	if a.conv != b.conv {
		return a.conv < b.conv
	}
	return a.initiator && !b.initiator
}

// stale reports whether the entry no longer stands for its dialog.
func (a *schedEntry) stale() bool { return !a.ep.scheduled || a.ep.schedVersion != a.version }

// levelQueue holds the dialogs of one level: fifo in key order, from head on, and heap for
// the entries that arrived out of order.
type levelQueue struct {
	fifo []schedEntry
	head int
	heap []schedEntry
	live int
	// stale counts the entries left behind by removals. A removal of the level's first
	// dialog, the common case (the dialog just served), takes its entry out at once, so
	// stale stays zero and a decision reads no dialog at all.
	stale int
}

// push enters ep at its transmit level under its current readySince.
func (s *scheduler) push(ep *endpoint) {
	l := ep.txLevel.Level()
	ep.schedLevel = uint8(l)
	ep.schedVersion++
	ep.scheduled = true
	e := schedEntry{since: ep.readySince, conv: ep.conv, initiator: ep.isInitiator, version: ep.schedVersion, ep: ep}
	q := &s.levels[l]
	if n := len(q.fifo); n == q.head || !e.before(&q.fifo[n-1]) {
		q.fifo = append(q.fifo, e)
	} else {
		q.heap = append(q.heap, e)
		heapUp(q.heap, len(q.heap)-1)
	}
	q.live++
	s.size++
}

// remove takes ep out: at once when it is first of its level, otherwise its entry goes
// stale and is dropped when it reaches the front.
func (s *scheduler) remove(ep *endpoint) {
	q := &s.levels[ep.schedLevel]
	switch f := q.front(); {
	case f != nil && f.ep == ep && q.head < len(q.fifo) && f == &q.fifo[q.head]:
		q.fifo[q.head] = schedEntry{}
		q.head++
	case f != nil && f.ep == ep:
		heapPop(&q.heap)
	default:
		q.stale++
	}
	ep.scheduled = false
	ep.schedVersion++
	q.live--
	s.size--
	if q.stale > 64 && q.stale > q.live {
		q.compact()
	}
}

// fix re-enters ep after its readySince changed.
func (s *scheduler) fix(ep *endpoint) {
	s.remove(ep)
	s.push(ep)
}

// front returns the level's oldest live entry, dropping stale ones on the way, or nil.
func (q *levelQueue) front() *schedEntry {
	for q.stale > 0 && q.head < len(q.fifo) && q.fifo[q.head].stale() {
		q.fifo[q.head] = schedEntry{}
		q.head++
		q.stale--
	}
	if q.head == len(q.fifo) {
		q.fifo, q.head = q.fifo[:0], 0
	} else if q.head > 1024 && q.head > len(q.fifo)/2 {
		n := copy(q.fifo, q.fifo[q.head:])
		clear(q.fifo[n:])
		q.fifo, q.head = q.fifo[:n], 0
	}
	for q.stale > 0 && len(q.heap) > 0 && q.heap[0].stale() {
		heapPop(&q.heap)
		q.stale--
	}
	return q.best()
}

// best returns the older of the fifo's and the heap's first entries, or nil.
func (q *levelQueue) best() *schedEntry {
	var best *schedEntry
	if q.head < len(q.fifo) {
		best = &q.fifo[q.head]
	}
	if len(q.heap) > 0 && (best == nil || q.heap[0].before(best)) {
		best = &q.heap[0]
	}
	return best
}

// compact drops every stale entry; the fifo keeps its order and the heap is rebuilt.
func (q *levelQueue) compact() {
	fifo := q.fifo[:0]
	for _, e := range q.fifo[q.head:] {
		if !e.stale() {
			fifo = append(fifo, e)
		}
	}
	clear(q.fifo[len(fifo):])
	q.fifo, q.head = fifo, 0
	heap := q.heap[:0]
	for _, e := range q.heap {
		if !e.stale() {
			heap = append(heap, e)
		}
	}
	clear(q.heap[len(heap):])
	q.heap = heap
	q.stale = 0
	for i := len(heap)/2 - 1; i >= 0; i-- {
		heapDown(heap, i)
	}
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

// bestWaiting returns the highest effective level of any dialog waiting, computed from each
// level's oldest dialog apart from pick's comparisons, for the online check of PRI-15(a)
// and G-11.
func (s *scheduler) bestWaiting(cfg *Config, now time.Duration) int {
	best := 0
	for l := 1; l <= 10; l++ {
		if s.levels[l].live > 0 {
			best = max(best, effectiveLevel(cfg, l, s.levels[l].front().since, now))
		}
	}
	return best
}

// pick returns the dialog that sends next, or nil when none waits. It leaves the dialog in
// the scheduler: the caller sends one fragment, then reschedules it.
func (s *scheduler) pick(cfg *Config, now time.Duration) *endpoint {
	var best *schedEntry
	bestLevel := 0
	for l := 10; l >= 1; l-- {
		if s.levels[l].live == 0 {
			continue
		}
		top := s.levels[l].front()
		eff := effectiveLevel(cfg, l, top.since, now)
		if best == nil || eff > bestLevel || (eff == bestLevel && top.before(best)) {
			best, bestLevel = top, eff
		}
	}
	if best == nil {
		return nil
	}
	return best.ep
}
