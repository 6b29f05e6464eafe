package sim

import "time"

// entry is one scheduled event in the queue: when it is due, its sequence number, and the
// slot that holds its handler. An entry whose slot no longer carries its seq is stale: its
// event was cancelled.
type entry struct {
	at   time.Duration
	seq  uint64
	slot uint32
}

// before orders entries by time, then by scheduling order. No two entries share a seq, so
// the order is total and the queue's instability cannot show.
func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// arity is the number of children of a node. A 4-ary heap is shallower than a binary one,
// and the four children of a node sit in one or two cache lines.
const arity = 4

// eventQueue is a d-ary min-heap of entries, written out for the entry type rather than
// through container/heap so that no interface call or allocation sits on the hot path.
type eventQueue struct {
	h []entry
}

func (q *eventQueue) len() int   { return len(q.h) }
func (q *eventQueue) top() entry { return q.h[0] }

func (q *eventQueue) push(en entry) {
	q.h = append(q.h, en)
	q.up(len(q.h) - 1)
}

func (q *eventQueue) pop() entry {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	if last > 0 {
		q.down(0)
	}
	return top
}

// up moves the entry at i towards the root until its parent is before it.
func (q *eventQueue) up(i int) {
	h := q.h
	en := h[i]
	for i > 0 {
		p := (i - 1) / arity
		if !en.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = en
}

// down moves the entry at i towards the leaves until no child is before it.
func (q *eventQueue) down(i int) {
	h := q.h
	n := len(h)
	en := h[i]
	for {
		first := i*arity + 1
		if first >= n {
			break
		}
		least := first
		end := min(first+arity, n)
		for c := first + 1; c < end; c++ {
			if h[c].before(h[least]) {
				least = c
			}
		}
		if !h[least].before(en) {
			break
		}
		h[i] = h[least]
		i = least
	}
	h[i] = en
}

// compact drops the entries for which keep is false and restores the heap order.
func (q *eventQueue) compact(keep func(entry) bool) {
	kept := q.h[:0]
	for _, en := range q.h {
		if keep(en) {
			kept = append(kept, en)
		}
	}
	clear(q.h[len(kept):])
	q.h = kept
	if len(q.h) < 2 {
		return
	}
	for i := (len(q.h) - 2) / arity; i >= 0; i-- {
		q.down(i)
	}
}
