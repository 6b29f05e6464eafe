package invariant

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

const conv = model.ConversationID(9)

// Records of one direction (initiator to target) of dialog conv.
func sent(seq model.SequenceNumber, frags int32) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceMessageSent, Conversation: conv, FromInitiator: true, Sequence: seq, Fragments: frags, MessageType: 4}
}
func stored(seq model.SequenceNumber, frag int32) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceFragmentStored, Conversation: conv, FromInitiator: true, Sequence: seq, Fragment: frag}
}
func ready(seq model.SequenceNumber) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceMessageReady, Conversation: conv, FromInitiator: true, Sequence: seq, MessageType: 4}
}
func held(seq model.SequenceNumber) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceMessageHeld, Conversation: conv, FromInitiator: true, Sequence: seq, MessageType: 4}
}
func readyError(seq model.SequenceNumber) model.TraceRecord {
	r := ready(seq)
	r.MessageType = model.ErrorMessageType
	return r
}
func removed(seq model.SequenceNumber, reason model.Reason) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceRowRemoved, Conversation: conv, FromInitiator: true, Sequence: seq, Reason: reason}
}
func discarded(seq model.SequenceNumber, reason model.Reason) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceFragmentDiscarded, Conversation: conv, FromInitiator: true, Sequence: seq, Reason: reason}
}
func targetState(s model.EndpointState) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceStateChanged, Conversation: conv, FromInitiator: false, To: s}
}

func created(level model.PriorityLevel) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceStateChanged, Conversation: conv, FromInitiator: true, To: model.StartedOutbound, Priority: level}
}

// forwarded is instance 7 passing fragment 0 of message 0 on (RTE-5).
func forwarded(level model.PriorityLevel, effective, best uint8) model.TraceRecord {
	return model.TraceRecord{Instance: 7, Kind: model.TraceForwarded, Conversation: conv, FromInitiator: true, Priority: level,
		Effective: effective, BestWaiting: best}
}

func atInstance(i model.InstanceID, r model.TraceRecord) model.TraceRecord {
	r.Instance = i
	return r
}

func scheduled(level model.PriorityLevel, effective, best uint8) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceScheduled, Conversation: conv, FromInitiator: true, Priority: level,
		Effective: effective, BestWaiting: best}
}

// delivered is the clean history of a one-fragment message seq, received by an autocommit
// RECEIVE in transaction seq+1.
func delivered(seq model.SequenceNumber) []model.TraceRecord {
	return concat([]model.TraceRecord{sent(seq, 1), stored(seq, 0), ready(seq), removed(seq, model.ReasonAcked)},
		receive(model.TxID(seq+1), seq))
}

// Records of transactions on instance 0 and group grp, which holds dialog conv's target.
const (
	grp   = model.ConversationGroupID(3)
	conv2 = model.ConversationID(11)
)

func lock(tx model.TxID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceLockAcquired, Tx: tx, Group: grp}
}
func unlock(tx model.TxID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceLockReleased, Tx: tx, Group: grp}
}
func lockWait(tx, holder model.TxID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceLockWait, Tx: tx, Group: grp, HolderTx: holder, Statement: 99}
}
func commit(tx model.TxID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceTxCommitted, Tx: tx}
}
func rollback(tx model.TxID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceTxRolledBack, Tx: tx}
}
func savepointRollback(tx model.TxID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceSavepointRolledBack, Tx: tx}
}

// take is a row of RECEIVE statement stmt of transaction tx: message seq of conv.
func take(tx model.TxID, stmt uint64, seq model.SequenceNumber) model.TraceRecord {
	return takeType(tx, stmt, seq, 4)
}
func takeType(tx model.TxID, stmt uint64, seq model.SequenceNumber, mt model.MessageTypeID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceMessageReceived, Tx: tx, Statement: stmt, Group: grp, Conversation: conv,
		FromInitiator: true, Sequence: seq, MessageType: mt}
}

// takeOf is a row of conversation c at level, sequence seq.
func takeOf(tx model.TxID, stmt uint64, c model.ConversationID, level model.PriorityLevel, seq model.SequenceNumber) model.TraceRecord {
	r := take(tx, stmt, seq)
	r.Conversation, r.Priority = c, level
	return r
}
func returned(tx model.TxID, seq model.SequenceNumber) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceMessageReturned, Tx: tx, Group: grp, Conversation: conv, FromInitiator: true,
		Sequence: seq, MessageType: 4}
}

