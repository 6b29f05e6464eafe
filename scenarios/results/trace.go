package results

import (
	"bufio"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/model"
)

// TraceRecord is one model.TraceRecord as a line of trace.jsonl. time_s, kind and instance
// are always there (and event when the world stamped it); every other field is there
// exactly when the kind has it (docs/outputs.md lists them kind by kind), whatever its
// value, so that a kind's lines all have the same fields. The one exception is a field
// whose absence says something: from_state on an endpoint just created, since_empty_s when
// no RECEIVE has returned empty yet. A kind this package does not know yet gets every
// field that is not zero.
type TraceRecord struct {
	TimeS float64 `json:"time_s"`
	Event uint64  `json:"event,omitempty"`
	Kind  string  `json:"kind"`
	// Instance is the instance's number, an index into the summary's instances; Peer the
	// other instance of a fragment, packet or acknowledgement.
	Instance      int      `json:"instance"`
	Peer          *int     `json:"peer,omitempty"`
	Conversation  string   `json:"conversation,omitempty"`
	FromInitiator *bool    `json:"from_initiator,omitempty"`
	Sequence      *int64   `json:"sequence,omitempty"`
	Fragment      *int32   `json:"fragment,omitempty"`
	Fragments     *int32   `json:"fragments,omitempty"`
	MessageType   *int32   `json:"message_type,omitempty"`
	Bytes         *int64   `json:"bytes,omitempty"`
	Retry         *bool    `json:"retry,omitempty"`
	Reason        string   `json:"reason,omitempty"`
	FromState     string   `json:"from_state,omitempty"`
	ToState       string   `json:"to_state,omitempty"`
	SentAtS       *float64 `json:"sent_at_s,omitempty"`
	Priority      *int     `json:"priority,omitempty"`
	Effective     *int     `json:"effective,omitempty"`
	BestWaiting   *int     `json:"best_waiting,omitempty"`
	Tx            *uint64  `json:"tx,omitempty"`
	Statement     *uint64  `json:"statement,omitempty"`
	Group         string   `json:"group,omitempty"`
	HolderTx      *uint64  `json:"holder_tx,omitempty"`
	Queue         *int     `json:"queue,omitempty"`
	Task          *uint64  `json:"task,omitempty"`
	Running       *int32   `json:"running,omitempty"`
	MaxReaders    *int32   `json:"max_readers,omitempty"`
	Ready         *int32   `json:"ready,omitempty"`
	Waiting       *int32   `json:"waiting,omitempty"`
	SinceEmptyS   *float64 `json:"since_empty_s,omitempty"`
	Cause         *uint8   `json:"cause,omitempty"`
}

// field is a set of the optional fields of a TraceRecord.
type field uint32

const (
	fPeer field = 1 << iota
	fConversation
	fFromInitiator
	fSequence
	fFragment
	fFragments
	fMessageType
	fBytes
	fRetry
	fReason
	fStates
	fSentAt
	fPriority
	fScheduling // effective and best_waiting
	fTx
	fStatement
	fGroup
	fHolderTx
	fQueue
	fTask
	fRunning
	fMaxReaders
	fReady
	fWaiting
	fSinceEmpty
	fCause
)

// fragmentFields are the fields of a fragment's arrival.
const fragmentFields = fPeer | fConversation | fFromInitiator | fSequence | fFragment

// monitorFields are the fields of a queue monitor's decision to activate.
const monitorFields = fQueue | fRunning | fReady | fWaiting | fSinceEmpty | fCause

