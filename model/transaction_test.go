package model

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The transaction tests run sessions on instance A of a catalog that adds two initiator
// services to the test catalog, High and Low: the target LocalTarget receives their dialogs
// at levels 9 and 2 (PRI-2: on the target side the local service is LocalTarget and the
// remote one the initiator), and Initiator's at the default 5. Dialogs to LocalTarget stay
// on instance A and are delivered within the statement that commits them (TXQ-2).

// txInstances returns that catalog; each queue given replaces the queue of its name.
func txInstances(queues ...Queue) []Instance {
	in := testInstances()
	a, b := &in[0].Databases[0], &in[1].Databases[0]
	a.Services = append(a.Services, Service{Name: "High", Queue: "InitiatorQueue"}, Service{Name: "Low", Queue: "InitiatorQueue"})
	a.Priorities = []BrokerPriority{
		{Name: "high", LocalService: "LocalTarget", RemoteService: "High", Level: 9},
		{Name: "low", LocalService: "LocalTarget", RemoteService: "Low", Level: 2},
	}
	b.Priorities = []BrokerPriority{
		{Name: "high", LocalService: "Target", RemoteService: "High", Level: 9},
		{Name: "low", LocalService: "Target", RemoteService: "Low", Level: 2},
	}
	for _, q := range queues {
		for _, db := range []*Database{a, b} {
			for i := range db.Queues {
				if db.Queues[i].Name == q.Name {
					db.Queues[i] = q
				}
			}
		}
	}
	return in
}

// txWorld is the test world with sessions and labelled conversations.
type txWorld struct {
	*world
	// labels name conversations, both handles, in w.rows.
	labels map[ConversationHandle]string
}

func newTxWorld(t *testing.T, queues ...Queue) *txWorld {
	return &txWorld{world: newWorldOf(t, Config{}, txInstances(queues...)), labels: map[ConversationHandle]string{}}
}

// apply drains instance i's effects; the world keeps its completions and disabled queues.
func (w *txWorld) apply(i InstanceID) { w.drain(i) }

// completion returns the completion of transaction id, when one was reported since the
// last takeCompleted.
func (w *txWorld) completion(id TxID) (Completion, bool) {
	i := slices.IndexFunc(w.completed, func(c Completion) bool { return c.Tx == id })
	if i < 0 {
		return Completion{}, false
	}
	return w.completed[i], true
}

// takeCompleted returns the completions reported since the last call, and forgets them.
func (w *txWorld) takeCompleted() []TxID {
	var ids []TxID
	for _, c := range w.completed {
		ids = append(ids, c.Tx)
	}
	w.completed = nil
	return ids
}

// instanceOf returns the instance of the queue.
func (w *txWorld) instanceOf(queue string) InstanceID {
	return w.cat.Databases[w.cat.Queues[w.queue(queue)].Database].Instance
}

func (w *txWorld) alterQueue(queue string, status QueueStatus) {
	i := w.instanceOf(queue)
	require.NoError(w.t, w.brokers[i].AlterQueueStatus(w.now, w.queue(queue), status))
	w.apply(i)
}

func (w *txWorld) queueStatus(queue string) QueueStatus {
	s, err := w.brokers[w.instanceOf(queue)].QueueStatus(w.queue(queue))
	require.NoError(w.t, err)
	return s
}

// dialog begins a dialog from the service to the target service and sends n requests on
// it, each in a transaction of its own, so that the target endpoint exists (n >= 1). It
// returns both handles, which w.rows shows as label.
func (w *txWorld) dialog(label, from, to string, n int) (initiator, target ConversationHandle) {
	w.t.Helper()
	require.Positive(w.t, n, "a dialog needs a request to reach its target")
	i := w.cat.Services[w.service(from)].Instance
	h, err := w.brokers[i].BeginDialog(w.now, w.service(from), w.name(to), w.contract("RequestReply"), BeginDialogOptions{})
	w.apply(i)
	require.NoError(w.t, err, "BEGIN DIALOG %s", label)
	w.sendN(h, n)
	ep, _ := w.brokers[i].Endpoint(h)
	if ti := w.cat.Services[w.service(to)].Instance; ti != i {
		w.runUntil(w.now + time.Second)
	}
	tep, ok := w.endpointOf(w.cat.Services[w.service(to)].Instance, ep.ConversationID, false)
	require.True(w.t, ok, "dialog %s has its target endpoint", label)
	w.labels[h], w.labels[tep.ConversationHandle] = label, label
	return h, tep.ConversationHandle
}

