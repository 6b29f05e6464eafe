package scenarios

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// DLG-16, DLG-2, DLG-11, DLG-12, ENT-3: Validate refuses a program statement that can
// only fail, or that sends the handled type back to its own queue for ever, and names the
// handler and the statement. The contract RequestReply lets the initiator send Request,
// the target Reply, and either side Tick.
func TestDLG16_ValidateRefusesProgramStatementsThatCanOnlyFail(t *testing.T) {
	send := func(mt string, target Target) Statement {
		return Statement{Kind: StatementSend, MessageType: mt, Target: target}
	}
	dialog := func(kind StatementKind, mt string, to ...string) Statement {
		return Statement{Kind: kind, ToServices: to, Contract: "RequestReply", MessageType: mt}
	}
	fanOut := Handler{MessageType: "Tick", Do: []Statement{dialog(StatementFanOut, "Request", "W1", "W2")}}
	for _, tc := range []struct {
		name string
		on   []Handler
		want string // "" when it is accepted
	}{
		{"a reply", []Handler{{MessageType: "Request", Do: []Statement{send("Reply", TargetReceived)}}}, ""},
		{"a Tick either side may send", []Handler{{MessageType: "Request", Do: []Statement{send("Tick", TargetReceived)}}}, ""},
		{"the target sends the initiator's type", []Handler{{MessageType: "Request", Do: []Statement{send("Request", TargetReceived)}}},
			`On 0 (Request): statement 0: "Request" is received by the target, and no contract lets the target send "Request" (DLG-16)`},
		{"the initiator sends the target's type", []Handler{{MessageType: "Reply", Do: []Statement{send("Reply", TargetReceived)}}},
			`On 0 (Reply): statement 0: "Reply" is received by the initiator, and no contract lets the initiator send "Reply" (DLG-16)`},
		{"origin without a fan_out", []Handler{{MessageType: "Request", Do: []Statement{send("Reply", TargetOrigin)}}},
			"statement 0: conversation: origin is the conversation a fan_out started from, and the program has no fan_out"},
		{"gather without a fan_out", []Handler{{MessageType: "Reply", Do: []Statement{{Kind: StatementGather}}}},
			"statement 0: gather counts the replies of a fan_out, and the program has no fan_out"},
		{"a saga", []Handler{fanOut, {MessageType: "Reply", Do: []Statement{{Kind: StatementGather, Then: []Statement{send("Tick", TargetOrigin)}}}}}, ""},
		{"the received conversation in a gather's then", []Handler{fanOut, {MessageType: "Reply", Do: []Statement{{Kind: StatementGather,
			Then: []Statement{{Kind: StatementTimer, Timeout: time.Second}}}}}},
			"On 1 (Reply): statement 0 then 0: the gather ends the sub-dialog the reply came on before then runs"},
		{"begun with nothing begun", []Handler{{MessageType: "Request", Do: []Statement{send("Request", TargetBegun)}}},
			"statement 0: conversation: begun is the dialog of a begin_dialog or route before it in its list, and there is none"},
		{"begun after a begin_dialog", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementBeginDialog, "Request", "Back"),
			send("Request", TargetBegun)}}}, ""},
		{"begun: a type its initiator may not send", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementBeginDialog, "Request", "Back"),
			send("Reply", TargetBegun)}}}, `statement 1: contract "RequestReply" of the begun dialog does not let the initiator send "Reply" (DLG-16)`},
		{"begun after it was ended", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementBeginDialog, "Request", "Back"),
			{Kind: StatementEnd, Target: TargetBegun}, send("Request", TargetBegun)}}}, "statement 2: an end before it in the list has ended the begun dialog"},
		{"a SEND after an end", []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementEnd}, send("Reply", TargetReceived)}}},
			"statement 1: an end before it in the list has ended the received conversation: a send on it would fail (DLG-11)"},
		{"an if_silent end may leave it open", []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementEnd, IfSilent: true}, send("Reply", TargetReceived)}}}, ""},
		{"a SEND on an EndDialog", []Handler{{MessageType: "EndDialog", Do: []Statement{send("Tick", TargetReceived)}}},
			"a SEND on a conversation whose far side has ended (EndDialog, DLG-4) would fail"},
		{"a SEND on an Error", []Handler{{MessageType: "Error", Do: []Statement{send("Tick", TargetReceived)}}},
			"a SEND on a conversation that has failed (Error, DLG-12) would fail"},
		{"a route to itself", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementRoute, "", "Front")}}},
			`statement 0: the new dialog sends "Request" to the program's own queue, whose handler would send it on again`},
		{"a chain to itself", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementBeginDialog, "Request", "Front")}}},
			"to the program's own queue"},
		{"a fan-out one of whose services is itself", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementFanOut, "Request", "W1", "Front")}}},
			"to the program's own queue"},
		{"a route one of whose services is itself: every other message leaves", []Handler{{MessageType: "Request",
			Do: []Statement{dialog(StatementRoute, "", "W1", "Front")}}}, ""},
		{"a chain to itself with another type", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementBeginDialog, "Tick", "Front")}}}, ""},
		{"a route forwarding a type its contract refuses", []Handler{{MessageType: "Reply", Do: []Statement{dialog(StatementRoute, "", "W1")}}},
			`the route forwards the received "Reply", which contract "RequestReply" does not let the initiator send (DLG-16)`},
		{"a dialog to a service that accepts no contract", []Handler{{MessageType: "Request", Do: []Statement{dialog(StatementBeginDialog, "Request", "Lonely")}}},
			`statement 0: service "Lonely" of A/Shop does not accept contract "RequestReply" (ENT-3)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := programWorld(Workload{Name: "w", Dialogs: 1, Messages: 1})
			shop := &cfg.Instances[0].Databases[0]
			shop.Queues = append(shop.Queues, model.Queue{Name: "LonelyQueue"})
			shop.Services = append(shop.Services, model.Service{Name: "Lonely", Queue: "LonelyQueue"})
			cfg.Readers = []Reader{{Queue: "FrontQueue", On: tc.on}}

			cat, err := model.Compile(cfg.Instances)
			require.NoError(t, err)

			err = cfg.Validate(cat)

			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "reader 0 (FrontQueue): ")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// DLG-16: what still fails when it runs counts in statement_failures (per queue and for
// the run, in summary.json's metrics): a failure of the world (the far side ended the
// dialog, DLG-11) counts there only; a statement that found no conversation (a hook's
// SEND on a saga's origin where no fan-out began one) is the program's mistake and is a
// statement error of the run as well.
func TestDLG16_ProgramStatementFailuresCountInTheirMetric(t *testing.T) {
	cfg := programWorld(Workload{Name: "w", Dialogs: 20, Messages: 3, Interarrival: sim.Fixed(100 * time.Millisecond)})
	cfg.Links[0].PairConfig = lossy(0, 0)
	// The initiator ends each dialog once it has sent its three messages: the third
	// message's Tick, and often the second's, find the far side gone.
	cfg.Readers = []Reader{{Queue: "FrontQueue", ProcessingTime: sim.Fixed(30 * time.Millisecond),
		On: []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementSend, MessageType: "Tick"}}}}},
		{Queue: "ClientQueue", On: []Handler{{MessageType: "Tick"}}}}

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	front := readerOf(t, res, "FrontQueue")
	assert.Positive(t, front.StatementFailures, "Ticks on dialogs the initiator had ended")
	assert.Zero(t, res.StatementErrors, "a failure of the world is no statement error: %s", res.FirstStatementError)
	m, ok := LookupMetric("statement_failures")
	require.True(t, ok)
	v, why, ok := m.Value(res, Subject{Queue: "FrontQueue"})
	require.True(t, ok, why)
	assert.Equal(t, float64(front.StatementFailures), v)
	v, _, _ = m.Value(res, Subject{})
	assert.Equal(t, float64(front.StatementFailures), v, "the run's: ClientQueue's program failed nothing")
	_, why, ok = m.Value(res, Subject{Queue: "BackQueue"})
	assert.False(t, ok, "no program reads BackQueue")
	assert.Equal(t, "no reader program runs there", why)

	cfg.Readers[0] = Reader{Queue: "FrontQueue", Hook: func(ctx *HookContext) ([]Statement, bool) {
		if isSystemType(ctx.Message.MessageType) {
			return nil, false
		}
		return []Statement{{Kind: StatementSend, MessageType: "Tick", Target: TargetOrigin}}, true
	}}
	res, err = Run(cfg, 1)

	require.NoError(t, err)
	front = readerOf(t, res, "FrontQueue")
	assert.Equal(t, int64(60), front.StatementFailures, "every SEND on no saga's origin")
	assert.Equal(t, int64(60), res.StatementErrors, "the program's mistake")
	assert.Contains(t, res.FirstStatementError, "queue FrontQueue: send: send on no conversation")
	v, _, _ = m.Value(res, Subject{})
	assert.Equal(t, float64(60), v)
}

// A world without a reader program has no statement_failures value: its outputs are
// those it had before the metric.
func TestDLG16_StatementFailuresHasNoValueWithoutPrograms(t *testing.T) {
	res, err := Run(programWorld(Workload{Name: "w", Dialogs: 2, Messages: 1}), 1)
	require.NoError(t, err)
	m, _ := LookupMetric("statement_failures")
	assert.Empty(t, m.Measures(res))
}

// Two programs that route each request to the other's service loop for ever, each hop a
// new dialog that no one ends: no check refuses them (neither sends to its own queue), so
// the memory budget stops the run, and its estimate follows the heap, the checkers'
// history of the programs' dialogs counted.
func TestMemoryBudgetStopsTwoProgramsThatRouteToEachOther(t *testing.T) {
	if testing.Short() {
		t.Skip("grows a world to its memory budget")
	}
	cfg := programWorld(Workload{Name: "w", Dialogs: 4, Messages: 1})
	cfg.Links[0].PairConfig = lossy(0, 0)
	route := func(to string) []Handler {
		return []Handler{{MessageType: "Request", Do: []Statement{{Kind: StatementRoute, ToServices: []string{to}, Contract: "RequestReply"}}}}
	}
	cfg.Readers = []Reader{{Queue: "FrontQueue", On: route("W1")}, {Queue: "W1Queue", On: route("Front")}}
	cfg.MaxMemory = 64 << 20
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate(cat), "each program alone can succeed")

	before := liveHeap()
	w, err := build(&cfg, cat, 1)
	require.NoError(t, err)
	reason := w.run()
	uses, estimate := w.memoryEstimate()
	grown := liveHeap() - before
	runtime.KeepAlive(w)

	require.Equal(t, sim.MemoryLimit, reason, "stopped at %v", w.now())
	t.Logf("live heap grown %s, estimate %s: %v", FormatBytes(grown), FormatBytes(estimate), uses)
	assert.InDelta(t, 1, float64(estimate)/float64(grown), 0.5, "estimate over the heap grown")
}
