package scenarios

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// stmtSpec is a drawn statement of a one-handler program on FrontQueue's Requests: send,
// end, timer or begin_dialog (to Back), of a type and on a conversation drawn too.
type stmtSpec struct {
	Kind, Type, Target int
}

var (
	drawnKinds   = []StatementKind{StatementSend, StatementEnd, StatementTimer, StatementBeginDialog}
	drawnTypes   = []string{"Request", "Reply", "Tick"}
	drawnTargets = []Target{TargetReceived, TargetOrigin, TargetBegun}
)

func (s stmtSpec) statement() Statement {
	st := Statement{Kind: drawnKinds[s.Kind], MessageType: drawnTypes[s.Type], Target: drawnTargets[s.Target]}
	switch st.Kind {
	case StatementEnd:
		st.MessageType = ""
	case StatementTimer:
		st.MessageType, st.Timeout = "", time.Hour
	case StatementBeginDialog:
		st.Target, st.ToServices, st.Contract = TargetReceived, []string{"Back"}, "RequestReply"
	}
	return st
}

func genStmtSpec() gopter.Gen {
	return gen.Struct(reflect.TypeFor[stmtSpec](), map[string]gopter.Gen{
		"Kind": gen.IntRange(0, len(drawnKinds)-1), "Type": gen.IntRange(0, len(drawnTypes)-1),
		"Target": gen.IntRange(0, len(drawnTargets)-1)})
}

// runUnchecked runs cfg as a world whose program no check refused: the program's checks
// (validateHandlers, CheckProgram) are what the property judges, so the run must not
// depend on them.
func runUnchecked(cfg Config, seed uint64) (*Result, error) {
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return nil, err
	}
	w, err := build(&cfg, cat, seed)
	if err != nil {
		return nil, err
	}
	reason := w.run()
	w.finish(reason)
	return w.result(reason, seed), nil
}

// checkedProgram judges the program's checks on one drawn program by running it in a world where
// nothing fails: a statement it refuses fails each time the handler runs (it could only
// fail), and a program it accepts makes no statement error (what fails is the world's:
// the initiator ended the dialog).
func checkedProgram(specs []stmtSpec, n int, seed uint64) string {
	var do []Statement
	for _, s := range specs[:min(n, len(specs))] {
		do = append(do, s.statement())
	}
	cfg := programWorld(Workload{Name: "w", Dialogs: 6, Messages: 2, Interarrival: sim.Fixed(200 * time.Millisecond)})
	cfg.Links[0].PairConfig = lossy(0, 0)
	cfg.Readers = []Reader{{Queue: "FrontQueue", ProcessingTime: sim.Fixed(time.Millisecond), On: []Handler{{MessageType: "Request", Do: do}}},
		{Queue: "ClientQueue", On: []Handler{{MessageType: "Reply"}, {MessageType: "Tick"}}}}
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return err.Error()
	}
	var queues []model.QueueID
	if q, err := FindQueue(cat, "FrontQueue"); err == nil {
		queues = append(queues, q)
	}
	refused := validateHandlers(cat, queues, cfg.Readers[0].On)
	res, err := runUnchecked(cfg, seed)
	if err != nil {
		return err.Error()
	}
	var front ReaderResult
	for _, r := range res.Readers {
		if r.Queue == "FrontQueue" {
			front = r
		}
	}
	if refused != nil {
		if front.Messages == 0 || front.StatementFailures < front.Messages {
			return fmt.Sprintf("refused (%v), yet of %d runs of the handler only %d statements failed: %+v",
				refused, front.Messages, front.StatementFailures, do)
		}
		return ""
	}
	if res.StatementErrors > 0 {
		return fmt.Sprintf("accepted, yet %d statement errors, first %s: %+v", res.StatementErrors, res.FirstStatementError, do)
	}
	return ""
}

// DLG-16, DLG-11: the program's checks (ValidateStatement and CheckProgram) refuse
// exactly the statements that can only fail, over drawn programs of one handler: each it refuses fails every time it runs, and a program
// it accepts runs without a statement error in a world where nothing fails.
func TestDLG16_CheckProgramRefusesWhatCanOnlyFail(t *testing.T) {
	properties := gopter.NewProperties(propertyParameters(t, 150, 30))
	properties.Property("refused statements always fail, accepted programs make no statement error", prop.ForAll(
		checkedProgram, gen.SliceOfN(3, genStmtSpec()), gen.IntRange(1, 3), gen.UInt64Range(1, 1000)))
	properties.TestingRun(t)
}
