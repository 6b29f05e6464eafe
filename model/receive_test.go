package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// Reference: spec QUE-4, PRI-7, PRI-8 and QUE-5: each RECEIVE returns the messages of one
// group, the group of highest priority first, whatever the order the messages arrived in;
// GET CONVERSATION GROUP returns the groups in the same order, and nothing when none is
// left.
func TestQUE4_PRI7_OneGroupPerReceiveHighestPriorityFirst(t *testing.T) {
	setup := func(t *testing.T) (*txWorld, []ConversationGroupID) {
		w := newTxWorld(t)
		_, low := w.local("low", "Low", 2)
		_, mid := w.local("mid", "Initiator", 2)
		_, high := w.local("high", "High", 2)
		return w, []ConversationGroupID{w.groupOf(high), w.groupOf(mid), w.groupOf(low)}
	}
	t.Run("RECEIVE", func(t *testing.T) {
		w, gs := setup(t)
		for i, want := range [][]string{
			{"high:Request#0", "high:Request#1"},
			{"mid:Request#0", "mid:Request#1"},
			{"low:Request#0", "low:Request#1"},
			nil,
		} {
			msgs, err := w.brokers[instA].Receive(w.now, w.queue("LocalTargetQueue"), 0, nil)
			w.apply(instA)
			require.NoError(t, err)
			assert.Equal(t, want, w.rows(msgs), "RECEIVE %d", i)
			if i < len(gs) {
				assert.Equal(t, []ConversationGroupID{gs[i]}, groups(msgs), "RECEIVE %d", i)
			}
		}
	})
	t.Run("GET CONVERSATION GROUP", func(t *testing.T) {
		w, gs := setup(t)
		for i, want := range append(gs, 0) {
			s := w.beginTx()
			assert.Equal(t, want, s.mustGetGroup("LocalTargetQueue"), "GET CONVERSATION GROUP %d", i)
		}
	})
}

// Reference: spec G-22: between groups of equal priority, the one whose oldest ready row is
// the oldest goes first: the oldest ready row, not the oldest row ever.
func TestG22_EqualPrioritiesGoOldestReadyRowFirst(t *testing.T) {
	w := newTxWorld(t)
	a, _ := w.local("a", "Initiator", 1)
	w.local("b", "Initiator", 1)
	w.sendN(a, 1)
	b := w.brokers[instA]
	q := w.queue("LocalTargetQueue")
	for i, want := range [][]string{{"a:Request#0"}, {"b:Request#0"}, {"a:Request#1"}} {
		msgs, err := b.Receive(w.now, q, 1, nil)
		w.apply(instA)
		require.NoError(t, err)
		assert.Equal(t, want, w.rows(msgs), "RECEIVE TOP(1) %d", i)
	}
}

// levelGroup sets up LocalTargetQueue with one group holding four conversations, created in
// this order: low (level 2), second and first (level 5, second the older), high (9); each
// has two requests, sent in rounds.
func levelGroup(w *txWorld) ConversationGroupID {
	w.t.Helper()
	var initiators, targets []ConversationHandle
	for _, c := range []struct{ label, from string }{{"low", "Low"}, {"second", "Initiator"}, {"first", "Initiator"}, {"high", "High"}} {
		i, t := w.local(c.label, c.from, 1)
		initiators, targets = append(initiators, i), append(targets, t)
	}
	g := w.groupOf(targets[2])
	s := w.beginTx()
	for _, h := range targets {
		if w.groupOf(h) != g {
			require.NoError(w.t, s.move(h, g))
		}
	}
	s.commit()
	for _, h := range initiators {
		w.sendN(h, 1)
	}
	return g
}