// local begins a dialog from the service to LocalTarget, on instance A.
func (w *txWorld) local(label, from string, n int) (initiator, target ConversationHandle) {
	w.t.Helper()
	return w.dialog(label, from, "LocalTarget", n)
}

// endpoint returns the endpoint of a handle on whichever instance has it.
func (w *txWorld) endpoint(h ConversationHandle) (ConversationEndpoint, InstanceID) {
	for i, b := range w.brokers {
		if ep, ok := b.Endpoint(h); ok {
			return ep, InstanceID(i)
		}
	}
	w.t.Fatalf("no endpoint %v", h)
	return ConversationEndpoint{}, 0
}

// sendN sends n messages on the handle, each in a transaction of its own: requests from an
// initiator, replies from a target.
func (w *txWorld) sendN(h ConversationHandle, n int) {
	w.t.Helper()
	ep, i := w.endpoint(h)
	mt := "Reply"
	if ep.IsInitiator {
		mt = "Request"
	}
	for range n {
		err := w.brokers[i].Send(w.now, h, w.messageType(mt), 100)
		w.apply(i)
		require.NoError(w.t, err, "SEND on %s", w.labels[h])
	}
}

// groupOf returns the conversation group of a handle.
func (w *txWorld) groupOf(h ConversationHandle) ConversationGroupID {
	ep, _ := w.endpoint(h)
	return ep.ConversationGroupID
}

// group returns the view of a group of instance A; ok is false when it does not exist.
func (w *txWorld) group(g ConversationGroupID) GroupInfo {
	info, ok := w.brokers[instA].Group(g)
	require.True(w.t, ok, "group %v exists", g)
	return info
}

// rows names received messages "label:Type#seq"; none is nil.
func (w *txWorld) rows(msgs []ReceivedMessage) []string {
	if len(msgs) == 0 {
		return nil
	}
	names := w.types(msgs)
	for i, m := range msgs {
		names[i] = w.labels[m.ConversationHandle] + ":" + names[i]
	}
	return names
}

// session runs one explicit transaction's statements on an instance at the world's time,
// applying the effects after each.
type session struct {
	w    *txWorld
	inst InstanceID
	tx   *Tx
}

// beginTx starts a transaction on instance A.
func (w *txWorld) beginTx() *session { return w.beginTxOn(instA) }

func (w *txWorld) beginTxOn(i InstanceID) *session {
	return &session{w: w, inst: i, tx: w.brokers[i].Begin(w.now)}
}

func (s *session) id() TxID { return s.tx.ID() }

func (s *session) receive(queue string, opts ReceiveOptions) ([]ReceivedMessage, error) {
	rows, err := s.tx.Receive(s.w.now, s.w.queue(queue), opts, nil)
	s.w.apply(s.inst)
	return rows, err
}

// mustReceive receives without WHERE or WAITFOR and names the rows as w.rows does.
func (s *session) mustReceive(queue string, top int) []string {
	s.w.t.Helper()
	rows, err := s.receive(queue, ReceiveOptions{Top: top})
	require.NoError(s.w.t, err, "RECEIVE in transaction %d", s.id())
	return s.w.rows(rows)
}

// receiveAll receives until RECEIVE returns nothing and returns each statement's rows.
func (s *session) receiveAll(queue string) [][]ReceivedMessage {
	s.w.t.Helper()
	var all [][]ReceivedMessage
	for {
		rows, err := s.receive(queue, ReceiveOptions{})
		require.NoError(s.w.t, err)
		if len(rows) == 0 {
			return all
		}
		all = append(all, rows)
	}
}

func (s *session) getGroup(queue string, waitFor bool, timeout time.Duration) (ConversationGroupID, error) {
	g, err := s.tx.GetConversationGroup(s.w.now, s.w.queue(queue), waitFor, timeout)
	s.w.apply(s.inst)
	return g, err
}

