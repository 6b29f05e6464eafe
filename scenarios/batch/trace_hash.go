package batch

import (
	"math"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// FNV-1a, 64 bits: the offset basis and the prime.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// fnvWord folds v into h: FNV-1a's step (xor, then multiply by its prime) on the whole
// 64-bit word at once rather than on each of its bytes, 8 times fewer multiplications (a
// library check hashes two million records), then an xor-shift, so that a difference in
// v's high bits reaches the low ones. For a given v each step is a bijection of h: two
// hashes that differ stay different unless a later difference cancels that one exactly.
func fnvWord(h, v uint64) uint64 {
	h = (h ^ v) * fnvPrime64
	return h ^ h>>29
}

// fnvString folds the bytes of s, one by one as FNV-1a does, then its length, into h.
func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return fnvWord(h, uint64(len(s)))
}

// bit is 1 for true.
func bit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// hashRecord folds every field of r, the event number among them, into h.
// TestHashRecordSeesEveryField fails when a field of model.TraceRecord is missing here.
func hashRecord(h uint64, r *model.TraceRecord) uint64 {
	for _, v := range [...]uint64{
		uint64(r.At), r.Event, uint64(r.Kind), uint64(r.Instance), uint64(r.Peer), uint64(r.Conversation),
		bit(r.FromInitiator), uint64(r.Sequence), uint64(r.Fragment), uint64(r.Fragments), uint64(r.MessageType),
		uint64(r.Bytes), bit(r.Retry), uint64(r.Reason), uint64(r.From), uint64(r.To), uint64(r.SentAt),
		uint64(r.Priority), uint64(r.Effective), uint64(r.BestWaiting), uint64(r.Tx), r.Statement, uint64(r.Group),
		uint64(r.HolderTx), uint64(r.Queue), uint64(r.Task), uint64(r.Running), uint64(r.MaxReaders),
		uint64(r.Ready), uint64(r.Waiting), uint64(r.SinceEmpty), uint64(r.Cause),
	} {
		h = fnvWord(h, v)
	}
	return h
}

// TraceDigest is what the determinism check keeps of a run, whatever its length: a
// running hash (FNV-1a, 64 bits, word by word: fnvWord) of its trace records in the order they were emitted, each
// with its event number, how many there were, and how the run ended.
type TraceDigest struct {
	Hash    uint64
	Records uint64
	Events  uint64
	Stop    sim.StopReason
	// Measures is a hash of every metric's values (scenarios.Measures): the result the
	// records give, in case a run's figures differ where its records do not.
	Measures uint64
}

// traceHasher is the TraceSink of a determinism run: it folds each record into the digest
// as the run emits it and keeps none.
type traceHasher struct{ d TraceDigest }

func newTraceHasher() *traceHasher { return &traceHasher{d: TraceDigest{Hash: fnvOffset64}} }

// Record folds r into the digest.
func (t *traceHasher) Record(r *model.TraceRecord) {
	t.d.Hash = hashRecord(t.d.Hash, r)
	t.d.Records++
}

// digest is the digest of the run that gave res, whose records t saw.
func (t *traceHasher) digest(res *scenarios.Result) TraceDigest {
	d := t.d
	d.Events, d.Stop, d.Measures = res.Events, res.StopReason, hashMeasures(res)
	return d
}

// hashMeasures is a hash of every metric's values on every subject of res, and of its
// violation.
func hashMeasures(res *scenarios.Result) uint64 {
	h := uint64(fnvOffset64)
	for _, m := range scenarios.Measures(res) {
		h = fnvString(h, m.Metric)
		h = fnvWord(h, uint64(m.Subject.Level))
		h = fnvString(fnvString(fnvString(h, m.Subject.Queue), m.Subject.Workload), m.Subject.Instance)
		h = fnvWord(h, math.Float64bits(m.Value))
	}
	if v := res.Violation; v != nil {
		h = fnvString(fnvWord(fnvString(h, v.Rule), uint64(v.At)), v.Message)
	}
	return h
}
