package scenarios

import (
	"fmt"
	"slices"

	"github.com/sbsim/sbsim/model"
)

// ProgramProblem is a statement of a program that can only fail when it runs, or that
// would send its own message back to its own queue for ever: CheckProgram refuses it.
// Handler is its handler's index in On; Path the statement's index in the handler's Do,
// then in each gather's Then down to it.
type ProgramProblem struct {
	Handler int
	Path    []int
	Err     error
}

// programContext is what CheckProgram knows of a whole program while it walks a list.
type programContext struct {
	cat    *model.Catalog
	queues []model.QueueID // the queues the program reads
	// fanOutTypes are the types of the handlers that fan out: a saga's origin is a
	// conversation on which one of them arrived.
	fanOutTypes []model.MessageTypeID
	hasFanOut   bool
	out         []ProgramProblem
}

// begun is the dialog the last begin_dialog or route before a statement began; ended
// is set once an end statement ended it, receivedEnded once one ended the received
// conversation.
type begun struct {
	ok, ended     bool
	contract      model.ContractID
	receivedEnded bool
}

// CheckProgram returns the statements of a program, run on the given queues, that can
// only fail or loop: a SEND of a type that neither side that receives the handler's type
// may send on the received conversation (DLG-16: a type only the initiator sends is
// received by the target); a SEND on a conversation whose far side has ended or failed
// (DLG-11, DLG-12); conversation: begun with no begin_dialog or route before it in its
// list; conversation: origin, or a gather, in a program that has no fan_out; a statement
// on the received conversation in a gather's then (the gather has ended it); a dialog to
// a service that does not accept its contract (ENT-3) or whose contract is not defined in
// the program's database; and a new dialog that sends the handled type to the program's
// own queue (each message would beget another, for ever). Names that do not exist are
// ValidateStatement's to report.
func CheckProgram(cat *model.Catalog, queues []model.QueueID, on []Handler) []ProgramProblem {
	pc := &programContext{cat: cat, queues: queues}
	for _, h := range on {
		if containsKind(h.Do, StatementFanOut) {
			pc.hasFanOut = true
			if mt, ok := handlerType(cat, h.MessageType); ok {
				pc.fanOutTypes = append(pc.fanOutTypes, mt)
			}
		}
	}
	for i, h := range on {
		mt, ok := handlerType(cat, h.MessageType)
		if !ok {
			continue
		}
		pc.list(i, nil, mt, h.Do, false, begun{})
	}
	return pc.out
}

func containsKind(stmts []Statement, k StatementKind) bool {
	for _, st := range stmts {
		if st.Kind == k || containsKind(st.Then, k) {
			return true
		}
	}
	return false
}

// list checks the statements of one list; b is the dialog begun before it.
func (pc *programContext) list(handler int, path []int, mt model.MessageTypeID, stmts []Statement, inThen bool, b begun) {
	for j, st := range stmts {
		p := append(slices.Clone(path), j)
		if err := pc.statement(mt, st, inThen, b); err != nil {
			pc.out = append(pc.out, ProgramProblem{Handler: handler, Path: p, Err: err})
		}
		switch st.Kind {
		case StatementBeginDialog, StatementRoute:
			if c, ok := pc.cat.Contract(orDefault(st.Contract, model.ContractDefault)); ok {
				b.ok, b.ended, b.contract = true, false, c
			}
		case StatementEnd:
			if !st.IfSilent && st.Target == TargetReceived {
				b.receivedEnded = true
			}
			if !st.IfSilent && st.Target == TargetBegun {
				b.ended = true
			}
		case StatementGather:
			pc.list(handler, p, mt, st.Then, true, b)
		}
	}
}

// statement checks one statement of a handler of type mt.
func (pc *programContext) statement(mt model.MessageTypeID, st Statement, inThen bool, b begun) error {
	cat := pc.cat
	sent, hasType := cat.MessageType(orDefault(st.MessageType, model.MessageTypeDefault))
	switch st.Kind {
	case StatementGather:
		if !pc.hasFanOut {
			return fmt.Errorf("gather counts the replies of a fan_out, and the program has no fan_out: every gather would fail")
		}
		return nil
	case StatementBeginDialog, StatementFanOut, StatementRoute:
		return pc.dialogs(mt, st)
	case StatementSend, StatementEnd, StatementTimer:
	default:
		return nil
	}
	switch st.Target {
	case TargetReceived:
		if b.receivedEnded {
			return fmt.Errorf("an end before it in the list has ended the received conversation: a %v on it would fail (DLG-11)", st.Kind)
		}
		if inThen {
			return fmt.Errorf("the gather ends the sub-dialog the reply came on before then runs: a %v on the received conversation would fail (write conversation: origin)", st.Kind)
		}
		if st.Kind == StatementSend && hasType {
			return pc.sendOnReceived(mt, sent)
		}
	case TargetOrigin:
		if !pc.hasFanOut {
			return fmt.Errorf("conversation: origin is the conversation a fan_out started from, and the program has no fan_out: it would fail")
		}
		if st.Kind == StatementSend && hasType && !slices.ContainsFunc(pc.fanOutTypes, func(f model.MessageTypeID) bool {
			return isSystemType(f) || receiverMaySend(cat, f, sent)
		}) {
			return fmt.Errorf("no side that receives the message a fan_out starts from may send %q on it (DLG-16): it would fail", cat.MessageTypes[sent])
		}
	case TargetBegun:
		if !b.ok {
			return fmt.Errorf("conversation: begun is the dialog of a begin_dialog or route before it in its list, and there is none: it would fail")
		}
		if b.ended {
			return fmt.Errorf("an end before it in the list has ended the begun dialog: a %v on it would fail (DLG-11)", st.Kind)
		}
		if st.Kind == StatementSend && hasType && !cat.Allows(b.contract, sent, true) {
			return fmt.Errorf("contract %q of the begun dialog does not let the initiator send %q (DLG-16): it would fail",
				cat.Contracts[b.contract].Name, cat.MessageTypes[sent])
		}
	}
	return nil
}