func (s *session) mustGetGroup(queue string) ConversationGroupID {
	s.w.t.Helper()
	g, err := s.getGroup(queue, false, 0)
	require.NoError(s.w.t, err, "GET CONVERSATION GROUP in transaction %d", s.id())
	return g
}

func (s *session) send(h ConversationHandle, messageType string) error {
	err := s.tx.Send(s.w.now, h, s.w.messageType(messageType), 100)
	s.w.apply(s.inst)
	return err
}

func (s *session) end(h ConversationHandle, opts EndOptions) error {
	err := s.tx.EndConversation(s.w.now, h, opts)
	s.w.apply(s.inst)
	return err
}

func (s *session) timer(h ConversationHandle, timeout time.Duration) error {
	err := s.tx.BeginConversationTimer(s.w.now, h, timeout)
	s.w.apply(s.inst)
	return err
}

func (s *session) move(h ConversationHandle, to ConversationGroupID) error {
	err := s.tx.MoveConversation(s.w.now, h, to)
	s.w.apply(s.inst)
	return err
}

func (s *session) beginDialog(from, to string, opts BeginDialogOptions) (ConversationHandle, error) {
	h, err := s.tx.BeginDialog(s.w.now, s.w.service(from), s.w.name(to), s.w.contract("RequestReply"), opts)
	s.w.apply(s.inst)
	return h, err
}

func (s *session) save(name string) {
	require.NoError(s.w.t, s.tx.Save(s.w.now, name))
	s.w.apply(s.inst)
}

func (s *session) rollbackTo(name string) {
	require.NoError(s.w.t, s.tx.RollbackTo(s.w.now, name))
	s.w.apply(s.inst)
}

func (s *session) commit() {
	require.NoError(s.w.t, s.tx.Commit(s.w.now), "COMMIT of transaction %d", s.id())
	s.w.apply(s.inst)
}

func (s *session) rollback() {
	require.NoError(s.w.t, s.tx.Rollback(s.w.now), "ROLLBACK of transaction %d", s.id())
	s.w.apply(s.inst)
}

// result returns the rows of the statement that completed after waiting, as w.rows names
// them, and its group.
func (s *session) result() ([]string, ConversationGroupID) {
	rows, g, _ := s.tx.Result(nil)
	return s.w.rows(rows), g
}

// Reference: spec TXN-1, TXN-6 and G-31: a SEND in a transaction leaves nothing in the transmission
// queue and sends nothing until COMMIT, which gives it its sequence number; a rollback
// leaves nothing behind, and the next SEND takes the sequence number the rolled-back one
// would have had (no gap, INV-1).
func TestTXN1_G31_SendLeavesOnlyAtCommit(t *testing.T) {
	tests := []struct {
		name     string
		commit   bool
		txq      []SequenceNumber // transmission queue rows right after the transaction ended
		received []string         // on the target, after one more SEND in its own transaction
	}{
		{"commit", true, []SequenceNumber{0, 1}, []string{"Request#0", "Request#1", "Request#2"}},
		{"rollback", false, nil, []string{"Request#0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t)
			h, err := w.brokers[instA].BeginDialog(w.now, w.service("Initiator"), w.name("Target"), w.contract("RequestReply"), BeginDialogOptions{})
			w.apply(instA)
			require.NoError(t, err)

			s := w.beginTx()
			require.NoError(t, s.send(h, "Request"))
			require.NoError(t, s.send(h, "Request"))
			w.runUntil(w.now + time.Second)
			assert.Empty(t, w.brokers[instA].TransmissionQueue(), "no transmission queue row before the transaction ends")
			assert.Empty(t, w.sent, "no packet leaves before the transaction ends")
			assert.Empty(t, w.records(instA, TraceMessageSent), "no sequence number is taken before the transaction ends")
			ep, _ := w.brokers[instA].Endpoint(h)
			assert.Equal(t, SequenceNumber(0), ep.SendSequence)
			assert.Equal(t, "SO", ep.State.String(), "the first SEND moves SO to CO only when it commits")
			assert.Equal(t, []ConversationGroupID{ep.ConversationGroupID}, s.tx.Locks(), "SEND locks the conversation's group (LOCK-9)")

			if tt.commit {
				s.commit()
			} else {
				s.rollback()
			}
			var seqs []SequenceNumber
			for _, r := range w.brokers[instA].TransmissionQueue() {
				seqs = append(seqs, r.MessageSequenceNumber)
			}
			assert.Equal(t, tt.txq, seqs, "transmission queue")
			assert.Empty(t, s.tx.Locks(), "no lock outlives the transaction (LOCK-3)")

			w.sendN(h, 1)
			w.runUntil(w.now + time.Second)
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, tt.received, w.types(msgs))
		})
	}
}

