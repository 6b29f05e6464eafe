package model

// group is a conversation group on one side (LOCK-1): the conversations of one local
// service that share a conversation_group_id, and its lock.
//
// A group keeps its conversations that have ready messages in two heaps: by level (the
// receive order inside the group, PRI-9) and by age (for the group's oldest ready row,
// G-22). Its queue keeps the groups that have ready messages and are not locked in a heap
// by (group priority, oldest ready row), so that RECEIVE and GET CONVERSATION GROUP find
// the next group in O(log n) (PRI-7, G-22, G-25).
type group struct {
	id      ConversationGroupID
	queue   *serviceQueue
	service ServiceID
	// members counts the group's live conversations; the id stays valid until the last one
	// ends (DLG-15).
	members int
	byLevel ixHeap[*endpoint, convByLevel]
	byAge   ixHeap[*endpoint, convByAge]
	// Cached key: the highest level of a conversation with ready messages (PRI-7, G-25)
	// and the smallest queuing_order of a ready row (G-22); valid while byLevel is not empty.
	level  int
	oldest int64
	// inHeap is set while the group has a live entry in its queue's heap, under version
	// and the key (heapLevel, heapOldest).
	inHeap     bool
	version    uint32
	heapLevel  int
	heapOldest int64
	// holder is the transaction holding the group's lock; waiters wait for it, first
	// come first served (G-24).
	holder  *Tx
	waiters []*Tx
}

func (g *group) hasReady() bool { return g.byLevel.len() > 0 }

// available reports whether the group is in its queue's heap: it has ready messages and
// no transaction holds it.
func (g *group) available() bool { return g.hasReady() && g.holder == nil }

// convByLevel orders a group's conversations for RECEIVE: the higher level first, then the
// older oldest ready row (PRI-9, G-22).
type convByLevel struct{}

func (convByLevel) less(a, b *endpoint) bool {
	if la, lb := a.priority.Level(), b.priority.Level(); la != lb {
		return la > lb
	}
	return a.oldestReady < b.oldestReady
}
func (convByLevel) index(a *endpoint) *int32 { return &a.levelIdx }

// convByAge orders a group's conversations by their oldest ready row.
type convByAge struct{}

func (convByAge) less(a, b *endpoint) bool { return a.oldestReady < b.oldestReady }
func (convByAge) index(a *endpoint) *int32 { return &a.ageIdx }

// groupEntry is a group in its queue's heap, with its key inline so that comparisons read
// no group: the group priority (PRI-7, G-25) and its oldest ready row (G-22). An entry is
// live while its version is the group's: a group whose key changes, or that leaves the
// heap, gets a new version, and its old entry is dropped when it reaches the top. So no
// heap operation writes to a group, and a RECEIVE on a million groups reads one group.
type groupEntry struct {
	oldest  int64
	g       *group
	level   int32
	version uint32
}

// before orders a queue's groups for RECEIVE and GET CONVERSATION GROUP without WHERE: the
// higher group priority first, then the group whose oldest ready row is older (PRI-7,
// G-22). Queuing orders are unique, so there are no ties between live entries.
func (a *groupEntry) before(b *groupEntry) bool {
	if a.level != b.level {
		return a.level > b.level
	}
	return a.oldest < b.oldest
}

func (g *group) entry() groupEntry {
	return groupEntry{oldest: g.oldest, g: g, level: int32(g.level), version: g.version}
}

// groupBefore reports whether group a goes before group b for RECEIVE without WHERE.
func groupBefore(a, b *group) bool {
	x, y := a.entry(), b.entry()
	return x.before(&y)
}

// groupHeap is a queue's heap of available groups (ready messages, no lock holder).
type groupHeap struct {
	items []groupEntry
	stale int // entries whose group has a newer version
}

func (h *groupHeap) live(e *groupEntry) bool { return e.g.inHeap && e.g.version == e.version }

// push enters g under its current key and version.
func (h *groupHeap) push(g *group) {
	g.inHeap = true
	g.heapLevel, g.heapOldest = g.level, g.oldest
	h.items = append(h.items, g.entry())
	i := len(h.items) - 1
	e := h.items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h.items[p]) {
			break
		}
		h.items[i] = h.items[p]
		i = p
	}
	h.items[i] = e
}

// invalidate makes g's entry stale, dropping it at once when it is the top.
func (h *groupHeap) invalidate(g *group) {
	top := len(h.items) > 0 && h.items[0].g == g && h.live(&h.items[0])
	g.version++
	g.inHeap = false
	if top {
		h.pop()
	} else {
		h.stale++
	}
	if h.stale > 64 && h.stale > len(h.items)/2 {
		h.compact()
	}
}

// top returns the first available group, or nil.
func (h *groupHeap) top() *group {
	for len(h.items) > 0 && !h.live(&h.items[0]) {
		h.pop()
		h.stale--
	}
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0].g
}

