package file

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoSites is a valid scenario of two instances: A's service S sends to B's service T,
// which accepts the contract C; the files below break it one way each.
const twoSites = `name: t
instances:
  - name: A
    databases:
      - name: D
        message_types: [Ask, Tell]
        contracts: [{name: C, messages: [{message_type: Ask, sent_by: initiator}, {message_type: Tell, sent_by: target}]}]
        queues: [{name: QA}]
        services: [{name: S, queue: QA}]
  - name: B
    databases:
      - name: E
        message_types: [Ask, Tell]
        contracts: [{name: C, messages: [{message_type: Ask, sent_by: initiator}, {message_type: Tell, sent_by: target}]}]
        queues: [{name: QB}]
        services: [{name: T, queue: QB, contracts: [C]}]
links:
  - between: [A, B]
    both: {latency: 10ms}
workloads:
  - {name: w, from_service: S, to_service: T, contract: C, message_type: Ask, dialogs: 2, messages: 2}
`

// unusableFiles are files whose every key is well formed but whose run could not be
// trusted: a delay that would overflow virtual time (issue 12 item 5), a workload that can
// never deliver or that no result can name (item 7), a count above its range (item 8). Each
// gives its error at the file, line and column of the value to change.
var unusableFiles = []struct {
	name, file string
	want       string
}{
	{"a latency that overflowed the clock (FND-17)", strings.Replace(twoSites, "latency: 10ms", "latency: 2562047h", 1),
		`bad.yaml:19:21: links[0].both.latency: duration 2562047h is above the longest the simulator allows, 87600h (ten years)`},
	{"a jitter whose draws overflowed the clock (FND-17)", strings.Replace(twoSites, "latency: 10ms", "jitter: {normal: {mean: 1ms, stddev: 2000000h}}", 1),
		`bad.yaml:19:49: links[0].both.jitter.normal.stddev: duration 2000000h is above the longest the simulator allows, 87600h (ten years)`},
	{"a uniform jitter too wide", strings.Replace(twoSites, "latency: 10ms", "jitter: {uniform: [0s, 100000h]}", 1),
		`bad.yaml:19:35: links[0].both.jitter.uniform[1]: duration 100000h is above the longest the simulator allows`},
	{"a start too late", strings.Replace(twoSites, "dialogs: 2,", "dialogs: 2, start: 87601h,", 1),
		`bad.yaml:21:98: workloads[0].start: duration 87601h is above the longest the simulator allows`},
	{"a message gap too long", strings.Replace(twoSites, "dialogs: 2,", "dialogs: 2, message_gap: {exponential: 1000000h},", 1),
		`bad.yaml:21:118: workloads[0].message_gap.exponential: duration 1000000h is above the longest the simulator allows`},
	{"a partition too long", strings.Replace(twoSites, "    both: {latency: 10ms}\n", "    both: {latency: 10ms}\n    partitions: [{from: 1s, until: 2000000h}]\n", 1),
		`bad.yaml:20:36: links[0].partitions[0].until: duration 2000000h is above the longest the simulator allows`},
	{"a retry back-off too long", twoSites + "broker: {retry_interval_max: 1000000h}\n",
		`bad.yaml:22:30: broker.retry_interval_max: duration 1000000h is above the longest the simulator allows`},
	{"a time limit too long", twoSites + "limits: {max_time: 1000000h}\n",
		`bad.yaml:22:20: limits.max_time: duration 1000000h is above the longest the simulator allows`},
	{"a reader's processing time too long", twoSites + "readers: [{queue: QB, processing_time: {lognormal: {mean: 1000000h, stddev: 1s}}}]\n",
		`bad.yaml:22:59: readers[0].processing_time.lognormal.mean: duration 1000000h is above the longest the simulator allows`},
	{"a send window whose every acknowledgement would walk a million fragments", twoSites + "broker: {send_window: 1_000_000}\n",
		`bad.yaml:22:23: broker.send_window: broker config: SendWindow 1000000 is above 65536: one event walks the window`},
	{"dialogs above the range says above", strings.Replace(twoSites, "dialogs: 2", "dialogs: 1000000000000", 1),
		`bad.yaml:21:88: workloads[0].dialogs: 1000000000000 is above 2147483647, the most allowed`},
	{"a workload without a name", strings.Replace(twoSites, "{name: w, ", "{", 1),
		`bad.yaml:21:5: workloads[0].name: the workload needs a name`},
	{"a workload with an empty name", strings.Replace(twoSites, "{name: w, ", "{name: '', ", 1),
		`bad.yaml:21:12: workloads[0].name: the workload's name is empty`},
	{"two workloads with one name", twoSites + "  - {name: w, from_service: S, to_service: T, contract: C, message_type: Ask}\n",
		`bad.yaml:22:12: workloads[1].name: workload "w" is defined twice (first workloads[0]): expectations and results name workloads`},
	{"a message type only the target may send (DLG-16)", strings.Replace(twoSites, "message_type: Ask, dialogs", "message_type: Tell, dialogs", 1),
		`bad.yaml:21:74: workloads[0].message_type: workload 0 (w): MessageType: contract "C" lets only the target send "Tell", not the initiator (DLG-16): every SEND would fail`},
	{"a message type the contract does not name (DLG-16)", strings.Replace(twoSites, "message_type: Ask, dialogs", "dialogs", 1),
		`bad.yaml:21:5: workloads[0].message_type: workload 0 (w): MessageType: contract "C" does not name message type "DEFAULT" (DLG-16): every SEND would fail`},
	{"a reply type only the initiator may send (DLG-16)", strings.Replace(twoSites, "messages: 2}", "messages: 2, replies: on, reply_type: Ask}", 1),
		`bad.yaml:21:129: workloads[0].reply_type: workload 0 (w): ReplyType: contract "C" lets only the initiator send "Ask", not the target (DLG-16): every SEND would fail`},
	{"a target that does not accept the contract (ENT-3)", strings.Replace(twoSites, "queue: QB, contracts: [C]", "queue: QB", 1),
		`bad.yaml:21:44: workloads[0].to_service: workload 0 (w): To: service "T" of B/E does not accept contract "C" (ENT-3): every dialog it gets would be refused with an error`},
	{"a contract the initiator's database does not define", strings.Replace(twoSites,
		"        contracts: [{name: C, messages: [{message_type: Ask, sent_by: initiator}, {message_type: Tell, sent_by: target}]}]\n        queues: [{name: QA}]",
		"        queues: [{name: QA}]", 1),
		`bad.yaml:20:57: workloads[0].contract: workload 0 (w): Contract: contract "C" is not defined in database "D" of service "S": every BEGIN DIALOG would fail`},
}

