package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// smallConfig is a world of instances A and B: services Urgent (broker priority 10) and
// Bulk (priority 1) on A, Target on B, whose queue is activated (MAX_QUEUE_READERS 2), over
// a link that loses and duplicates; request/reply dialogs from both services, traced and
// checked. It drains in a few virtual seconds.
func smallConfig() scenarios.Config {
	contract := model.Contract{Name: "RequestReply", Messages: []model.ContractMessage{
		{MessageType: "Request", SentBy: model.SentByInitiator}, {MessageType: "Reply", SentBy: model.SentByTarget}}}
	types := []model.MessageType{{Name: "Request"}, {Name: "Reply"}}
	orders := model.Database{Name: "Orders", MessageTypes: types, Contracts: []model.Contract{contract},
		Queues: []model.Queue{{Name: "InitiatorQueue"}},
		Services: []model.Service{{Name: "Urgent", Queue: "InitiatorQueue", Contracts: []string{"RequestReply"}},
			{Name: "Bulk", Queue: "InitiatorQueue", Contracts: []string{"RequestReply"}}},
		HonorBrokerPriority: true,
		Priorities: []model.BrokerPriority{{Name: "urgent", LocalService: "Urgent", Level: 10},
			{Name: "bulk", LocalService: "Bulk", Level: 1}}}
	stock := model.Database{Name: "Stock", MessageTypes: types, Contracts: []model.Contract{contract},
		Queues: []model.Queue{{Name: "TargetQueue",
			Activation: model.Activation{Status: true, Procedure: "Process", MaxQueueReaders: 2}}},
		Services: []model.Service{{Name: "Target", Queue: "TargetQueue", Contracts: []string{"RequestReply"}}}}
	link := faulty.Config{LatencyFixed: 20 * time.Millisecond, LatencyJitter: sim.ExponentialMean(5 * time.Millisecond),
		LossProbability: 0.1, DuplicateProbability: 0.1}
	workload := func(name, from string) scenarios.Workload {
		return scenarios.Workload{Name: name, From: from, To: "Target", Contract: "RequestReply", MessageType: "Request",
			ReplyType: "Reply", Dialogs: 4, Interarrival: sim.ExponentialMean(200 * time.Millisecond), Messages: 3,
			MessageGap: sim.Fixed(50 * time.Millisecond), Size: scenarios.FixedSize(12000), Replies: true,
			ReplySize: scenarios.FixedSize(300)}
	}
	return scenarios.Config{
		Name: "small",
		Instances: []model.Instance{{Name: "A", Databases: []model.Database{orders}},
			{Name: "B", Databases: []model.Database{stock}}},
		Links:      []scenarios.Link{{A: "A", B: "B", PairConfig: faulty.PairConfig{AToB: link, BToA: link}}},
		Workloads:  []scenarios.Workload{workload("urgent", "Urgent"), workload("bulk", "Bulk")},
		Procedures: []scenarios.Procedure{{Name: "Process", ProcessingTime: sim.Fixed(30 * time.Millisecond)}},
		// By default a closed target endpoint is kept 30 minutes and an idle connection 90
		// seconds: the run would drain only then, with thousands of idle samples.
		Broker: model.Config{RetryIntervalMin: 200 * time.Millisecond, RetryIntervalMax: time.Second,
			ClosedTargetRetention: 3 * time.Second, ConnectionIdleClose: 2 * time.Second},
		SampleInterval:  100 * time.Millisecond,
		Trace:           true,
		CheckInvariants: true,
	}
}

const testSeed = 7

// runSmall runs smallConfig with seed and requires a clean run.
func runSmall(t *testing.T, seed uint64) *scenarios.Result {
	t.Helper()
	res, err := scenarios.Run(smallConfig(), seed)
	require.NoError(t, err)
	require.Nil(t, res.Violation, "violation: %v", res.Violation)
	require.Equal(t, sim.Drained, res.StopReason)
	return res
}

var testVerdicts = []Verdict{{Name: "all invariants hold", OK: true, Detail: "no violation"},
	{Name: "p99 latency of level 10 below 2s", OK: true, Detail: "p99 0.4s"}}

// written is one run of smallConfig with testSeed, written by WriteAll to a directory
// that the tests share and only read: drawing the plots takes most of a test's time.
type written struct {
	dir   string
	paths []string
	res   *scenarios.Result
}