func (h *groupHeap) empty() bool { return h.top() == nil }

func (h *groupHeap) pop() {
	n := len(h.items) - 1
	e := h.items[n]
	h.items[n] = groupEntry{}
	h.items = h.items[:n]
	if n > 0 {
		h.down(0, e)
	}
}

// down puts e at i and sifts it towards the leaves.
func (h *groupHeap) down(i int, e groupEntry) {
	n := len(h.items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.items[r].before(&h.items[c]) {
			c = r
		}
		if !h.items[c].before(&e) {
			break
		}
		h.items[i] = h.items[c]
		i = c
	}
	h.items[i] = e
}

// compact drops every stale entry and rebuilds the heap.
func (h *groupHeap) compact() {
	kept := h.items[:0]
	for _, e := range h.items {
		if h.live(&e) {
			kept = append(kept, e)
		}
	}
	clear(h.items[len(kept):])
	h.items = kept
	for i := len(kept)/2 - 1; i >= 0; i-- {
		h.down(i, h.items[i])
	}
	h.stale = 0
}

// heapPolicy is how an ixHeap orders its items and where it records their positions.
type heapPolicy[T any] interface {
	less(a, b T) bool
	index(a T) *int32
}

// ixHeap is a binary heap that records each item's position in the item, so that an item
// whose key changed is moved, and any item removed, in O(log n).
type ixHeap[T any, P heapPolicy[T]] struct {
	items []T
}

func (h *ixHeap[T, P]) len() int { return len(h.items) }

func (h *ixHeap[T, P]) top() T { return h.items[0] }

