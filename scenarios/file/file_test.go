package file

import (
	"errors"
	"github.com/sbsim/sbsim/scenarios"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

func testdataFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "files", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// Every file in testdata loads to a Config that model.Compile and Config.Validate accept,
// runs, and meets its own expectations on seed 1.
func TestLoadFileEveryTestdataFileRunsAndMeetsItsExpectations(t *testing.T) {
	for _, path := range testdataFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := LoadFile(path)
			require.NoError(t, err)
			cat, err := model.Compile(f.Config.Instances)
			require.NoError(t, err)
			require.NoError(t, f.Config.Validate(cat))

			res, err := scenarios.Run(f.Config, 1)

			require.NoError(t, err)
			require.NotEmpty(t, f.Expectations)
			for _, v := range f.Check(res) {
				assert.True(t, v.OK, "%s: %s", path, v)
			}
		})
	}
}

// Keys left out take SQL Server's defaults (ENT-4: a queue is ON, RETENTION OFF, poison
// handling ON; ACTIVATION's STATUS is ON once the clause is there) and the sim's (checks
// on, broker defaults, the file's name as the scenario's).
func TestLoadDefaults(t *testing.T) {
	f, err := Load("dir/shop.yaml", []byte(`
instances:
  - name: A
    databases:
      - name: D
        queues:
          - {name: Q}
          - {name: R, activation: {procedure_name: P}}
        services: [{name: S, queue: Q}]
procedures: [{name: P}]
`))
	require.NoError(t, err)
	cfg := f.Config
	assert.Equal(t, "shop", cfg.Name)
	assert.True(t, cfg.CheckInvariants)
	assert.False(t, cfg.Trace)
	assert.Equal(t, model.Config{}, cfg.Broker)
	q := cfg.Instances[0].Databases[0].Queues
	assert.Equal(t, model.Queue{Name: "Q"}, q[0])
	assert.Equal(t, model.Activation{Status: true, Procedure: "P"}, q[1].Activation)
	assert.Nil(t, cfg.Links)
	assert.Nil(t, f.Expectations)
}

// The ways of writing values: sizes with units, probabilities as percentages, digits
// grouped with underscores, distributions in every shape, ANY and DEFAULT, anchors and
// merge keys.
func TestLoadValueSpellings(t *testing.T) {
	f, err := Load("values.yaml", []byte(`
instances:
  - name: A
    databases:
      - name: D
        message_types: [M]
        contracts: [{name: C, messages: [{message_type: M, sent_by: ANY}]}]
        queues: [{name: Q, status: OFF, retention: true, poison_message_handling: no}]
        services: [{name: S, queue: Q, contracts: [C]}]
        broker_priorities:
          - {name: p, contract_name: any, local_service_name: S, remote_service_name: ANY, priority_level: DEFAULT}
  - name: B
    databases: [{name: D}]
links:
  - between: [A, B]
    a_to_b: &fast {latency: 1ms, bandwidth: 1MiB, loss: 2.5%}
    b_to_a:
      <<: *fast
      latency: 2ms
      jitter: {uniform: [1ms, 3ms]}
workloads:
  - {name: w, from_service: S, to_service: S, contract: C, message_type: M, dialogs: 1_000, size: {normal: {mean: 2KB, stddev: 100}},
     interarrival: {lognormal: {mean: 1s, stddev: 500ms}}, message_gap: {fixed: 1h30m}}
limits: {max_events: 1_000_000}
`))
	require.NoError(t, err)
	cfg := f.Config
	q := cfg.Instances[0].Databases[0].Queues[0]
	assert.Equal(t, model.Queue{Name: "Q", Status: model.QueueOff, Retention: true, PoisonMessageHandlingOff: true}, q)
	assert.Equal(t, model.BrokerPriority{Name: "p", LocalService: "S"}, cfg.Instances[0].Databases[0].Priorities[0])
	assert.Equal(t, model.SentByAny, cfg.Instances[0].Databases[0].Contracts[0].Messages[0].SentBy)
	l := cfg.Links[0]
	assert.Equal(t, time.Millisecond, l.AToB.LatencyFixed)
	assert.Equal(t, int64(1<<20), l.AToB.Bandwidth)
	assert.Equal(t, 0.025, l.AToB.LossProbability)
	assert.Equal(t, 2*time.Millisecond, l.BToA.LatencyFixed)
	assert.Equal(t, int64(1<<20), l.BToA.Bandwidth, "merged from the anchor")
	assert.Equal(t, sim.UniformBetween(time.Millisecond, 3*time.Millisecond), l.BToA.LatencyJitter)
	w := cfg.Workloads[0]
	assert.Equal(t, 1000, w.Dialogs)
	assert.Equal(t, scenarios.SizeDistribution{Kind: sim.Normal, Mean: 2000, StdDev: 100}, w.Size)
	assert.Equal(t, sim.LogNormalMean(time.Second, 500*time.Millisecond), w.Interarrival)
	assert.Equal(t, sim.Fixed(90*time.Minute), w.MessageGap)
	assert.Equal(t, uint64(1_000_000), cfg.MaxEvents)
}

