package file

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios"
)

// lintBase is a design Lint finds nothing in: S of A/D sends to T of B/E, whose queue a
// reader reads; no route is declared, so the catalog makes them.
var lintBase = twoSites + "readers:\n  - {queue: QB}\n"

// Routes both ways, declared: D's to T, E's back to S.
const (
	routeToT = "        services: [{name: S, queue: QA}]\n        routes: [{name: toT, service_name: T, address: B}]\n"
	routeToS = "        services: [{name: T, queue: QB, contracts: [C]}]\n        routes: [{name: toS, service_name: S, address: A}]\n"
)

// edit applies pairs of (old, new) replacements to text, each of which must apply.
func edit(t *testing.T, text string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		require.Contains(t, text, pairs[i], "edit %d", i/2)
		text = strings.Replace(text, pairs[i], pairs[i+1], 1)
	}
	return text
}

// routed is lintBase with routes declared both ways.
func routed(t *testing.T) string {
	return edit(t, lintBase, "        services: [{name: S, queue: QA}]\n", routeToT,
		"        services: [{name: T, queue: QB, contracts: [C]}]\n", routeToS)
}

// lintOf loads text and lints it.
func lintOf(t *testing.T, text string) []*Error {
	t.Helper()
	f, err := Load("lint.yaml", []byte(text))
	require.NoError(t, err)
	return Lint(f)
}

// withID returns the diagnostics of that ID.
func withID(diags []*Error, id string) []*Error {
	var out []*Error
	for _, d := range diags {
		if d.ID == id {
			out = append(out, d)
		}
	}
	return out
}

// place returns the line and column (from 1) of the first needle in text, at offset
// within it.
func place(t *testing.T, text, needle string, offset int) string {
	t.Helper()
	i := strings.Index(text, needle)
	require.GreaterOrEqual(t, i, 0, "%q is not in the text", needle)
	i += offset
	line := strings.Count(text[:i], "\n") + 1
	col := i - strings.LastIndex(text[:i], "\n")
	return fmt.Sprintf("%d:%d", line, col)
}

// assertLint checks that broken has exactly one diagnostic of id, of that severity, at
// the place of needle (plus offset), and that fixed has none.
func assertLint(t *testing.T, id string, warning bool, broken, needle string, offset int, fixed string) *Error {
	t.Helper()
	got := withID(lintOf(t, broken), id)
	require.Len(t, got, 1, "%v", got)
	d := got[0]
	assert.Equal(t, warning, d.Warning, "severity")
	assert.Equal(t, "lint.yaml", d.File)
	assert.Equal(t, place(t, broken, needle, offset), fmt.Sprintf("%d:%d", d.Line, d.Column), "%v", d)
	assert.NotEmpty(t, d.Fix)
	assert.Contains(t, d.Error(), " "+id+": ")
	assert.Empty(t, withID(lintOf(t, fixed), id), "the fixed design")
	return d
}

func TestLint_TheBaseDesignsAreClean(t *testing.T) {
	assert.Empty(t, lintOf(t, lintBase))
	assert.Empty(t, lintOf(t, routed(t)))
}

func TestSB101_ContractTheInitiatorCannotUse(t *testing.T) {
	back := "        contracts: [{name: C, messages: [{message_type: Ask, sent_by: initiator}, {message_type: Tell, sent_by: target}]}]\n        queues: [{name: QB}]"
	with := func(sentBy string) string {
		return edit(t, lintBase, back, strings.Replace(back, "}]}]\n", "}]}, {name: Back, messages: [{message_type: Tell, sent_by: "+sentBy+"}]}]\n", 1))
	}
	d := assertLint(t, LintContractInitiatorSendsNothing, false, with("target"), "{name: Back", 0, with("any"))
	assert.Equal(t, "instances[1].databases[0].contracts[1]", d.Path)
	assert.Contains(t, d.Message, `contract "Back" of B/E`)
}

