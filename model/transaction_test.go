package model

import (
	"fmt"
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
	h, err := w.brokers[i].BeginDialog(w.now, w.service(from), w.service(to), w.contract("RequestReply"), BeginDialogOptions{})
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
	h, err := s.tx.BeginDialog(s.w.now, s.w.service(from), s.w.service(to), s.w.contract("RequestReply"), opts)
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

// groups lists the groups of received rows.
func groups(msgs []ReceivedMessage) []ConversationGroupID {
	var out []ConversationGroupID
	for _, m := range msgs {
		if !slices.Contains(out, m.ConversationGroupID) {
			out = append(out, m.ConversationGroupID)
		}
	}
	return out
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
			h, err := w.brokers[instA].BeginDialog(w.now, w.service("Initiator"), w.service("Target"), w.contract("RequestReply"), BeginDialogOptions{})
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

// Reference: spec LOCK-1, LOCK-3, LOCK-6 and LOCK-7: a RECEIVE's group lock, exclusive on the
// group's messages, lasts until its
// transaction ends, not until the statement ends: meanwhile another transaction's RECEIVE
// skips the group, and GET CONVERSATION GROUP finds nothing.
func TestLOCK3_LocksLastUntilTheTransactionEnds(t *testing.T) {
	tests := []struct {
		name   string
		commit bool
		after  []string
	}{
		{"commit", true, []string{"high:Request#1", "high:Request#2"}},
		{"rollback", false, []string{"high:Request#0", "high:Request#1", "high:Request#2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t)
			_, high := w.local("high", "High", 3)
			g := w.groupOf(high)

			s1 := w.beginTx()
			require.Equal(t, []string{"high:Request#0"}, s1.mustReceive("LocalTargetQueue", 1))
			assert.Equal(t, []ConversationGroupID{g}, s1.tx.Locks())
			assert.Equal(t, s1.id(), w.group(g).Holder, "the statement has ended, the lock stays")

			s2 := w.beginTx()
			assert.Empty(t, s2.mustReceive("LocalTargetQueue", 0), "the group is held by another transaction")
			assert.Zero(t, s2.mustGetGroup("LocalTargetQueue"))
			assert.False(t, s2.tx.Waiting(), "RECEIVE and GET CONVERSATION GROUP without WHERE never wait for a lock (G-24)")
			assert.Empty(t, s2.tx.Locks())

			if tt.commit {
				s1.commit()
			} else {
				s1.rollback()
			}
			assert.Empty(t, s1.tx.Locks())
			assert.Zero(t, w.group(g).Holder)
			assert.Equal(t, tt.after, s2.mustReceive("LocalTargetQueue", 0))
			assert.Equal(t, []ConversationGroupID{g}, s2.tx.Locks())
			s2.commit()
		})
	}
}

// Reference: spec LOCK-4: locks are per side. With both services in one database of one
// instance, the initiator and the target endpoint of a dialog are in different groups, and
// a transaction holding one side's group never blocks statements on the other side.
func TestLOCK4_TheSidesOfADialogLockApart(t *testing.T) {
	w := newTxWorld(t)
	initiator, target := w.local("d", "Initiator", 1)
	gi, gt := w.groupOf(initiator), w.groupOf(target)
	require.NotEqual(t, gi, gt, "each side has its own group")

	ts := w.beginTx() // the target side
	require.Equal(t, []string{"d:Request#0"}, ts.mustReceive("LocalTargetQueue", 0))
	require.NoError(t, ts.send(target, "Reply"))

	is := w.beginTx() // the initiator side, while the target side holds its group
	require.NoError(t, is.send(initiator, "Request"))
	require.NoError(t, is.timer(initiator, time.Hour))
	assert.Equal(t, []ConversationGroupID{gi}, is.tx.Locks())
	is.commit()
	assert.Equal(t, 1, w.group(gt).Ready, "the request joined the held target group (LOCK-5)")
	ts.commit()

	is = w.beginTx()
	assert.Equal(t, []string{"d:Reply#0"}, is.mustReceive("InitiatorQueue", 0))
	ts = w.beginTx() // the target side, while the initiator side holds its group
	assert.Equal(t, []string{"d:Request#1"}, ts.mustReceive("LocalTargetQueue", 0))
	require.NoError(t, ts.send(target, "Reply"))
	require.NoError(t, ts.end(target, EndOptions{}))
	ts.commit()
	is.commit()

	assert.Empty(t, w.completed, "nothing waited")
	assert.Empty(t, w.records(instA, TraceLockWait), "nothing waited")
}

// Reference: spec LOCK-12: a transaction that uses only the identifiers Service Broker gave
// it in the same transaction never waits for a group lock, even while other transactions
// want the same group: RECEIVE returns a conversation, and SEND, BEGIN CONVERSATION TIMER
// and END CONVERSATION on that handle, and RECEIVE WHERE its group, go on at once.
func TestLOCK12_IdentifiersFromTheTransactionNeverWait(t *testing.T) {
	w := newTxWorld(t)
	_, target := w.local("d", "Initiator", 3)
	s1 := w.beginTx()
	rows, err := s1.receive("LocalTargetQueue", ReceiveOptions{Top: 1})
	require.NoError(t, err)
	require.Len(t, rows, 1)
	h, g := rows[0].ConversationHandle, rows[0].ConversationGroupID
	require.Equal(t, target, h)

	s2 := w.beginTx()
	require.ErrorIs(t, s2.send(h, "Reply"), ErrWaiting, "another transaction waits for the group")

	require.NoError(t, s1.send(h, "Reply"))
	require.NoError(t, s1.timer(h, time.Minute))
	more, err := s1.receive("LocalTargetQueue", ReceiveOptions{Group: g})
	require.NoError(t, err)
	assert.Len(t, more, 2)
	require.NoError(t, s1.end(h, EndOptions{}))
	assert.False(t, s1.tx.Waiting())
	s1.commit()
	assert.Equal(t, []TxID{s2.id()}, w.takeCompleted(), "the other gets the group once s1 ends")
	s2.rollback()
}

// Reference: spec LOCK-5: enqueueing takes no lock: messages arriving for a locked group join
// it, the holder's next RECEIVE gets them (a RECEIVE WAITFOR of the holder wakes for them),
// and other transactions do not.
func TestLOCK5_ArrivalsJoinALockedGroup(t *testing.T) {
	w := newTxWorld(t)
	initiator, target := w.local("d", "Initiator", 1)
	g := w.groupOf(target)

	s1 := w.beginTx()
	require.Equal(t, []string{"d:Request#0"}, s1.mustReceive("LocalTargetQueue", 0))
	w.sendN(initiator, 2)
	info := w.group(g)
	assert.Equal(t, 2, info.Ready)
	assert.Equal(t, s1.id(), info.Holder)

	s2 := w.beginTx()
	assert.Empty(t, s2.mustReceive("LocalTargetQueue", 0))
	assert.Equal(t, []string{"d:Request#1", "d:Request#2"}, s1.mustReceive("LocalTargetQueue", 0))

	_, err := s1.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	_, err = s2.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	w.runUntil(w.now + time.Second)
	w.sendN(initiator, 1)
	assert.Equal(t, []TxID{s1.id()}, w.takeCompleted(), "the holder wakes, the other still waits")
	rows, _ := s1.result()
	assert.Equal(t, []string{"d:Request#3"}, rows)
	assert.True(t, s2.tx.Waiting())
	s1.commit()
	s2.rollback()
}

// Reference: spec LOCK-2, LOCK-9, LOCK-10, LOCK-11 and QUE-4: SEND, END CONVERSATION, BEGIN
// CONVERSATION TIMER, BEGIN DIALOG with a related conversation or group, MOVE CONVERSATION
// (both groups) and RECEIVE WHERE lock their groups until the transaction ends. With the
// group free they go on at once; with it held by another transaction they wait (G-24) and
// go on, holding the lock, once it is released.
func TestLOCK9_LOCK10_LOCK11_StatementsTakeGroupLocks(t *testing.T) {
	type handles struct {
		target, other ConversationHandle // target is in the group the test contends for
		group, otherG ConversationGroupID
	}
	tests := []struct {
		name  string
		run   func(s *session, h handles) error
		locks func(h handles) []ConversationGroupID
	}{
		{"SEND", func(s *session, h handles) error { return s.send(h.target, "Reply") }, nil},
		{"END CONVERSATION", func(s *session, h handles) error { return s.end(h.target, EndOptions{}) }, nil},
		{"BEGIN CONVERSATION TIMER", func(s *session, h handles) error { return s.timer(h.target, time.Hour) }, nil},
		{"BEGIN DIALOG RELATED_CONVERSATION", func(s *session, h handles) error {
			_, err := s.beginDialog("LocalTarget", "Target", BeginDialogOptions{RelatedConversation: h.target})
			return err
		}, nil},
		{"BEGIN DIALOG RELATED_CONVERSATION_GROUP", func(s *session, h handles) error {
			_, err := s.beginDialog("LocalTarget", "Target", BeginDialogOptions{RelatedConversationGroup: h.group})
			return err
		}, nil},
		{"MOVE CONVERSATION into the group", func(s *session, h handles) error { return s.move(h.other, h.group) },
			func(h handles) []ConversationGroupID { return []ConversationGroupID{h.otherG, h.group} }},
		{"MOVE CONVERSATION out of the group", func(s *session, h handles) error { return s.move(h.target, h.otherG) },
			func(h handles) []ConversationGroupID { return []ConversationGroupID{h.group, h.otherG} }},
		{"RECEIVE WHERE conversation_handle", func(s *session, h handles) error {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: h.target})
			return err
		}, nil},
		{"RECEIVE WHERE conversation_group_id", func(s *session, h handles) error {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Group: h.group})
			return err
		}, nil},
	}
	setup := func(t *testing.T) (*txWorld, handles) {
		w := newTxWorld(t)
		_, target := w.local("d", "Initiator", 1)
		_, other := w.local("e", "Initiator", 1)
		return w, handles{target: target, other: other, group: w.groupOf(target), otherG: w.groupOf(other)}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("group free", func(t *testing.T) {
				w, h := setup(t)
				want := []ConversationGroupID{h.group}
				if tt.locks != nil {
					want = tt.locks(h)
				}
				s := w.beginTx()
				require.NoError(t, tt.run(s, h))
				assert.Equal(t, want, s.tx.Locks())
				for _, g := range want {
					assert.Equal(t, s.id(), w.group(g).Holder, "group %v", g)
				}
				s.commit()
				assert.Empty(t, s.tx.Locks())
			})
			t.Run("group held", func(t *testing.T) {
				w, h := setup(t)
				want := []ConversationGroupID{h.group}
				if tt.locks != nil {
					want = tt.locks(h)
				}
				holder := w.beginTx()
				require.Equal(t, h.group, holder.mustGetGroup("LocalTargetQueue"))

				s := w.beginTx()
				require.ErrorIs(t, tt.run(s, h), ErrWaiting)
				assert.True(t, s.tx.Waiting())
				assert.Equal(t, 1, w.group(h.group).Waiting)
				assert.ErrorIs(t, s.send(h.other, "Reply"), ErrStatementPending, "one statement at a time")
				assert.ErrorIs(t, s.tx.Commit(w.now), ErrStatementPending)
				w.runUntil(w.now + time.Hour)
				assert.Empty(t, w.completed, "no lock time-out by default (G-24)")

				holder.commit()
				c, ok := w.completion(s.id())
				require.True(t, ok, "the statement completes when the lock is released")
				assert.NoError(t, c.Err)
				assert.False(t, s.tx.Waiting())
				assert.Equal(t, want, s.tx.Locks())
				assert.Equal(t, s.id(), w.group(h.group).Holder)
				s.commit()
			})
		})
	}
}