// receive is an autocommit RECEIVE, statement tx of transaction tx, that returns seqs.
func receive(tx model.TxID, seqs ...model.SequenceNumber) []model.TraceRecord {
	out := []model.TraceRecord{lock(tx)}
	for _, seq := range seqs {
		out = append(out, take(tx, uint64(tx), seq))
	}
	return append(out, unlock(tx), commit(tx))
}

// readied is messages 0 to n-1 of conv sent, stored, ready and acknowledged.
func readied(n model.SequenceNumber) []model.TraceRecord { return readiedOf(conv, n) }

// readiedOf is messages 0 to n-1 of conversation c sent, stored, ready and acknowledged.
func readiedOf(c model.ConversationID, n model.SequenceNumber) []model.TraceRecord {
	var out []model.TraceRecord
	for seq := range n {
		for _, r := range []model.TraceRecord{sent(seq, 1), stored(seq, 0), ready(seq), removed(seq, model.ReasonAcked)} {
			r.Conversation = c
			out = append(out, r)
		}
	}
	return out
}

// onGroup moves r to group g.
func onGroup(r model.TraceRecord, g model.ConversationGroupID) model.TraceRecord {
	r.Group = g
	return r
}

// onInstance moves r to instance i.
func onInstance(r model.TraceRecord, i model.InstanceID) model.TraceRecord {
	r.Instance = i
	return r
}

