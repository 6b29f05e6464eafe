package invariant

import (
	"time"

	"github.com/sbsim/sbsim/model"
)

// dialog is what the checker knows of one conversation: its two directions, its two
// endpoints and its history. Arrays of two are indexed by side: 1 for the initiator's
// endpoint and for the direction from it, 0 for the target's.
type dialog struct {
	conv  model.ConversationID
	flows [2]flow
	// states holds each endpoint's last state, and levels its level as created (INV-7;
	// hasLevel says whether it was).
	states   [2]model.EndpointState
	levels   [2]model.PriorityLevel
	hasLevel [2]bool
	// forgotten is set when the closed target endpoint was forgotten (G-16), at
	// forgottenAt, until an arrival re-creates it.
	forgotten   bool
	forgottenAt time.Duration
	// gone is set on a dialog the checker released and saw again: both its endpoints had
	// gone, so it knows nothing of its directions but that nothing more may be sent,
	// stored, made ready or removed (released).
	gone bool
	// pending counts the rows of its messages that live transactions received and have not
	// committed or rolled back: while there are some, the dialog is not released.
	pending int32
	// forwarders lists, per direction, the instances that forwarded its fragments: none of
	// them may store one (RTE-5); nil while there are none.
	forwarders *[2][]model.InstanceID
	history    history
}

func side(fromInitiator bool) int {
	if fromInitiator {
		return 1
	}
	return 0
}

// spareDialogs bounds how many released dialogs a Checker keeps for reuse.
const spareDialogs = 1024

// dialog returns the state of conversation conv, which it creates at the conversation's
// first record. A dialog the checker released comes back gone (released). The last dialog
// looked up is cached: the records of one conversation often come in runs.
func (c *Checker) dialog(conv model.ConversationID) *dialog {
	if c.last != nil && c.last.conv == conv {
		return c.last
	}
	d := c.dialogs[conv]
	if d == nil {
		d = c.newDialog(conv)
		if at, ok := c.released[conv]; ok {
			delete(c.released, conv)
			d.gone, d.forgotten, d.forgottenAt = true, true, at
			d.states = [2]model.EndpointState{model.Closed, model.Closed}
		}
	}
	c.last = d
	return d
}

func (c *Checker) newDialog(conv model.ConversationID) *dialog {
	var d *dialog
	if n := len(c.spareDialogs); n > 0 {
		d, c.spareDialogs = c.spareDialogs[n-1], c.spareDialogs[:n-1]
	} else {
		d = &dialog{}
	}
	d.conv = conv
	for i := range d.flows {
		d.flows[i].reset()
	}
	c.dialogs[conv] = d
	return d
}

// flow returns the flow of one direction of a conversation.
func (c *Checker) flow(conv model.ConversationID, fromInitiator bool) *flow {
	return &c.dialog(conv).flows[side(fromInitiator)]
}

// state returns the last state of an endpoint of a conversation.
func (c *Checker) state(conv model.ConversationID, initiator bool) model.EndpointState {
	return c.dialog(conv).states[side(initiator)]
}

// released, when a conversation's two endpoints have gone, forgets what the checker knows
// of it and keeps only when its target was forgotten, should a late arrival re-create the
// target (G-16). Both have gone when the initiator's endpoint closed (a closed initiator
// is deleted at once, and an arrival never re-creates one) and the target's was forgotten
// after its retention. A dialog is kept while a live transaction holds uncommitted rows of
// it, or while it would fail INV-12 at the end: its verdict is Finish's, then.
func (c *Checker) release(d *dialog) {
	if d.conv == 0 || !d.forgotten || d.states[1] != model.Closed || d.pending > 0 {
		return
	}
	for i := range d.flows {
		if f := &d.flows[i]; !f.reopened && f.unfinished() != "" {
			return
		}
	}
	c.released[d.conv] = d.forgottenAt
	delete(c.dialogs, d.conv)
	if c.last == d {
		c.last = nil
	}
	d.history.release(&c.ring)
	if len(c.spareDialogs) < spareDialogs {
		for i := range d.flows {
			d.flows[i].clear()
		}
		*d = dialog{flows: d.flows}
		c.spareDialogs = append(c.spareDialogs, d)
	}
}

// goneRecord describes a record that a dialog whose endpoints have both gone must not
// have, and its rule; "" for one it may have.
func goneRecord(r *model.TraceRecord) (string, string) {
	switch r.Kind {
	case model.TraceMessageSent:
		return "a message sent on a dialog whose endpoints had both gone", "PROTO-2"
	case model.TraceFragmentStored, model.TraceMessageReady, model.TraceMessageHeld, model.TraceMessageReceived:
		return "a message stored, made ready or received on a dialog whose endpoints had both gone", "INV-2"
	case model.TraceRowRemoved:
		return "a transmission queue row removed on a dialog whose endpoints had both gone", "INV-3"
	}
	return "", ""
}