// receiveQueue sets up LocalTargetQueue with three groups: high (level 9, two requests),
// shared (the Initiator dialogs first and second, level 5, three and two requests, second
// moved into first's group) and low (level 2, two requests and a DialogTimer, DLG-13). The
// messages of the different conversations are interleaved in queuing order.
func receiveQueue(w *txWorld) (high, first, second, low ConversationHandle) {
	w.t.Helper()
	_, high = w.local("high", "High", 1)
	_, first = w.local("first", "Initiator", 1)
	_, second = w.local("second", "Initiator", 1)
	lowI, low := w.local("low", "Low", 1)
	s := w.beginTx()
	require.NoError(w.t, s.move(second, w.groupOf(first)))
	require.NoError(w.t, s.timer(low, time.Millisecond))
	s.commit()
	w.sendN(lowI, 1)
	for _, h := range []ConversationHandle{first, high, second, first} {
		ep, _ := w.brokers[instA].Endpoint(h)
		init, _ := w.endpointOf(instA, ep.ConversationID, true)
		w.sendN(init.ConversationHandle, 1)
	}
	w.runUntil(w.now + time.Second) // the DialogTimer fires
	return high, first, second, low
}

// snapshot receives the whole queue in a transaction and rolls it back: every RECEIVE's rows,
// as they came.
func snapshot(w *txWorld, queue string) [][]ReceivedMessage {
	w.t.Helper()
	s := w.beginTx()
	all := s.receiveAll(queue)
	s.rollback()
	return all
}

// Reference: spec TXN-1 and INV-10: a rolled-back RECEIVE leaves the queue as it was: the
// same rows in the same receive order, with the same queuing_order, status and times, in the
// same groups at the same group priority, and no lock held.
func TestTXN1_RolledBackReceiveLeavesTheQueueAsItWas(t *testing.T) {
	tests := []struct {
		name    string
		receive func(s *session, high, first, second, low ConversationHandle)
	}{
		{"TOP(1) from each group", func(s *session, _, _, _, _ ConversationHandle) {
			for range 3 {
				_, err := s.receive("LocalTargetQueue", ReceiveOptions{Top: 1})
				require.NoError(t, err)
			}
		}},
		{"part of one conversation", func(s *session, _, first, _, _ ConversationHandle) {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: first, Top: 2})
			require.NoError(t, err)
		}},
		{"one conversation, then the rest of its group", func(s *session, _, _, second, _ ConversationHandle) {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: second})
			require.NoError(t, err)
			_, err = s.receive("LocalTargetQueue", ReceiveOptions{Group: s.w.groupOf(second)})
			require.NoError(t, err)
		}},
		{"the DialogTimer and one request", func(s *session, _, _, _, low ConversationHandle) {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: low, Top: 2})
			require.NoError(t, err)
		}},
		{"everything, some of it twice around a savepoint", func(s *session, _, _, _, _ ConversationHandle) {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Top: 1})
			require.NoError(t, err)
			s.save("s")
			s.receiveAll("LocalTargetQueue")
			s.rollbackTo("s")
			s.receiveAll("LocalTargetQueue")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t)
			high, first, second, low := receiveQueue(w)
			gs := []ConversationGroupID{w.groupOf(high), w.groupOf(first), w.groupOf(low)}
			var before []GroupInfo
			for _, g := range gs {
				before = append(before, w.group(g))
			}
			ready := w.brokers[instA].ReadyMessages(w.queue("LocalTargetQueue"))

			want := snapshot(w, "LocalTargetQueue")
			var names [][]string
			for _, rows := range want {
				names = append(names, w.rows(rows))
			}
			require.Equal(t, [][]string{
				{"high:Request#0", "high:Request#1"},
				{"first:Request#0", "first:Request#1", "first:Request#2", "second:Request#0", "second:Request#1"},
				{"low:DialogTimer#-1", "low:Request#0", "low:Request#1"},
			}, names, "the queue as the test set it up (PRI-9, DLG-13)")

			s := w.beginTx()
			tt.receive(s, high, first, second, low)
			s.rollback()

			assert.Empty(t, s.tx.Locks(), "the rollback released every lock (LOCK-3)")
			for i, g := range gs {
				assert.Equal(t, before[i], w.group(g), "group %v after the rollback", g)
			}
			assert.Equal(t, ready, w.brokers[instA].ReadyMessages(w.queue("LocalTargetQueue")))
			assert.Equal(t, want, snapshot(w, "LocalTargetQueue"), "every row back where it was, as it was")
		})
	}
}