// Reference: spec PRI-9 and G-22: inside the group, conversations come by descending level,
// each conversation's messages together and in sequence; conversations of one level come
// oldest ready row first. TOP(n) cuts that order, and the next RECEIVE orders again: a
// conversation cut short follows an equal one whose oldest ready row is now older.
func TestPRI9_ConversationsByLevelInsideAGroup(t *testing.T) {
	tests := []struct {
		top  int
		want [][]string
	}{
		{0, [][]string{{"high:Request#0", "high:Request#1", "second:Request#0", "second:Request#1",
			"first:Request#0", "first:Request#1", "low:Request#0", "low:Request#1"}}},
		{3, [][]string{{"high:Request#0", "high:Request#1", "second:Request#0"},
			{"first:Request#0", "first:Request#1", "second:Request#1"}, {"low:Request#0", "low:Request#1"}}},
		{1, [][]string{{"high:Request#0"}, {"high:Request#1"}, {"second:Request#0"}, {"first:Request#0"},
			{"second:Request#1"}, {"first:Request#1"}, {"low:Request#0"}, {"low:Request#1"}}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("TOP(%d)", tt.top), func(t *testing.T) {
			w := newTxWorld(t)
			g := levelGroup(w)
			assert.Equal(t, PriorityLevel(9), w.group(g).Priority)
			var got [][]string
			for {
				msgs, err := w.brokers[instA].Receive(w.now, w.queue("LocalTargetQueue"), tt.top, nil)
				w.apply(instA)
				require.NoError(t, err)
				if len(msgs) == 0 {
					break
				}
				got = append(got, w.rows(msgs))
				for _, m := range msgs {
					assert.Equal(t, g, m.ConversationGroupID)
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// refRow is a message of the reference model of RECEIVE.
type refRow struct {
	conv  int
	seq   SequenceNumber
	order int // arrival order: same-instance messages are enqueued as they commit
}

// referenceReceive is a plainly correct, slow RECEIVE TOP(top) without WHERE, with no lock
// held (PRI-7, PRI-9, G-22, G-25): it returns the rows taken, and what remains.
func referenceReceive(rows []refRow, group []ConversationGroupID, level []int, top int) (taken, rest []refRow) {
	type key struct{ level, oldest int }
	better := func(a, b key) bool { return a.level > b.level || (a.level == b.level && a.oldest < b.oldest) }
	keyOf := func(match func(r refRow) bool) (key, bool) {
		k, ok := key{}, false
		for _, r := range rows {
			if !match(r) {
				continue
			}
			if !ok || level[r.conv] > k.level {
				k.level = level[r.conv]
			}
			if !ok || r.order < k.oldest {
				k.oldest = r.order
			}
			ok = true
		}
		return k, ok
	}
	var best ConversationGroupID
	var bestKey key
	for _, r := range rows {
		g := group[r.conv]
		k, _ := keyOf(func(x refRow) bool { return group[x.conv] == g })
		if best == 0 || better(k, bestKey) {
			best, bestKey = g, k
		}
	}
	var in []refRow
	for _, r := range rows {
		if group[r.conv] == best {
			in = append(in, r)
		} else {
			rest = append(rest, r)
		}
	}
	slices.SortStableFunc(in, func(a, b refRow) int {
		ka, _ := keyOf(func(x refRow) bool { return x.conv == a.conv })
		kb, _ := keyOf(func(x refRow) bool { return x.conv == b.conv })
		return cmp.Or(cmp.Compare(kb.level, ka.level), cmp.Compare(ka.oldest, kb.oldest), cmp.Compare(a.seq, b.seq))
	})
	if top > 0 && top < len(in) {
		rest = append(rest, in[top:]...)
		in = in[:top]
	}
	slices.SortFunc(rest, func(a, b refRow) int { return cmp.Compare(a.order, b.order) })
	return in, rest
}

// Reference: spec PRI-7, PRI-9, G-22, G-25 and QUE-7: RECEIVE TOP(n) without WHERE, with
// sends and receives interleaved at random over conversations of levels 9, 5 and 2 spread
// over a few groups, returns exactly what a plainly correct reference sort returns.
func TestPRI9_ReceiveOrderMatchesAReferenceSort(t *testing.T) {
	seeds, steps := 30, 80
	if testing.Short() {
		seeds = 5
	}
	services := []string{"High", "Initiator", "Low"}
	levels := map[string]int{"High": 9, "Initiator": 5, "Low": 2}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			w := newTxWorld(t)
			q := w.queue("LocalTargetQueue")
			var initiators, targets []ConversationHandle
			var group []ConversationGroupID
			var level []int
			var next []SequenceNumber
			var pending []refRow
			order := 0
			n := 3 + rng.IntN(5)
			for c := range n {
				from := services[rng.IntN(len(services))]
				i, tg := w.local("c"+strconv.Itoa(c), from, 1)
				initiators, targets = append(initiators, i), append(targets, tg)
				level, next = append(level, levels[from]), append(next, 1)
				pending = append(pending, refRow{conv: c, seq: 0, order: order})
				order++
				if c > 0 && rng.IntN(2) == 0 { // join an earlier conversation's group
					s := w.beginTx()
					require.NoError(t, s.move(tg, w.groupOf(targets[rng.IntN(c)])))
					s.commit()
				}
			}
			for c := range n {
				group = append(group, w.groupOf(targets[c]))
				ep, _ := w.brokers[instA].Endpoint(targets[c])
				require.Equal(t, level[c], ep.Priority.Level(), "conversation %d", c)
			}
			receive := func(top int) {
				t.Helper()
				msgs, err := w.brokers[instA].Receive(w.now, q, top, nil)
				w.apply(instA)
				require.NoError(t, err)
				var taken []refRow
				taken, pending = referenceReceive(pending, group, level, top)
				var want []string
				for _, r := range taken {
					want = append(want, "c"+strconv.Itoa(r.conv)+":Request#"+strconv.Itoa(int(r.seq)))
				}
				require.Equal(t, want, w.rows(msgs), "RECEIVE TOP(%d) at step with %d rows pending", top, len(pending)+len(taken))
			}
			for range steps {
				if rng.IntN(5) < 3 {
					c := rng.IntN(n)
					w.sendN(initiators[c], 1)
					pending = append(pending, refRow{conv: c, seq: next[c], order: order})
					next[c]++
					order++
					continue
				}
				receive(rng.IntN(4))
			}
			for len(pending) > 0 {
				receive(rng.IntN(4))
			}
			receive(0)
		})
	}
}

// Reference: spec PRI-7 and G-25: a group's priority is the highest level among its
// conversations that have ready (status 1) rows: a higher conversation of the group whose
// rows were all received, or whose rows are not complete yet (status 2), does not count.
func TestG25_GroupPriorityCountsOnlyReadyRows(t *testing.T) {
	t.Run("the higher conversation's rows were received", func(t *testing.T) {
		w := newTxWorld(t)
		_, low := w.local("low", "Low", 1)
		_, high := w.local("high", "High", 1)
		w.local("mid", "Initiator", 1)
		g := w.groupOf(high)
		s := w.beginTx()
		require.NoError(t, s.move(low, g))
		s.commit()
		assert.Equal(t, PriorityLevel(9), w.group(g).Priority)

		msgs, err := w.brokers[instA].Receive(w.now, w.queue("LocalTargetQueue"), 1, nil)
		w.apply(instA)
		require.NoError(t, err)
		require.Equal(t, []string{"high:Request#0"}, w.rows(msgs))
		assert.Equal(t, PriorityLevel(2), w.group(g).Priority, "only low has ready rows")
		assert.Equal(t, GroupInfo{ID: g, Queue: w.queue("LocalTargetQueue"), Service: w.service("LocalTarget"),
			Conversations: 2, Ready: 1, Priority: 2}, w.group(g))

		s = w.beginTx()
		assert.Equal(t, []string{"mid:Request#0"}, s.mustReceive("LocalTargetQueue", 0), "level 5 before level 2")
		assert.Equal(t, []string{"low:Request#0"}, s.mustReceive("LocalTargetQueue", 0))
		s.commit()
	})
	t.Run("the higher conversation's rows are incomplete", func(t *testing.T) {
		w := newTxWorld(t)
		_, low := w.dialog("low", "Low", "Target", 1)
		highI, high := w.dialog("high", "High", "Target", 1)
		w.dialog("mid", "Initiator", "Target", 1)
		b := w.brokers[instB]
		g := w.groupOf(high)
		s := w.beginTxOn(instB)
		rows, err := s.receive("TargetQueue", ReceiveOptions{Handle: high})
		require.NoError(t, err)
		require.Equal(t, []string{"high:Request#0"}, w.rows(rows))
		require.NoError(t, s.move(low, g))
		s.commit()

		w.filter = dropFromA(1) // request 1 of high is lost once: request 2 is held (status 2)
		w.sendN(highI, 2)
		w.runUntil(w.now + 100*time.Millisecond)
		ep, _ := b.Endpoint(high)
		require.Equal(t, 1, ep.HeldFragments, "request 2 waits for request 1")
		info, ok := b.Group(g)
		require.True(t, ok)
		assert.Equal(t, PriorityLevel(2), info.Priority, "only low has ready rows")

		s = w.beginTxOn(instB)
		assert.Equal(t, []string{"mid:Request#0"}, s.mustReceive("TargetQueue", 0), "level 5 before level 2")
		s.commit()
		w.runUntil(w.now + time.Minute) // request 1 is retried
		info, _ = b.Group(g)
		assert.Equal(t, PriorityLevel(9), info.Priority, "high's rows are complete")
		msgs, err := w.receiveAll("TargetQueue")
		require.NoError(t, err)
		assert.Equal(t, []string{"high:Request#1", "high:Request#2", "low:Request#0"}, w.rows(msgs))
	})
}

// Reference: spec PRI-10: RECEIVE has no starvation prevention. A RECEIVE takes the whole
// group, the higher conversation first and then the lower one's whole backlog, and holds
// the group to the end of its transaction, even as new higher messages arrive; and while a
// higher group keeps getting messages, a lower group's older message waits.
func TestPRI10_NoStarvationPrevention(t *testing.T) {
	t.Run("the highest group keeps being served", func(t *testing.T) {
		w := newTxWorld(t)
		w.local("low", "Low", 1)
		highI, _ := w.local("high", "High", 1)
		b := w.brokers[instA]
		for i := range 6 {
			msgs, err := b.Receive(w.now, w.queue("LocalTargetQueue"), 1, nil)
			w.apply(instA)
			require.NoError(t, err)
			assert.Equal(t, []string{"high:Request#" + strconv.Itoa(i)}, w.rows(msgs))
			if i < 5 {
				w.sendN(highI, 1)
			}
		}
		msgs, err := b.Receive(w.now, w.queue("LocalTargetQueue"), 1, nil)
		w.apply(instA)
		require.NoError(t, err)
		assert.Equal(t, []string{"low:Request#0"}, w.rows(msgs), "its turn comes only when the higher group is empty")
	})
	t.Run("a RECEIVE drains the lower conversation of its group", func(t *testing.T) {
		w := newTxWorld(t)
		_, low := w.local("low", "Low", 3)
		highI, high := w.local("high", "High", 1)
		g := w.groupOf(high)
		s := w.beginTx()
		require.NoError(t, s.move(low, g))
		s.commit()

		s = w.beginTx()
		assert.Equal(t, []string{"high:Request#0", "low:Request#0", "low:Request#1", "low:Request#2"},
			s.mustReceive("LocalTargetQueue", 0))
		w.sendN(highI, 1)
		other := w.beginTx()
		assert.Empty(t, other.mustReceive("LocalTargetQueue", 0), "the new high message waits behind the lock")
		s.commit()
		assert.Equal(t, []string{"high:Request#1"}, other.mustReceive("LocalTargetQueue", 0))
		other.commit()
	})
}

// Reference: spec DLG-13: within a conversation a DialogTimer is received before any other
// message, an Error before any other but a DialogTimer, whenever they arrive; an EndDialog
// in arrival order.
func TestDLG13_SystemMessagesOrder(t *testing.T) {
	tests := []struct {
		steps string // T: the target's timer fires, E: the initiator ends, X: it ends with an error, S: one more request
		want  []string
	}{
		{"E", []string{"Request#0", "Request#1", "EndDialog#2"}},
		{"X", []string{"Error#2", "Request#0", "Request#1"}},
		{"T", []string{"DialogTimer#-1", "Request#0", "Request#1"}},
		{"TS", []string{"DialogTimer#-1", "Request#0", "Request#1", "Request#2"}},
		{"TE", []string{"DialogTimer#-1", "Request#0", "Request#1", "EndDialog#2"}},
		{"ET", []string{"DialogTimer#-1", "Request#0", "Request#1", "EndDialog#2"}},
		{"XT", []string{"DialogTimer#-1", "Error#2", "Request#0", "Request#1"}},
		{"TX", []string{"DialogTimer#-1", "Error#2", "Request#0", "Request#1"}},
	}
	for _, tt := range tests {
		t.Run(tt.steps, func(t *testing.T) {
			w := newTxWorld(t)
			initiator, target := w.local("d", "Initiator", 2)
			for _, step := range tt.steps {
				switch step {
				case 'T':
					s := w.beginTx()
					require.NoError(t, s.timer(target, time.Millisecond))
					s.commit()
				case 'E':
					require.NoError(t, w.end(instA, initiator, EndOptions{}))
				case 'X':
					require.NoError(t, w.end(instA, initiator, EndOptions{WithError: true, ErrorCode: 1}))
				case 'S':
					w.sendN(initiator, 1)
				}
				w.runUntil(w.now + time.Second)
			}
			msgs, err := w.receiveAll("LocalTargetQueue")
			require.NoError(t, err)
			assert.Equal(t, tt.want, w.types(msgs))
		})
	}
}

// Reference: spec QUE-4: WHERE conversation_handle returns only that conversation's
// messages, WHERE conversation_group_id only that group's, whatever their priority.
func TestQUE4_WhereNamesTheConversationOrGroup(t *testing.T) {
	w := newTxWorld(t)
	w.local("high", "High", 1)
	_, a := w.local("a", "Initiator", 2)
	_, b := w.local("b", "Initiator", 1)
	_, low := w.local("low", "Low", 1)
	s := w.beginTx()
	require.NoError(t, s.move(b, w.groupOf(a)))
	s.commit()

	s = w.beginTx()
	rows, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: b})
	require.NoError(t, err)
	assert.Equal(t, []string{"b:Request#0"}, w.rows(rows), "only that conversation, not the rest of its group")
	rows, err = s.receive("LocalTargetQueue", ReceiveOptions{Group: w.groupOf(low)})
	require.NoError(t, err)
	assert.Equal(t, []string{"low:Request#0"}, w.rows(rows))
	rows, err = s.receive("LocalTargetQueue", ReceiveOptions{Group: w.groupOf(a), Top: 1})
	require.NoError(t, err)
	assert.Equal(t, []string{"a:Request#0"}, w.rows(rows))
	assert.Equal(t, []ConversationGroupID{w.groupOf(a), w.groupOf(low)}, s.tx.Locks())
	s.commit()
}

// Reference: spec QUE-4: RECEIVE WHERE a handle or group that does not exist, or is not on
// the queue, fails; so does a handle ended earlier in the transaction (DLG-11).
func TestQUE4_WhereUnknownHandleOrGroupFails(t *testing.T) {
	w := newTxWorld(t)
	initiator, target := w.local("d", "Initiator", 1)
	tests := []struct {
		name   string
		opts   ReceiveOptions
		endFst bool
		want   error
	}{
		{"a handle that never existed", ReceiveOptions{Handle: 0xdead}, false, ErrHandleNotFound},
		{"a group that never existed", ReceiveOptions{Group: 0xdead}, false, ErrGroupNotFound},
		{"a handle of another queue", ReceiveOptions{Handle: initiator}, false, ErrHandleNotFound},
		{"a group of another queue", ReceiveOptions{Group: w.groupOf(initiator)}, false, ErrGroupNotFound},
		{"a handle ended in the transaction", ReceiveOptions{Handle: target}, true, ErrHandleNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := w.beginTx()
			if tt.endFst {
				require.NoError(t, s.end(tt.opts.Handle, EndOptions{}))
			}
			rows, err := s.receive("LocalTargetQueue", tt.opts)
			assert.ErrorIs(t, err, tt.want)
			assert.Empty(t, rows)
			assert.False(t, s.tx.Waiting())
			s.rollback()
		})
	}
	s := w.beginTx()
	_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: target, Group: w.groupOf(target)})
	assert.Error(t, err, "a handle and a group")
	s.rollback()
}