// Reference: spec LOCK-9: SEND locks each target conversation's group, one by one.
func TestLOCK9_SendLocksEachConversationsGroup(t *testing.T) {
	w := newTxWorld(t)
	a, _ := w.local("a", "Initiator", 1)
	b, _ := w.local("b", "Initiator", 1)
	s := w.beginTx()
	require.NoError(t, s.send(a, "Request"))
	require.NoError(t, s.send(b, "Request"))
	require.NoError(t, s.send(a, "Request"))
	assert.Equal(t, []ConversationGroupID{w.groupOf(a), w.groupOf(b)}, s.tx.Locks())
	s.commit()
}

// Reference: spec G-24: the statements waiting for a group get it first come, first served,
// one at a time.
func TestG24_LockWaitsAreFirstComeFirstServed(t *testing.T) {
	w := newTxWorld(t)
	_, target := w.local("d", "Initiator", 1)
	g := w.groupOf(target)
	holder := w.beginTx()
	require.Equal(t, g, holder.mustGetGroup("LocalTargetQueue"))

	s2, s3, s4 := w.beginTx(), w.beginTx(), w.beginTx()
	require.ErrorIs(t, s2.send(target, "Reply"), ErrWaiting)
	require.ErrorIs(t, s3.end(target, EndOptions{}), ErrWaiting)
	_, err := s4.receive("LocalTargetQueue", ReceiveOptions{Handle: target})
	require.ErrorIs(t, err, ErrWaiting)
	assert.Equal(t, 3, w.group(g).Waiting)

	holder.commit()
	assert.Equal(t, []TxID{s2.id()}, w.takeCompleted())
	s2.commit()
	assert.Equal(t, []TxID{s3.id()}, w.takeCompleted())
	s3.rollback()
	assert.Equal(t, []TxID{s4.id()}, w.takeCompleted())
	rows, _ := s4.result()
	assert.Equal(t, []string{"d:Request#0"}, rows, "the END rolled back: the request is still there")
	s4.commit()

	msgs, err := w.receiveAll("InitiatorQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"Reply#0"}, w.types(msgs), "s2's reply left at its commit")
}

// Reference: spec G-24 (SET LOCK_TIMEOUT): a statement that waits longer than the lock
// time-out fails with error 1222; the transaction goes on without it. A WAITFOR that runs
// out first ends the wait with an empty result.
func TestG24_LockTimeout(t *testing.T) {
	tests := []struct {
		name        string
		lockTimeout time.Duration
		waitFor     time.Duration // RECEIVE WHERE ... WAITFOR instead of SEND when positive
		wantErr     error
		at          time.Duration
	}{
		{"SET LOCK_TIMEOUT 0", 0, 0, ErrLockTimeout, 0},
		{"SET LOCK_TIMEOUT 100 ms", 100 * time.Millisecond, 0, ErrLockTimeout, 100 * time.Millisecond},
		{"WAITFOR runs out before the lock time-out", time.Second, 200 * time.Millisecond, nil, 200 * time.Millisecond},
		{"the lock time-out runs out before WAITFOR", 300 * time.Millisecond, time.Second, ErrLockTimeout, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t) // everything at time 0
			_, target := w.local("d", "Initiator", 1)
			_, other := w.local("e", "Initiator", 1)
			g := w.groupOf(target)
			holder := w.beginTx()
			require.Equal(t, g, holder.mustGetGroup("LocalTargetQueue"))

			s := w.beginTx()
			s.tx.SetLockTimeout(tt.lockTimeout)
			var err error
			if tt.waitFor > 0 {
				_, err = s.receive("LocalTargetQueue", ReceiveOptions{Group: g, WaitFor: true, Timeout: tt.waitFor})
			} else {
				err = s.send(target, "Reply")
			}
			require.ErrorIs(t, err, ErrWaiting)
			if tt.at > 0 {
				w.runUntil(tt.at - time.Nanosecond)
				assert.Empty(t, w.completed, "still waiting just before the time-out")
			}
			w.runUntil(tt.at)
			c, ok := w.completion(s.id())
			require.True(t, ok, "the time-out ends the wait")
			if tt.wantErr != nil {
				assert.ErrorIs(t, c.Err, tt.wantErr)
			} else {
				assert.NoError(t, c.Err)
				rows, _ := s.result()
				assert.Empty(t, rows, "WAITFOR ran out: an empty result")
			}
			assert.False(t, s.tx.Waiting())
			assert.False(t, s.tx.Done(), "a time-out does not end the transaction")
			assert.Zero(t, w.group(g).Waiting)
			assert.Equal(t, holder.id(), w.group(g).Holder)
			require.NoError(t, s.send(other, "Reply"), "the transaction goes on")
			s.commit()
			holder.commit()
		})
	}
}

