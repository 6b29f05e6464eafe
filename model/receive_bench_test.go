package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// receiveBenchWorld is one instance whose queue Q holds ready messages of many groups at
// ten levels: ten target services on Q, service Tk at level k, each dialog in a group of
// its own on the target side (DLG-3), all fed by same-instance SENDs (TXQ-2).
type receiveBenchWorld struct {
	b       *Broker
	q       QueueID
	handles []ConversationHandle // the initiators' handles
	mt      MessageTypeID
	rng     *rand.Rand
}

func newReceiveBenchWorld(tb testing.TB, groups, messages int) *receiveBenchWorld {
	db := Database{Name: "db", MessageTypes: []MessageType{{Name: "M"}},
		Contracts: []Contract{{Name: "C", Messages: []ContractMessage{{"M", SentByInitiator}}}},
		Queues:    []Queue{{Name: "I"}, {Name: "Q"}},
		Services:  []Service{{Name: "Init", Queue: "I"}}}
	for k := 1; k <= 10; k++ {
		name := fmt.Sprintf("T%d", k)
		db.Services = append(db.Services, Service{Name: name, Queue: "Q", Contracts: []string{"C"}})
		db.Priorities = append(db.Priorities, BrokerPriority{Name: "p" + name, LocalService: name, Level: PriorityLevel(k)})
	}
	cat, err := Compile([]Instance{{Name: "A", Databases: []Database{db}}})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := NewBroker(cat, 0, Config{})
	if err != nil {
		tb.Fatal(err)
	}
	w := &receiveBenchWorld{b: b, rng: rand.New(rand.NewPCG(3, 4))}
	from, _ := cat.Service("Init")
	t1, _ := cat.Service("T1")
	w.q = cat.Services[t1].Queue
	contract, _ := cat.Contract("C")
	w.mt, _ = cat.MessageType("M")
	for i := range groups {
		to, _ := cat.Service(fmt.Sprintf("T%d", 1+i%10))
		h, err := b.BeginDialog(0, from, cat.NameOf(to), contract, BeginDialogOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		w.handles = append(w.handles, h)
	}
	w.refill(tb, messages)
	return w
}

// refill sends n messages on dialogs drawn at random, so that every group holds some.
func (w *receiveBenchWorld) refill(tb testing.TB, n int) {
	for range n {
		if err := w.b.Send(w.b.now, w.handles[w.rng.IntN(len(w.handles))], w.mt, 100); err != nil {
			tb.Fatal(err)
		}
	}
	w.b.Advance()
}

// receiveBench is a world of n ready messages and the statement a benchmark measures on
// it. The world keeps its own clock and fills its queue back up from its ready count, not
// from a count of the operations done, so that it serves any number of runs: testing
// calls a benchmark's function again with a larger b.N, and again for each -count.
type receiveBench struct {
	w    *receiveBenchWorld
	n    int
	now  time.Duration
	buf  []ReceivedMessage
	kind string
}

func newReceiveBench(tb testing.TB, kind string, n int) *receiveBench {
	return &receiveBench{w: newReceiveBenchWorld(tb, n/10, n), n: n, buf: make([]ReceivedMessage, 0, 1), kind: kind}
}

// full reports whether the queue holds at least 90 per cent of its messages.
func (r *receiveBench) full() bool { return r.w.b.ReadyMessages(r.w.q)*10 >= r.n*9 }

// topUp sends again what the queue lacks.
func (r *receiveBench) topUp(tb testing.TB) { r.w.refill(tb, r.n-r.w.b.ReadyMessages(r.w.q)) }

// op runs the statement once: RECEIVE TOP(1) (autocommit), or GET CONVERSATION GROUP in a
// transaction that commits (the group's lock is released, its messages stay queued).
func (r *receiveBench) op(tb testing.TB) {
	r.now++
	b := r.w.b
	switch r.kind {
	case "receive":
		rows, err := b.Receive(r.now, r.w.q, 1, r.buf[:0])
		if err != nil || len(rows) != 1 {
			tb.Fatalf("RECEIVE at %v with %d ready: %d rows, %v", r.now, b.ReadyMessages(r.w.q), len(rows), err)
		}
	case "get-group":
		tx := b.Begin(r.now)
		g, err := tx.GetConversationGroup(r.now, r.w.q, false, 0)
		if err != nil || g == 0 {
			tb.Fatalf("GET CONVERSATION GROUP at %v: group %v, %v", r.now, g, err)
		}
		if err := tx.Commit(r.now); err != nil {
			tb.Fatal(err)
		}
	}
	b.Advance()
}

// receiveSizes are the queue depths the RECEIVE benchmarks measure.
var receiveSizes = []int{1_000, 100_000, 1_000_000}

// BenchmarkReceive measures one RECEIVE TOP(1) and its COMMIT (autocommit), and one GET
// CONVERSATION GROUP in a transaction, on a queue holding 1,000 to 1,000,000 ready
// messages in groups of ten messages on average, over ten levels (QUE-4, QUE-5, PRI-7,
// PRI-9). When the queue falls below 90 per cent full, what it lacks is sent again with
// the timer stopped. Target: O(log n), the cost at 1,000,000 messages at most twice the
// cost at 1,000 (BenchmarkReceiveGrowth measures both in the same run).
//
//	go test ./model -run '^$' -bench BenchmarkReceive -benchmem
func BenchmarkReceive(b *testing.B) {
	for _, kind := range []string{"receive", "get-group"} {
		for _, n := range receiveSizes {
			var r *receiveBench // built once: testing calls the function again with a larger b.N
			b.Run(fmt.Sprintf("%s/messages=%d", kind, n), func(b *testing.B) {
				if r == nil {
					r = newReceiveBench(b, kind, n)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if !r.full() {
						b.StopTimer()
						r.topUp(b)
						b.StartTimer()
					}
					r.op(b)
				}
			})
		}
	}
}

// BenchmarkReceiveGrowth measures each statement on the 1,000-message and the
// 1,000,000-message queue in the same run, alternating in chunks long enough for a queue
// to warm the caches up again after the other, and reports the growth (the cost at
// 1,000,000 over the cost at 1,000; target at most 2).
//
//	go test ./model -run '^$' -bench BenchmarkReceiveGrowth -benchmem
func BenchmarkReceiveGrowth(b *testing.B) {
	small, large := receiveSizes[0], receiveSizes[len(receiveSizes)-1]
	for _, kind := range []string{"receive", "get-group"} {
		var rs [2]*receiveBench
		b.Run(kind, func(b *testing.B) {
			if rs[0] == nil {
				rs = [2]*receiveBench{newReceiveBench(b, kind, small), newReceiveBench(b, kind, large)}
			}
			measureGrowth(b, [2]growthCase{rs[0], rs[1]})
		})
	}
}

// growthCase is a queue a growth benchmark measures one statement on: full says whether
// it needs refilling (not timed), refill fills it, op runs the statement once.
type growthCase interface {
	full() bool
	topUp(testing.TB)
	op(testing.TB)
}

// measureGrowth runs the statement of the small and the large case b.N times each,
// alternating in chunks long enough for a queue to warm the caches up again after the
// other, and reports the time of each and the growth (large over small).
func measureGrowth(b *testing.B, cs [2]growthCase) {
	const chunk = 20_000
	var took [2]time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		n := min(chunk, b.N-done)
		for k, c := range cs {
			start := time.Now()
			for range n {
				if !c.full() { // the refill is not the statement's cost
					took[k] += time.Since(start)
					b.StopTimer()
					c.topUp(b)
					b.StartTimer()
					start = time.Now()
				}
				c.op(b)
			}
			took[k] += time.Since(start)
		}
	}
	b.ReportMetric(float64(took[0])/float64(b.N), "1k-ns")
	b.ReportMetric(float64(took[1])/float64(b.N), "1M-ns")
	b.ReportMetric(float64(took[1])/float64(took[0]), "growth")
}