// Reference: spec QUE-4 and QUE-5: with WAITFOR and nothing to receive, RECEIVE and GET
// CONVERSATION GROUP wait; when TIMEOUT runs out they return nothing, hold no lock, and the
// transaction goes on.
func TestQUE4_WaitForTimesOut(t *testing.T) {
	for _, gcg := range []bool{false, true} {
		t.Run(fmt.Sprintf("GET CONVERSATION GROUP %v", gcg), func(t *testing.T) {
			w := newTxWorld(t)
			w.runUntil(time.Second)
			s := w.beginTx()
			var err error
			if gcg {
				_, err = s.getGroup("LocalTargetQueue", true, 2*time.Second)
			} else {
				_, err = s.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: 2 * time.Second})
			}
			require.ErrorIs(t, err, ErrWaiting)
			w.runUntil(3*time.Second - time.Nanosecond)
			assert.Empty(t, w.completed)
			w.runUntil(3 * time.Second)
			c, ok := w.completion(s.id())
			require.True(t, ok, "the time-out ends the wait")
			assert.NoError(t, c.Err, "a time-out is an empty result, not an error")
			rows, g := s.result()
			assert.Empty(t, rows)
			assert.Zero(t, g)
			assert.Empty(t, s.tx.Locks())
			assert.False(t, s.tx.Waiting())
			assert.Empty(t, s.mustReceive("LocalTargetQueue", 0))
			s.commit()
		})
	}
}