func TestSB102_RouteToAServiceThatAcceptsNothing(t *testing.T) {
	with := func(contracts string) string {
		return edit(t, routed(t), "routes: [{name: toT, service_name: T, address: B}]",
			"routes: [{name: toT, service_name: T, address: B}, {name: toX, service_name: X, address: B}]",
			"services: [{name: T, queue: QB, contracts: [C]}]", "services: [{name: T, queue: QB, contracts: [C]}, {name: X, queue: QB"+contracts+"}]")
	}
	d := assertLint(t, LintRouteServiceAcceptsNothing, true, with(""), "service_name: X", len("service_name: "), with(", contracts: [C]"))
	assert.Contains(t, d.Message, `route "toX" of A/D leads to service "X"`)
	// A route to an initiator's service is its way back: E's route to S is not one.
	assert.Empty(t, withID(lintOf(t, routed(t)), LintRouteServiceAcceptsNothing))
}

func TestSB103_QueueNothingReads(t *testing.T) {
	noReader := strings.Replace(lintBase, "readers:\n  - {queue: QB}\n", "", 1)
	d := assertLint(t, LintQueueNotRead, true, noReader, "{name: QB}", 0, lintBase)
	assert.Contains(t, d.Message, `queue "QB" of B/E is the target of workload 0 (w)`)

	activated := func(status string) string {
		return edit(t, noReader, "{name: QB}", "{name: QB, activation: {status: "+status+", procedure_name: P, max_queue_readers: 1}}") +
			"procedures:\n  - {name: P}\n"
	}
	assertLint(t, LintQueueNotRead, true, activated("off"), "activation: {", len("activation: "), activated("on"))
	assertLint(t, LintQueueNotRead, true, activated("off"), "activation: {", len("activation: "),
		activated("off")+"timeline:\n  - {at: 1s, alter_queue: QB, activation: {status: on}}\nlimits: {max_time: 1m}\n")

	off := edit(t, lintBase, "{name: QB}", "{name: QB, status: off}")
	assertLint(t, LintQueueNotRead, true, off, "status: off", len("status: "),
		off+"timeline:\n  - {at: 1s, alter_queue: QB, status: on}\n")

	// The initiator's queue receives nothing without replies: it needs no reader; with
	// replies it does.
	replies := edit(t, lintBase, "messages: 2}", "messages: 2, replies: true, reply_type: Tell}")
	assertLint(t, LintQueueNotRead, true, replies, "{name: QA}", 0, replies+"  - {queue: QA}\n")
}

func TestSB104_RouteThatGoesNowhere(t *testing.T) {
	toT := "{name: toT, service_name: T, address: B}"
	d := assertLint(t, LintRouteGoesNowhere, true, edit(t, routed(t), toT, "{name: toT, service_name: T, address: A}"),
		"service_name: T, address: A", len("service_name: T, address: "), routed(t))
	assert.Contains(t, d.Message, `route "toT" of A/D sends service "T" to A, which has no service of that name and does not forward`)

	guid := "0A1B2C3D-4E5F-6A7B-8C9D-0E1F2A3B4C5D"
	assertLint(t, LintRouteGoesNowhere, true, edit(t, routed(t), toT, "{name: toT, service_name: T, broker_instance: "+guid+", address: B}"),
		"broker_instance: "+guid, len("broker_instance: "), edit(t, routed(t), toT, "{name: toT, service_name: T, broker_instance: B/E, address: B}"))

	assertLint(t, LintRouteGoesNowhere, true, edit(t, routed(t), toT, "{name: toT, service_name: Mars/T, address: TRANSPORT}"),
		"address: TRANSPORT", len("address: "), edit(t, routed(t), toT, "{name: toT, address: TRANSPORT}"))
}

func TestSB105_TargetNoRouteReaches(t *testing.T) {
	noWay := edit(t, routed(t), "        routes: [{name: toT, service_name: T, address: B}]\n", "")
	d := assertLint(t, LintUnreachedService, true, noWay, "to_service: T", len("to_service: "), routed(t))
	assert.Equal(t, "workloads[0].to_service", d.Path)
}

// forwarded sends S's dialogs to T through forwarders F1 and F2, F2 sending them on to
// next.
func forwarded(t *testing.T, next string) string {
	return edit(t, routed(t), "routes: [{name: toT, service_name: T, address: B}]", "routes: [{name: toT, service_name: T, address: F1}]",
		"links:\n", `  - name: F1
    forwarding: {enabled: true}
    msdb_routes: [{name: t, service_name: T, address: F2}]
  - name: F2
    forwarding: {enabled: true}
    msdb_routes: [{name: t, service_name: T, address: `+next+`}]
links:
`)
}

