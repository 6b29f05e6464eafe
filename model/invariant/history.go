package invariant

import (
	"slices"

	"github.com/sbsim/sbsim/model"
)

// historyLength is how many records of each conversation, of each live transaction and of
// each queue monitor a Checker keeps.
const historyLength = 24

// Capacities of the trace ring: it starts small and doubles up to ringCapacity records, so
// that a short run does not pay for a long one's ring.
const (
	ringInitial  = 256
	ringCapacity = 8192
)

// traceRing keeps the last records observed, each once, by its number among all the
// records observed: a history holds numbers, not copies. A record that a history still
// holds when the ring comes round to its slot moves to spilled, where it stays until the
// last history that holds it lets it go, so that a violation shows the same records however
// long ago they happened.
type traceRing struct {
	slots []ringSlot // len is a power of two; slot n&(len-1) holds record n, or an older one
	// spilled holds the records that left the ring while histories held them, by number.
	spilled map[uint64]*spilledRecord
}

type ringSlot struct {
	n    uint64
	refs uint32 // how many histories hold record n
	r    model.TraceRecord
}

type spilledRecord struct {
	refs uint32
	r    model.TraceRecord
}

// add keeps record r as number n, the next after the last added.
func (t *traceRing) add(n uint64, r *model.TraceRecord) {
	if n >= uint64(len(t.slots)) && len(t.slots) < ringCapacity {
		t.grow()
	}
	s := &t.slots[n&uint64(len(t.slots)-1)]
	if s.refs > 0 {
		if t.spilled == nil {
			t.spilled = map[uint64]*spilledRecord{}
		}
		t.spilled[s.n] = &spilledRecord{refs: s.refs, r: s.r}
	}
	s.n, s.refs, s.r = n, 0, *r
}

// grow doubles the ring; the records it holds are the last len(slots) ones, so each keeps
// a slot of its own.
func (t *traceRing) grow() {
	slots := make([]ringSlot, max(ringInitial, 2*len(t.slots)))
	mask := uint64(len(slots) - 1)
	for _, s := range t.slots {
		if s.n != 0 {
			slots[s.n&mask] = s
		}
	}
	t.slots = slots
}

// ref notes that one more history holds record n, which is in the ring: only the record
// being observed is added to histories.
func (t *traceRing) ref(n uint64) { t.slots[n&uint64(len(t.slots)-1)].refs++ }

// unref notes that a history let record n go.
func (t *traceRing) unref(n uint64) {
	if s := &t.slots[n&uint64(len(t.slots)-1)]; s.n == n {
		s.refs--
		return
	}
	if sp := t.spilled[n]; sp != nil {
		if sp.refs--; sp.refs == 0 {
			delete(t.spilled, n)
		}
	}
}

// record returns record n, which a history holds.
func (t *traceRing) record(n uint64) model.TraceRecord {
	if s := &t.slots[n&uint64(len(t.slots)-1)]; s.n == n {
		return s.r
	}
	return t.spilled[n].r
}

// history holds the numbers of the last historyLength records of a conversation, a
// transaction or a queue monitor; n counts the records added.
type history struct {
	records [historyLength]uint64
	n       uint32
}

// add adds record number num, which is in the ring, and lets the oldest go when full.
func (h *history) add(t *traceRing, num uint64) {
	i := h.n % historyLength
	if h.n >= historyLength {
		t.unref(h.records[i])
	}
	h.records[i] = num
	h.n++
	t.ref(num)
}

// release lets every record go and empties the history.
func (h *history) release(t *traceRing) {
	for _, num := range h.numbers() {
		t.unref(num)
	}
	h.n = 0
}

// numbers returns the numbers of the records held, in no particular order.
func (h *history) numbers() []uint64 { return h.records[:min(h.n, historyLength)] }

// merge returns the records of the histories, oldest first, each once; nil histories are
// skipped. Extra numbers (of records in the ring) are merged too.
func (t *traceRing) merge(extra []uint64, hs ...*history) []model.TraceRecord {
	all := slices.Clone(extra)
	for _, h := range hs {
		if h != nil {
			all = append(all, h.numbers()...)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	out := make([]model.TraceRecord, len(all))
	for i, n := range all {
		out[i] = t.record(n)
	}
	return out
}
