package invariant

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

func initiatorState(from, to model.EndpointState) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceStateChanged, Conversation: conv, FromInitiator: true, From: from, To: to}
}

func targetChange(from, to model.EndpointState) model.TraceRecord {
	r := targetState(to)
	r.From = from
	return r
}

func forgottenAt(at time.Duration) model.TraceRecord {
	return model.TraceRecord{At: at, Kind: model.TraceEndpointForgotten, Conversation: conv}
}

// finishedDialog is dialog conv delivering two messages and both endpoints closing: the
// initiator first (it ended, the target's EndDialog closed it), then the target.
func finishedDialog() []model.TraceRecord {
	return concat([]model.TraceRecord{initiatorState(0, model.StartedOutbound), targetChange(0, model.StartedInbound),
		targetChange(model.StartedInbound, model.Conversing), initiatorState(model.StartedOutbound, model.Conversing)},
		delivered(0), delivered(1),
		[]model.TraceRecord{initiatorState(model.Conversing, model.DisconnectedOutbound),
			targetChange(model.Conversing, model.DisconnectedInbound), initiatorState(model.DisconnectedOutbound, model.Closed),
			targetChange(model.DisconnectedInbound, model.Closed)})
}

func observeClean(t *testing.T, c *Checker, records []model.TraceRecord) {
	t.Helper()
	for _, r := range records {
		require.Nil(t, c.Observe(r), "record %v", r)
	}
}

// A conversation whose two endpoints closed keeps nothing but a tombstone, and one with a
// live endpoint keeps its state (issue 15: checkers that forget what is finished).
func TestAConversationIsReleasedWhenBothEndpointsClose(t *testing.T) {
	c := New()
	records := finishedDialog()
	observeClean(t, c, records[:len(records)-1])
	assert.Equal(t, 1, c.Conversations(), "the target endpoint is still open (DI): the dialog is kept")
	assert.Equal(t, 0, c.Released())
	observeClean(t, c, records[len(records)-1:])
	assert.Equal(t, 0, c.Conversations(), "both endpoints closed: the dialog is released")
	assert.Equal(t, 1, c.Released())
	assert.Nil(t, c.Finish(time.Hour), "a released dialog passed INV-12")

	// Many dialogs, one after the other: what the checker follows does not grow.
	for i := range model.ConversationID(200) {
		for _, r := range records {
			r.Conversation = 100 + i
			require.Nil(t, c.Observe(r), "dialog %d, record %v", 100+i, r)
		}
		require.Equal(t, 0, c.Conversations(), "dialog %d", 100+i)
	}
	assert.Equal(t, 201, c.Released())
}

// What happens after a release, or would make it early, is still checked.
func TestAConversationIsNotReleasedTooEarly(t *testing.T) {
	closed := finishedDialog()
	for _, tt := range []struct {
		name    string
		records []model.TraceRecord
		rule    string // the violation the last record causes, "" for none
		kept    int    // the conversations the checker follows after the records
	}{
		{"INV-3: a target still open must not discard as closed", concat(closed[:len(closed)-1],
			[]model.TraceRecord{discarded(1, model.ReasonClosedEndpoint)}), "INV-3", 1},
		{"a duplicate arriving after both closed is discarded, and acked", concat(closed,
			[]model.TraceRecord{discarded(1, model.ReasonClosedEndpoint)}), "", 0},
		{"a duplicate arriving at the deleted initiator is discarded as unknown", concat(closed,
			[]model.TraceRecord{func() model.TraceRecord {
				r := discarded(0, model.ReasonUnknownDialog)
				r.FromInitiator = false
				return r
			}()}), "", 0},
		{"INV-2: a duplicate stored after both closed", concat(closed, []model.TraceRecord{stored(1, 0)}), "INV-2", 1},
		{"INV-2: a message made ready after both closed", concat(closed, []model.TraceRecord{ready(2)}), "INV-2", 1},
		{"INV-3: a row removed after both closed", concat(closed, []model.TraceRecord{removed(1, model.ReasonAcked)}), "INV-3", 1},
		{"PROTO-2: a message sent after both closed", concat(closed, []model.TraceRecord{sent(2, 1)}), "PROTO-2", 1},
		{"a dialog whose row is left is kept for INV-12", []model.TraceRecord{initiatorState(0, model.StartedOutbound),
			sent(0, 1), targetChange(0, model.StartedInbound), initiatorState(model.StartedOutbound, model.Closed),
			targetChange(model.StartedInbound, model.Closed)}, "", 1},
		{"INV-1: rows received before both closed are checked at the commit", concat(closed[:4], readied(2),
			[]model.TraceRecord{lock(9), take(9, 9, 1), take(9, 10, 0), unlock(9)}, closed[len(closed)-4:],
			[]model.TraceRecord{commit(9)}), "INV-1", 1},
		{"rows received before both closed commit, then the dialog goes", concat(closed[:4], readied(2),
			[]model.TraceRecord{lock(9), take(9, 9, 0), take(9, 10, 1), unlock(9)}, closed[len(closed)-4:],
			[]model.TraceRecord{commit(9)}), "", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			var v *Violation
			for _, r := range tt.records {
				v = c.Observe(r)
			}
			if tt.rule == "" {
				require.Nil(t, v, "no violation")
			} else {
				require.NotNil(t, v, "want %s", tt.rule)
				assert.Equal(t, tt.rule, v.Rule, "violation: %v", v)
			}
			assert.Equal(t, tt.kept, c.Conversations(), "conversations followed")
		})
	}

	t.Run("INV-12 at the end for the dialog kept", func(t *testing.T) {
		c := New()
		observeClean(t, c, []model.TraceRecord{initiatorState(0, model.StartedOutbound), sent(0, 1),
			targetChange(0, model.StartedInbound), initiatorState(model.StartedOutbound, model.Closed),
			targetChange(model.StartedInbound, model.Closed)})
		v := c.Finish(time.Hour)
		require.NotNil(t, v)
		assert.Equal(t, "INV-12", v.Rule)
		assert.Equal(t, conv, v.Conversation)
	})
}

// A target re-created after its closed endpoint was forgotten (G-16) is reported as a design
// finding, as before the release, and the second run of the dialog is not checked against
// the first one; a target forgotten before the initiator closed the same.
func TestAReleasedConversationReCreatedIsAFinding(t *testing.T) {
	closed := finishedDialog()
	for _, tt := range []struct {
		name    string
		records []model.TraceRecord
	}{
		{"forgotten after the release", concat(closed, []model.TraceRecord{forgottenAt(30 * time.Minute)})},
		{"forgotten before the initiator closed", concat(closed[:len(closed)-3],
			[]model.TraceRecord{closed[len(closed)-1], forgottenAt(30 * time.Minute), closed[len(closed)-2]})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := New()
			observeClean(t, c, tt.records)
			require.Equal(t, 0, c.Conversations(), "released")
			recreated := targetChange(0, model.StartedInbound)
			recreated.At = 31 * time.Minute
			observeClean(t, c, []model.TraceRecord{recreated, stored(0, 0), ready(0)})
			require.Equal(t, 1, c.FindingCount())
			f := c.Findings()[0]
			assert.Equal(t, FindingReopened, f.ID)
			assert.Equal(t, 30*time.Minute, f.ForgottenAt)
			assert.Equal(t, model.Closed, f.InitiatorState)
			assert.Equal(t, conv, f.Conversation)
			assert.Nil(t, c.Finish(time.Hour), "the second run is a finding's, not INV-12's")
		})
	}
}