func concat(parts ...[]model.TraceRecord) []model.TraceRecord {
	var out []model.TraceRecord
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestCheckerFlagsEachBrokenRule(t *testing.T) {
	tests := []struct {
		name     string
		records  []model.TraceRecord
		wantRule string // "" when every invariant holds
	}{
		{"clean dialog", concat(delivered(0), delivered(1), delivered(2)), ""},
		{"PROTO-2: sequence numbers skip", []model.TraceRecord{sent(0, 1), sent(2, 1)}, "PROTO-2"},
		{"INV-2: a fragment stored twice", []model.TraceRecord{sent(0, 2), stored(0, 0), stored(0, 1), stored(0, 1)}, "INV-2"},
		{"INV-2: a fragment that was never sent", []model.TraceRecord{sent(0, 1), stored(0, 3)}, "INV-2"},
		{"INV-2: a message made ready twice", concat(delivered(0), []model.TraceRecord{ready(0)}), "INV-2"},
		{"INV-2: an incomplete message made ready", []model.TraceRecord{sent(0, 3), stored(0, 0), ready(0)}, "INV-2"},
		{"INV-2: RECEIVE returns a message not ready", []model.TraceRecord{sent(0, 1), stored(0, 0), lock(1), take(1, 1, 0)}, "INV-2"},
		{"INV-1: made ready out of order", []model.TraceRecord{sent(0, 1), sent(1, 1), stored(1, 0), ready(1)}, "INV-1"},
		{"INV-1: received out of order", concat([]model.TraceRecord{sent(0, 1), sent(1, 1), stored(0, 0), stored(1, 0),
			ready(0), ready(1)}, receive(1, 1)), "INV-1"},
		{"G-17: an Error may jump ahead of missing messages", []model.TraceRecord{sent(0, 1), sent(1, 1),
			removed(0, model.ReasonEndWithError), stored(1, 0), readyError(1), removed(1, model.ReasonAcked)}, ""},
		{"DLG-13: an Error is received before earlier messages", []model.TraceRecord{sent(0, 1), sent(1, 1), stored(0, 0),
			ready(0), stored(1, 0), readyError(1), lock(1), takeType(1, 1, 1, model.ErrorMessageType), take(1, 1, 0),
			unlock(1), commit(1)}, ""},
		{"INV-3: a row removed as acked before it was stored", []model.TraceRecord{sent(0, 2), stored(0, 0),
			removed(0, model.ReasonAcked)}, "INV-3"},
		{"INV-3: a live endpoint discards and acks", []model.TraceRecord{targetState(model.Conversing), sent(0, 1),
			discarded(0, model.ReasonClosedEndpoint)}, "INV-3"},
		{"G-16: a closed endpoint discards and acks", []model.TraceRecord{targetState(model.Closed), sent(0, 1),
			discarded(0, model.ReasonClosedEndpoint), removed(0, model.ReasonAcked)}, ""},
		{"INV-7: an endpoint's level changes", []model.TraceRecord{created(7), scheduled(7, 7, 7), scheduled(8, 8, 8)}, "INV-7"},
		{"PRI-15: a lower level leaves while a higher one waits", []model.TraceRecord{created(3), scheduled(3, 3, 9)}, "PRI-15"},
		{"G-11: an aged dialog leaves at its effective level", []model.TraceRecord{created(3), scheduled(3, 10, 10)}, ""},
		{"PRI-14: a forwarder passes a level-10 dialog on at 5", []model.TraceRecord{created(10), sent(0, 1), forwarded(5, 5, 5),
			stored(0, 0), ready(0), removed(0, model.ReasonAcked)}, ""},
		{"PRI-14: a forwarder passes a fragment on at the dialog's level", []model.TraceRecord{created(10), sent(0, 1),
			forwarded(10, 10, 5)}, "PRI-14"},
		{"PRI-15: a forwarded fragment leaves while a higher level waits", []model.TraceRecord{sent(0, 1), forwarded(5, 5, 9)}, "PRI-15"},
		{"RTE-5: a forwarder stores what it forwards", []model.TraceRecord{sent(0, 1), forwarded(5, 5, 5), atInstance(7, stored(0, 0))}, "RTE-5"},
		{"a window drop is not an ack", []model.TraceRecord{sent(0, 1), discarded(0, model.ReasonWindow),
			stored(0, 0), ready(0), removed(0, model.ReasonAcked)}, ""},
		{"INV-2: one fragment stored twice, another never", []model.TraceRecord{sent(0, 2), stored(0, 0), stored(0, 0)}, "INV-2"},
		{"INV-3: a lost message removed as acknowledged", []model.TraceRecord{sent(0, 1), sent(1, 1),
			removed(0, model.ReasonAcked)}, "INV-3"},
		{"INV-1: an Error jumps over a message still on its way", []model.TraceRecord{sent(0, 1), sent(1, 1),
			stored(1, 0), readyError(1)}, "INV-1"},
		{"INV-3: a row removed twice", concat(delivered(0), []model.TraceRecord{removed(0, model.ReasonAcked)}), "INV-3"},
		{"INV-3: a row removed that was never sent", []model.TraceRecord{sent(0, 1), removed(3, model.ReasonCleanup)}, "INV-3"},
		{"G-18: held for an OFF queue, acknowledged, then made ready in order", []model.TraceRecord{sent(0, 1), sent(1, 1),
			stored(0, 0), held(0), stored(1, 0), held(1), removed(0, model.ReasonAcked), removed(1, model.ReasonAcked),
			ready(0), ready(1)}, ""},
		{"INV-2: a message held twice", []model.TraceRecord{sent(0, 1), stored(0, 0), held(0), held(0)}, "INV-2"},
		{"INV-2: an incomplete message held", []model.TraceRecord{sent(0, 2), stored(0, 0), held(0)}, "INV-2"},
		{"INV-2: a message held after it was made ready", concat(delivered(0), []model.TraceRecord{held(0)}), "INV-2"},
		{"INV-1: held messages released out of order", []model.TraceRecord{sent(0, 1), sent(1, 1), stored(0, 0), held(0),
			stored(1, 0), held(1), ready(1)}, "INV-1"},
		{"INV-2: an Error received twice", []model.TraceRecord{sent(0, 1), stored(0, 0), readyError(0),
			lock(1), takeType(1, 1, 0, model.ErrorMessageType), unlock(1), commit(1),
			lock(2), takeType(2, 2, 0, model.ErrorMessageType), unlock(2), commit(2)}, "INV-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, v := observeAll(t, tt.records)
			if tt.wantRule == "" {
				assert.Nil(t, v, "records %v", tt.records)
				return
			}
			require.NotNil(t, v, "records %v", tt.records)
			assert.Equal(t, tt.wantRule, v.Rule, "violation: %v", v)
			assert.Equal(t, conv, v.Conversation)
			assert.Equal(t, tt.records[len(tt.records)-1].Kind, v.Records[len(v.Records)-1].Kind,
				"the violation shows the record that broke the rule last")
		})
	}
}