// A loaded file, written and loaded again, is the same File; writing it again gives the
// same bytes. The library's scenarios, written again, load back to the same Scenario.
func TestMarshalRoundTrip(t *testing.T) {
	for _, path := range testdataFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := LoadFile(path)
			require.NoError(t, err)
			out, err := f.Marshal()
			require.NoError(t, err)
			g, err := Load(path, out)
			require.NoError(t, err, "%s written:\n%s", path, out)
			g.Hash = f.Hash     // the hash is of the text, which Marshal rewrites
			g.Places = f.Places // and so are the lines where each value is
			assert.Equal(t, f, g)
			again, err := g.Marshal()
			require.NoError(t, err)
			assert.Equal(t, string(out), string(again))
		})
	}
	for _, name := range LibraryNames() {
		t.Run("library "+name, func(t *testing.T) {
			f, err := Library(name)
			require.NoError(t, err)
			out, err := f.Marshal()
			require.NoError(t, err)
			g, err := Load(name+".yaml", out)
			require.NoError(t, err, "%s written:\n%s", name, out)
			g.Hash = f.Hash     // the hash is of the text, which Marshal rewrites
			g.Places = f.Places // and so are the lines where each value is
			assert.Equal(t, f, g)
		})
	}
}

// A Config built in Go may hold what no file can say; Marshal refuses it rather than
// write a file that loads to something else.
func TestMarshalRefusesWhatAFileCannotSay(t *testing.T) {
	f := &Scenario{Config: scenarios.Config{Name: "x", Workloads: []scenarios.Workload{{Interarrival: sim.Distribution{Kind: sim.Constant, Mean: 1, StdDev: 2}}}}}
	_, err := f.Marshal()
	assert.ErrorContains(t, err, "workloads[0].interarrival: a constant distribution with fields it does not use")

	f = &Scenario{Expectations: []Expectation{{Metric: "nope", Comparator: Below}}}
	_, err = f.Marshal()
	assert.ErrorContains(t, err, `expect[0]: unknown metric "nope"`)
}

// base is a valid scenario the bad files below break, one thing each.
const base = `name: t
instances:
  - name: A
    databases:
      - name: D
        queues: [{name: Q}]
        services: [{name: S, queue: Q}]
`

