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

// BenchmarkReceive measures one RECEIVE TOP(1) and its COMMIT (autocommit) on a queue
// holding 1,000 to 1,000,000 ready messages in groups of ten messages on average, over ten
// levels (QUE-4, PRI-7, PRI-9). Every tenth of the queue received is sent again with the
// timer stopped, so the queue stays between 90 and 100 per cent full. Target: O(log n),
// the cost at 1,000,000 messages at most twice the cost at 1,000.
//
//	go test ./model -run '^$' -bench BenchmarkReceive -benchmem
func BenchmarkReceive(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		var w *receiveBenchWorld // built once: testing calls the function again with a larger b.N
		now := time.Duration(0)
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			if w == nil {
				w = newReceiveBenchWorld(b, n/10, n)
			}
			buf := make([]ReceivedMessage, 0, 1)
			batch := max(n/10, 1)
			taken := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if taken == batch {
					b.StopTimer()
					w.refill(b, batch)
					taken = 0
					b.StartTimer()
				}
				now++
				taken++
				rows, err := w.b.Receive(now, w.q, 1, buf[:0])
				if err != nil || len(rows) != 1 {
					b.Fatalf("RECEIVE %d: %d rows, %v", i, len(rows), err)
				}
				w.b.Advance()
			}
		})
	}
}