func TestSB106_ForwardingLoop(t *testing.T) {
	d := assertLint(t, LintForwardingLoop, true, forwarded(t, "F1"), "to_service: T", len("to_service: "), forwarded(t, "B"))
	assert.Contains(t, d.Message, "F1 → F2 → F1")
}

func TestSB107_ActivationWithNoReaders(t *testing.T) {
	with := func(n string) string {
		return edit(t, lintBase, "{name: QB}", "{name: QB, activation: {procedure_name: P, max_queue_readers: "+n+"}}",
			"readers:\n  - {queue: QB}\n", "procedures:\n  - {name: P}\n")
	}
	d := assertLint(t, LintActivationNoReaders, true, with("0"), "max_queue_readers: 0", len("max_queue_readers: "), with("1"))
	assert.Contains(t, d.Message, `never starts procedure "P" (ACT-6)`)
	assert.Empty(t, withID(lintOf(t, with("0")), LintQueueNotRead), "one diagnostic for one cause")
	assert.Empty(t, withID(lintOf(t, with("0")+"timeline:\n  - {at: 1s, alter_queue: QB, activation: {max_queue_readers: 2}}\nlimits: {max_time: 1m}\n"),
		LintActivationNoReaders), "the timeline raises it")
}

func TestSB108_PriorityNoConversationMatches(t *testing.T) {
	with := func(local, remote string) string {
		return edit(t, lintBase, "        services: [{name: S, queue: QA}]\n",
			"        services: [{name: S, queue: QA}]\n        honor_broker_priority: on\n"+
				"        broker_priorities: [{name: p, contract_name: C, local_service_name: "+local+", remote_service_name: "+remote+", priority_level: 8}]\n")
	}
	d := assertLint(t, LintPriorityUnmatched, true, with("S", "Nowhere"), "remote_service_name: Nowhere", len("remote_service_name: "), with("S", "T"))
	assert.Contains(t, d.Message, `REMOTE_SERVICE_NAME "Nowhere"`)
	// S exists, but no conversation goes from S to S.
	d = assertLint(t, LintPriorityUnmatched, true, with("S", "S"), "{name: p", 0, with("ANY", "T"))
	assert.Contains(t, d.Message, `broker priority "p" of A/D (contract "C", local "S", remote "S")`)
}

func TestSB109_HonorBrokerPriorityOffWithPriorities(t *testing.T) {
	with := func(honor string) string {
		return edit(t, lintBase, "        services: [{name: S, queue: QA}]\n",
			"        services: [{name: S, queue: QA}]\n"+honor+
				"        broker_priorities: [{name: p, contract_name: C, remote_service_name: T, priority_level: 8}]\n")
	}
	d := assertLint(t, LintHonorPriorityOff, true, with(""), "name: D", 0, with("        honor_broker_priority: on\n"))
	assert.Contains(t, d.Message, "PRI-12")
	assertLint(t, LintHonorPriorityOff, true, with("        honor_broker_priority: off\n"), "honor_broker_priority: off", len("honor_broker_priority: "),
		with("        honor_broker_priority: on\n"))
}

func TestSB110_PoisonHandlingAndRollbacks(t *testing.T) {
	with := func(poison, rate string) string {
		return edit(t, lintBase, "{name: QB}", "{name: QB, poison_message_handling: "+poison+"}", "{queue: QB}", "{queue: QB, rollback_rate: "+rate+"}")
	}
	d := assertLint(t, LintPoisonHandling, true, with("off", "0.1"), "poison_message_handling: off", len("poison_message_handling: "), with("on", "0.1"))
	assert.Contains(t, d.Message, "QUE-8")
	d = assertLint(t, LintPoisonHandling, true, with("on", "1"), "rollback_rate: 1", len("rollback_rate: "), with("off", "0"))
	assert.Equal(t, "readers[0].rollback_rate", d.Path)
	// A handler that rolls back counts too.
	handler := edit(t, lintBase, "{name: QB}", "{name: QB, poison_message_handling: off}",
		"  - {queue: QB}\n", "  - queue: QB\n    on:\n      - {message_type: Ask, rollback_rate: 0.5}\n")
	assertLint(t, LintPoisonHandling, true, handler, "poison_message_handling: off", len("poison_message_handling: "), with("off", "0"))
}