// badFiles are files each wrong in one way (or a few), with the errors Load must give:
// the file, line and column, the key, and the offending value.
var badFiles = []struct {
	name, file string
	want       []string
}{
	{"unknown top-level key, with a suggestion", base + "chek_invariants: on\n",
		[]string{`bad.yaml:8:1: chek_invariants: unknown key "chek_invariants" in the scenario (did you mean "check_invariants"?); known keys: name, question`}},
	{"unknown key in a queue, with the known keys", strings.Replace(base, "{name: Q}", "{name: Q, retension: on}", 1),
		[]string{`bad.yaml:6:28: instances[0].databases[0].queues[0].retension: unknown key "retension" in the queue (did you mean "retention"?); known keys: name, status, retention, poison_message_handling, activation`}},
	{"a key twice", base + "seeds: 1\nseeds: 2\n",
		[]string{`bad.yaml:9:1: seeds: key "seeds" appears twice in the scenario (first at line 8)`}},
	{"wrong type: text for an integer", base + "seeds: many\n",
		[]string{`bad.yaml:8:8: seeds: want an integer, got "many"`}},
	{"wrong type: a mapping for a list", "instances: {name: A}\n",
		[]string{`bad.yaml:1:12: instances: want a list of instances, got a mapping`}},
	{"wrong type: a list for a name", strings.Replace(base, "name: A", "name: [A]", 1),
		[]string{`bad.yaml:3:11: instances[0].name: want a name or text, got a list`}},
	{"wrong type: a switch", strings.Replace(base, "{name: Q}", "{name: Q, status: maybe}", 1),
		[]string{`bad.yaml:6:36: instances[0].databases[0].queues[0].status: want on or off, got "maybe"`}},
	{"negative rate", base + "workloads: [{name: w, from_service: S, to_service: S, interarrival: {exponential: -2s}}]\n",
		[]string{`bad.yaml:8:83: workloads[0].interarrival.exponential: duration -2s is negative`}},
	{"negative rollback rate", base + "readers: [{queue: Q, rollback_rate: -0.1}]\n",
		[]string{`bad.yaml:8:37: readers[0].rollback_rate: probability -0.1 is outside [0, 1]`}},
	{"duration without a unit", base + "workloads: [{name: w, from_service: S, to_service: S, start: 5}]\n",
		[]string{`bad.yaml:8:62: workloads[0].start: want a duration with a unit, like 250ms or 2s, got "5"`}},
	{"probability above 1", base + "links: [{between: [A, A], both: {loss: 1.5}}]\n",
		[]string{`bad.yaml:8:40: links[0].both.loss: probability 1.5 is outside [0, 1]`}},
	{"level 11", strings.Replace(base, "services:", "broker_priorities: [{name: p, priority_level: 11}]\n        services:", 1),
		[]string{`bad.yaml:7:55: instances[0].databases[0].broker_priorities[0].priority_level: PRIORITY_LEVEL 11 is outside 1..10`}},
	{"level 11 in an expectation", base + "expect: [{metric: latency.p99, level: 11, below: 1s}]\n",
		[]string{`bad.yaml:8:39: expect[0].level: 11 is outside 1..10`}},
	{"a service on a missing queue", strings.Replace(base, "queue: Q}", "queue: Nope}", 1),
		[]string{`bad.yaml:7:37: instances[0].databases[0].services[0].queue: instance "A": database "D": service "S": queue "Nope" does not exist in the database`}},
	{"a link to an unknown instance", base + "links:\n  - between: [A, Mars]\n",
		[]string{`bad.yaml:9:18: links[0].between[1]: instance "Mars" does not exist (instances: A)`}},
	{"a link from an instance to itself", base + "links: [{between: [A, A]}]\n",
		[]string{`bad.yaml:8:19: links[0].between: the link joins the instance "A" to itself`}},
	{"an instance defined twice", base + "  - name: A\n    databases: [{name: D}]\n",
		[]string{`bad.yaml:8:5: instances[1]: instance "A" is defined twice`}},
	{"a contract on a missing message type", strings.Replace(base, "queues:", "contracts: [{name: C, messages: [{message_type: M, sent_by: any}]}]\n        queues:", 1),
		[]string{`bad.yaml:6:57: instances[0].databases[0].contracts[0].messages[0].message_type: instance "A": database "D": contract "C": message type "M" does not exist in the database`}},
	{"sent_by unknown", strings.Replace(base, "queues:", "message_types: [M]\n        contracts: [{name: C, messages: [{message_type: M, sent_by: both}]}]\n        queues:", 1),
		[]string{`bad.yaml:7:69: instances[0].databases[0].contracts[0].messages[0].sent_by: want initiator, target or any, got "both"`}},
	{"unknown distribution", base + "readers: [{queue: Q, processing_time: {gamma: 1s}}]\n",
		[]string{`bad.yaml:8:40: readers[0].processing_time: unknown distribution "gamma"; known: fixed, uniform, exponential, normal, lognormal`}},
	{"uniform upside down", base + "readers: [{queue: Q, processing_time: {uniform: [5ms, 1ms]}}]\n",
		[]string{`bad.yaml:8:49: readers[0].processing_time.uniform: max 1ms is below min 5ms`}},
	{"a reader on an unknown queue", base + "readers: [{queue: Nope}]\n",
		[]string{`bad.yaml:8:19: readers[0].queue: queue "Nope": unknown queue`}},
	{"a workload from an unknown service", base + "workloads: [{name: w, from_service: Nope, to_service: S}]\n",
		[]string{`bad.yaml:8:37: workloads[0].from_service: service "Nope" does not exist`}},
	{"a workload without its services", base + "workloads: [{name: w, dialogs: 1}]\n",
		[]string{`bad.yaml:8:13: workloads[0].from_service: the workload needs a from_service`,
			`bad.yaml:8:13: workloads[0].to_service: the workload needs a to_service`}},
	{"messages above the cap", base + "workloads: [{name: w, from_service: S, to_service: S, size: 20MB}]\n",
		[]string{`bad.yaml:8:61: workloads[0].size: messages above the 16777216-byte cap`}},
	{"an activation procedure not defined", strings.Replace(base, "{name: Q}", "{name: Q, activation: {procedure_name: P}}", 1),
		[]string{`bad.yaml:6:57: instances[0].databases[0].queues[0].activation.procedure_name: procedure "P" is not in procedures (defined: none)`}},
	{"a timeline on an unknown queue", base + "timeline: [{at: 1s, alter_queue: Nope, status: off}]\n",
		[]string{`bad.yaml:8:34: timeline[0].alter_queue: queue "Nope": unknown queue`}},
	{"a timeline change without status", base + "timeline: [{at: 1s, alter_queue: Q}]\n",
		[]string{`bad.yaml:8:12: timeline[0].status: ALTER QUEUE needs a status (on or off) or an activation change`}},
	{"both and a_to_b", base + "links: [{between: [A, A], both: {}, a_to_b: {}}]\n",
		[]string{`bad.yaml:8:37: links[0].a_to_b: a_to_b and both exclude each other`}},
	{"a partition that ends before it starts", base + "links: [{between: [A, A], partitions: [{from: 10s, until: 5s}]}]\n",
		[]string{`bad.yaml:8:59: links[0].partitions[0].until: until 5s is not after from 10s`}},
	{"independent and bursty loss at once", base + "links: [{between: [A, A], both: {loss: 0.1, loss_burst: {good_to_bad: 0.1, bad_to_good: 0.5}}}]\n",
		[]string{`bad.yaml:8:40: links[0].both.loss: loss 0.1 set together with loss_burst: choose independent or bursty loss`}},
	{"broker retry interval upside down", base + "broker: {retry_interval_min: 10s, retry_interval_max: 5s}\n",
		[]string{`bad.yaml:8:55: broker.retry_interval_max: broker config: RetryIntervalMax 5s is below RetryIntervalMin 10s`}},
	{"a reader that polls for ever (Config.Validate)", base + "readers: [{queue: Q, wait_for: 1s}]\n",
		[]string{`bad.yaml:8:32: readers[0].wait_for: reader 0 (Q): WaitFor 1s polls for ever: the run needs MaxTime or MaxEvents`}},
	{"an external activator without readers", base + "procedures: [{name: P}]\nexternal_activators: [{queue: Q, target_queue: Q, procedure: P, max_readers: 0}]\n",
		[]string{`bad.yaml:9:78: external_activators[0].max_readers: 0 is below 1`}},
	{"unknown metric", base + "expect: [{metric: latency.p999, below: 1s}]\n",
		[]string{`bad.yaml:8:19: expect[0].metric: unknown metric "latency.p999" (did you mean "latency.p99"?); known metrics: latency.p50`}},
	{"a metric that takes no level", base + "expect: [{metric: statement_errors, level: 1, equals: 0}]\n",
		[]string{`bad.yaml:8:37: expect[0].level: metric statement_errors takes no level`}},
	{"a metric that needs a queue", base + "expect: [{metric: readers.peak, at_most: 2}]\n",
		[]string{`bad.yaml:8:10: expect[0].queue: metric readers.peak needs a queue`}},
	{"an expectation without a comparator", base + "expect: [{metric: statement_errors}]\n",
		[]string{`bad.yaml:8:10: expect[0]: the expectation needs one of below, at_most, at_least, above, equals`}},
	{"an expectation with two comparators", base + "expect: [{metric: statement_errors, below: 1, above: 0}]\n",
		[]string{`bad.yaml:8:10: expect[0]: the expectation gives below and above: give one`}},
	{"a duration expected of a count", base + "expect: [{metric: deadlocks, below: 1s}]\n",
		[]string{`bad.yaml:8:37: expect[0].below: want a count (a whole number, 0 or more), got "1s"`}},
	{"invariants without the checkers", base + "check_invariants: off\nexpect: [{invariants: hold}]\n",
		[]string{`bad.yaml:9:10: expect[0]: invariants: hold needs check_invariants: on`}},
	{"an expectation on an unknown workload", base + "expect: [{metric: dialogs.ended, workload: w, equals: 1}]\n",
		[]string{`bad.yaml:8:44: expect[0].workload: workload "w" does not exist`}},
	{"an unknown mark, with a suggestion", base + "require_marks: [lock.waited, lock.deadlock]\n",
		[]string{`bad.yaml:8:30: require_marks[1]: unknown mark "lock.deadlock" (did you mean "lock.deadlock-victim"?); docs/marks.md lists the marks`}},
	{"a mark required twice", base + "require_marks:\n  - route.delayed\n  - route.delayed\n",
		[]string{`bad.yaml:10:5: require_marks[1]: mark "route.delayed" is required twice`}},
	{"marks that are not a list", base + "require_marks: lock.waited\n",
		[]string{`bad.yaml:8:16: require_marks: want a list of mark names, got "lock.waited"`}},
	{"a mark that is not a name", base + "require_marks: [{name: lock.waited}]\n",
		[]string{`bad.yaml:8:17: require_marks[0]: want a mark name, got a mapping`}},
	{"no instances", "name: t\n", []string{`bad.yaml:1:1: instances: the scenario needs instances`}},
	{"an instance without a database", "instances: [{name: A}]\n",
		[]string{`bad.yaml:1:13: instances[0].databases: the instance "A" needs a database, unless it forwards`}},
	{"a queue without a name", strings.Replace(base, "{name: Q}", "{status: on}", 1),
		[]string{`bad.yaml:6:18: instances[0].databases[0].queues[0].name: the queue needs a name`}},
	{"not YAML", "name: [t\n", []string{`bad.yaml:1: not valid YAML: did not find expected`}},
	{"empty", "", []string{`bad.yaml: the file is empty`}},
	{"only a comment", "# nothing\n", []string{`bad.yaml: the file is empty`}},
	{"not a mapping", "- a\n", []string{`bad.yaml:1:1: want a mapping (key: value) for the scenario, got a list`}},
	{"two documents", base + "---\nname: u\n", []string{`bad.yaml:8:1: a second YAML document`}},
	{"liveness: neither a switch nor a mapping", base + "liveness: maybe\n",
		[]string{`bad.yaml:8:11: liveness: want on, off or {after: DURATION, within: DURATION}, got "maybe"`}},
	{"liveness: healing at the start", base + "liveness: {after: 0s}\n",
		[]string{`bad.yaml:8:19: liveness.after: after must be after the start: leave it out to heal when the last fault ends`}},
	{"liveness: an unknown key", base + "liveness: {afterr: 1m}\n",
		[]string{`bad.yaml:8:12: liveness.afterr: unknown key "afterr" in the liveness (did you mean "after"?); known keys: after, within`}},
	{"several errors at once", base + "seeds: -1\nsample_interval: soon\n",
		[]string{`bad.yaml:8:8: seeds: -1 is negative`, `bad.yaml:9:18: sample_interval: want a duration like 250ms or 2s, got "soon"`}},
}