// A file that is well formed but whose run could not be trusted is refused by Load, which
// validate calls, with the position of the value to change: no panic in the engine, no
// verdict of ok on a workload that delivers nothing.
func TestLoadRefusesFilesWhoseRunCouldNotBeTrusted(t *testing.T) {
	_, err := Load("good.yaml", []byte(twoSites))
	require.NoError(t, err, "the base file is valid")
	for _, tc := range unusableFiles {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(tc.file))

			require.Error(t, err, tc.file)
			assert.Contains(t, err.Error(), tc.want, "file:\n%s", tc.file)
			assert.Len(t, strings.Split(err.Error(), "\n"), 1, "one error, no echo:\n%s", err)
			var fe *Error
			assert.True(t, errors.As(err, &fe), "an Error")
		})
	}
}

// Every library scenario and testdata file names each of its workloads, once.
func TestEveryWorkloadOfTheLibraryAndTestdataHasItsOwnName(t *testing.T) {
	check := func(source string, f *Scenario) {
		seen := map[string]bool{}
		for i, w := range f.Config.Workloads {
			assert.NotEmpty(t, w.Name, "%s: workloads[%d]", source, i)
			assert.False(t, seen[w.Name], "%s: workload %q twice", source, w.Name)
			seen[w.Name] = true
		}
	}
	for _, name := range LibraryNames() {
		f, err := Library(name)
		require.NoError(t, err)
		check(name, f)
	}
	for _, path := range testdataFiles(t) {
		f, err := LoadFile(path)
		require.NoError(t, err)
		check(path, f)
	}
}
