package results

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/sbsim/sbsim/model"
)

// appendTraceLine appends r's line of trace.jsonl to b: the bytes a json.Encoder (HTML
// escaping off) writes for NewTraceRecord(*r), newline included, without building the
// TraceRecord and its pointers or going through reflection. A trace of a million dialogs
// has hundreds of millions of records; this is what writing one costs.
// TestTraceLinesAreTheEncodersBytes holds it to the encoder's output for every kind.
func appendTraceLine(b []byte, r *model.TraceRecord) []byte {
	f := fieldsOf(r)
	has := func(x field) bool { return f&x != 0 }
	b = append(b, `{"time_s":`...)
	b = appendJSONFloat(b, seconds(r.At))
	if r.Event != 0 {
		b = strconv.AppendUint(append(b, `,"event":`...), r.Event, 10)
	}
	b = appendJSONString(append(b, `,"kind":`...), r.Kind.String())
	b = strconv.AppendInt(append(b, `,"instance":`...), int64(r.Instance), 10)
	if has(fPeer) {
		b = strconv.AppendInt(append(b, `,"peer":`...), int64(r.Peer), 10)
	}
	if has(fConversation) {
		b = appendID(append(b, `,"conversation":`...), 'c', uint64(r.Conversation))
	}
	if has(fFromInitiator) {
		b = strconv.AppendBool(append(b, `,"from_initiator":`...), r.FromInitiator)
	}
	if has(fSequence) {
		b = strconv.AppendInt(append(b, `,"sequence":`...), int64(r.Sequence), 10)
	}
	if has(fFragment) {
		b = strconv.AppendInt(append(b, `,"fragment":`...), int64(r.Fragment), 10)
	}
	if has(fFragments) {
		b = strconv.AppendInt(append(b, `,"fragments":`...), int64(r.Fragments), 10)
	}
	if has(fMessageType) {
		b = strconv.AppendInt(append(b, `,"message_type":`...), int64(int32(r.MessageType)), 10)
	}
	if has(fBytes) {
		b = strconv.AppendInt(append(b, `,"bytes":`...), r.Bytes, 10)
	}
	if has(fRetry) {
		b = strconv.AppendBool(append(b, `,"retry":`...), r.Retry)
	}
	if has(fReason) {
		b = appendOptionalString(b, `,"reason":`, r.Reason.String())
	}
	if has(fStates) {
		if r.From != 0 {
			b = appendOptionalString(b, `,"from_state":`, r.From.String())
		}
		b = appendOptionalString(b, `,"to_state":`, r.To.String())
	}
	if has(fSentAt) {
		b = appendJSONFloat(append(b, `,"sent_at_s":`...), seconds(r.SentAt))
	}
	if has(fPriority) {
		b = strconv.AppendInt(append(b, `,"priority":`...), int64(r.Priority.Level()), 10)
	}
	if has(fScheduling) {
		b = strconv.AppendInt(append(b, `,"effective":`...), int64(r.Effective), 10)
		b = strconv.AppendInt(append(b, `,"best_waiting":`...), int64(r.BestWaiting), 10)
	}
	if has(fTx) {
		b = strconv.AppendUint(append(b, `,"tx":`...), uint64(r.Tx), 10)
	}
	if has(fStatement) {
		b = strconv.AppendUint(append(b, `,"statement":`...), r.Statement, 10)
	}
	if has(fGroup) {
		b = appendID(append(b, `,"group":`...), 'g', uint64(r.Group))
	}
	if has(fHolderTx) {
		b = strconv.AppendUint(append(b, `,"holder_tx":`...), uint64(r.HolderTx), 10)
	}
	return append(appendActivationLine(b, r, f), "}\n"...)
}

// appendActivationLine appends the fields of queue monitors and activated tasks
// (addActivationFields).
func appendActivationLine(b []byte, r *model.TraceRecord, f field) []byte {
	if f&fQueue != 0 {
		b = strconv.AppendInt(append(b, `,"queue":`...), int64(r.Queue), 10)
	}
	if f&fTask != 0 {
		b = strconv.AppendUint(append(b, `,"task":`...), uint64(r.Task), 10)
	}
	if f&fRunning != 0 {
		b = strconv.AppendInt(append(b, `,"running":`...), int64(r.Running), 10)
	}
	if f&fMaxReaders != 0 {
		b = strconv.AppendInt(append(b, `,"max_readers":`...), int64(r.MaxReaders), 10)
	}
	if f&fReady != 0 {
		b = strconv.AppendInt(append(b, `,"ready":`...), int64(r.Ready), 10)
	}
	if f&fWaiting != 0 {
		b = strconv.AppendInt(append(b, `,"waiting":`...), int64(r.Waiting), 10)
	}
	if f&fSinceEmpty != 0 && r.SinceEmpty >= 0 {
		b = appendJSONFloat(append(b, `,"since_empty_s":`...), seconds(r.SinceEmpty))
	}
	if f&fCause != 0 {
		b = strconv.AppendUint(append(b, `,"cause":`...), uint64(r.Cause), 10)
	}
	return b
}

// appendID appends an id as its String method writes it (a prefix and the hexadecimal
// number), quoted.
func appendID(b []byte, prefix byte, v uint64) []byte {
	b = append(b, '"', prefix)
	return append(strconv.AppendUint(b, v, 16), '"')
}

// appendOptionalString appends key and s unless s is empty: a string field with omitempty.
func appendOptionalString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return appendJSONString(append(b, key...), s)
}

// appendJSONString appends s as encoding/json quotes it. The names written here are plain
// ASCII; anything else goes through the encoder, so that the bytes stay its bytes.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return appendEncoded(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendEncoded appends s as the trace's encoder writes it: HTML escaping off.
func appendEncoded(b []byte, s string) []byte {
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
}

// appendJSONFloat appends f as encoding/json writes a float64: the shortest decimal that
// reads back as f, in exponent form below 1e-6 and from 1e21, with a one-digit negative
// exponent not padded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
