package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
)

// ReadTrace reads trace.jsonl as WriteTrace and TraceWriter write it, and yields its
// records in order, each as the model's record it was written from (Model), with its line
// number. A line that is not a trace record ends the reading with an error naming it.
func ReadTrace(r io.Reader) iter.Seq2[model.TraceRecord, error] {
	return func(yield func(model.TraceRecord, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for n := 1; sc.Scan(); n++ {
			if len(bytes.TrimSpace(sc.Bytes())) == 0 {
				continue // a blank line, at the end of a file edited by hand say
			}
			var t TraceRecord
			if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
				yield(model.TraceRecord{}, fmt.Errorf("trace line %d: %w", n, err))
				return
			}
			rec, err := t.Model()
			if err != nil {
				yield(model.TraceRecord{}, fmt.Errorf("trace line %d: %w", n, err))
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(model.TraceRecord{}, fmt.Errorf("trace: %w", err))
		}
	}
}

// Model returns the model's record that t was written from (NewTraceRecord): every field
// the line has. Times come back to the nanosecond up to about fifty days (a line holds
// seconds as a float); a DEFAULT priority comes back as level 5, and an
// activation record's SinceEmpty that the line leaves out (no empty RECEIVE yet) as -1.
func (t TraceRecord) Model() (model.TraceRecord, error) {
	kind, ok := traceKinds[t.Kind]
	if !ok {
		return model.TraceRecord{}, fmt.Errorf("unknown kind %q", t.Kind)
	}
	r := model.TraceRecord{At: fromSeconds(t.TimeS), Event: t.Event, Kind: kind, Instance: model.InstanceID(t.Instance)}
	var err error
	set := func(e error) {
		if err == nil {
			err = e
		}
	}
	if t.Peer != nil {
		r.Peer = model.InstanceID(*t.Peer)
	}
	if t.Conversation != "" {
		v, e := parseID(t.Conversation, 'c')
		r.Conversation = model.ConversationID(v)
		set(e)
	}
	r.FromInitiator = deref(t.FromInitiator)
	r.Sequence = model.SequenceNumber(deref(t.Sequence))
	r.Fragment, r.Fragments = deref(t.Fragment), deref(t.Fragments)
	r.MessageType = model.MessageTypeID(deref(t.MessageType))
	r.Bytes, r.Retry = deref(t.Bytes), deref(t.Retry)
	if t.Reason != "" {
		r.Reason, ok = reasons[t.Reason]
		if !ok {
			set(fmt.Errorf("unknown reason %q", t.Reason))
		}
	}
	if t.FromState != "" {
		r.From, ok = states[t.FromState]
		if !ok {
			set(fmt.Errorf("unknown state %q", t.FromState))
		}
	}
	if t.ToState != "" {
		r.To, ok = states[t.ToState]
		if !ok {
			set(fmt.Errorf("unknown state %q", t.ToState))
		}
	}
	if t.SentAtS != nil {
		r.SentAt = fromSeconds(*t.SentAtS)
	}
	r.Priority = model.PriorityLevel(deref(t.Priority))
	r.Effective, r.BestWaiting = uint8(deref(t.Effective)), uint8(deref(t.BestWaiting))
	r.Tx, r.Statement = model.TxID(deref(t.Tx)), deref(t.Statement)
	if t.Group != "" {
		v, e := parseID(t.Group, 'g')
		r.Group = model.ConversationGroupID(v)
		set(e)
	}
	r.HolderTx, r.Queue, r.Task = model.TxID(deref(t.HolderTx)), model.QueueID(deref(t.Queue)), model.TaskID(deref(t.Task))
	r.Running, r.MaxReaders, r.Ready, r.Waiting = deref(t.Running), deref(t.MaxReaders), deref(t.Ready), deref(t.Waiting)
	switch {
	case t.SinceEmptyS != nil:
		r.SinceEmpty = fromSeconds(*t.SinceEmptyS)
	case fieldsOf(&r)&fSinceEmpty != 0:
		r.SinceEmpty = -1 // left out: no empty RECEIVE yet
	}
	r.Cause = deref(t.Cause)
	return r, err
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// fromSeconds is the inverse of seconds, to the nanosecond for times it holds exactly.
func fromSeconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// parseID reads an id written as a prefix letter and hexadecimal digits (c1a, g2f).
func parseID(s string, prefix byte) (uint64, error) {
	if len(s) < 2 || s[0] != prefix {
		return 0, fmt.Errorf("id %q: want %c and hexadecimal digits", s, prefix)
	}
	v, err := strconv.ParseUint(s[1:], 16, 64)
	if err != nil {
		return 0, fmt.Errorf("id %q: %w", s, err)
	}
	return v, nil
}

// The names the trace writes, back to the model's values.
var (
	traceKinds = names(model.TraceKind(1), model.TraceInstanceRestarted)
	reasons    = names(model.ReasonAcked, model.ReasonHops)
	states     = names(model.StartedOutbound, model.Closed)
)

// names maps the String of each value from first to last to the value.
func names[T interface {
	~uint8
	fmt.Stringer
}](first, last T) map[string]T {
	m := map[string]T{}
	for v := first; v <= last; v++ {
		if s := v.String(); !strings.Contains(s, "(") {
			m[s] = v
		}
	}
	return m
}