// Loading a bad file names the file, line and column, the key, and the offending value,
// one error for each problem. Reference: issue 7, Tests, Loading.
func TestLoadReportsBadFiles(t *testing.T) {
	for _, tc := range slices.Concat(badFiles, faultPlanBadFiles) {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(tc.file))

			require.Error(t, err, tc.file)
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want, "file:\n%s", tc.file)
			}
			assert.Len(t, strings.Split(err.Error(), "\n"), len(tc.want), "one error each, no echo:\n%s", err)
			var fe *Error
			assert.True(t, errors.As(err, &fe), "a Error")
		})
	}
}

// LoadFile names the path of a file it cannot read.
func TestLoadFileMissing(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "nope.yaml"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The errors of a file come in the file's order, each with its position, and stop at a
// bound rather than flood.
func TestLoadBoundsTheErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString(base)
	for range 200 {
		b.WriteString("x: 1\n")
	}
	_, err := Load("many.yaml", []byte(b.String()))
	var errs Errors
	require.True(t, errors.As(err, &errs))
	assert.LessOrEqual(t, len(errs), maxFileErrors+1)
	assert.Contains(t, errs[len(errs)-1].Message, "too many errors")
}

// An alias bomb (lists of aliases of lists, four levels deep) stops at the node budget
// instead of walking millions of nodes.
func TestLoadStopsAnAliasBomb(t *testing.T) {
	list := func(item string) string { return "[" + strings.Repeat(item+", ", 39) + item + "]" }
	file := "x-m: &m " + list("{message_type: M, sent_by: any}") + "\n" +
		"x-c: &c " + list("{name: C, messages: *m}") + "\n" +
		"x-d: &d " + list("{name: D, contracts: *c}") + "\n" +
		"instances: " + list("{name: A, databases: *d}") + "\n"
	_, err := Load("bomb.yaml", []byte(file))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expands to more than")
}

