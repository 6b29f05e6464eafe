package model

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The test world: brokers built from one catalog, a manual clock, and a list of pending
// packet deliveries, timers and scripted actions, processed strictly in (time, insertion)
// order. There is no engine and no randomness: a test decides the fate of every packet.

const (
	instA InstanceID = 0
	instB InstanceID = 1
	// latency is the one-way delay of every packet, in both directions.
	latency = 10 * time.Millisecond
)

// testInstances is the catalog of the tests: instance A initiates to a target service on
// instance B and to a same-instance target on A. Request is SENT BY INITIATOR, Reply SENT BY
// TARGET. Neither target accepts the contract Unaccepted.
func testInstances() []Instance {
	// Each database gets its own slices, so that a test can change one database alone.
	types := func() []MessageType { return []MessageType{{Name: "Request"}, {Name: "Reply"}} }
	contracts := func() []Contract {
		return []Contract{
			{Name: "RequestReply", Messages: []ContractMessage{{"Request", SentByInitiator}, {"Reply", SentByTarget}}},
			{Name: "Unaccepted", Messages: []ContractMessage{{"Request", SentByAny}}},
		}
	}
	return []Instance{
		{Name: "A", Databases: []Database{{
			Name: "dbA", MessageTypes: types(), Contracts: contracts(),
			Queues: []Queue{{Name: "InitiatorQueue"}, {Name: "LocalTargetQueue"}},
			Services: []Service{
				{Name: "Initiator", Queue: "InitiatorQueue"},
				{Name: "LocalTarget", Queue: "LocalTargetQueue", Contracts: []string{"RequestReply", ContractDefault}},
			},
		}}},
		{Name: "B", Databases: []Database{{
			Name: "dbB", MessageTypes: types(), Contracts: contracts(),
			Queues:   []Queue{{Name: "TargetQueue"}},
			Services: []Service{{Name: "Target", Queue: "TargetQueue", Contracts: []string{"RequestReply", ContractDefault}}},
		}}},
	}
}

// action is what the world does with one packet a broker transmits.
type action struct {
	drop    bool
	corrupt bool
	copies  int           // extra copies, delivered right after the original
	delay   time.Duration // added to the latency
}

var (
	deliver   = action{}
	drop      = action{drop: true}
	corrupt   = action{corrupt: true}
	duplicate = action{copies: 1}
)

func delayBy(d time.Duration) action { return action{delay: d} }

// pending is a packet delivery, a timer or a scripted action, due at a time.
type pending struct {
	at      time.Duration
	to      InstanceID
	packet  *Packet
	corrupt bool
	timer   *Timer
	act     func()
}

// sentPacket logs one packet a broker handed to the world, and what became of it.
type sentPacket struct {
	at     time.Duration
	n      int // index among the packets of its direction
	packet Packet
	action action
}

// world is the test world. Brokers are indexed by InstanceID.
type world struct {
	t       *testing.T
	cat     *Catalog
	brokers []*Broker
	now     time.Duration
	// pending is ordered by time, then by insertion.
	pending []pending
	// filter decides the fate of packet p, the nth from p.From to p.To (from 0). It may
	// change the packet, for instance remove some of its fragments. Nil delivers everything.
	filter func(p *Packet, n int) action
	counts map[[2]InstanceID]int
	// wirePerFragment is how long the wire takes per fragment of a block: the time until
	// WireFree, so that backlogs build up and the scheduler has choices. Zero frees it at
	// once.
	wirePerFragment time.Duration
	sent            []sentPacket
	trace           []TraceRecord
	ready           []QueueID
	// What the brokers reported that a test may look at: statements that completed after
	// waiting, queues poison detection turned OFF, activated tasks to start.
	completed   []Completion
	disabled    []QueueID
	activations []ActivationStart
	events      int
}

// newWorld builds one broker per instance of the test catalog, with tracing on.
func newWorld(t *testing.T, cfg Config) *world {
	t.Helper()
	return newWorldOf(t, cfg, testInstances())
}