// kindFields are the fields each kind has, after the model's trace points.
var kindFields = [...]field{
	model.TraceMessageSent:         fConversation | fFromInitiator | fSequence | fFragments | fMessageType | fBytes,
	model.TraceFragmentSent:        fragmentFields | fRetry,
	model.TraceFragmentStored:      fragmentFields,
	model.TraceFragmentDuplicate:   fragmentFields,
	model.TraceFragmentDiscarded:   fConversation | fFromInitiator | fSequence | fFragment | fReason,
	model.TracePacketCorrupt:       fPeer,
	model.TraceMessageReady:        fPeer | fConversation | fFromInitiator | fSequence | fMessageType | fBytes | fSentAt | fGroup,
	model.TraceMessageReceived:     fTx | fStatement | fGroup | fConversation | fFromInitiator | fPriority | fSequence | fMessageType | fBytes | fSentAt,
	model.TraceRowRemoved:          fConversation | fFromInitiator | fSequence | fMessageType | fReason,
	model.TraceStateChanged:        fConversation | fFromInitiator | fStates | fPriority,
	model.TraceAckSent:             fPeer,
	model.TraceScheduled:           fPeer | fConversation | fFromInitiator | fPriority | fScheduling,
	model.TraceLockAcquired:        fTx | fGroup,
	model.TraceLockReleased:        fTx | fGroup,
	model.TraceLockWait:            fTx | fGroup | fStatement | fHolderTx,
	model.TraceDeadlock:            fTx | fGroup | fStatement,
	model.TraceMessageReturned:     fTx | fConversation | fFromInitiator | fSequence | fMessageType | fGroup,
	model.TraceTxCommitted:         fTx,
	model.TraceTxRolledBack:        fTx,
	model.TraceSavepointRolledBack: fTx,
	model.TraceQueueDisabled:       fTx | fQueue,
	model.TraceTaskStarted:         monitorFields | fTask | fMaxReaders,
	model.TraceTaskExited:          fQueue | fTask | fRunning,
	model.TraceActivationFailed:    fQueue | fTask,
	model.TraceMonitorReceive:      fQueue | fTx,
	model.TraceNotificationSent:    monitorFields,
	model.TraceNotificationDropped: fConversation | fMessageType,
	model.TraceActivationAltered:   fQueue | fMaxReaders | fRunning | fCause,
	model.TraceEndpointForgotten:   fConversation,
	model.TraceDelayed:             fConversation | fFromInitiator,
	model.TraceRouted:              fPeer | fConversation | fFromInitiator,
	model.TraceForwarded:           fPeer | fConversation | fFromInitiator | fSequence | fFragment | fFragments | fPriority | fScheduling,
	model.TraceMessageHeld:         fPeer | fConversation | fFromInitiator | fSequence | fMessageType | fBytes | fSentAt | fGroup,
	model.TraceInstanceCrashed:     fTx | fTask,
	model.TraceInstanceRestarted:   fTx | fTask,
}