// receiveFloor is the least any RECEIVE TOP(1) of the benchmark's queue must do, as a
// baseline for its growth: a binary heap of the groups that have ready messages, as 16-byte
// values keyed by (level, oldest ready row) and sifting a hole (PRI-7, G-22), one record per
// group, and the group's ready rows in a slice of 64-byte values, oldest first. A RECEIVE
// takes the root group's first row and sifts the group down under its next row's key, or
// pops it when it has no more. It has no locks, endpoints, conversations or transactions:
// what it costs more at 1,000,000 messages than at 1,000 is what the memory hierarchy adds
// to the structures any RECEIVE must reach.
type receiveFloor struct {
	heap   []floorEntry
	groups []floorGroup
	order  int64
	ready  int
	n      int
	rng    *rand.Rand
	sink   int64
}

type floorEntry struct {
	oldest int64
	group  uint32
	level  int32
}

func (a *floorEntry) before(b *floorEntry) bool {
	return a.level > b.level || (a.level == b.level && a.oldest < b.oldest)
}

type floorGroup struct {
	rows   []floorRow
	head   int
	level  int32
	inHeap bool
}

type floorRow struct {
	order, seq, bytes, sentAt, enqueuedAt int64
	handle, group                         uint64
	msgType                               int64
}

func newReceiveFloor(n int) *receiveFloor {
	f := &receiveFloor{groups: make([]floorGroup, max(n/10, 1)), n: n, rng: rand.New(rand.NewPCG(3, 4))}
	for i := range f.groups {
		f.groups[i].level = int32(1 + i%10)
	}
	f.topUp()
	return f
}

