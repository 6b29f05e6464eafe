package batch

import (
	"reflect"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// answering is a world whose service answers each question with the statements size
// chooses the size of: a client on instance A asks a service on instance B, whose reader
// runs a Go hook.
func answering(size func(ctx *scenarios.HookContext) int64) scenarios.Config {
	contract := model.Contract{Name: "Ask", Messages: []model.ContractMessage{
		{MessageType: "Question", SentBy: model.SentByInitiator}, {MessageType: "Answer", SentBy: model.SentByTarget}}}
	db := func(name, service string) model.Database {
		return model.Database{Name: name, MessageTypes: []model.MessageType{{Name: "Question"}, {Name: "Answer"}},
			Contracts: []model.Contract{contract}, Queues: []model.Queue{{Name: service + "Queue"}},
			Services: []model.Service{{Name: service, Queue: service + "Queue", Contracts: []string{"Ask"}}}}
	}
	hook := func(ctx *scenarios.HookContext) ([]scenarios.Statement, bool) {
		if ctx.Message.MessageType == model.EndDialogMessageType {
			return nil, false
		}
		return []scenarios.Statement{{Kind: scenarios.StatementSend, MessageType: "Answer", Size: scenarios.FixedSize(size(ctx))}}, true
	}
	return scenarios.Config{
		Name:      "answering",
		Instances: []model.Instance{{Name: "A", Databases: []model.Database{db("Shop", "Client")}}, {Name: "B", Databases: []model.Database{db("Desk", "Oracle")}}},
		Workloads: []scenarios.Workload{{Name: "questions", From: "Client", To: "Oracle", Contract: "Ask", MessageType: "Question",
			Dialogs: 20, Interarrival: sim.ExponentialMean(20 * time.Millisecond), Messages: 2, Size: scenarios.FixedSize(64),
			Replies: true, ReplyType: "Answer"}},
		Readers:         []scenarios.Reader{{Queue: "OracleQueue", ProcessingTime: sim.Fixed(time.Millisecond), Hook: hook}},
		CheckInvariants: true,
	}
}

// A hook whose answer's size comes from ranging over a Go map, whose order Go leaves
// unspecified (and randomises), breaks determinism: the check finds the two runs of the
// seed differ, and names the first record that differs side by side, the SEND of an
// answer of another size, with the records before it, the same in both.
func TestDeterminismNamesTheFirstRecordAMapIterationChanges(t *testing.T) {
	sizes := map[string]int64{"a": 100, "b": 200, "c": 300, "d": 400, "e": 500, "f": 600, "g": 700, "h": 800}
	fromMap := func(*scenarios.HookContext) int64 {
		for _, s := range sizes {
			return s // the map's first, whichever Go starts at
		}
		return 0
	}
	job := Job{Config: answering(fromMap), Seed: 11}

	var found []Divergence
	for d := range Determinism([]Job{job}, 2, nil) {
		found = append(found, d)
	}

	require.Len(t, found, 1, "the seed whose runs differ")
	d := found[0]
	require.NoError(t, d.Err)
	assert.Equal(t, uint64(11), d.Seed)
	assert.Equal(t, "answering", d.Scenario)
	assert.NotEqual(t, d.Digests[0].Hash, d.Digests[1].Hash)
	s := d.Side
	require.NotZero(t, s.Record, "the side-by-side runs differ too: %s", d.Error())
	require.NotNil(t, s.Versions[0])
	require.NotNil(t, s.Versions[1])
	a, b := *s.Versions[0], *s.Versions[1]
	assert.Equal(t, model.TraceMessageSent, a.Kind, "the first difference is an answer's SEND: %v", a)
	assert.Equal(t, a.Event, b.Event, "at the same event")
	assert.NotEqual(t, a.Bytes, b.Bytes, "of another size")
	assert.Len(t, s.Before, contextRecords)
	report := d.Error()
	for _, want := range []string{"answering seed 11", "first differ at trace record " + strconv.FormatUint(s.Record, 10),
		"both: " + s.Before[0].String(), "A:    " + a.String(), "B:    " + b.String(), "Bytes " + strconv.FormatInt(a.Bytes, 10)} {
		assert.Contains(t, report, want)
	}
}

// The comparison side by side stops at the first record that differs, and gives the
// records before it: here two worlds whose hooks answer the same but for the fifth answer,
// compared with their whole traces, kept.
func TestCompareSideBySideGivesTheFirstRecordThatDiffers(t *testing.T) {
	same := func(*scenarios.HookContext) int64 { return 100 }
	calls := 0
	fifth := func(*scenarios.HookContext) int64 {
		if calls++; calls == 5 {
			return 700
		}
		return 100
	}
	a, b := Job{Config: answering(same), Seed: 3}, Job{Config: answering(fifth), Seed: 3}
	traceOf := func(j Job) []model.TraceRecord {
		j.Config.Trace = true
		res, err := scenarios.Run(j.Config, j.Seed)
		require.NoError(t, err)
		return res.Trace
	}
	ta, tb := traceOf(a), traceOf(b)
	first := 0
	for first < min(len(ta), len(tb)) && ta[first] == tb[first] {
		first++
	}
	require.Less(t, first, min(len(ta), len(tb)), "the traces differ")
	require.GreaterOrEqual(t, first, contextRecords)

	calls = 0
	s := compareSideBySide(a, b)

	assert.Equal(t, uint64(first+1), s.Record)
	require.NotNil(t, s.Versions[0])
	require.NotNil(t, s.Versions[1])
	assert.Equal(t, ta[first], *s.Versions[0])
	assert.Equal(t, tb[first], *s.Versions[1])
	assert.Equal(t, ta[first-contextRecords:first], s.Before)
	assert.Empty(t, s.Difference)
}

// A run that emits fewer records than the other ends first: the comparison names the
// record the other run has, and no record for the run that had ended.
func TestCompareSideBySideNamesTheRunThatEndedFirst(t *testing.T) {
	long := answering(func(*scenarios.HookContext) int64 { return 100 })
	short := long
	short.Workloads = []scenarios.Workload{long.Workloads[0]}
	short.Workloads[0].Dialogs--

	s := compareSideBySide(Job{Config: long, Seed: 5}, Job{Config: short, Seed: 5})

	require.NotZero(t, s.Record)
	assert.True(t, s.Versions[0] != nil || s.Versions[1] != nil, "one run has the record")
}

// The second pass runs with another GOMAXPROCS and another number of workers, and the
// first is restored after: a hook that reads GOMAXPROCS, the same for both runs side by
// side, makes the passes differ and the runs side by side agree.
func TestDeterminismRunsTheSecondPassWithAnotherGOMAXPROCS(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	fromProcs := func(*scenarios.HookContext) int64 { return int64(100 * runtime.GOMAXPROCS(0)) }
	jobs := []Job{{Config: answering(fromProcs), Seed: 1}, {Config: answering(fromProcs), Seed: 2}}

	var found []Divergence
	for d := range Determinism(jobs, 1, nil) {
		found = append(found, d)
	}

	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "GOMAXPROCS restored")
	require.Len(t, found, 2)
	for _, d := range found {
		assert.NotEqual(t, d.Passes[0].GOMAXPROCS, d.Passes[1].GOMAXPROCS, "seed %d", d.Seed)
		assert.Equal(t, Pass{GOMAXPROCS: procs, Workers: 1}, d.Passes[0])
		assert.Equal(t, 2, d.Passes[1].Workers, "seed %d: another number of workers", d.Seed)
		assert.Zero(t, d.Side.Record, "seed %d: side by side, the runs are the same", d.Seed)
		assert.Empty(t, d.Side.Difference, "seed %d", d.Seed)
		assert.Contains(t, d.Error(), "the passes differed through what\n  they did not share")
	}
}