// Reference: spec QUE-4 and QUE-5: a session waiting in RECEIVE or GET CONVERSATION GROUP
// WAITFOR goes on when a message arrives, holding the message's group; waiting sessions are
// served first come, first served, one group each.
func TestQUE4_WaitForWakesWhenAMessageArrives(t *testing.T) {
	w := newTxWorld(t)
	aI, a := w.local("a", "Initiator", 1)
	bI, b := w.local("b", "Initiator", 1)
	drain := w.beginTx()
	drain.receiveAll("LocalTargetQueue")
	drain.commit()

	s1, s2, s3 := w.beginTx(), w.beginTx(), w.beginTx()
	_, err := s1.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)
	_, err = s2.getGroup("LocalTargetQueue", true, time.Hour)
	require.ErrorIs(t, err, ErrWaiting)
	_, err = s3.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
	require.ErrorIs(t, err, ErrWaiting)

	w.runUntil(w.now + time.Minute)
	w.sendN(bI, 2) // the second joins the group s1 holds by then (LOCK-5)
	assert.Equal(t, []TxID{s1.id()}, w.takeCompleted())
	rows, _ := s1.result()
	assert.Equal(t, []string{"b:Request#1"}, rows, "the statement ended with the first arrival")
	assert.Equal(t, 1, w.group(w.groupOf(b)).Ready)
	assert.Equal(t, []ConversationGroupID{w.groupOf(b)}, s1.tx.Locks())

	w.sendN(aI, 1)
	assert.Equal(t, []TxID{s2.id()}, w.takeCompleted())
	_, g := s2.result()
	assert.Equal(t, w.groupOf(a), g)
	assert.Equal(t, []ConversationGroupID{g}, s2.tx.Locks())
	assert.True(t, s3.tx.Waiting(), "both groups are held")

	s1.rollback()
	assert.Equal(t, []TxID{s3.id()}, w.takeCompleted(), "the rollback made b's messages receivable again")
	rows, _ = s3.result()
	assert.Equal(t, []string{"b:Request#1", "b:Request#2"}, rows)
	s2.commit()
	s3.commit()
	w.runUntil(w.now + 2*time.Hour)
	assert.Empty(t, w.completed, "the GET CONVERSATION GROUP time-out timer does nothing any more")
}

