package invariant

import (
	"fmt"
	"time"

	"github.com/sbsim/sbsim/model"
)

// FindingReopened names the design finding of a dialog whose target endpoint was
// re-created by a late arrival after its closed endpoint had been forgotten (G-16).
const FindingReopened = "reopened-after-retention"

// maxFindings is how many findings a Checker keeps in full; it counts them all.
const maxFindings = 20

// Finding is a failure of the design under test rather than of the simulator: Service
// Broker itself behaves so, and the model does what it does. The one finding today is
// FindingReopened: a closed target endpoint is kept for ClosedTargetRetention (G-16), and
// an arrival from the initiator after that finds the dialog unknown and creates a new
// target endpoint (DLG-3, DLG-4), which delivers the dialog's messages a second time, or
// waits in SI for ever for messages acknowledged long ago. It takes an initiator that
// still retries after the target closed: one that ended first, before any acknowledgement
// of its messages reached it (the fire-and-forget pattern), cut from the target for longer
// than the retention.
type Finding struct {
	ID           string
	At           time.Duration // when the target endpoint was re-created
	Conversation model.ConversationID
	// ForgottenAt is when the first target endpoint was forgotten; InitiatorState the
	// initiator endpoint's state at the re-creation (DO when it ended first).
	ForgottenAt    time.Duration
	InitiatorState model.EndpointState
	Message        string
	// Records are the conversation's last records, oldest first.
	Records []model.TraceRecord
}

func (f *Finding) Error() string {
	return fmt.Sprintf("design finding %s at t=%v on conversation %v: %s", f.ID, f.At, f.Conversation, f.Message)
}

// reopen records that r, the creation of a target endpoint, re-created the target of
// dialog d, forgotten at d.forgottenAt, and stops checking the dialog's messages against
// its first run: Service Broker runs the dialog again.
func (c *Checker) reopen(d *dialog, r *model.TraceRecord) {
	forgottenAt := d.forgottenAt
	d.forgotten, d.gone = false, false // a second run, whose messages are not checked
	d.hasLevel[0] = false              // a new endpoint, with its own level
	for i := range d.flows {
		d.flows[i].reopened = true
	}
	c.findingCount++
	if len(c.findings) == maxFindings {
		return
	}
	is := d.states[1]
	f := Finding{ID: FindingReopened, At: r.At, Conversation: r.Conversation, ForgottenAt: forgottenAt,
		InitiatorState: is, Records: merge(d.history.entries(d.conv))}
	what := "delivers the dialog's messages again"
	if r.To == model.StartedInbound {
		what = "runs the dialog again: it waits for the dialog's earlier messages, delivering those the initiator " +
			"still retries and waiting for ever for those acknowledged long ago"
	}
	f.Message = fmt.Sprintf("an arrival from the initiator (in %v) re-created the target endpoint, in %v, %v after its "+
		"closed endpoint was forgotten (G-16: closed targets are kept for ClosedTargetRetention): Service Broker %s",
		is, r.To, r.At-forgottenAt, what)
	switch is {
	case model.DisconnectedOutbound:
		f.Message += "; the initiator had ended first and was still waiting for acknowledgements " +
			"(fire-and-forget past the retention)"
	case model.Closed, 0:
		f.Message += "; the initiator had closed already: the network held a copy it sent earlier for longer " +
			"than the retention (G-16 needs the retention to exceed the network's age)"
	}
	c.findings = append(c.findings, f)
}

// Findings returns the first design findings seen (at most 20), in the order they
// happened; FindingCount says how many there were in all.
func (c *Checker) Findings() []Finding { return c.findings }

// FindingCount returns how many design findings were seen.
func (c *Checker) FindingCount() int { return c.findingCount }