// TestCheckerFlagsBrokenTransactionRules checks the checks of transactions, conversation
// group locks and RECEIVE results: each broken history is flagged with its rule at the
// record that broke it, and legal ones (savepoint rollback, full rollback, re-receive by
// another transaction, lock waits) pass.
// Reference: spec INV-1, INV-4, INV-5, INV-6, INV-10, LOCK-3, LOCK-6, LOCK-7, PRI-9,
// DLG-13, TXN-1, TXN-3.
func TestCheckerFlagsBrokenTransactionRules(t *testing.T) {
	timer := func(tx model.TxID, stmt uint64) model.TraceRecord {
		return takeType(tx, stmt, model.Unsequenced, model.DialogTimerMessageType)
	}
	brokerError := func(tx model.TxID, stmt uint64) model.TraceRecord {
		return takeType(tx, stmt, model.Unsequenced, model.ErrorMessageType)
	}
	tests := []struct {
		name     string
		records  []model.TraceRecord
		wantRule string // "" when every invariant holds
	}{
		{"savepoint rollback, full rollback and a re-receive by another transaction", concat(readied(3), []model.TraceRecord{
			lock(1), take(1, 1, 0), take(1, 1, 1), lockWait(2, 1),
			returned(1, 1), savepointRollback(1), take(1, 2, 1), take(1, 2, 2),
			returned(1, 2), returned(1, 1), returned(1, 0), unlock(1), rollback(1),
			lock(2), take(2, 3, 0), take(2, 3, 1), take(2, 3, 2), unlock(2), commit(2)}), ""},
		{"one RECEIVE in order of DLG-13 and levels", concat(readied(2), readiedOf(conv2, 2), []model.TraceRecord{lock(1),
			takeOf(1, 1, conv2, 9, 0), takeOf(1, 1, conv2, 9, 1), timer(1, 1), brokerError(1, 1), take(1, 1, 0), take(1, 1, 1), unlock(1), commit(1)}), ""},
		{"a transaction receives twice and commits once", concat(readied(2), []model.TraceRecord{lock(1), take(1, 1, 0),
			take(1, 2, 1), unlock(1), commit(1)}), ""},
		{"transaction and group ids are per instance", concat(readied(1), []model.TraceRecord{lock(1),
			onInstance(lock(1), 1), onInstance(unlock(1), 1), onInstance(commit(1), 1), take(1, 1, 0), unlock(1), commit(1)}), ""},

		{"INV-1: a rolled-back receive does not count", concat(readied(2), []model.TraceRecord{lock(1), take(1, 1, 0),
			returned(1, 0), unlock(1), rollback(1)}, receive(2, 1)), "INV-1"},
		{"INV-1: a message received and committed twice", concat(readied(1), receive(1, 0), receive(2, 0)), "INV-1"},

		{"INV-4: a second holder", []model.TraceRecord{lock(1), lock(2)}, "INV-4"},
		{"INV-4: a holder takes its lock again", []model.TraceRecord{lock(1), lock(1)}, "INV-4"},
		{"INV-4: a release by another transaction", []model.TraceRecord{lock(1), unlock(2)}, "INV-4"},
		{"INV-4: a release of a free lock", []model.TraceRecord{lock(1), unlock(1), commit(1), unlock(1)}, "INV-4"},
		{"INV-4: a commit still holding a lock", []model.TraceRecord{lock(1), onGroup(lock(1), 4), unlock(1), commit(1)}, "INV-4"},
		{"INV-4: a rollback still holding a lock", []model.TraceRecord{lock(1), rollback(1)}, "INV-4"},
		{"INV-4: a savepoint rollback releases a lock (LOCK-3, TXN-3)", []model.TraceRecord{lock(1), unlock(1),
			savepointRollback(1)}, "INV-4"},
		{"INV-4: a wait for a holder that does not hold", []model.TraceRecord{lock(1), lockWait(2, 3)}, "INV-4"},

		{"INV-5: a row from a group nobody locked", concat(readied(1), []model.TraceRecord{take(1, 1, 0)}), "INV-5"},
		{"INV-5: a row from a group another transaction holds (LOCK-7)", concat(readied(1), []model.TraceRecord{lock(2),
			take(1, 1, 0)}), "INV-5"},
		{"INV-5: one RECEIVE, two groups", concat(readied(1), readiedOf(conv2, 1), []model.TraceRecord{lock(1), onGroup(lock(1), 4),
			take(1, 1, 0), onGroup(takeOf(1, 1, conv2, 5, 0), 4)}), "INV-5"},
		{"INV-5: two transactions with uncommitted receives from one group", concat(readied(2), []model.TraceRecord{
			lock(1), take(1, 1, 0), unlock(1), lock(2), take(2, 2, 1)}), "INV-5"},

		{"INV-6: a conversation at a higher level after a lower one", concat(readied(1), readiedOf(conv2, 1), []model.TraceRecord{lock(1),
			take(1, 1, 0), takeOf(1, 1, conv2, 7, 0)}), "INV-6"},
		{"INV-6: a conversation's rows apart", concat(readied(2), readiedOf(conv2, 1), []model.TraceRecord{lock(1),
			take(1, 1, 0), takeOf(1, 1, conv2, 5, 0), take(1, 1, 1)}), "INV-6"},
		{"INV-6: a conversation's rows out of sequence", concat(readied(2), []model.TraceRecord{lock(1),
			take(1, 1, 1), take(1, 1, 0)}), "INV-6"},
		{"INV-6: an Error after another message (DLG-13)", concat(readied(1), []model.TraceRecord{lock(1),
			take(1, 1, 0), brokerError(1, 1)}), "INV-6"},
		{"INV-6: a DialogTimer after an Error (DLG-13)", []model.TraceRecord{lock(1), brokerError(1, 1), timer(1, 1)}, "INV-6"},
		{"INV-6: the rows of one RECEIVE not consecutive", concat(readied(2), []model.TraceRecord{lock(1),
			take(1, 1, 0), sent(2, 1), take(1, 1, 1)}), "INV-6"},

		{"INV-10: a rollback keeps a row", concat(readied(1), []model.TraceRecord{lock(1), take(1, 1, 0), unlock(1),
			rollback(1)}), "INV-10"},
		{"INV-10: a rollback keeps a DialogTimer", []model.TraceRecord{lock(1), timer(1, 1), unlock(1), rollback(1)}, "INV-10"},
		{"INV-10: a rollback returns a row it did not receive", concat(readied(1), []model.TraceRecord{lock(1),
			returned(1, 0)}), "INV-10"},
		{"INV-10: a rollback returns a row twice", concat(readied(1), []model.TraceRecord{lock(1), take(1, 1, 0),
			returned(1, 0), returned(1, 0)}), "INV-10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, v := observeAll(t, tt.records)
			if tt.wantRule == "" {
				assert.Nil(t, v, "records %v", tt.records)
				assert.Nil(t, c.Finish(time.Hour), "records %v", tt.records)
				return
			}
			require.NotNil(t, v, "records %v", tt.records)
			assert.Equal(t, tt.wantRule, v.Rule, "violation: %v", v)
			last := tt.records[len(tt.records)-1]
			require.NotEmpty(t, v.Records, "violation: %v", v)
			assert.Equal(t, last.Kind, v.Records[len(v.Records)-1].Kind,
				"the violation shows the record that broke the rule last: %v", v)
			assert.Equal(t, last.Tx, v.Tx, "violation: %v", v)
		})
	}
}