func (h *ixHeap[T, P]) push(x T) {
	var p P
	*p.index(x) = int32(len(h.items))
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

// fix restores the order after x's key changed.
func (h *ixHeap[T, P]) fix(x T) {
	var p P
	i := int(*p.index(x))
	if !h.down(i) {
		h.up(i)
	}
}

// remove takes x out.
func (h *ixHeap[T, P]) remove(x T) {
	var p P
	i := int(*p.index(x))
	n := len(h.items) - 1
	if i != n {
		h.swap(i, n)
	}
	var zero T
	h.items[n] = zero
	h.items = h.items[:n]
	*p.index(x) = -1
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
	if n == 0 && cap(h.items) > idleCapacity {
		h.items = nil
	}
}

func (h *ixHeap[T, P]) swap(i, j int) {
	var p P
	h.items[i], h.items[j] = h.items[j], h.items[i]
	*p.index(h.items[i]) = int32(i)
	*p.index(h.items[j]) = int32(j)
}

func (h *ixHeap[T, P]) up(i int) {
	var p P
	for i > 0 {
		parent := (i - 1) / 2
		if !p.less(h.items[i], h.items[parent]) {
			return
		}
		h.swap(i, parent)
		i = parent
	}
}

// down moves item i towards the leaves and reports whether it moved.
func (h *ixHeap[T, P]) down(i int) bool {
	var p P
	start := i
	for {
		l := 2*i + 1
		if l >= len(h.items) {
			break
		}
		m := l
		if r := l + 1; r < len(h.items) && p.less(h.items[r], h.items[l]) {
			m = r
		}
		if !p.less(h.items[m], h.items[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// newGroup creates a group with the id for the service's queue.
func (b *Broker) newGroup(id ConversationGroupID, service ServiceID) *group {
	g := &group{id: id, queue: b.queues[b.cat.Services[service].Queue], service: service}
	b.groups[id] = g
	return g
}

// join makes ep a member of g.
func (b *Broker) join(ep *endpoint, g *group) {
	ep.grp, ep.group = g, g.id
	ep.levelIdx, ep.ageIdx = -1, -1
	g.members++
}

// leave takes ep out of its group, with its ready messages and those held for its queue
// while it is OFF (G-18); a group left with no
// conversation and no lock holder is forgotten (DLG-15).
func (b *Broker) leave(ep *endpoint) {
	g := ep.grp
	if g == nil {
		return
	}
	if len(ep.ready) > 0 {
		ep.ready = ep.ready[:0]
		b.readyChanged(ep)
	}
	if ep.heldRows > 0 {
		b.dropHeldArrivals(ep)
	}
	g.members--
	ep.grp = nil
	b.maybeForget(g)
}

// maybeForget deletes a group that has no conversation left and no lock holder.
func (b *Broker) maybeForget(g *group) {
	if g.members == 0 && g.holder == nil && len(g.waiters) == 0 && b.groups[g.id] == g {
		delete(b.groups, g.id)
	}
}

// readyChanged updates the heaps after ep's ready messages changed: its place in its
// group, its group's key and the group's place in its queue.
func (b *Broker) readyChanged(ep *endpoint) {
	g := ep.grp
	q := g.queue
	q.ready += len(ep.ready) - int(ep.readyCounted)
	ep.readyCounted = int32(len(ep.ready))
	if len(ep.ready) == 0 {
		if ep.levelIdx >= 0 {
			g.byLevel.remove(ep)
			g.byAge.remove(ep)
		}
		b.buf.ready.put(ep.ready)
		ep.ready = nil // an idle endpoint keeps no room: the free list does
	} else {
		ep.oldestReady = oldestOrder(ep.ready)
		if ep.levelIdx >= 0 {
			g.byLevel.fix(ep)
			g.byAge.fix(ep)
		} else {
			g.byLevel.push(ep)
			g.byAge.push(ep)
		}
	}
	b.groupChanged(g)
}

// groupChanged refreshes g's key and its place in its queue's heap.
func (b *Broker) groupChanged(g *group) {
	q := g.queue
	if g.hasReady() {
		g.level = g.byLevel.top().priority.Level()
		g.oldest = g.byAge.top().oldestReady
	}
	switch {
	case g.inHeap && !g.available():
		q.groups.invalidate(g)
	case g.inHeap && (g.level != g.heapLevel || g.oldest != g.heapOldest):
		q.groups.invalidate(g)
		q.groups.push(g)
	case !g.inHeap && g.available():
		q.groups.push(g)
	}
	if g.hasReady() {
		b.signal(q)
	}
}

// oldestOrder is the smallest queuing_order of ready rows kept in receive order: the rows
// of each class (DialogTimer, Error, the rest) are in queuing order, so only the first of
// each class can be the oldest.
func oldestOrder(rows []queuedMessage) int64 {
	oldest := rows[0].order
	for i := 1; i < len(rows) && rows[i-1].class() < classOther; i++ {
		if rows[i].class() != rows[i-1].class() {
			oldest = min(oldest, rows[i].order)
		}
	}
	return oldest
}

// Receive classes of DLG-13: a DialogTimer goes before every other message of its
// conversation, an Error before every other but a DialogTimer, and the rest (EndDialog
// among them) in arrival order, which is sequence order.
const (
	classDialogTimer = iota
	classError
	classOther
)

func (m *queuedMessage) class() int {
	switch m.msgType {
	case DialogTimerMessageType:
		return classDialogTimer
	case ErrorMessageType:
		return classError
	}
	return classOther
}

// insertReady puts m among ep's ready rows in receive order: by class, then queuing_order.
// A row a rollback returns goes back exactly where it was (INV-10).
func insertReady(rows []queuedMessage, m queuedMessage) []queuedMessage {
	c := m.class()
	i := len(rows)
	for i > 0 && (rows[i-1].class() > c || (rows[i-1].class() == c && rows[i-1].order > m.order)) {
		i--
	}
	if i == len(rows) {
		return append(rows, m)
	}
	rows = append(rows, queuedMessage{})
	copy(rows[i+1:], rows[i:])
	rows[i] = m
	return rows
}

// bestGroup is the group RECEIVE without WHERE takes from q for t: the first of the
// queue's available groups and the groups t already holds on q that have ready messages
// (LOCK-7), or nil. GET CONVERSATION GROUP (held false) takes only a group no transaction
// holds, so that successive calls lock several groups (LOCK-8).
func (b *Broker) bestGroup(t *Tx, q *serviceQueue, held bool) *group {
	best := q.groups.top()
	if !held {
		return best
	}
	for _, g := range t.locks {
		if g.queue == q && g.hasReady() && (best == nil || groupBefore(g, best)) {
			best = g
		}
	}
	return best
}

// GroupInfo is a conversation group as a view shows it.
type GroupInfo struct {
	ID      ConversationGroupID
	Queue   QueueID
	Service ServiceID
	// Conversations counts its live conversations; Ready its ready messages.
	Conversations int
	Ready         int
	// Priority is the group priority (PRI-7, G-25): the highest level of a conversation
	// with ready messages, zero when none has.
	Priority PriorityLevel
	// Holder is the transaction holding its lock, zero for none; Waiting counts the
	// transactions waiting for it.
	Holder  TxID
	Waiting int
}

// Group returns the conversation group with the id, when it exists on this instance.
func (b *Broker) Group(id ConversationGroupID) (GroupInfo, bool) {
	g := b.groups[id]
	if g == nil {
		return GroupInfo{}, false
	}
	info := GroupInfo{ID: g.id, Queue: g.queue.id, Service: g.service, Conversations: g.members, Waiting: len(g.waiters)}
	for _, ep := range g.byLevel.items {
		info.Ready += len(ep.ready)
	}
	if g.hasReady() {
		info.Priority = PriorityLevel(g.level)
	}
	if g.holder != nil {
		info.Holder = g.holder.id
	}
	return info, true
}
