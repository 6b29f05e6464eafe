package invariant

import (
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
func readyError(seq model.SequenceNumber) model.TraceRecord {
	r := ready(seq)
	r.MessageType = model.ErrorMessageType
	return r
}
func received(seq model.SequenceNumber) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceMessageReceived, Conversation: conv, FromInitiator: true, Sequence: seq, MessageType: 4}
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
func scheduled(level model.PriorityLevel, effective, best uint8) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceScheduled, Conversation: conv, FromInitiator: true, Priority: level,
		Effective: effective, BestWaiting: best}
}

// delivered is the clean history of a one-fragment message seq.
func delivered(seq model.SequenceNumber) []model.TraceRecord {
	return []model.TraceRecord{sent(seq, 1), stored(seq, 0), ready(seq), removed(seq, model.ReasonAcked), received(seq)}
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
		{"INV-2: RECEIVE returns a message not ready", []model.TraceRecord{sent(0, 1), stored(0, 0), received(0)}, "INV-2"},
		{"INV-1: made ready out of order", []model.TraceRecord{sent(0, 1), sent(1, 1), stored(1, 0), ready(1)}, "INV-1"},
		{"INV-1: received out of order", concat([]model.TraceRecord{sent(0, 1), sent(1, 1), stored(0, 0), stored(1, 0),
			ready(0), ready(1), received(1)}), "INV-1"},
		{"G-17: an Error may jump ahead of missing messages", []model.TraceRecord{sent(0, 1), sent(1, 1),
			removed(0, model.ReasonEndWithError), stored(1, 0), readyError(1), removed(1, model.ReasonAcked)}, ""},
		{"DLG-13: an Error is received before earlier messages", []model.TraceRecord{sent(0, 1), sent(1, 1), stored(0, 0),
			ready(0), stored(1, 0), readyError(1), {Kind: model.TraceMessageReceived, Conversation: conv, FromInitiator: true,
				Sequence: 1, MessageType: model.ErrorMessageType}, received(0)}, ""},
		{"INV-3: a row removed as acked before it was stored", []model.TraceRecord{sent(0, 2), stored(0, 0),
			removed(0, model.ReasonAcked)}, "INV-3"},
		{"INV-3: a live endpoint discards and acks", []model.TraceRecord{targetState(model.Conversing), sent(0, 1),
			discarded(0, model.ReasonClosedEndpoint)}, "INV-3"},
		{"G-16: a closed endpoint discards and acks", []model.TraceRecord{targetState(model.Closed), sent(0, 1),
			discarded(0, model.ReasonClosedEndpoint), removed(0, model.ReasonAcked)}, ""},
		{"INV-7: an endpoint's level changes", []model.TraceRecord{created(7), scheduled(7, 7, 7), scheduled(8, 8, 8)}, "INV-7"},
		{"PRI-15: a lower level leaves while a higher one waits", []model.TraceRecord{created(3), scheduled(3, 3, 9)}, "PRI-15"},
		{"G-11: an aged dialog leaves at its effective level", []model.TraceRecord{created(3), scheduled(3, 10, 10)}, ""},
		{"a window drop is not an ack", []model.TraceRecord{sent(0, 1), discarded(0, model.ReasonWindow),
			stored(0, 0), ready(0), removed(0, model.ReasonAcked)}, ""},
		{"INV-2: one fragment stored twice, another never", []model.TraceRecord{sent(0, 2), stored(0, 0), stored(0, 0)}, "INV-2"},
		{"INV-3: a lost message removed as acknowledged", []model.TraceRecord{sent(0, 1), sent(1, 1),
			removed(0, model.ReasonAcked)}, "INV-3"},
		{"INV-1: an Error jumps over a message still on its way", []model.TraceRecord{sent(0, 1), sent(1, 1),
			stored(1, 0), readyError(1)}, "INV-1"},
		{"INV-3: a row removed twice", concat(delivered(0), []model.TraceRecord{removed(0, model.ReasonAcked)}), "INV-3"},
		{"INV-3: a row removed that was never sent", []model.TraceRecord{sent(0, 1), removed(3, model.ReasonCleanup)}, "INV-3"},
		{"INV-2: an Error received twice", []model.TraceRecord{sent(0, 1), stored(0, 0), readyError(0),
			{Kind: model.TraceMessageReceived, Conversation: conv, FromInitiator: true, Sequence: 0, MessageType: model.ErrorMessageType},
			{Kind: model.TraceMessageReceived, Conversation: conv, FromInitiator: true, Sequence: 0, MessageType: model.ErrorMessageType}}, "INV-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			var v *Violation
			for i, r := range tt.records {
				r.At = time.Duration(i) * time.Millisecond
				v = c.Observe(r)
			}
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