// Top-level keys that begin with x- are for the file's own use, anchors for instance, and
// are not read.
func TestLoadIgnoresExtensionKeys(t *testing.T) {
	f, err := Load("x.yaml", []byte(base+"x-wan: &wan {latency: 5ms}\n"))
	require.NoError(t, err)
	assert.Equal(t, "t", f.Config.Name)
}

// docs/scenario-files.md documents every metric and every key: those of everything.yaml,
// which sets them all, of programs.yaml, which sets every key of reader programs, and of
// counterexample.yaml, which sets those of a counterexample (fault_plan, broker.defects,
// rollback_until).
func TestScenarioFileReferenceDocumentsEveryKeyAndMetric(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenario-files.md"))
	require.NoError(t, err)
	doc := string(raw)
	for _, m := range scenarios.Metrics() {
		if strings.Contains(doc, "`"+m.Name+"`") {
			continue
		}
		i := strings.LastIndex(m.Name, ".")
		require.Positive(t, i, "metric %s is not in the reference", m.Name)
		assert.Contains(t, doc, "`"+m.Name[:i+1], "metric %s", m.Name)
		assert.Contains(t, doc, "`"+m.Name[i:]+"`", "metric %s", m.Name)
	}
	for _, name := range []string{"everything.yaml", "programs.yaml", "counterexample.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "files", name))
		require.NoError(t, err)
		var root yaml.Node
		require.NoError(t, yaml.Unmarshal(data, &root))
		walkKeys(t, doc, &root)
	}
}

// walkKeys checks that the reference names every key of a file.
func walkKeys(t *testing.T, doc string, root *yaml.Node) {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				assert.True(t, strings.Contains(doc, "`"+k) || strings.Contains(doc, "{"+k) || strings.Contains(doc, "."+k+"`"),
					"key %q (line %d) is not in the reference", k, n.Content[i].Line)
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(root)
}