// Reference: spec G-24: a wait that closes a cycle (T1 holds g1 and wants g2, T2 holds g2
// and wants g1) is detected at once, whichever transaction closes it; the youngest
// transaction is the victim: it is rolled back (its received rows return) and its statement
// fails with error 1205; the other goes on. The waits complete within the statement that
// closed the cycle (ErrWaiting, then Effects.Completed).
func TestG24_DeadlockRollsBackTheYoungest(t *testing.T) {
	for _, olderCloses := range []bool{false, true} {
		t.Run(fmt.Sprintf("the older transaction closes the cycle: %v", olderCloses), func(t *testing.T) {
			w := newTxWorld(t)
			_, t1 := w.local("d1", "Initiator", 1)
			_, t2 := w.local("d2", "Initiator", 1)
			g1, g2 := w.groupOf(t1), w.groupOf(t2)
			older := w.beginTx()
			w.runUntil(w.now + time.Millisecond)
			younger := w.beginTx()
			_, err := older.receive("LocalTargetQueue", ReceiveOptions{Group: g1})
			require.NoError(t, err)
			_, err = younger.receive("LocalTargetQueue", ReceiveOptions{Group: g2})
			require.NoError(t, err)

			if olderCloses {
				require.ErrorIs(t, younger.send(t1, "Reply"), ErrWaiting)
				require.Empty(t, w.completed)
				require.ErrorIs(t, older.send(t2, "Reply"), ErrWaiting)
			} else {
				require.ErrorIs(t, older.send(t2, "Reply"), ErrWaiting)
				require.Empty(t, w.completed)
				require.ErrorIs(t, younger.send(t1, "Reply"), ErrWaiting)
			}

			c, ok := w.completion(younger.id())
			require.True(t, ok, "the victim is told at once")
			assert.ErrorIs(t, c.Err, ErrDeadlockVictim)
			assert.True(t, younger.tx.Done(), "the victim is rolled back")
			assert.ErrorIs(t, younger.tx.Commit(w.now), ErrTransactionEnded)
			c, ok = w.completion(older.id())
			require.True(t, ok, "the other goes on at once")
			assert.NoError(t, c.Err)
			assert.Equal(t, []ConversationGroupID{g1, g2}, older.tx.Locks())
			assert.Equal(t, int64(1), w.brokers[instA].Counters().Deadlocks)
			assert.Equal(t, 1, w.group(g2).Ready, "the victim's received row is back")

			got, err := older.receive("LocalTargetQueue", ReceiveOptions{Group: g2})
			require.NoError(t, err)
			assert.Equal(t, []string{"d2:Request#0"}, w.rows(got))
			older.commit()
			msgs, err := w.receiveAll("InitiatorQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"d2:Reply#0"}, w.rows(msgs), "only the survivor's reply left")
		})
	}
}

// Reference: spec DLG-2: RELATED_CONVERSATION must name an existing, live dialog; the
// statement fails otherwise, and with a conversation of another service.
func TestDLG2_RelatedConversationMustExist(t *testing.T) {
	w := newTxWorld(t)
	initiator, target := w.local("d", "Initiator", 1)
	closing, _ := w.local("closing", "Initiator", 1)
	require.NoError(t, w.end(instA, closing, EndOptions{}))
	soH, err := w.brokers[instA].BeginDialog(w.now, w.service("Initiator"), w.service("Target"), w.contract("RequestReply"), BeginDialogOptions{})
	w.apply(instA)
	require.NoError(t, err)
	require.NoError(t, w.end(instA, soH, EndOptions{}))

	tests := []struct {
		name    string
		from    string
		related ConversationHandle
		want    error
	}{
		{"a handle that never existed", "Initiator", ConversationHandle(0xdead), ErrRelatedConversation},
		{"an ended conversation", "Initiator", closing, ErrRelatedConversation},
		{"a conversation ended from SO", "Initiator", soH, ErrRelatedConversation},
		{"a conversation of another service", "LocalTarget", initiator, ErrGroupOfOtherService},
		{"a live conversation of the service", "Initiator", initiator, nil},
		{"the target side's conversation", "LocalTarget", target, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := w.beginTx()
			h, err := s.beginDialog(tt.from, "Target", BeginDialogOptions{RelatedConversation: tt.related})
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
				assert.Zero(t, h)
			} else {
				require.NoError(t, err)
				assert.Equal(t, w.groupOf(tt.related), w.groupOf(h), "the new dialog joins the related one's group")
			}
			s.rollback()
		})
	}
}