// Reference: spec LOCK-7: RECEIVE without WHERE skips the groups other transactions hold,
// even of higher priority; a group the transaction itself holds stays eligible, in its
// place in the priority order.
func TestLOCK7_ReceiveSkipsGroupsLockedByOthers(t *testing.T) {
	w := newTxWorld(t)
	w.local("a", "Initiator", 1)
	w.local("high", "High", 2)

	s1 := w.beginTx()
	assert.Equal(t, []string{"high:Request#0"}, s1.mustReceive("LocalTargetQueue", 1))
	s2 := w.beginTx()
	assert.Equal(t, []string{"a:Request#0"}, s2.mustReceive("LocalTargetQueue", 0), "the held high group is skipped")
	assert.Empty(t, s2.mustReceive("LocalTargetQueue", 0))
	assert.Equal(t, []string{"high:Request#1"}, s1.mustReceive("LocalTargetQueue", 0), "its own group is eligible")
	s1.commit()
	s2.commit()
}

// Reference: spec LOCK-8 and QUE-5: GET CONVERSATION GROUP locks the group it returns, to
// the end of the transaction; successive calls, each followed by a RECEIVE of the group,
// lock several groups; messages arriving meanwhile wait for the commit.
func TestLOCK8_GetConversationGroupLocksWhatItReturns(t *testing.T) {
	w := newTxWorld(t)
	var initiators []ConversationHandle
	var gs []ConversationGroupID
	for _, c := range []struct{ label, from string }{{"high", "High"}, {"mid", "Initiator"}, {"low", "Low"}} {
		i, tg := w.local(c.label, c.from, 1)
		initiators, gs = append(initiators, i), append(gs, w.groupOf(tg))
	}

	s := w.beginTx()
	for i, want := range gs {
		g := s.mustGetGroup("LocalTargetQueue")
		require.Equal(t, want, g, "GET CONVERSATION GROUP %d", i)
		assert.Equal(t, s.id(), w.group(g).Holder)
		rows, err := s.receive("LocalTargetQueue", ReceiveOptions{Group: g})
		require.NoError(t, err)
		assert.Len(t, rows, 1)
	}
	assert.Equal(t, gs, s.tx.Locks())
	assert.Zero(t, s.mustGetGroup("LocalTargetQueue"), "no group has messages")

	for _, h := range initiators {
		w.sendN(h, 1)
	}
	other := w.beginTx()
	assert.Zero(t, other.mustGetGroup("LocalTargetQueue"), "every group with messages is held")
	s.commit()
	assert.Equal(t, gs[0], other.mustGetGroup("LocalTargetQueue"))
	other.commit()
}