var (
	shared    *written
	sharedDir string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// sharedOutput returns the shared run, writing it on first use.
func sharedOutput(t *testing.T) *written {
	t.Helper()
	if shared == nil {
		dir, err := os.MkdirTemp("", "sbsim-output-test-")
		require.NoError(t, err)
		sharedDir = dir
		shared = writeSmall(t, filepath.Join(dir, "out"), testSeed)
	}
	return shared
}

// writeSmall runs smallConfig with seed and writes everything to dir.
func writeSmall(t *testing.T, dir string, seed uint64) *written {
	t.Helper()
	res := runSmall(t, seed)
	paths, err := WriteAll(dir, res, NewSummary(res, "small.yaml", "sha256:0123", testVerdicts), res.Trace)
	require.NoError(t, err)
	return &written{dir, paths, res}
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestWriteAllWritesEveryFileItReturns(t *testing.T) {
	out := sharedOutput(t)

	var names []string
	for _, p := range out.paths {
		info, err := os.Stat(p)
		require.NoError(t, err, "path %s", p)
		assert.Positive(t, info.Size(), "path %s", p)
		// Readable by all, plots included, although each is written to a temporary file
		// (0600) first (review).
		assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "path %s", p)
		assert.Equal(t, out.dir, filepath.Dir(p))
		names = append(names, filepath.Base(p))
	}
	want := []string{SummaryFile, SeriesFile, LatencyCDFFile, SnapshotsFile, RoundTripCDFFile, TraceFile, PerfettoFile,
		"round-trip-cdf.png", "round-trip-cdf.svg", "latency-cdf.png", "latency-cdf.svg", "throughput.png", "throughput.svg",
		"queue-A-InitiatorQueue.png", "queue-A-InitiatorQueue.svg", "queue-B-TargetQueue.png", "queue-B-TargetQueue.svg",
		"transmission-queue-depth.png", "transmission-queue-depth.svg", "endpoints-by-state.png", "endpoints-by-state.svg",
		"link-counters.png", "link-counters.svg"}
	assert.Equal(t, want, names)
	entries, err := os.ReadDir(out.dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(want)+1, "no file written that is not returned, besides %s", ManifestFile)
}

func TestWriteAllOfAnEmptyResultWritesNoTraceAndNoPlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	res := &scenarios.Result{Name: "empty", StopReason: sim.Drained}

	paths, err := WriteAll(dir, res, NewSummary(res, "", "", nil), nil)

	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, SummaryFile), filepath.Join(dir, SeriesFile), filepath.Join(dir, LatencyCDFFile)}, paths)
	assert.Equal(t, "time_s,subject_kind,subject,metric,value\n", string(readFileT(t, paths[1])))
	assert.Equal(t, "level,latency_s,fraction\n", string(readFileT(t, paths[2])))
	s, err := ReadSummary(bytes.NewReader(readFileT(t, paths[0])))
	require.NoError(t, err)
	assert.Equal(t, "empty", s.Scenario, "an empty name takes the result's")
	assert.True(t, s.OK)
}

// The same scenario and seed give byte-identical files (issue 7, Tests).
func TestOutputsAreByteIdenticalForTheSameSeed(t *testing.T) {
	first := sharedOutput(t)
	second := writeSmall(t, t.TempDir(), testSeed)

	require.Equal(t, len(first.paths), len(second.paths))
	for i := range first.paths {
		name := filepath.Base(first.paths[i])
		require.Equal(t, name, filepath.Base(second.paths[i]))
		assert.True(t, bytes.Equal(readFileT(t, first.paths[i]), readFileT(t, second.paths[i])),
			"file %s differs between two runs of seed %d", name, testSeed)
	}
}

func TestAnotherSeedGivesAnotherSummary(t *testing.T) {
	var a, b bytes.Buffer
	resA, resB := runSmall(t, testSeed), runSmall(t, testSeed+1)

	require.NoError(t, WriteSummary(&a, NewSummary(resA, "small", "h", nil)))
	require.NoError(t, WriteSummary(&b, NewSummary(resB, "small", "h", nil)))

	assert.NotEqual(t, a.String(), b.String())
}

// Replot draws, from series.csv, latency_cdf.csv and round_trip_cdf.csv, and the
// scenario and seed of summary.json for the titles, the plots WriteAll drew.
func TestReplotRedrawsTheSameFiles(t *testing.T) {
	out := sharedOutput(t)
	dir := t.TempDir()
	for _, name := range []string{SeriesFile, LatencyCDFFile, RoundTripCDFFile, SummaryFile} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), readFileT(t, filepath.Join(out.dir, name)), 0o644))
	}

	replotted, err := Replot(dir)

	require.NoError(t, err)
	var want []string
	for _, p := range out.paths {
		if ext := filepath.Ext(p); ext == ".png" || ext == ".svg" {
			want = append(want, filepath.Base(p))
		}
	}
	var got []string
	for _, p := range replotted {
		got = append(got, filepath.Base(p))
		assert.True(t, bytes.Equal(readFileT(t, filepath.Join(out.dir, filepath.Base(p))), readFileT(t, p)),
			"replotted %s differs", filepath.Base(p))
	}
	assert.Equal(t, want, got)
}

func TestReplotReportsAMissingFile(t *testing.T) {
	_, err := Replot(t.TempDir())

	assert.ErrorContains(t, err, SeriesFile)

	// A sweep's folder has no series: say what it is and how to redraw it (review).
	sweep := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(sweep, SweepFile), []byte("seed\n"), 0o644))
	_, err = Replot(sweep)
	assert.ErrorContains(t, err, "it holds a sweep (sweep.csv), whose plots only simulate sweep draws")
}

func TestWriteAllReportsAnUnwritableDirectory(t *testing.T) {
	res := &scenarios.Result{}
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))

	_, err := WriteAll(filepath.Join(file, "out"), res, NewSummary(res, "", "", nil), nil)

	assert.Error(t, err)
}

// The report's verdict on a design finding follows the expectations: expected and all
// held, expected but another failed, or not expected (G-16, docs/dialog-protocol.md).
func TestReportVerdictOnADesignFinding(t *testing.T) {
	res := &scenarios.Result{InvariantsChecked: true, StopReason: sim.Drained, FindingCount: 2}
	expects := Verdict{Name: "dialogs.reopened at least 1", OK: true, Detail: "2", ExpectsFinding: true}
	for _, c := range []struct {
		verdicts []Verdict
		want     string
	}{
		{[]Verdict{expects}, "verdict: ok: the design fails as the scenario expects"},
		{[]Verdict{expects, {Name: "messages.delivered above 80", Detail: "80"}}, "verdict: FAILED: the scenario expects the finding, but other"},
		{[]Verdict{{Name: "invariants hold", OK: true, Detail: "hold"}, {Name: "dialogs.reopened equals 0 (implicit: ...)", Detail: "2"}},
			"verdict: FAILED, by the design"},
	} {
		var b strings.Builder
		WriteReport(&b, Run{Name: "x", Result: res, Expectations: c.verdicts})
		assert.Contains(t, b.String(), c.want)
	}
}
