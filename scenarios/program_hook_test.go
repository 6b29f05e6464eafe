package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// hookWorld is a library user's world: a client on instance A asks a service on instance B,
// whose reader runs a Go hook.
func hookWorld(hook scenarios.Hook) scenarios.Config {
	contract := model.Contract{Name: "Ask", Messages: []model.ContractMessage{
		{MessageType: "Question", SentBy: model.SentByInitiator}, {MessageType: "Answer", SentBy: model.SentByTarget}}}
	db := func(name, service string) model.Database {
		return model.Database{Name: name, MessageTypes: []model.MessageType{{Name: "Question"}, {Name: "Answer"}},
			Contracts: []model.Contract{contract}, Queues: []model.Queue{{Name: service + "Queue"}},
			Services: []model.Service{{Name: service, Queue: service + "Queue", Contracts: []string{"Ask"}}}}
	}
	return scenarios.Config{
		Name:      "hook",
		Instances: []model.Instance{{Name: "A", Databases: []model.Database{db("Shop", "Client")}}, {Name: "B", Databases: []model.Database{db("Desk", "Oracle")}}},
		Workloads: []scenarios.Workload{{Name: "questions", From: "Client", To: "Oracle", Contract: "Ask", MessageType: "Question",
			Dialogs: 25, Interarrival: sim.ExponentialMean(20 * time.Millisecond), Messages: 2, Size: scenarios.FixedSize(64),
			Replies: true, ReplyType: "Answer"}},
		Readers:         []scenarios.Reader{{Queue: "OracleQueue", ProcessingTime: sim.Fixed(time.Millisecond), Hook: hook}},
		CheckInvariants: true,
	}
}

// DLG-16, from a library user's side: a Go hook sees each received row with its context
// and returns the statements to run, the same Statement type a scenario file builds. This
// one answers each question with an answer whose size it draws from the program's own
// stream, and leaves the system messages to the default (END on EndDialog).
func TestDLG16_GoHookAnswersEveryQuestion(t *testing.T) {
	var seen, system int
	hook := func(ctx *scenarios.HookContext) ([]scenarios.Statement, bool) {
		if ctx.Message.MessageType == model.EndDialogMessageType {
			system++
			return nil, false
		}
		seen++
		if ctx.Queue != "OracleQueue" || ctx.Now <= 0 || ctx.Group != nil {
			panic("the hook's context is wrong")
		}
		size := scenarios.FixedSize(100 + ctx.Rand.Int64N(900))
		return []scenarios.Statement{{Kind: scenarios.StatementSend, MessageType: "Answer", Size: size}}, true
	}

	res, err := scenarios.Run(hookWorld(hook), 11)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Equal(t, sim.Drained, res.StopReason)
	assert.Equal(t, 50, seen, "the hook saw every question once (none rolled back)")
	assert.Equal(t, 25, system, "and the EndDialog of every dialog")
	assert.Equal(t, int64(50), res.Workloads[0].RepliesReceived)
	assert.Equal(t, int64(25), res.Workloads[0].DialogsEnded)
	var oracle scenarios.ReaderResult
	for _, r := range res.Readers {
		if r.Queue == "OracleQueue" {
			oracle = r
		}
	}
	assert.Equal(t, int64(50), oracle.Sends)
	assert.Zero(t, res.StatementErrors, res.FirstStatementError)
}

// The hook's statements are checked like a file's when its author asks: a SEND of the
// initiator's type from the target fails at run time and counts as a statement failure;
// ValidateStatement refuses a dialog to a service that does not exist.
func TestDLG16_GoHookStatementsFailWithoutStoppingTheRun(t *testing.T) {
	hook := func(ctx *scenarios.HookContext) ([]scenarios.Statement, bool) {
		if ctx.Message.MessageType != model.EndDialogMessageType {
			return []scenarios.Statement{{Kind: scenarios.StatementSend, MessageType: "Question"}}, true
		}
		return nil, false
	}
	cfg := hookWorld(hook)
	cfg.Workloads[0].Replies = false

	res, err := scenarios.Run(cfg, 12)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	var failures int64
	for _, r := range res.Readers {
		failures += r.StatementFailures
	}
	assert.Equal(t, int64(50), failures)
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	assert.ErrorContains(t, scenarios.ValidateStatement(cat, scenarios.Statement{Kind: scenarios.StatementBeginDialog,
		ToServices: []string{"Nowhere"}}), `service "Nowhere" does not exist`)
}

// A hook's statement that the catalog refuses (a dialog to a service that does not exist)
// is not run: it counts as a failed statement and as a statement error of the run.
func TestDLG1_GoHookStatementToAnUnknownServiceIsAnError(t *testing.T) {
	hook := func(ctx *scenarios.HookContext) ([]scenarios.Statement, bool) {
		if ctx.Message.MessageType != model.EndDialogMessageType {
			return []scenarios.Statement{{Kind: scenarios.StatementBeginDialog, ToServices: []string{"Nowhere"}}}, true
		}
		return nil, false
	}
	cfg := hookWorld(hook)
	cfg.Workloads[0].Replies = false

	res, err := scenarios.Run(cfg, 13)

	require.NoError(t, err)
	assert.Equal(t, int64(50), res.StatementErrors)
	assert.Contains(t, res.FirstStatementError, `queue OracleQueue: a hook's begin_dialog statement: service "Nowhere" does not exist`)
}