// push inserts p after everything due at or before its time.
func (w *world) push(p pending) {
	require.GreaterOrEqual(w.t, p.at, w.now, "something is due before now")
	i := slices.IndexFunc(w.pending, func(q pending) bool { return q.at > p.at })
	if i < 0 {
		i = len(w.pending)
	}
	w.pending = slices.Insert(w.pending, i, p)
}

// drain applies the effects of broker i's last input and clears them.
func (w *world) drain(i InstanceID) {
	b := w.brokers[i]
	e := b.Effects()
	freed := map[InstanceID]time.Duration{}
	for _, p := range e.Transmit {
		w.route(p)
		if p.HoldsConnection {
			freed[p.To] += w.wirePerFragment * time.Duration(len(p.Fragments))
		}
	}
	// The wire is free again once it has carried the block (G-10): the broker is told when.
	for _, to := range slices.Sorted(maps.Keys(freed)) {
		at := w.now + freed[to]
		w.at(w.now, func() {
			b.WireFreeAt(w.now, to, at)
			w.drain(i)
		})
	}
	for _, tm := range e.Timers {
		w.push(pending{at: tm.At, to: i, timer: &tm})
	}
	w.trace = append(w.trace, e.Trace...)
	w.ready = append(w.ready, e.Ready...)
	w.completed = append(w.completed, e.Completed...)
	w.disabled = append(w.disabled, e.QueueDisabled...)
	w.activations = append(w.activations, e.Activations...)
	b.Advance()
}

func (w *world) route(p Packet) {
	dir := [2]InstanceID{p.From, p.To}
	n := w.counts[dir]
	w.counts[dir]++
	act := deliver
	if w.filter != nil {
		act = w.filter(&p, n)
	}
	w.sent = append(w.sent, sentPacket{at: w.now, n: n, packet: *clonePacket(&p), action: act})
	if act.drop {
		return
	}
	at := w.now + latency + act.delay
	w.push(pending{at: at, to: p.To, packet: &p, corrupt: act.corrupt})
	for range act.copies {
		w.push(pending{at: at, to: p.To, packet: clonePacket(&p), corrupt: act.corrupt})
	}
}

func clonePacket(p *Packet) *Packet {
	c := *p
	c.Fragments = slices.Clone(p.Fragments)
	c.Acks = slices.Clone(p.Acks)
	return &c
}

// inject delivers a copy of p to its destination at time at.
func (w *world) inject(at time.Duration, p *Packet) {
	w.push(pending{at: at, to: p.To, packet: clonePacket(p)})
}

// at runs f at time at, in order with deliveries and timers.
func (w *world) at(at time.Duration, f func()) { w.push(pending{at: at, act: f}) }

// step processes the first pending item.
func (w *world) step() {
	p := w.pending[0]
	w.pending = slices.Delete(w.pending, 0, 1)
	w.now = p.at
	w.events++
	switch {
	case p.act != nil:
		p.act()
	case w.brokers[p.to].Down():
		// A crashed instance takes no input: what reaches it while down is lost (G-13).
	case p.packet != nil:
		w.brokers[p.to].PacketArrived(w.now, p.packet, p.corrupt)
		w.drain(p.to)
	default:
		w.brokers[p.to].TimerFired(w.now, *p.timer)
		w.drain(p.to)
	}
}

// runUntil processes everything due at or before until, stopping early if nothing is
// pending, then sets the clock to until.
func (w *world) runUntil(until time.Duration) {
	for len(w.pending) > 0 && w.pending[0].at <= until {
		w.step()
	}
	w.now = max(w.now, until)
}

// settle processes everything pending, timers included, until nothing is left.
func (w *world) settle() {
	for len(w.pending) > 0 {
		require.Less(w.t, w.events, 100000, "the world does not settle")
		w.step()
	}
}

// Names to identifiers.

func (w *world) service(name string) ServiceID {
	id, ok := w.cat.Service(name)
	require.True(w.t, ok, "service %q", name)
	return id
}

func (w *world) name(name string) ServiceName {
	id, ok := w.cat.ServiceName(name)
	require.True(w.t, ok, "service name %q", name)
	return id
}