// INV-11 across threads and batches: every library scenario on its first seed (the first
// three in -short), and the world of the tests above with a hook that draws from its own
// stream, gives the same trace, events and metrics at another GOMAXPROCS, among another
// number of workers.
func TestINV11_TheLibraryRunsTheSameWithAnotherGOMAXPROCSAndWorkers(t *testing.T) {
	names := file.LibraryNames()
	if testing.Short() {
		names = names[:3]
	}
	var jobs []Job
	for _, name := range names {
		jobs = append(jobs, Job{Config: library(t, name).Config, Seed: 1})
	}
	drawn := func(ctx *scenarios.HookContext) int64 { return 100 + ctx.Rand.Int64N(900) }
	jobs = append(jobs, Job{Config: answering(drawn), Seed: 1})
	runs := 0

	for d := range Determinism(jobs, 2, func() { runs++ }) {
		t.Errorf("%v", &d)
	}

	assert.Equal(t, 2*len(jobs), runs, "each job ran twice")
	assert.NoError(t, CheckDeterminism(jobs[len(jobs)-1]))
}

// The digest sees every record the run emits: as many as Result.Trace holds.
func TestTraceDigestCountsEveryRecord(t *testing.T) {
	cfg := library(t, "lossy-wan").Config
	cfg.Trace = true
	h := newTraceHasher()
	cfg.TraceSink = h
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	require.NotEmpty(t, res.Trace)
	assert.Equal(t, uint64(len(res.Trace)), h.digest(res).Records)
	want := uint64(fnvOffset64)
	for i := range res.Trace {
		want = hashRecord(want, &res.Trace[i])
	}
	assert.Equal(t, want, h.digest(res).Hash)
}

// hashRecord folds in every field of a trace record: a record that differs from another
// in any one field hashes differently. A field added to model.TraceRecord and not to
// hashRecord fails here.
func TestHashRecordSeesEveryField(t *testing.T) {
	var zero model.TraceRecord
	base := hashRecord(fnvOffset64, &zero)
	typ := reflect.TypeOf(zero)
	for i := range typ.NumField() {
		t.Run(typ.Field(i).Name, func(t *testing.T) {
			r := zero
			f := reflect.ValueOf(&r).Elem().Field(i)
			switch f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				f.SetInt(-1)
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				f.SetUint(1)
			default:
				t.Fatalf("field %s of kind %v: teach hashRecord and this test about it", typ.Field(i).Name, f.Kind())
			}
			assert.NotEqual(t, base, hashRecord(fnvOffset64, &r))
		})
	}
}

// The runs of the check keep no trace, even of a scenario that asks for one (lossy-wan's
// trace: true), nor the table of conversations: their records go to the hash only.
func TestDeterminismRunsKeepNoTrace(t *testing.T) {
	cfg := library(t, "lossy-wan").Config
	require.True(t, cfg.Trace)
	h := newTraceHasher()

	res, err := scenarios.Run(tracedTo(cfg, h), 1)

	require.NoError(t, err)
	assert.Empty(t, res.Trace)
	assert.Empty(t, res.Conversations)
	assert.NotZero(t, h.digest(res).Records)
}