// Reference: spec LOCK-8 ("successive GET CONVERSATION GROUP calls in one transaction may
// lock several groups"): without a RECEIVE in between, each call returns the next group no
// transaction holds, highest priority first, so a transaction can lock several groups
// before it receives from any.
func TestLOCK8_SuccessiveGetConversationGroupCallsLockSeveralGroups(t *testing.T) {
	w := newTxWorld(t)
	var gs []ConversationGroupID
	for _, c := range []struct{ label, from string }{{"high", "High"}, {"mid", "Initiator"}, {"low", "Low"}} {
		_, tg := w.local(c.label, c.from, 2)
		gs = append(gs, w.groupOf(tg))
	}
	s := w.beginTx()
	for i, want := range gs {
		assert.Equal(t, want, s.mustGetGroup("LocalTargetQueue"), "GET CONVERSATION GROUP %d", i)
	}
	assert.Equal(t, gs, s.tx.Locks())
	assert.Zero(t, s.mustGetGroup("LocalTargetQueue"), "every group with messages is held, by this transaction")
	rows, err := s.receive("LocalTargetQueue", ReceiveOptions{})
	require.NoError(t, err)
	assert.Len(t, rows, 2, "RECEIVE without WHERE still takes a group the transaction holds (LOCK-7)")
	s.commit()
}