// sendOnReceived checks a SEND of type sent on a conversation on which a message of type
// mt arrived.
func (pc *programContext) sendOnReceived(mt, sent model.MessageTypeID) error {
	cat := pc.cat
	switch mt {
	case model.EndDialogMessageType:
		return fmt.Errorf("a SEND on a conversation whose far side has ended (EndDialog, DLG-4) would fail")
	case model.ErrorMessageType:
		return fmt.Errorf("a SEND on a conversation that has failed (Error, DLG-12) would fail")
	case model.DialogTimerMessageType:
		return nil // either side's timer
	}
	if receiverMaySend(cat, mt, sent) {
		return nil
	}
	return fmt.Errorf("%q is received by the %s, and no contract lets the %s send %q (DLG-16): it would fail",
		cat.MessageTypes[mt], receivers(cat, mt), receivers(cat, mt), cat.MessageTypes[sent])
}

// receiverMaySend reports whether some side that receives type mt on some contract may
// send type sent on the same contract.
func receiverMaySend(cat *model.Catalog, mt, sent model.MessageTypeID) bool {
	for c := range cat.Contracts {
		id := model.ContractID(c)
		for _, initiator := range []bool{true, false} {
			if cat.Allows(id, mt, !initiator) && cat.Allows(id, sent, initiator) {
				return true
			}
		}
	}
	return false
}

// receivers names the sides that receive type mt: "target", "initiator" or "either side".
func receivers(cat *model.Catalog, mt model.MessageTypeID) string {
	var target, initiator bool
	for c := range cat.Contracts {
		target = target || cat.Allows(model.ContractID(c), mt, true)
		initiator = initiator || cat.Allows(model.ContractID(c), mt, false)
	}
	switch {
	case target && initiator:
		return "either side"
	case initiator:
		return "initiator"
	}
	return "target"
}

// dialogs checks the dialogs a begin_dialog, fan_out or route begins: the far services
// accept the contract, the program's databases define it, a route forwards a type the
// contract lets the initiator send, and no dialog sends the handled type to the
// program's own queue.
func (pc *programContext) dialogs(mt model.MessageTypeID, st Statement) error {
	cat := pc.cat
	name := orDefault(st.Contract, model.ContractDefault)
	contract, ok := cat.Contract(name)
	if !ok {
		return nil
	}
	for _, q := range pc.queues {
		db := cat.Queues[q].Database
		if !slices.Contains(cat.Databases[db].Contracts, contract) {
			return fmt.Errorf("contract %q is not defined in database %q of queue %q, where BEGIN DIALOG runs: it would fail",
				name, cat.Databases[db].Name, cat.Queues[q].Name)
		}
	}
	sent, _ := cat.MessageType(orDefault(st.MessageType, model.MessageTypeDefault))
	if st.Kind == StatementRoute && st.MessageType == "" {
		sent = mt // the received message, forwarded
		if !isSystemType(mt) && !cat.Allows(contract, mt, true) {
			return fmt.Errorf("the route forwards the received %q, which contract %q does not let the initiator send (DLG-16): it would fail",
				cat.MessageTypes[mt], name)
		}
	}
	loops := 0
	for _, s := range st.ToServices {
		ids := cat.ServicesNamed(s)
		for _, to := range ids {
			if !slices.Contains(cat.Services[to].Contracts, contract) {
				db := cat.Databases[cat.Services[to].Database]
				return fmt.Errorf("service %q of %s/%s does not accept contract %q (ENT-3): every dialog to it would be refused with an error",
					s, cat.Instances[db.Instance].Name, db.Name, name)
			}
		}
		if len(ids) > 0 && !slices.ContainsFunc(ids, func(to model.ServiceID) bool {
			return !slices.Contains(pc.queues, cat.Services[to].Queue)
		}) {
			loops++
		}
	}
	if sent != mt || loops == 0 || (st.Kind == StatementRoute && loops < len(st.ToServices)) {
		return nil
	}
	return fmt.Errorf("the new dialog sends %q to the program's own queue, whose handler would send it on again: each message begets another, for ever",
		cat.MessageTypes[mt])
}

// ProcedureQueues returns the queues a procedure reads: those whose activation names it,
// and the target queues of the external activators that start it.
func (c *Config) ProcedureQueues(cat *model.Catalog, name string) []model.QueueID {
	var out []model.QueueID
	for q, info := range cat.Queues {
		if info.Activation.Procedure == name {
			out = append(out, model.QueueID(q))
		}
	}
	for _, a := range c.ExternalActivators {
		if q, err := FindQueue(cat, a.Target); err == nil && a.Procedure == name && !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	return out
}

// statementFailures is the statement_failures metric: the failed statements of the
// programs of the run, or of the queue's; no value where no program runs, so that a
// world without programs reports what it did before.
func statementFailures(res *Result, s Subject) (float64, string) {
	var n int64
	programs := 0
	for _, r := range res.Readers {
		if r.Program && (s.Queue == "" || queueNameMatches(s.Queue, r.Queue)) {
			n += r.StatementFailures
			programs++
		}
	}
	if programs == 0 {
		return 0, "no reader program runs there"
	}
	return float64(n), ""
}