// Reference: spec TXN-3 and LOCK-3: a rollback to a savepoint returns the received message
// to the queue, but the transaction keeps the group's lock: another transaction cannot
// receive the message meanwhile, and gets it once the first one ends.
func TestTXN3_SavepointRollbackKeepsTheGroupLock(t *testing.T) {
	w := newTxWorld(t)
	_, high := w.local("high", "High", 2)
	w.local("other", "Initiator", 1)
	g := w.groupOf(high)

	s1 := w.beginTx()
	s1.save("before")
	rows, err := s1.receive("LocalTargetQueue", ReceiveOptions{Top: 1})
	require.NoError(t, err)
	require.Equal(t, []string{"high:Request#0"}, w.rows(rows))
	s1.rollbackTo("before")

	assert.Equal(t, []ConversationGroupID{g}, s1.tx.Locks(), "the lock stays")
	info := w.group(g)
	assert.Equal(t, s1.id(), info.Holder)
	assert.Equal(t, 2, info.Ready, "the message is back on the queue")
	assert.Equal(t, PriorityLevel(9), info.Priority)

	s2 := w.beginTx()
	assert.Equal(t, []string{"other:Request#0"}, s2.mustReceive("LocalTargetQueue", 0), "RECEIVE skips the held group (LOCK-7)")
	_, err = s2.receive("LocalTargetQueue", ReceiveOptions{Group: g})
	assert.ErrorIs(t, err, ErrWaiting, "RECEIVE WHERE the held group waits for it (G-24)")

	again, err := s1.receive("LocalTargetQueue", ReceiveOptions{Top: 1})
	require.NoError(t, err)
	assert.Equal(t, rows, again, "the same row, unchanged")
	s1.commit()

	c, ok := w.completion(s2.id())
	require.True(t, ok, "the waiting RECEIVE goes on once the lock is released")
	assert.NoError(t, c.Err)
	got, _ := s2.result()
	assert.Equal(t, []string{"high:Request#1"}, got)
	s2.commit()
}