func TestFinishChecksINV12(t *testing.T) {
	t.Run("everything delivered", func(t *testing.T) {
		c := New()
		for _, r := range concat(delivered(0), delivered(1)) {
			c.Observe(r)
		}
		assert.Nil(t, c.Finish(time.Hour))
	})
	t.Run("a message stored and acked but never made ready", func(t *testing.T) {
		c := New()
		for _, r := range concat(delivered(0), []model.TraceRecord{sent(1, 1), stored(1, 0), removed(1, model.ReasonAcked)}) {
			c.Observe(r)
		}
		v := c.Finish(time.Hour)
		require.NotNil(t, v)
		assert.Equal(t, "INV-12", v.Rule)
	})
	t.Run("a row left in the transmission queue", func(t *testing.T) {
		c := New()
		for _, r := range concat(delivered(0), []model.TraceRecord{sent(1, 1), stored(1, 0), ready(1)}) {
			c.Observe(r)
		}
		v := c.Finish(time.Hour)
		require.NotNil(t, v)
		assert.Equal(t, "INV-12", v.Rule)
		assert.Contains(t, v.Message, "still in the transmission queue")
	})
	t.Run("a discard explains only the messages from it on", func(t *testing.T) {
		c := New()
		for _, r := range concat(delivered(0), []model.TraceRecord{sent(1, 1), stored(1, 0), removed(1, model.ReasonAcked),
			sent(2, 1), removed(2, model.ReasonCleanup)}) {
			c.Observe(r)
		}
		v := c.Finish(time.Hour)
		require.NotNil(t, v, "message 1 was acked but never made ready: the cleanup of row 2 does not explain it")
		assert.Equal(t, "INV-12", v.Rule)
	})
	t.Run("missing after the receiver ended", func(t *testing.T) {
		c := New()
		for _, r := range concat(delivered(0), []model.TraceRecord{targetState(model.Closed), sent(1, 1),
			discarded(1, model.ReasonClosedEndpoint), removed(1, model.ReasonAcked)}) {
			c.Observe(r)
		}
		assert.Nil(t, c.Finish(time.Hour))
	})
	t.Run("missing after a documented discard", func(t *testing.T) {
		c := New()
		for _, r := range concat(delivered(0), []model.TraceRecord{sent(1, 1), removed(1, model.ReasonLifetime)}) {
			c.Observe(r)
		}
		assert.Nil(t, c.Finish(time.Hour))
	})
}