func (f *receiveFloor) up(i int) {
	h := f.heap
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (f *receiveFloor) down(i int) {
	h := f.heap
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&e) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = e
}

func (f *receiveFloor) full() bool { return f.ready*10 >= f.n*9 }

// topUp sends what the queue lacks, on groups drawn at random.
func (f *receiveFloor) topUp() {
	for f.ready < f.n {
		gi := f.rng.IntN(len(f.groups))
		g := &f.groups[gi]
		f.order++
		g.rows = append(g.rows, floorRow{order: f.order, seq: int64(len(g.rows)), bytes: 100, group: uint64(gi)})
		f.ready++
		if !g.inHeap {
			g.inHeap = true
			f.heap = append(f.heap, floorEntry{oldest: f.order, group: uint32(gi), level: g.level})
			f.up(len(f.heap) - 1)
		}
	}
}

// receive takes the first row of the highest group.
func (f *receiveFloor) receive() {
	top := &f.heap[0]
	g := &f.groups[top.group]
	row := g.rows[g.head]
	f.sink += row.bytes + row.seq
	g.head++
	f.ready--
	if g.head < len(g.rows) {
		top.oldest = g.rows[g.head].order
		f.down(0)
		return
	}
	g.rows, g.head, g.inHeap = g.rows[:0], 0, false
	last := len(f.heap) - 1
	f.heap[0] = f.heap[last]
	f.heap = f.heap[:last]
	if last > 0 {
		f.down(0)
	}
}

// BenchmarkReceiveFloorGrowth measures receiveFloor at 1,000 and at 1,000,000 messages in
// the same run, as BenchmarkReceiveGrowth measures RECEIVE, and reports its growth: the
// part of RECEIVE's growth that no structure of the same state avoids.
//
//	go test ./model -run '^$' -bench 'BenchmarkReceive.*Growth' -benchmem
func BenchmarkReceiveFloorGrowth(b *testing.B) {
	measureGrowth(b, [2]growthCase{floorCase{newReceiveFloor(receiveSizes[0])},
		floorCase{newReceiveFloor(receiveSizes[len(receiveSizes)-1])}})
}

// floorCase is a receiveFloor as a growthCase: its statement is receive.
type floorCase struct{ *receiveFloor }

func (f floorCase) topUp(testing.TB) { f.receiveFloor.topUp() }
func (f floorCase) op(testing.TB)    { f.receive() }

// TestPRI7_ReceiveFloorTakesRowsInPriorityOrder checks the floor against the rule it
// stands for (PRI-7, G-22): each row taken is the oldest row of the highest level that has
// rows. A baseline that got the order wrong would be fast for nothing.
func TestPRI7_ReceiveFloorTakesRowsInPriorityOrder(t *testing.T) {
	f := newReceiveFloor(2000)
	for range 1500 {
		best := floorEntry{level: -1}
		for gi := range f.groups {
			g := &f.groups[gi]
			if g.head < len(g.rows) {
				if e := (floorEntry{oldest: g.rows[g.head].order, group: uint32(gi), level: g.level}); best.level < 0 || e.before(&best) {
					best = e
				}
			}
		}
		if f.heap[0] != best {
			t.Fatalf("the floor's top is %+v, want %+v", f.heap[0], best)
		}
		f.receive()
	}
}
