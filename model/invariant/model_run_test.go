package invariant

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// modelRun drives one broker by hand, with every dialog between its own services, and
// hands each trace record to a checker as the broker emits it.
type modelRun struct {
	t      *testing.T
	b      *model.Broker
	cat    *model.Catalog
	c      *Checker
	now    time.Duration
	timers []model.Timer
	kinds  map[model.TraceKind]int
	// activations holds the tasks the broker asked to start, in order; the test runs them.
	activations []model.ActivationStart
	// trace holds every record handed to the checker, in order.
	trace []model.TraceRecord
	// multiConversation counts RECEIVE results that held rows of several conversations.
	multiConversation int
	last              model.TraceRecord
}

func newModelRun(t *testing.T) *modelRun {
	t.Helper()
	services := func(names ...string) []model.Service {
		var out []model.Service
		for _, n := range names {
			out = append(out, model.Service{Name: n, Queue: "Q" + n, Contracts: []string{"Exchange"}})
		}
		return out
	}
	cat, err := model.Compile([]model.Instance{{Name: "I", Databases: []model.Database{{
		Name:         "db",
		MessageTypes: []model.MessageType{{Name: "Request"}},
		Contracts:    []model.Contract{{Name: "Exchange", Messages: []model.ContractMessage{{MessageType: "Request", SentBy: model.SentByAny}}}},
		Queues:       []model.Queue{{Name: "QA"}, {Name: "QB"}, {Name: "QC"}},
		Services:     services("A", "B", "C"),
		// A's dialogs with B get level 8 at A, those with C level 3.
		Priorities: []model.BrokerPriority{{Name: "AB", LocalService: "A", RemoteService: "B", Level: 8},
			{Name: "AC", LocalService: "A", RemoteService: "C", Level: 3}},
	}}}})
	require.NoError(t, err)
	return newModelRunOf(t, cat)
}

// newModelRunOf drives the broker of instance 0 of cat.
func newModelRunOf(t *testing.T, cat *model.Catalog) *modelRun {
	t.Helper()
	b, err := model.NewBroker(cat, 0, model.DefaultConfig())
	require.NoError(t, err)
	b.SetTracing(true)
	r := &modelRun{t: t, b: b, cat: cat, c: New(), kinds: map[model.TraceKind]int{}}
	t.Cleanup(func() {
		if v := r.c.Violation(); v != nil {
			t.Errorf("the checker flagged the model: %v", v)
		}
	})
	return r
}

func (r *modelRun) service(name string) model.ServiceID {
	id, ok := r.cat.Service(name)
	require.True(r.t, ok, name)
	return id
}

func (r *modelRun) queue(service string) model.QueueID {
	return r.cat.Services[r.service(service)].Queue
}

func (r *modelRun) request() model.MessageTypeID {
	mt, ok := r.cat.MessageType("Request")
	require.True(r.t, ok)
	return mt
}

// settle hands the broker's trace to the checker, keeps its timers, and fires those due by
// now, oldest first, until none is due.
func (r *modelRun) settle() {
	for {
		e := r.b.Effects()
		require.Empty(r.t, e.Transmit, "every dialog is local")
		for _, rec := range e.Trace {
			r.kinds[rec.Kind]++
			if rec.Kind == model.TraceMessageReceived && r.last.Kind == model.TraceMessageReceived &&
				rec.Statement == r.last.Statement && rec.Conversation != r.last.Conversation {
				r.multiConversation++
			}
			r.last = rec
			r.trace = append(r.trace, rec)
			r.c.Observe(rec)
		}
		r.timers = append(r.timers, e.Timers...)
		r.activations = append(r.activations, e.Activations...)
		r.b.Advance()
		slices.SortStableFunc(r.timers, func(a, b model.Timer) int { return int(a.At - b.At) })
		if len(r.timers) == 0 || r.timers[0].At > r.now {
			return
		}
		due := r.timers[0]
		r.timers = r.timers[1:]
		r.b.TimerFired(due.At, due)
	}
}

// at moves the clock to ms milliseconds, firing the timers due.
func (r *modelRun) at(ms int) time.Duration {
	r.now = time.Duration(ms) * time.Millisecond
	r.settle()
	return r.now
}

// receive runs RECEIVE in tx and returns its rows.
func (r *modelRun) receive(tx *model.Tx, service string, opts model.ReceiveOptions) []model.ReceivedMessage {
	rows, err := tx.Receive(r.now, r.queue(service), opts, nil)
	require.NoError(r.t, err)
	r.settle()
	return rows
}

func sequences(rows []model.ReceivedMessage) []model.SequenceNumber {
	var out []model.SequenceNumber
	for _, m := range rows {
		out = append(out, m.MessageSequenceNumber)
	}
	return out
}