func TestViolationErrorShowsTheRecords(t *testing.T) {
	c := New()
	c.Observe(sent(0, 1))
	v := c.Observe(sent(5, 1))
	require.NotNil(t, v)
	assert.Contains(t, v.Error(), "PROTO-2 violated at t=0s on conversation c9")
	assert.Contains(t, v.Error(), "sent i0 c9 I→T seq=5")
}

func TestViolationShowsTheTransactionsInvolved(t *testing.T) {
	c := New()
	c.Observe(lock(1))
	c.Observe(onGroup(lock(2), 4))
	v := c.Observe(lock(2))
	require.NotNil(t, v)
	assert.Contains(t, v.Error(), "INV-4 violated at t=0s in transaction 2 of instance 0 on group g3")
	assert.Equal(t, []model.TraceRecord{lock(1), onGroup(lock(2), 4), lock(2)}, v.Records,
		"the holder's record, then the taker's, oldest first")
}

// observeAll feeds the records to a new checker, a millisecond apart, and returns it with
// the verdict on the last record.
func observeAll(t testing.TB, records []model.TraceRecord) (*Checker, *Violation) {
	timed := make([]model.TraceRecord, len(records))
	for i, r := range records {
		r.At = time.Duration(i) * time.Millisecond
		timed[i] = r
	}
	return observeTimed(t, timed)
}

// observeTimed feeds the records, at their own times, to a new checker, and returns it
// with the verdict on the last record. It feeds them to a twin that keeps no histories
// too (KeepHistories), and fails t unless the twin gives the same verdict on every record,
// with only the record at fault as a violation's records, and the same findings, with
// none.
func observeTimed(t testing.TB, records []model.TraceRecord) (*Checker, *Violation) {
	t.Helper()
	c, twin := New(), New()
	twin.KeepHistories(false)
	var v *Violation
	for i, r := range records {
		v = c.Observe(r)
		tv := twin.Observe(r)
		if !sameVerdict(t, v, tv) {
			t.Fatalf("record %d, %v: with histories %v; without %v", i, r, v, tv)
		}
	}
	require.Equal(t, c.FindingCount(), twin.FindingCount(), "findings without histories")
	for i, f := range c.Findings() {
		tf := twin.Findings()[i]
		assert.Empty(t, tf.Records, "a finding's records without histories")
		f.Records, tf.Records = nil, nil
		assert.Equal(t, f, tf, "finding %d without histories", i)
	}
	// A third checker keeps the histories of the conversations the verdict names only, as
	// the second run of scenarios.Run does: it shows the same records.
	var convs []model.ConversationID
	if v != nil {
		convs = append(convs, v.Conversation)
	}
	for _, f := range c.Findings() {
		convs = append(convs, f.Conversation)
	}
	some := New()
	some.KeepHistoriesOf(convs)
	var sv *Violation
	for _, r := range records {
		sv = some.Observe(r)
	}
	assert.Equal(t, v, sv, "the violation with the histories of the conversations it names")
	assert.Equal(t, c.Findings(), some.Findings(), "the findings with the histories of their conversations")
	return c, v
}

// sameVerdict reports whether a checker without histories gave tv where one with them gave
// v: the same violation but for its records, which are only the record at fault.
func sameVerdict(t testing.TB, v, tv *Violation) bool {
	if v == nil || tv == nil {
		return v == tv
	}
	if len(tv.Records) != 1 || len(v.Records) == 0 || v.Records[len(v.Records)-1] != tv.Records[0] {
		t.Errorf("a violation's records without histories: %v, want the last of %v", tv.Records, v.Records)
		return false
	}
	a, b := *v, *tv
	a.Records, b.Records = nil, nil
	return reflect.DeepEqual(a, b)
}