// fieldsOf returns the fields of r's kind, or, for a kind not in kindFields, those that are
// not zero.
func fieldsOf(r *model.TraceRecord) field {
	if int(r.Kind) < len(kindFields) && kindFields[r.Kind] != 0 {
		return kindFields[r.Kind]
	}
	var f field
	set := func(ok bool, b field) {
		if ok {
			f |= b
		}
	}
	set(r.Peer != 0, fPeer)
	set(r.Conversation != 0, fConversation|fFromInitiator)
	set(r.Sequence != 0, fSequence)
	set(r.Fragment != 0, fFragment)
	set(r.Fragments != 0, fFragments)
	set(r.MessageType != 0, fMessageType)
	set(r.Bytes != 0, fBytes)
	set(r.Retry, fRetry)
	set(r.Reason != model.ReasonNone, fReason)
	set(r.To != 0, fStates)
	set(r.SentAt != 0, fSentAt)
	set(r.Priority != 0, fPriority)
	set(r.Effective != 0 || r.BestWaiting != 0, fScheduling)
	set(r.Tx != 0, fTx)
	set(r.Statement != 0, fStatement)
	set(r.Group != 0, fGroup)
	set(r.HolderTx != 0, fHolderTx)
	set(r.Queue != 0, fQueue)
	set(r.Task != 0, fTask)
	set(r.Running != 0, fRunning)
	set(r.MaxReaders != 0, fMaxReaders)
	set(r.Ready != 0, fReady)
	set(r.Waiting != 0, fWaiting)
	set(r.SinceEmpty != 0, fSinceEmpty)
	set(r.Cause != 0, fCause)
	return f
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// NewTraceRecord converts a model trace record to its trace.jsonl form.
func NewTraceRecord(r model.TraceRecord) TraceRecord {
	f := fieldsOf(&r)
	out := TraceRecord{TimeS: seconds(r.At), Event: r.Event, Kind: r.Kind.String(), Instance: int(r.Instance)}
	has := func(b field) bool { return f&b != 0 }
	if has(fPeer) {
		out.Peer = ptr(int(r.Peer))
	}
	if has(fConversation) {
		out.Conversation = r.Conversation.String()
	}
	if has(fFromInitiator) {
		out.FromInitiator = ptr(r.FromInitiator)
	}
	if has(fSequence) {
		out.Sequence = ptr(int64(r.Sequence))
	}
	if has(fFragment) {
		out.Fragment = ptr(r.Fragment)
	}
	if has(fFragments) {
		out.Fragments = ptr(r.Fragments)
	}
	if has(fMessageType) {
		out.MessageType = ptr(int32(r.MessageType))
	}
	if has(fBytes) {
		out.Bytes = ptr(r.Bytes)
	}
	if has(fRetry) {
		out.Retry = ptr(r.Retry)
	}
	if has(fReason) {
		out.Reason = r.Reason.String()
	}
	if has(fStates) {
		if r.From != 0 {
			out.FromState = r.From.String()
		}
		out.ToState = r.To.String()
	}
	if has(fSentAt) {
		out.SentAtS = ptr(seconds(r.SentAt))
	}
	if has(fPriority) {
		out.Priority = ptr(r.Priority.Level())
	}
	if has(fScheduling) {
		out.Effective, out.BestWaiting = ptr(int(r.Effective)), ptr(int(r.BestWaiting))
	}
	addTransactionFields(&out, &r, f)
	addActivationFields(&out, &r, f)
	return out
}

// addTransactionFields sets the fields of transactions and locks.
func addTransactionFields(out *TraceRecord, r *model.TraceRecord, f field) {
	if f&fTx != 0 {
		out.Tx = ptr(uint64(r.Tx))
	}
	if f&fStatement != 0 {
		out.Statement = ptr(r.Statement)
	}
	if f&fGroup != 0 {
		out.Group = r.Group.String()
	}
	if f&fHolderTx != 0 {
		out.HolderTx = ptr(uint64(r.HolderTx))
	}
}

// addActivationFields sets the fields of queue monitors and activated tasks.
func addActivationFields(out *TraceRecord, r *model.TraceRecord, f field) {
	if f&fQueue != 0 {
		out.Queue = ptr(int(r.Queue))
	}
	if f&fTask != 0 {
		out.Task = ptr(uint64(r.Task))
	}
	if f&fRunning != 0 {
		out.Running = ptr(r.Running)
	}
	if f&fMaxReaders != 0 {
		out.MaxReaders = ptr(r.MaxReaders)
	}
	if f&fReady != 0 {
		out.Ready = ptr(r.Ready)
	}
	if f&fWaiting != 0 {
		out.Waiting = ptr(r.Waiting)
	}
	if f&fSinceEmpty != 0 && r.SinceEmpty >= 0 {
		out.SinceEmptyS = ptr(seconds(r.SinceEmpty))
	}
	if f&fCause != 0 {
		out.Cause = ptr(r.Cause)
	}
}

// WriteTrace writes records as JSON Lines: one TraceRecord object a line, in the order
// given (the order they happened in).
func WriteTrace(w io.Writer, records []model.TraceRecord) error {
	t := NewTraceWriter(w)
	for i := range records {
		t.Record(&records[i])
	}
	return t.Flush()
}

// TraceWriter writes trace records as JSON Lines as they are handed to it, through a
// buffer: the lines of WriteTrace, without the records in memory. It is a
// scenarios.TraceSink, for Config.TraceSink. It keeps the first error and writes nothing
// after it; Flush returns it.
type TraceWriter struct {
	bw   *bufio.Writer
	line []byte // the line being written, reused from one record to the next
	n    int
	err  error
}

// NewTraceWriter returns a TraceWriter onto w.
func NewTraceWriter(w io.Writer) *TraceWriter {
	return &TraceWriter{bw: bufio.NewWriterSize(w, 1<<16)}
}

// Record writes r as one line: the encoder's bytes for NewTraceRecord(*r), appended
// without allocating (appendTraceLine).
func (t *TraceWriter) Record(r *model.TraceRecord) {
	if t.err != nil {
		return
	}
	t.line = appendTraceLine(t.line[:0], r)
	if _, err := t.bw.Write(t.line); err != nil {
		t.err = fmt.Errorf("trace record %d: %w", t.n, err)
	}
	t.n++
}

// Records is how many records were handed to the writer.
func (t *TraceWriter) Records() int { return t.n }

// Flush writes what the buffer holds and returns the first error of the writer.
func (t *TraceWriter) Flush() error {
	if t.err != nil {
		return t.err
	}
	if err := t.bw.Flush(); err != nil {
		t.err = fmt.Errorf("trace: %w", err)
	}
	return t.err
}