func (w *world) messageType(name string) MessageTypeID {
	id, ok := w.cat.MessageType(name)
	require.True(w.t, ok, "message type %q", name)
	return id
}

func (w *world) contract(name string) ContractID {
	id, ok := w.cat.Contract(name)
	require.True(w.t, ok, "contract %q", name)
	return id
}

func (w *world) queue(name string) QueueID {
	i := slices.IndexFunc(w.cat.Queues, func(q QueueInfo) bool { return q.Name == name })
	require.GreaterOrEqual(w.t, i, 0, "queue %q", name)
	return QueueID(i)
}

// Application statements at the current time; each applies the broker's effects.

func (w *world) begin(from, to, contract string, opts BeginDialogOptions) ConversationHandle {
	i := w.cat.Services[w.service(from)].Instance
	h, err := w.brokers[i].BeginDialog(w.now, w.service(from), w.name(to), w.contract(contract), opts)
	w.drain(i)
	require.NoError(w.t, err, "BEGIN DIALOG from %s to %s", from, to)
	return h
}

func (w *world) send(i InstanceID, h ConversationHandle, messageType string, bytes int64) error {
	err := w.brokers[i].Send(w.now, h, w.messageType(messageType), bytes)
	w.drain(i)
	return err
}

func (w *world) end(i InstanceID, h ConversationHandle, opts EndOptions) error {
	err := w.brokers[i].EndConversation(w.now, h, opts)
	w.drain(i)
	return err
}

// receiveAll receives every ready message of the queue, one conversation at a time.
func (w *world) receiveAll(queue string) ([]ReceivedMessage, error) {
	q := w.queue(queue)
	i := w.cat.Databases[w.cat.Queues[q].Database].Instance
	var all []ReceivedMessage
	for {
		n := len(all)
		var err error
		all, err = w.brokers[i].Receive(w.now, q, 0, all)
		w.drain(i)
		if err != nil || len(all) == n {
			return all, err
		}
	}
}

func (w *world) alterQueue(queue string, status QueueStatus) {
	q := w.queue(queue)
	i := w.cat.Databases[w.cat.Queues[q].Database].Instance
	require.NoError(w.t, w.brokers[i].AlterQueueStatus(w.now, q, status))
	w.drain(i)
}

// endpointOf returns instance i's endpoint of one side of the dialog, if it has one.
func (w *world) endpointOf(i InstanceID, conv ConversationID, initiator bool) (ConversationEndpoint, bool) {
	for _, ep := range w.brokers[i].Endpoints() {
		if ep.ConversationID == conv && ep.IsInitiator == initiator {
			return ep, true
		}
	}
	return ConversationEndpoint{}, false
}

// Trace queries.

func (w *world) records(i InstanceID, kind TraceKind) []TraceRecord {
	var out []TraceRecord
	for _, r := range w.trace {
		if r.Instance == i && r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

func (w *world) traceLines() []string {
	lines := make([]string, len(w.trace))
	for i, r := range w.trace {
		lines[i] = r.String()
	}
	return lines
}

// types returns the names of the received messages' types, with their sequence numbers.
func (w *world) types(msgs []ReceivedMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		name := w.cat.MessageTypes[m.MessageType]
		name = name[strings.LastIndex(name, "/")+1:]
		out[i] = name + "#" + strconv.FormatInt(int64(m.MessageSequenceNumber), 10)
	}
	return out
}

// newWorldOf is newWorld with a catalog of the test's own: one broker per instance, with
// tracing on.
func newWorldOf(t *testing.T, cfg Config, instances []Instance) *world {
	t.Helper()
	cat, err := Compile(instances)
	require.NoError(t, err)
	w := &world{t: t, cat: cat, counts: map[[2]InstanceID]int{}}
	for i := range cat.Instances {
		b, err := NewBroker(cat, InstanceID(i), cfg)
		require.NoError(t, err)
		b.SetTracing(true)
		w.brokers = append(w.brokers, b)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("trace:\n%s", strings.Join(w.traceLines(), "\n"))
		}
	})
	return w
}