// Reference: spec DLG-2 and DLG-15: RELATED_CONVERSATION_GROUP naming a group that does not
// exist creates it with that id (undone by a rollback); a group id stays valid until the
// last of its conversations has ended, and then is gone.
func TestDLG2_DLG15_NewRelatedGroupLivesUntilItsLastConversationEnds(t *testing.T) {
	w := newTxWorld(t)
	const id = ConversationGroupID(0xabc)
	b := w.brokers[instA]

	s := w.beginTx()
	_, err := s.beginDialog("Initiator", "LocalTarget", BeginDialogOptions{RelatedConversationGroup: id})
	require.NoError(t, err)
	assert.Equal(t, []ConversationGroupID{id}, s.tx.Locks())
	s.rollback()
	_, ok := b.Group(id)
	assert.False(t, ok, "the rollback removed the group it created")

	s = w.beginTx()
	h1, err := s.beginDialog("Initiator", "LocalTarget", BeginDialogOptions{RelatedConversationGroup: id})
	require.NoError(t, err)
	h2, err := s.beginDialog("Initiator", "Target", BeginDialogOptions{RelatedConversation: h1})
	require.NoError(t, err)
	s.commit()
	info := w.group(id)
	assert.Equal(t, GroupInfo{ID: id, Queue: w.queue("InitiatorQueue"), Service: w.service("Initiator"), Conversations: 2}, info)
	assert.Equal(t, id, w.groupOf(h2))
	_, err = w.brokers[instA].BeginDialog(w.now, w.service("LocalTarget"), w.service("Target"), w.contract("RequestReply"),
		BeginDialogOptions{RelatedConversationGroup: id})
	w.apply(instA)
	assert.ErrorIs(t, err, ErrGroupOfOtherService, "a group holds the conversations of one service (DLG-2)")

	w.sendN(h1, 1)
	require.NoError(t, w.end(instA, h1, EndOptions{}))
	assert.Equal(t, 1, w.group(id).Conversations, "the group lives on with one conversation")

	s = w.beginTx()
	require.NoError(t, s.end(h2, EndOptions{}))
	assert.Equal(t, 1, w.group(id).Conversations, "END takes effect at commit")
	s.commit()
	_, ok = b.Group(id)
	assert.False(t, ok, "the last conversation ended: the id is gone")

	h3 := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{RelatedConversationGroup: id})
	assert.Equal(t, id, w.groupOf(h3), "the id can name a new group")
}

