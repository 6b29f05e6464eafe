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
	// closed, so it knows nothing of its directions but that nothing more may be sent,
	// stored, made ready, received or removed (release).
	gone bool
	// pending counts the rows of its messages that live transactions received and have not
	// committed or rolled back: while there are some, the dialog is not released.
	pending int32
	// forwarders lists, per direction, the instances that forwarded its fragments: none of
	// them may store one (RTE-5); nil while there are none.
	forwarders *[2][]model.InstanceID
	history    dialogHistory
}

func side(fromInitiator bool) int {
	if fromInitiator {
		return 1
	}
	return 0
}

// spareDialogs bounds how many released dialogs a Checker keeps for reuse.
const spareDialogs = 64

// dialog returns the state of conversation conv, which it creates at the conversation's
// first record. A dialog the checker released comes back gone (release). The last dialog
// looked up is cached: the records of one conversation often come in runs, between records
// that name none (a lock's, a transaction's), which have a dialog of their own.
func (c *Checker) dialog(conv model.ConversationID) *dialog {
	switch {
	case conv == 0:
		return c.none
	case c.last != nil && c.last.conv == conv:
		return c.last
	}
	d := c.dialogs[conv]
	if d == nil {
		d = c.newDialog(conv)
		if at, ok := c.released[conv]; ok {
			delete(c.released, conv)
			d.gone, d.forgotten, d.forgottenAt = true, at >= 0, max(at, 0)
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
	*d = dialog{conv: conv, flows: d.flows, history: d.history}
	for i := range d.flows {
		d.flows[i].reset()
	}
	d.history.reset()
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

// release, when both endpoints of a conversation have closed, forgets what the checker
// knows of it but that: both closed, and whether (and when) the target endpoint was then
// forgotten. A closed initiator is deleted at once, and an arrival never re-creates one; a
// closed target only discards and acknowledges what arrives until it is forgotten, when an
// arrival from the initiator may re-create it (G-16): all the checker needs to check those
// records, and to report the re-creation, is what it keeps. A dialog is kept while a live
// transaction holds uncommitted rows of it, or while it would fail INV-12 at the end: its
// verdict is Finish's, then.
func (c *Checker) release(d *dialog) {
	if d.conv == 0 || d.states != [2]model.EndpointState{model.Closed, model.Closed} || d.pending > 0 {
		return
	}
	for i := range d.flows {
		if f := &d.flows[i]; !f.reopened && f.unfinished() != "" {
			return
		}
	}
	at := time.Duration(-1)
	if d.forgotten {
		at = d.forgottenAt
	}
	c.released[d.conv] = at
	delete(c.dialogs, d.conv)
	if c.last == d {
		c.last = nil
	}
	d.history.reset()
	d.conv = 0 // released: a second release does nothing
	if len(c.spareDialogs) < spareDialogs {
		c.spareDialogs = append(c.spareDialogs, d)
	}
}

// goneRecord describes a record that a dialog whose endpoints have both closed must not
// have, and its rule; "" for one it may have.
func goneRecord(r *model.TraceRecord) (string, string) {
	switch r.Kind {
	case model.TraceMessageSent:
		return "a message sent on a dialog whose endpoints had both closed", "PROTO-2"
	case model.TraceFragmentStored, model.TraceMessageReady, model.TraceMessageHeld, model.TraceMessageReceived:
		return "a message stored, made ready or received on a dialog whose endpoints had both closed", "INV-2"
	case model.TraceRowRemoved:
		return "a transmission queue row removed on a dialog whose endpoints had both closed", "INV-3"
	}
	return "", ""
}