// Reference: spec QUE-8 and G-14: five consecutive rollbacks of transactions that received
// from a queue turn it OFF and raise Broker:Queue Disabled; a commit of such a transaction
// resets the count; rollbacks to a savepoint, and rollbacks of transactions whose RECEIVE
// returned nothing, do not count; POISON_MESSAGE_HANDLING (STATUS = OFF) keeps the queue ON.
//
// Steps: R receives a message and rolls back, C receives one and commits, E receives
// nothing (another transaction holds the only group) and rolls back, P rolls back to a
// savepoint five times (checking the queue is still ON) then receives and rolls back.
func TestQUE8_FiveRollbacksTurnTheQueueOff(t *testing.T) {
	tests := []struct {
		name     string
		poisonOn bool
		steps    string
		offAfter int // index of the step after which the queue is OFF; -1 never
	}{
		{"five consecutive rollbacks", true, "RRRRR", 4},
		{"a commit resets the count", true, "RRRRCRRRRR", 9},
		{"savepoint rollbacks do not count", true, "RRRRP", 4},
		{"empty receives do not count", true, "RRRREEER", 7},
		{"POISON_MESSAGE_HANDLING OFF", false, "RRRRRRRRRR", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const queue = "LocalTargetQueue"
			w := newTxWorld(t, Queue{Name: queue, PoisonMessageHandlingOff: !tt.poisonOn})
			_, target := w.local("d", "Initiator", 5)
			committed := 0 // requests received for good
			receiveOne := func(s *session) {
				require.Equal(t, []string{"d:Request#" + strconv.Itoa(committed)}, s.mustReceive(queue, 1))
			}
			for i, step := range tt.steps {
				s := w.beginTx()
				switch step {
				case 'R':
					receiveOne(s)
					s.rollback()
				case 'C':
					receiveOne(s)
					s.commit()
					committed++
				case 'E':
					holder := w.beginTx()
					require.Equal(t, w.groupOf(target), holder.mustGetGroup(queue))
					assert.Empty(t, s.mustReceive(queue, 0))
					s.rollback()
					holder.commit()
				case 'P':
					s.save("s")
					for range 5 {
						receiveOne(s)
						s.rollbackTo("s")
					}
					assert.Equal(t, QueueOn, w.queueStatus(queue), "step %d: savepoint rollbacks do not count", i)
					receiveOne(s)
					s.rollback()
				}
				if tt.offAfter >= 0 && i >= tt.offAfter {
					assert.Equal(t, QueueOff, w.queueStatus(queue), "after step %d", i)
				} else {
					assert.Equal(t, QueueOn, w.queueStatus(queue), "after step %d", i)
				}
				if i == tt.offAfter {
					assert.Equal(t, []QueueID{w.queue(queue)}, w.disabled, "the Broker:Queue Disabled event")
				}
			}
			if tt.offAfter < 0 {
				assert.Empty(t, w.disabled)
				assert.Zero(t, w.brokers[instA].Counters().PoisonDisables)
			}
		})
	}
}

// Reference: spec QUE-8 and G-14: a transaction that received from several queues counts
// against each of them.
func TestQUE8_EachQueueReceivedFromCounts(t *testing.T) {
	w := newTxWorld(t)
	_, target := w.local("d", "Initiator", 1)
	s := w.beginTx()
	require.NoError(t, s.send(target, "Reply"))
	s.commit()
	for i := range poisonRollbacks {
		require.Equal(t, QueueOn, w.queueStatus("LocalTargetQueue"), "before rollback %d", i)
		s := w.beginTx()
		assert.Equal(t, []string{"d:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
		assert.Equal(t, []string{"d:Reply#0"}, s.mustReceive("InitiatorQueue", 0))
		s.rollback()
	}
	assert.Equal(t, QueueOff, w.queueStatus("LocalTargetQueue"))
	assert.Equal(t, QueueOff, w.queueStatus("InitiatorQueue"))
	assert.ElementsMatch(t, []QueueID{w.queue("LocalTargetQueue"), w.queue("InitiatorQueue")}, w.disabled)
	assert.Equal(t, int64(2), w.brokers[instA].Counters().PoisonDisables)
}

// Reference: spec QUE-8 and G-14: once poison detection has turned a queue OFF and ALTER
// QUEUE has set it ON again, it takes five more consecutive rollbacks to turn it OFF.
func TestQUE8_ReenabledQueueCountsAfresh(t *testing.T) {
	w := newTxWorld(t)
	w.local("d", "Initiator", 1)
	rollback := func() {
		s := w.beginTx()
		require.Equal(t, []string{"d:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
		s.rollback()
	}
	for range poisonRollbacks {
		rollback()
	}
	require.Equal(t, QueueOff, w.queueStatus("LocalTargetQueue"))
	w.alterQueue("LocalTargetQueue", QueueOn)
	w.disabled = nil
	for i := range poisonRollbacks - 1 {
		rollback()
		assert.Equal(t, QueueOn, w.queueStatus("LocalTargetQueue"), "after rollback %d", i)
	}
	rollback()
	assert.Equal(t, QueueOff, w.queueStatus("LocalTargetQueue"))
	assert.Equal(t, []QueueID{w.queue("LocalTargetQueue")}, w.disabled)
}