// dialogTimers returns the conversation timers armed and not yet fired.
func (w *txWorld) dialogTimers() []time.Duration {
	var at []time.Duration
	for _, p := range w.pending {
		if p.timer != nil && p.timer.Kind == TimerDialog {
			at = append(at, p.at)
		}
	}
	return at
}

// Reference: spec DLG-14: BEGIN CONVERSATION TIMER takes effect when its transaction commits
// (G-31; the time-out counts from the commit); on expiry a DialogTimer message goes on this
// side's queue only, never to the far side, and the queue is signalled (it can activate).
func TestDLG14_ConversationTimerStartsAtCommit(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprintf("commit %v", commit), func(t *testing.T) {
			w := newTxWorld(t)
			initiator, _ := w.dialog("d", "Initiator", "Target", 1) // the far side is instance B
			s := w.beginTx()
			require.NoError(t, s.timer(initiator, time.Second))
			assert.Empty(t, w.dialogTimers(), "no timer before the commit")
			w.runUntil(w.now + 500*time.Millisecond)
			committedAt := w.now
			sent := len(w.sent)
			w.ready = nil
			if !commit {
				s.rollback()
				w.runUntil(w.now + time.Hour)
				msgs, err := w.receiveAll("InitiatorQueue")
				require.NoError(t, err)
				assert.Empty(t, msgs, "a rolled-back timer never fires")
				return
			}
			s.commit()
			assert.Equal(t, []time.Duration{committedAt + time.Second}, w.dialogTimers())
			w.runUntil(committedAt + time.Second - time.Nanosecond)
			assert.Zero(t, w.brokers[instA].ReadyMessages(w.queue("InitiatorQueue")))
			w.runUntil(committedAt + time.Second)
			assert.Equal(t, []QueueID{w.queue("InitiatorQueue")}, w.ready, "the queue is signalled")
			w.runUntil(w.now + time.Minute)
			assert.Equal(t, sent, len(w.sent), "nothing is sent to the far side")
			msgs, err := w.receiveAll("InitiatorQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"d:DialogTimer#-1"}, w.rows(msgs))
			assert.Equal(t, committedAt+time.Second, msgs[0].EnqueuedAt)
			far, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Equal(t, []string{"d:Request#0"}, w.rows(far), "the far side gets no DialogTimer")
		})
	}
}