// Reference: spec QUE-1: on a queue with STATUS = OFF, RECEIVE and GET CONVERSATION GROUP
// fail at once, WAITFOR or not, and take no lock.
func TestQUE1_OffQueueRefusesReceive(t *testing.T) {
	w := newTxWorld(t)
	_, target := w.local("d", "Initiator", 1)
	w.alterQueue("LocalTargetQueue", QueueOff)
	tests := []struct {
		name string
		run  func(s *session) error
	}{
		{"RECEIVE", func(s *session) error { _, err := s.receive("LocalTargetQueue", ReceiveOptions{}); return err }},
		{"RECEIVE WAITFOR", func(s *session) error {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
			return err
		}},
		{"RECEIVE WHERE conversation_handle", func(s *session) error {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: target})
			return err
		}},
		{"RECEIVE WHERE conversation_group_id", func(s *session) error {
			_, err := s.receive("LocalTargetQueue", ReceiveOptions{Group: w.groupOf(target)})
			return err
		}},
		{"GET CONVERSATION GROUP", func(s *session) error { _, err := s.getGroup("LocalTargetQueue", false, 0); return err }},
		{"GET CONVERSATION GROUP WAITFOR", func(s *session) error {
			_, err := s.getGroup("LocalTargetQueue", true, -1)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := w.beginTx()
			assert.ErrorIs(t, tt.run(s), ErrQueueDisabled)
			assert.False(t, s.tx.Waiting())
			assert.Empty(t, s.tx.Locks())
			s.rollback()
		})
	}
	w.alterQueue("LocalTargetQueue", QueueOn)
	msgs, err := w.receiveAll("LocalTargetQueue")
	require.NoError(t, err)
	assert.Equal(t, []string{"d:Request#0"}, w.rows(msgs), "the message was kept")
}

