package model

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The paired assertion on conversation group locks (STYLE.md §5, LOCK-6): a lock is
// checked when it is taken and again when it is released. Each case calls a check on a
// group that a transaction holds, or on a free one, in a way the model never does.
func TestGroupLockAssertionsFireOnACorruptedState(t *testing.T) {
	tests := []struct {
		name  string
		check func(now time.Duration, holder, other, ended *Tx, held, free *group)
		want  string // the panic, with %v for the groups and %d for the transactions; "" for none
	}{
		{"a lock taken while free and released by its holder", func(now time.Duration, holder, other, _ *Tx, held, free *group) {
			checkAcquire(now, other, free)
			checkRelease(now, holder, held)
		}, ""},
		{"a lock taken while another transaction holds it", func(now time.Duration, _, other, _ *Tx, held, _ *group) {
			checkAcquire(now, other, held)
		}, "conversation group {held} locked by transaction {holder}, taken by transaction {other} at t=50ms"},
		{"a lock taken twice by its holder", func(now time.Duration, holder, _, _ *Tx, held, _ *group) {
			checkAcquire(now, holder, held)
		}, "conversation group {held} locked twice by transaction {holder} at t=50ms"},
		{"a lock taken by a transaction that has ended", func(now time.Duration, _, _, ended *Tx, _, free *group) {
			checkAcquire(now, ended, free)
		}, "conversation group {free} taken by transaction {ended}, which has ended, at t=50ms"},
		{"a lock released by a transaction that does not hold it", func(now time.Duration, _, other, _ *Tx, held, _ *group) {
			checkRelease(now, other, held)
		}, "conversation group {held} locked by transaction {holder}, released by transaction {other} at t=50ms"},
		{"a lock released that is free", func(now time.Duration, holder, _, _ *Tx, _, free *group) {
			checkRelease(now, holder, free)
		}, "conversation group {free} released by transaction {holder}, but it is not locked, at t=50ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t)
			_, a := w.local("a", "Initiator", 1)
			_, b := w.local("b", "Initiator", 1)
			s := w.beginTx()
			require.Len(t, s.mustReceive("LocalTargetQueue", 1), 1)
			require.Len(t, s.tx.Locks(), 1, "the RECEIVE locked one group")
			held := w.brokers[instA].groups[s.tx.Locks()[0]]
			free := w.brokers[instA].groups[w.groupOf(b)]
			if held == free {
				free = w.brokers[instA].groups[w.groupOf(a)]
			}
			require.Nil(t, free.holder, "the other group is free")
			other := w.beginTx()
			ended := w.beginTx()
			ended.commit()

			got := panicOf(func() { tt.check(50*time.Millisecond, s.tx, other.tx, ended.tx, held, free) })

			if tt.want == "" {
				assert.Empty(t, got, tt.name)
				return
			}
			want := tt.want
			for k, v := range map[string]string{"{held}": held.id.String(), "{free}": free.id.String(),
				"{holder}": fmt.Sprint(s.id()), "{other}": fmt.Sprint(other.id()), "{ended}": fmt.Sprint(ended.id())} {
				want = strings.ReplaceAll(want, k, v)
			}
			assert.Equal(t, "model: "+want, got, tt.name)
		})
	}
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
