package invariant

import (
	"cmp"
	"slices"

	"github.com/sbsim/sbsim/model"
)

// historyLength is how many records of each conversation, of each live transaction and of
// each queue monitor a Checker keeps.
const historyLength = 24

// history keeps the last historyLength records of a conversation, a transaction or a queue
// monitor, each with its number among all the records observed. Its ring grows with the
// records it holds, so that a short dialog pays for the few it has, and its memory is kept
// when the checker reuses it.
type history struct {
	records []numbered
	n       uint32 // the records added since the last reset
}

type numbered struct {
	n uint64
	r model.TraceRecord
}

// add adds record r, number n, and lets the oldest go when full.
func (h *history) add(n uint64, r *model.TraceRecord) {
	if len(h.records) < historyLength {
		if len(h.records) == cap(h.records) {
			h.records = slices.Grow(h.records, min(max(2*cap(h.records), 4), historyLength)-len(h.records))
		}
		h.records = h.records[:len(h.records)+1]
	}
	e := &h.records[h.n%historyLength]
	e.n, e.r = n, *r
	h.n++
}

// reset empties the history, keeping its memory.
func (h *history) reset() {
	clear(h.records)
	h.records, h.n = h.records[:0], 0
}

// merge returns the records of the histories, oldest first, each once; nil histories are
// skipped.
func merge(hs ...*history) []model.TraceRecord {
	var all []numbered
	for _, h := range hs {
		if h != nil {
			all = append(all, h.records...)
		}
	}
	slices.SortFunc(all, func(a, b numbered) int { return cmp.Compare(a.n, b.n) })
	all = slices.CompactFunc(all, func(a, b numbered) bool { return a.n == b.n })
	out := make([]model.TraceRecord, len(all))
	for i, e := range all {
		out[i] = e.r
	}
	return out
}
