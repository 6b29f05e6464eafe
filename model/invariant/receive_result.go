package invariant

import (
	"fmt"
	"slices"

	"github.com/sbsim/sbsim/model"
)

// receiveResult is the RECEIVE result being returned: the rows of one statement, which
// the model traces as consecutive records (INV-5, INV-6).
type receiveResult struct {
	instance  model.InstanceID
	tx        model.TxID
	statement uint64
	// open is set while the last record observed is one of its rows.
	open  bool
	group model.ConversationGroupID
	// endpoint is the conversation whose rows are coming (by message direction, so one
	// receiving endpoint), level its receiving endpoint's level, and class and sequence
	// those of its last row; finished holds the conversations whose rows came before.
	endpoint direction
	level    int
	class    int
	sequence model.SequenceNumber
	finished []direction
}

// Receive classes of DLG-13, in the order RECEIVE returns a conversation's rows: a
// DialogTimer before any other message, an Error before any other but a DialogTimer, and
// the rest (EndDialog among them) in ascending sequence.
const (
	classDialogTimer = iota
	classError
	classOther
)

var classNames = [...]string{"a DialogTimer", "an Error", "a message"}

// rowName names a received row in a violation.
func rowName(r *model.TraceRecord) string {
	if r.Sequence == model.Unsequenced {
		return fmt.Sprintf("%s of %v (unsequenced)", classNames[receiveClass(r.MessageType)], r.Conversation)
	}
	return fmt.Sprintf("message %d of %v", r.Sequence, r.Conversation)
}

func receiveClass(mt model.MessageTypeID) int {
	switch mt {
	case model.DialogTimerMessageType:
		return classDialogTimer
	case model.ErrorMessageType:
		return classError
	}
	return classOther
}

// resultRow checks row r against the rows of its RECEIVE result so far: consecutive, all
// of one group (INV-5), conversations by non-increasing level, each one's rows together
// and in receive order (INV-6, PRI-9, DLG-13).
func (c *Checker) resultRow(r *model.TraceRecord) (string, string) {
	res := &c.result
	d := direction{r.Conversation, r.FromInitiator}
	same := res.statement != 0 && res.instance == r.Instance && res.tx == r.Tx && res.statement == r.Statement
	switch {
	case same && !res.open:
		return fmt.Sprintf("a row of RECEIVE statement %d came after other records, apart from the statement's other rows",
			r.Statement), "INV-6"
	case !same:
		*res = receiveResult{instance: r.Instance, tx: r.Tx, statement: r.Statement, open: true, group: r.Group,
			finished: res.finished[:0]}
		res.start(d, r)
		return "", ""
	case r.Group != res.group:
		return fmt.Sprintf("RECEIVE statement %d returned rows of groups %v and %v", r.Statement, res.group, r.Group), "INV-5"
	case d != res.endpoint:
		return res.nextConversation(d, r)
	}
	return res.nextRow(r)
}

// start makes d, whose first row is r, the conversation whose rows are coming.
func (res *receiveResult) start(d direction, r *model.TraceRecord) {
	res.endpoint, res.level, res.class, res.sequence = d, r.Priority.Level(), receiveClass(r.MessageType), r.Sequence
}

// nextConversation checks the first row r of the result's next conversation d: at a
// level no higher than the one before, and d's first rows in this result.
func (res *receiveResult) nextConversation(d direction, r *model.TraceRecord) (string, string) {
	switch {
	case slices.Contains(res.finished, d):
		return fmt.Sprintf("RECEIVE statement %d returned the rows of %v in two runs, apart", r.Statement, d.conv), "INV-6"
	case r.Priority.Level() > res.level:
		return fmt.Sprintf("RECEIVE statement %d returned %v at level %d after %v at level %d",
			r.Statement, d.conv, r.Priority.Level(), res.endpoint.conv, res.level), "INV-6"
	}
	res.finished = append(res.finished, res.endpoint)
	res.start(d, r)
	return "", ""
}

// nextRow checks the next row r of the current conversation: a DialogTimer first, then an
// Error, then the rest in ascending sequence (DLG-13).
func (res *receiveResult) nextRow(r *model.TraceRecord) (string, string) {
	cl := receiveClass(r.MessageType)
	switch {
	case cl < res.class:
		return fmt.Sprintf("RECEIVE statement %d returned %s after %s (DLG-13)",
			r.Statement, rowName(r), classNames[res.class]), "INV-6"
	case cl == classOther && res.class == classOther && r.Sequence <= res.sequence:
		return fmt.Sprintf("RECEIVE statement %d returned message %d of %v after message %d",
			r.Statement, r.Sequence, r.Conversation, res.sequence), "INV-6"
	}
	res.class, res.sequence = cl, r.Sequence
	return "", ""
}
