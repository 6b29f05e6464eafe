package model

// endpointTable maps ids made by worldUnique (handles, conversation ids) to endpoints,
// without hashing: an id is its origin instance and a counter that the origin's broker
// increments, so the ids alive at once are dense, and the table is, per origin instance, a
// directory of pages of 1<<tablePageBits slots indexed by the counter. A page is dropped
// once its last endpoint leaves, so that memory follows the endpoints alive; the directory
// costs a pointer per page of ids ever made. Every arriving fragment and acknowledgement,
// and every statement and timer naming a handle, looks an endpoint up here.
type endpointTable struct {
	origins [][]*tablePage
	n       int
}

const (
	tablePageBits = 6
	tableSlotMask = 1<<tablePageBits - 1
	idCounterMask = 1<<48 - 1
)

type tablePage struct {
	slots [1 << tablePageBits]*endpoint
	live  int
}

// locate splits an id into its origin instance, page and slot; ok is false for an id that
// worldUnique cannot have made.
func locate(id uint64) (origin int, page uint64, slot int, ok bool) {
	origin = int(id>>48) - 1
	c := id & idCounterMask
	return origin, c >> tablePageBits, int(c & tableSlotMask), origin >= 0
}

// get returns the endpoint with the id, nil when there is none.
func (t *endpointTable) get(id uint64) *endpoint {
	o, pi, s, ok := locate(id)
	if !ok || o >= len(t.origins) {
		return nil
	}
	pages := t.origins[o]
	if pi >= uint64(len(pages)) || pages[pi] == nil {
		return nil
	}
	return pages[pi].slots[s]
}

// set makes ep the endpoint with the id.
func (t *endpointTable) set(id uint64, ep *endpoint) {
	o, pi, s, ok := locate(id)
	if !ok {
		panic("model: endpoint table: id of no instance")
	}
	for o >= len(t.origins) {
		t.origins = append(t.origins, nil)
	}
	for pi >= uint64(len(t.origins[o])) {
		t.origins[o] = append(t.origins[o], nil)
	}
	p := t.origins[o][pi]
	if p == nil {
		p = &tablePage{}
		t.origins[o][pi] = p
	}
	if p.slots[s] == nil {
		p.live++
		t.n++
	}
	p.slots[s] = ep
}

// remove forgets the endpoint with the id, if any.
func (t *endpointTable) remove(id uint64) {
	o, pi, s, ok := locate(id)
	if !ok || o >= len(t.origins) || pi >= uint64(len(t.origins[o])) {
		return
	}
	p := t.origins[o][pi]
	if p == nil || p.slots[s] == nil {
		return
	}
	p.slots[s] = nil
	p.live--
	t.n--
	if p.live == 0 {
		t.origins[o][pi] = nil
	}
}

// len returns how many endpoints the table holds.
func (t *endpointTable) len() int { return t.n }

// all returns the endpoints in the order of their ids.
func (t *endpointTable) all(yield func(*endpoint) bool) {
	for _, pages := range t.origins {
		for _, p := range pages {
			if p == nil {
				continue
			}
			for _, ep := range p.slots {
				if ep != nil && !yield(ep) {
					return
				}
			}
		}
	}
}
