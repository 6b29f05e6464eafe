package results

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sbsim/sbsim/model"
)

// randomTraceRecord draws a record of any kind (those the model has, and some it does not
// have yet), every field at random, times from zero to hours and from nanoseconds up, so
// that floats take both of the encoder's forms.
func randomTraceRecord(r *rand.Rand) model.TraceRecord {
	at := func() time.Duration {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return time.Duration(r.IntN(1000)) // nanoseconds: below 1e-6 s
		case 2:
			return time.Duration(r.Int64N(int64(time.Second)))
		}
		return time.Duration(r.Int64N(math.MaxInt64 / 2))
	}
	small := func() uint64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return r.Uint64N(1 << 40)
	}
	return model.TraceRecord{
		At: at(), Event: small(), Kind: model.TraceKind(1 + r.IntN(int(model.TraceInstanceRestarted)+3)),
		Instance: model.InstanceID(r.IntN(4)), Peer: model.InstanceID(r.IntN(4)),
		Conversation: model.ConversationID(small()), FromInitiator: r.IntN(2) == 0,
		Sequence: model.SequenceNumber(int64(small()) - 3), Fragment: int32(r.IntN(5)), Fragments: int32(r.IntN(5)),
		MessageType: model.MessageTypeID(r.IntN(300)), Bytes: int64(small()), Retry: r.IntN(2) == 0,
		Reason: model.Reason(r.IntN(12)), From: model.EndpointState(r.IntN(8)), To: model.EndpointState(r.IntN(8)),
		SentAt: at(), Priority: model.PriorityLevel(r.IntN(11)), Effective: uint8(r.IntN(11)), BestWaiting: uint8(r.IntN(11)),
		Tx: model.TxID(small()), Statement: small(), Group: model.ConversationGroupID(small()),
		HolderTx: model.TxID(small()), Queue: model.QueueID(r.IntN(5)), Task: model.TaskID(small()),
		Running: int32(r.IntN(5)), MaxReaders: int32(r.IntN(5)), Ready: int32(r.IntN(50)), Waiting: int32(r.IntN(5)),
		SinceEmpty: at() - time.Duration(r.IntN(2)), Cause: uint8(r.IntN(4)),
	}
}

// TestTraceLinesAreTheEncodersBytes holds the trace writer's hand-written lines to what
// encoding/json writes for the same TraceRecord: byte for byte, over records of every kind
// with every field drawn at random.
func TestTraceLinesAreTheEncodersBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	var line []byte
	for i := range 200_000 {
		rec := randomTraceRecord(r)
		want.Reset()
		if err := enc.Encode(NewTraceRecord(rec)); err != nil {
			t.Fatal(err)
		}
		line = appendTraceLine(line[:0], &rec)
		if !bytes.Equal(line, want.Bytes()) {
			t.Fatalf("record %d (%+v):\n got %s\nwant %s", i, rec, line, want.Bytes())
		}
	}
}

// TestJSONStringsAndFloatsAreTheEncoders checks the two formatting helpers on the values
// whose form changes: quotes, backslashes, control and non-ASCII characters; floats at the
// bounds of the encoder's exponent form.
func TestJSONStringsAndFloatsAreTheEncoders(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "tab\t", "nul\x00", "é", "é<&>", "\u2028", "<&>", "\xff"} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as the trace writer's encoder
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	for _, f := range []float64{0, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.2345e22, -1e-7, 0.1, 123.456, 1e-10} {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); !bytes.Equal(got, want) {
			t.Errorf("%v: got %s, want %s", f, got, want)
		}
	}
}

// TestTraceWriterAllocatesNothingPerRecord: the point of appendTraceLine.
func TestTraceWriterAllocatesNothingPerRecord(t *testing.T) {
	w := NewTraceWriter(&bytes.Buffer{})
	rec := randomTraceRecord(rand.New(rand.NewPCG(1, 1)))
	rec.Kind = model.TraceMessageReady
	w.Record(&rec) // the line's buffer grows once
	var sink bytes.Buffer
	w = NewTraceWriter(&sink)
	w.Record(&rec)
	if allocs := testing.AllocsPerRun(1000, func() { w.Record(&rec); sink.Reset() }); allocs > 0 {
		t.Errorf("%v allocations per record, want 0", allocs)
	}
}