// TestCheckerAcceptsTheModelsTransactions runs the checker over the model's own trace of
// savepoint rollbacks, full rollbacks, re-receives by another transaction, a RECEIVE over
// conversations of two levels with a DialogTimer, lock waits and a deadlock: the model
// follows the rules, so the checker must stay quiet.
// Reference: spec INV-1, INV-4, INV-5, INV-6, INV-10, LOCK-3, LOCK-7, PRI-9, DLG-13, TXN-1, TXN-3.
func TestCheckerAcceptsTheModelsTransactions(t *testing.T) {
	r := newModelRun(t)
	b, req := r.b, r.request()
	exchange, ok := r.cat.Contract("Exchange")
	require.True(t, ok)
	const groupAtA = model.ConversationGroupID(77)

	// A begins a dialog with B and one with C, in one group, and sends three requests on each.
	toB, err := b.BeginDialog(r.at(1), r.service("A"), r.cat.NameOf(r.service("B")), exchange, model.BeginDialogOptions{RelatedConversationGroup: groupAtA})
	require.NoError(t, err)
	toC, err := b.BeginDialog(r.at(2), r.service("A"), r.cat.NameOf(r.service("C")), exchange, model.BeginDialogOptions{RelatedConversationGroup: groupAtA})
	require.NoError(t, err)
	for i := range 3 {
		require.NoError(t, b.Send(r.at(3+i), toB, req, 10))
		require.NoError(t, b.Send(r.at(3+i), toC, req, 10))
	}
	r.at(10)

	// B: a savepoint rollback, then a full rollback; then another transaction takes all.
	tx := b.Begin(r.at(11))
	assert.Equal(t, []model.SequenceNumber{0}, sequences(r.receive(tx, "B", model.ReceiveOptions{Top: 1})))
	require.NoError(t, tx.Save(r.now, "s"))
	assert.Equal(t, []model.SequenceNumber{1, 2}, sequences(r.receive(tx, "B", model.ReceiveOptions{})))
	require.NoError(t, tx.RollbackTo(r.at(12), "s"))
	r.settle()
	assert.Equal(t, []model.SequenceNumber{1}, sequences(r.receive(tx, "B", model.ReceiveOptions{Top: 1})))
	require.NoError(t, tx.Rollback(r.at(13)))
	r.settle()
	other := b.Begin(r.at(14))
	rows := r.receive(other, "B", model.ReceiveOptions{})
	require.Equal(t, []model.SequenceNumber{0, 1, 2}, sequences(rows))
	atB := rows[0].ConversationHandle
	require.NoError(t, other.Commit(r.at(15)))
	rows, err = b.Receive(r.at(16), r.queue("C"), 0, nil)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	atC := rows[0].ConversationHandle

	// B and C reply twice each; A's timer on its dialog with C fires. One RECEIVE at A
	// returns the level-8 conversation first, then the level-3 one, its DialogTimer first.
	for i := range 2 {
		require.NoError(t, b.Send(r.at(17+i), atB, req, 10))
		require.NoError(t, b.Send(r.at(17+i), atC, req, 10))
	}
	timer := b.Begin(r.at(19))
	require.NoError(t, timer.BeginConversationTimer(r.now, toC, time.Millisecond))
	require.NoError(t, timer.Commit(r.now))
	r.at(25)
	atA := b.Begin(r.at(26))
	rows = r.receive(atA, "A", model.ReceiveOptions{})
	require.Len(t, rows, 5)
	assert.Equal(t, model.DialogTimerMessageType, rows[2].MessageType, "rows %v", rows)
	require.NoError(t, atA.Commit(r.at(27)))

	// Two transactions take B's and C's groups, then each waits for the other's: the
	// younger is the deadlock victim, and the elder goes on once it is rolled back.
	elder, younger := b.Begin(r.at(30)), b.Begin(r.at(30))
	require.NoError(t, elder.Send(r.now, atB, req, 10))
	require.NoError(t, younger.Send(r.now, atC, req, 10))
	r.settle()
	assert.ErrorIs(t, elder.Send(r.at(31), atC, req, 10), model.ErrWaiting)
	r.settle()
	assert.ErrorIs(t, younger.Send(r.at(32), atB, req, 10), model.ErrWaiting, "its outcome comes as a completion")
	r.settle()
	assert.True(t, younger.Done(), "the younger transaction is the deadlock victim")
	require.NoError(t, elder.Commit(r.at(33)))
	r.settle()

	// A takes the two replies in one transaction and commits; everything was delivered.
	last := b.Begin(r.at(40))
	rows = r.receive(last, "A", model.ReceiveOptions{})
	assert.Len(t, rows, 2)
	require.NoError(t, last.Commit(r.at(41)))
	r.settle()
	r.at(100)

	assert.Nil(t, r.c.Violation())
	for _, k := range []model.TraceKind{model.TraceSavepointRolledBack, model.TraceMessageReturned, model.TraceTxRolledBack,
		model.TraceLockWait, model.TraceDeadlock} {
		assert.Positive(t, r.kinds[k], "the run traced no %v", k)
	}
	assert.Positive(t, r.multiConversation, "no RECEIVE returned several conversations")
}