// Reference: spec QUE-1: a session waiting in RECEIVE or GET CONVERSATION GROUP WAITFOR gets
// the error at once when the queue is set OFF, by ALTER QUEUE or by poison detection (QUE-8).
func TestQUE1_WaitingReceiveFailsWhenTheQueueGoesOff(t *testing.T) {
	receiveWaitFor := func(s *session, _ ConversationHandle) error {
		_, err := s.receive("LocalTargetQueue", ReceiveOptions{WaitFor: true, Timeout: -1})
		return err
	}
	receiveWhereWaitFor := func(s *session, idle ConversationHandle) error {
		_, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: idle, WaitFor: true, Timeout: -1})
		return err
	}
	getGroupWaitFor := func(s *session, _ ConversationHandle) error {
		_, err := s.getGroup("LocalTargetQueue", true, -1)
		return err
	}
	tests := []struct {
		name   string
		wait   func(s *session, idle ConversationHandle) error
		poison bool // five rollbacks turn the queue OFF, rather than ALTER QUEUE
	}{
		{"RECEIVE WAITFOR", receiveWaitFor, false},
		{"RECEIVE WHERE conversation_handle WAITFOR", receiveWhereWaitFor, false},
		{"GET CONVERSATION GROUP WAITFOR", getGroupWaitFor, false},
		// A session waiting without WHERE would take the rolled-back messages.
		{"RECEIVE WHERE conversation_handle WAITFOR, poison detection", receiveWhereWaitFor, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t)
			_, busy := w.local("busy", "Initiator", 1)
			_, idle := w.local("idle", "Initiator", 1)
			s := w.beginTx()
			require.NoError(t, s.mustReceiveFrom(idle))
			s.commit()
			holder := w.beginTx() // holds busy's group: the waiting session finds nothing
			require.Equal(t, w.groupOf(busy), holder.mustGetGroup("LocalTargetQueue"))

			waiting := w.beginTx()
			require.ErrorIs(t, tt.wait(waiting, idle), ErrWaiting)
			if tt.poison {
				holder.rollback() // it received nothing: it does not count
				for i := range poisonRollbacks {
					require.True(t, waiting.tx.Waiting(), "rollback %d", i)
					r := w.beginTx()
					require.NoError(t, r.mustReceiveFrom(busy))
					r.rollback()
				}
				require.Equal(t, QueueOff, w.queueStatus("LocalTargetQueue"))
			} else {
				w.alterQueue("LocalTargetQueue", QueueOff)
				holder.rollback()
			}
			c, ok := w.completion(waiting.id())
			require.True(t, ok, "the waiting statement ends at once")
			assert.ErrorIs(t, c.Err, ErrQueueDisabled)
			assert.False(t, waiting.tx.Waiting())
			waiting.rollback()
		})
	}
}

// mustReceiveFrom receives the conversation's messages, and reports an error if there were
// none.
func (s *session) mustReceiveFrom(h ConversationHandle) error {
	rows, err := s.receive("LocalTargetQueue", ReceiveOptions{Handle: h})
	if err == nil && len(rows) == 0 {
		err = fmt.Errorf("nothing to receive on %v", h)
	}
	return err
}

// Reference: spec QUE-2 and QUE-3: RECEIVE returns status 1 rows and deletes them; with
// RETENTION = ON the rows it returns show status 0 and are never received twice. The model
// keeps no retained rows (status 0 or 3) in the queue: only what RECEIVE returns is checked.
func TestQUE3_RetentionShowsStatus0(t *testing.T) {
	for _, retention := range []bool{false, true} {
		t.Run(fmt.Sprintf("RETENTION %v", retention), func(t *testing.T) {
			w := newTxWorld(t, Queue{Name: "LocalTargetQueue", Retention: retention})
			w.local("d", "Initiator", 2)
			want := uint8(1)
			if retention {
				want = 0
			}
			s := w.beginTx()
			rows, err := s.receive("LocalTargetQueue", ReceiveOptions{})
			require.NoError(t, err)
			s.rollback()
			again, err := w.receiveAll("LocalTargetQueue")
			require.NoError(t, err)
			assert.Equal(t, rows, again, "a rollback returns the rows as they were")
			require.Len(t, again, 2)
			for _, r := range again {
				assert.Equal(t, want, r.Status)
			}
			assert.Zero(t, w.brokers[instA].ReadyMessages(w.queue("LocalTargetQueue")))
			msgs, err := w.receiveAll("LocalTargetQueue")
			require.NoError(t, err)
			assert.Empty(t, msgs, "a message is never received twice")
		})
	}
}