// Reference: spec DLG-14: an endpoint has one conversation timer; BEGIN CONVERSATION TIMER
// again replaces it, and only the last one set fires.
func TestDLG14_ResettingReplacesTheTimer(t *testing.T) {
	w := newTxWorld(t)
	_, target := w.local("d", "Initiator", 1)
	start := w.now
	s := w.beginTx()
	require.NoError(t, s.timer(target, time.Second))
	s.commit()
	w.runUntil(start + 500*time.Millisecond)
	s = w.beginTx()
	require.NoError(t, s.timer(target, 2*time.Second))
	s.commit()

	w.runUntil(start + 2*time.Second)
	assert.Equal(t, 1, w.brokers[instA].ReadyMessages(w.queue("LocalTargetQueue")), "the first timer was replaced")
	w.runUntil(start + time.Hour)
	msgs, err := w.receiveAll("LocalTargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"d:DialogTimer#-1", "d:Request#0"}, w.rows(msgs))
	require.Len(t, msgs, 2)
	assert.Equal(t, start+2500*time.Millisecond, msgs[0].EnqueuedAt)
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

// Reference: spec G-24 and TXN-1: the deadlock victim's rollback returns its received rows
// at once: a session waiting in RECEIVE WAITFOR gets the group nobody waits for.
func TestG24_DeadlockVictimsRowsWakeWaitingReceivers(t *testing.T) {
	w := newTxWorld(t)
	_, t1 := w.local("d1", "Initiator", 1)
	_, t2 := w.local("d2", "Initiator", 1)
	_, t3 := w.local("d3", "Initiator", 1)
	g1, g2, g3 := w.groupOf(t1), w.groupOf(t2), w.groupOf(t3)
	older, younger := w.beginTx(), w.beginTx()
	_, err := older.receive("LocalTargetQueue", ReceiveOptions{Group: g1})
	require.NoError(t, err)
	_, err = younger.receive("LocalTargetQueue", ReceiveOptions{Group: g2})
	require.NoError(t, err)
	_, err = younger.receive("LocalTargetQueue", ReceiveOptions{Group: g3})
	require.NoError(t, err)
	waiting := w.beginTx()
	_, err = waiting.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)

	require.ErrorIs(t, older.send(t2, "Reply"), ErrWaiting)
	require.ErrorIs(t, younger.send(t1, "Reply"), ErrWaiting)
	c, ok := w.completion(younger.id())
	require.True(t, ok)
	require.ErrorIs(t, c.Err, ErrDeadlockVictim)
	_, ok = w.completion(waiting.id())
	require.True(t, ok, "the waiting RECEIVE goes on within the statement that chose the victim")
	rows, _ := waiting.result()
	assert.Equal(t, []string{"d3:Request#0"}, rows)
	assert.Equal(t, []ConversationGroupID{g3}, waiting.tx.Locks())
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