func TestSB111_DialogsNeverEnded(t *testing.T) {
	with := func(end string) string { return edit(t, lintBase, "messages: 2}", "messages: 2, end: "+end+"}") }
	for _, end := range []string{"fire-and-forget", "never", "cleanup"} {
		t.Run(end, func(t *testing.T) {
			assertLint(t, LintDialogsNeverEnded, true, with(end), "end: "+end, len("end: "), with("target"))
		})
	}
}

func TestSB112_TargetWithNoRouteBack(t *testing.T) {
	noBack := edit(t, routed(t), "        routes: [{name: toS, service_name: S, address: A}]\n", "        routes: [{name: toU, service_name: U, address: A}]\n")
	d := assertLint(t, LintNoRouteBack, true, noBack, "from_service: S", len("from_service: "), routed(t))
	assert.Equal(t, "workloads[0].from_service", d.Path)
}

// Lint orders by place then ID, and the loader's route warnings carry the same IDs.
func TestLint_OrderAndTheLoadersWarnings(t *testing.T) {
	text := edit(t, routed(t), "        routes: [{name: toT, service_name: T, address: B}]\n", "",
		"messages: 2}", "messages: 2, end: never}")
	f, err := Load("lint.yaml", []byte(text))
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1)
	assert.Equal(t, LintUnreachedService, f.Warnings[0].ID)
	diags := Lint(f)
	require.Len(t, diags, 2)
	assert.Equal(t, []string{LintUnreachedService, LintDialogsNeverEnded}, []string{diags[0].ID, diags[1].ID}, "to_service comes before end on the line")
	assert.Equal(t, f.Warnings[0].Error(), diags[0].Error())
}

// Lint works from the config and Places alone: a scenario built in Go, with places from
// another source (an importer's T-SQL positions) or none.
func TestLint_AScenarioMadeInGo(t *testing.T) {
	f, err := Load("lint.yaml", []byte(lintBase))
	require.NoError(t, err)
	cfg := f.Config
	cfg.Workloads = []scenarios.Workload{cfg.Workloads[0]}
	cfg.Workloads[0].End = scenarios.EndNever
	s := &Scenario{Config: cfg, Source: "deploy.sql",
		Places: map[string]Place{"workloads[0]": {File: "deploy.sql", Line: 7, Column: 3}}}
	diags := Lint(s)
	require.Len(t, diags, 1)
	assert.Equal(t, `deploy.sql:7:3: workloads[0].end: warning SB111: the dialogs of workload 0 (w) are never ended: nobody ends them: both endpoints of every dialog stay CONVERSING for ever (DLG-6); sys.conversation_endpoints grows with every dialog (fix: let the target END CONVERSATION when the EndDialog arrives (end: initiator), or have the target end (end: target, target-after-reply))`,
		diags[0].Error())
	s.Places = nil
	assert.Equal(t, "deploy.sql", Lint(s)[0].File)
	assert.Zero(t, Lint(s)[0].Line)

	s.Config.Instances = nil
	bad := Lint(s)
	require.Len(t, bad, 1, "a config that does not compile gives its error")
	assert.False(t, bad[0].Warning)
	assert.Empty(t, bad[0].ID)
}

// The format of an Error with and without an ID.
func TestError_WritesIDAndFix(t *testing.T) {
	e := &Error{File: "f.yaml", Line: 3, Column: 5, Path: "x", Message: "m"}
	assert.Equal(t, "f.yaml:3:5: x: m", e.Error())
	e.Warning = true
	assert.Equal(t, "f.yaml:3:5: x: warning: m", e.Error())
	e.ID, e.Fix = "SB999", "do this"
	assert.Equal(t, "f.yaml:3:5: x: warning SB999: m (fix: do this)", e.Error())
	e.Warning = false
	assert.Equal(t, "f.yaml:3:5: x: error SB999: m (fix: do this)", e.Error())
}

// libraryLint are the library scenarios Lint warns about, with the IDs it finds: each
// shows the thing on purpose, or leaves a queue to the default reader. Any other
// diagnostic fails, and none may be an error.
var libraryLint = map[string][]string{
	"endpoint-leak":      {LintDialogsNeverEnded},                  // its fire-and-forget workload
	"honor-priority-off": {LintHonorPriorityOff, LintQueueNotRead}, // the point; and a default reader
	"lock-contention":    {LintPoisonHandling},                     // poison handling off, deadlock rollbacks
	"lossy-wan":          {LintQueueNotRead},                       // AuditQueue has the default reader
	"order-saga":         {LintQueueNotRead},                       // ShopQueue, which gets the answers, too
	"poison-message":     {LintPoisonHandling},                     // the point: the queue is disabled
	"priority-flood":     {LintQueueNotRead},                       // WarehouseQueue has the default reader
	"service-chain":      {LintQueueNotRead},                       // ShopQueue gets the replies
	"timer-scheduler":    {LintDialogsNeverEnded},                  // timers on dialogs that live on: end: never
}

func TestLint_TheLibrary(t *testing.T) {
	for _, name := range LibraryNames() {
		s, err := Library(name)
		require.NoError(t, err, name)
		var ids []string
		for _, d := range Lint(s) {
			assert.True(t, d.Warning, "%s: %v", name, d)
			ids = append(ids, d.ID)
		}
		assert.Equal(t, libraryLint[name], ids, name)
	}
}

// LintFiles and PrintLint: the diagnostics on stderr, a line per file on stdout, false
// for a file that does not load or has an error.
func TestLintFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	clean := write("clean.yaml", lintBase)
	warnedText := edit(t, lintBase, "messages: 2}", "messages: 2, end: never}", "readers:\n  - {queue: QB}\n", "")
	warned := write("warned.yaml", warnedText)
	back := "        contracts: [{name: C, messages: [{message_type: Ask, sent_by: initiator}, {message_type: Tell, sent_by: target}]}]\n        queues: [{name: QB}]"
	wrong := write("wrong.yaml", edit(t, lintBase, back, strings.Replace(back, "}]}]\n", "}]}, {name: Back, messages: [{message_type: Tell, sent_by: target}]}]\n", 1)))
	bad := write("bad.yaml", "name: x\ninstances: 3\n")

	var stdout, stderr bytes.Buffer
	assert.True(t, LintFiles([]string{clean, warned}, &stdout, &stderr))
	assert.Equal(t, clean+": ok\n"+warned+": 2 warnings\n", stdout.String())
	assert.Contains(t, stderr.String(), warned+":"+place(t, warnedText, "{name: QB}", 0)+": instances[1].databases[0].queues[0]: warning SB103: ")
	assert.Contains(t, stderr.String(), ": workloads[0].end: warning SB111: ")

	stdout.Reset()
	stderr.Reset()
	assert.False(t, LintFiles([]string{wrong}, &stdout, &stderr))
	assert.Equal(t, wrong+": 1 error\n", stdout.String())
	assert.Contains(t, stderr.String(), "error SB101: ")

	stdout.Reset()
	stderr.Reset()
	unloaded, failing := LintEach([]string{bad, wrong, clean}, &stdout, &stderr)
	assert.Equal(t, [2]int{1, 1}, [2]int{unloaded, failing})
	assert.Contains(t, stderr.String(), bad+":2:")
	assert.NotContains(t, stdout.String(), bad)
}

// The IDs are distinct and say SB and three digits.
func TestLint_IDsAreDistinct(t *testing.T) {
	ids := []string{LintContractInitiatorSendsNothing, LintRouteServiceAcceptsNothing, LintQueueNotRead, LintRouteGoesNowhere,
		LintUnreachedService, LintForwardingLoop, LintActivationNoReaders, LintPriorityUnmatched, LintHonorPriorityOff,
		LintPoisonHandling, LintDialogsNeverEnded, LintNoRouteBack}
	seen := map[string]bool{}
	for _, id := range ids {
		assert.Regexp(t, `^SB\d{3}$`, id)
		assert.False(t, seen[id], id)
		seen[id] = true
	}
}
