package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// Handler is what a reader program does with a received message of one type (issue 14,
// item 1): it processes it for ProcessingTime plus ProcessingPerKB for each 1,024 bytes of
// its body, then runs Do in the reader's transaction. With probability RollbackRate the
// whole transaction that received such a message rolls back instead of committing (a
// poison message strategy: five rollbacks disable the queue, QUE-8).
//
// MessageType is a message type's name; DialogTimer, EndDialog and Error name the system
// types. A handler for EndDialog or Error replaces the default END CONVERSATION; a handler
// for a user type replaces the workload's automatic reply and the initiator's reply count.
// A type no handler names keeps the default behaviour.
type Handler struct {
	MessageType     string
	ProcessingTime  sim.Distribution
	ProcessingPerKB time.Duration
	RollbackRate    float64
	Do              []Statement
}

// StatementKind is one statement a program can run.
type StatementKind uint8

const (
	// StatementSend is SEND on a conversation (the received one unless Target says).
	StatementSend StatementKind = iota + 1
	// StatementBeginDialog is BEGIN DIALOG to ToServices[0] then Messages SENDs on it (a chain).
	StatementBeginDialog
	// StatementFanOut is BEGIN DIALOG to each of ToServices WITH RELATED_CONVERSATION = the
	// received conversation (DLG-2) and Messages SENDs on each; the conversation group's
	// state remembers the origin (the received conversation) and the replies outstanding.
	StatementFanOut
	// StatementGather counts the received reply against its group's state, ends the
	// sub-dialog it came on, and once every reply is in runs Then, where Target may be
	// TargetOrigin.
	StatementGather
	// StatementRoute is BEGIN DIALOG to one of ToServices (chosen By) and a SEND of the
	// received message onward: its type and size unless MessageType and Size are set.
	StatementRoute
	// StatementEnd is END CONVERSATION (WITH ERROR = ErrorCode, or WITH CLEANUP).
	StatementEnd
	// StatementTimer is BEGIN CONVERSATION TIMER TIMEOUT = Timeout.
	StatementTimer
)

var statementKindNames = [...]string{"", "send", "begin_dialog", "fan_out", "gather", "route", "end", "timer"}

func (k StatementKind) String() string {
	if int(k) < len(statementKindNames) && k > 0 {
		return statementKindNames[k]
	}
	return fmt.Sprintf("StatementKind(%d)", int(k))
}

// StatementKinds lists the statement kinds in the order ReaderResult counts them.
var StatementKinds = []StatementKind{StatementSend, StatementBeginDialog, StatementFanOut, StatementGather,
	StatementRoute, StatementEnd, StatementTimer}

// Target says which conversation a SEND, END CONVERSATION or timer statement is on.
type Target uint8

const (
	// TargetReceived is the conversation of the received message.
	TargetReceived Target = iota
	// TargetOrigin is the origin conversation of the received message's group: the one a
	// fan-out started from (a saga's answer goes there).
	TargetOrigin
	// TargetBegun is the dialog the last begin_dialog or route of the same list began.
	TargetBegun
	// TargetHandle is Statement.Conversation (the Go hook's explicit handle).
	TargetHandle
)

var targetNames = [...]string{"received", "origin", "begun", "handle"}

func (t Target) String() string { return targetNames[t] }

// RouteBy is how a route statement picks one of its services.
type RouteBy uint8

const (
	RouteRoundRobin RouteBy = iota // each in turn, per program
	RouteRandom                    // uniformly, from the program's own stream
	RouteHash                      // by the received conversation's id: a conversation sticks to one
)

var routeByNames = [...]string{"round-robin", "random", "hash"}

func (b RouteBy) String() string { return routeByNames[b] }

// Statement is one statement of a program: what a Handler's Do lists and what a Hook
// returns. Kind says which fields are used.
type Statement struct {
	Kind StatementKind
	// MessageType and Size are those of the messages sent (DEFAULT and an empty body by
	// default; a route forwards the received type and size by default).
	MessageType string
	Size        SizeDistribution
	// ToServices are the far services of begin_dialog (one), fan_out (each) and route (one
	// of them); Contract is the dialogs' contract (DEFAULT by default); Messages is how
	// many messages each new dialog gets (one by default).
	ToServices []string
	Contract   string
	Messages   int
	By         RouteBy
	// Target is the conversation of send, end and timer; Conversation is the handle when
	// Target is TargetHandle.
	Target       Target
	Conversation model.ConversationHandle
	// ErrorCode > 0 makes end END CONVERSATION WITH ERROR; WithCleanup makes it WITH
	// CLEANUP. IfSilent makes it end only a conversation on which no message arrived since
	// a timer statement armed its timer (a watchdog).
	ErrorCode   int32
	WithCleanup bool
	IfSilent    bool
	// Timeout is the timer's TIMEOUT.
	Timeout time.Duration
	// Then runs once a gather has every reply of its group.
	Then []Statement
}

// Hook is a library user's program in Go: called for each received message that no
// Handler names, in the reader's transaction, it returns the statements to run and whether
// it handled the message (false keeps the default behaviour for it).
type Hook func(ctx *HookContext) (stmts []Statement, handled bool)

// HookContext is what a Hook sees.
type HookContext struct {
	Now     time.Duration
	Queue   string
	Message model.ReceivedMessage
	// Rand is the program's own stream: draws from it keep a run deterministic.
	Rand *rand.Rand
	// Group is a copy of the state of the message's conversation group (nil when it has
	// none): the origin conversation of a fan-out and its replies outstanding.
	Group *GroupState
}

// GroupState is a program's state for one conversation group (a saga).
type GroupState struct {
	Origin      model.ConversationHandle
	Outstanding int
}

// Short names of the system message types in Handler.MessageType.
var systemTypeNames = map[string]string{"DialogTimer": model.MessageTypeDialogTimer,
	"EndDialog": model.MessageTypeEndDialog, "Error": model.MessageTypeError}

// HandlerMessageType resolves a handler's message type name: a catalog's type, or
// DialogTimer, EndDialog and Error for the system types.
func HandlerMessageType(cat *model.Catalog, name string) (model.MessageTypeID, bool) {
	return handlerType(cat, name)
}

// handlerType resolves a handler's message type name.
func handlerType(cat *model.Catalog, name string) (model.MessageTypeID, bool) {
	if full, ok := systemTypeNames[name]; ok {
		name = full
	}
	return cat.MessageType(name)
}

// validateHandlers checks a program's handlers, run on queues, against the catalog: the
// message types, services and contracts exist, each new dialog's contract lets its
// initiator send what the statement sends (DLG-16), and no statement can only fail
// (CheckProgram).
func validateHandlers(cat *model.Catalog, queues []model.QueueID, on []Handler) error {
	seen := map[model.MessageTypeID]bool{}
	for i, h := range on {
		where := fmt.Sprintf("On %d (%s)", i, h.MessageType)
		mt, ok := handlerType(cat, h.MessageType)
		switch {
		case !ok:
			return fmt.Errorf("%s: message type %q does not exist", where, h.MessageType)
		case seen[mt]:
			return fmt.Errorf("%s: message type %q has two handlers", where, h.MessageType)
		case !(h.RollbackRate >= 0 && h.RollbackRate <= 1):
			return fmt.Errorf("%s: RollbackRate %v is outside [0, 1]", where, h.RollbackRate)
		case h.ProcessingPerKB < 0:
			return fmt.Errorf("%s: ProcessingPerKB %v is negative", where, h.ProcessingPerKB)
		}
		seen[mt] = true
		if err := h.ProcessingTime.Validate(); err != nil {
			return fmt.Errorf("%s: ProcessingTime: %w", where, err)
		}
		if err := ValidateStatements(cat, h.Do); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	if ps := CheckProgram(cat, queues, on); len(ps) > 0 {
		p := ps[0]
		return fmt.Errorf("On %d (%s): statement %s: %w", p.Handler, on[p.Handler].MessageType, statementPath(p.Path), p.Err)
	}
	return nil
}

// statementPath writes a problem's path: 2, or 1 then 0 for a gather's then.
func statementPath(path []int) string {
	s := ""
	for i, j := range path {
		if i > 0 {
			s += " then "
		}
		s += strconv.Itoa(j)
	}
	return s
}

// ValidateStatements checks statements against the catalog (a Hook's too, before it runs
// them, if its author wants the check).
func ValidateStatements(cat *model.Catalog, stmts []Statement) error {
	for j, st := range stmts {
		if err := ValidateStatement(cat, st); err != nil {
			return fmt.Errorf("statement %d (%v): %w", j, st.Kind, err)
		}
	}
	return nil
}

// ValidateStatement checks one statement against the catalog: its message type, services
// and contract exist, and a new dialog's contract lets its initiator send the type.
func ValidateStatement(cat *model.Catalog, st Statement) error {
	if st.MessageType != "" {
		if _, ok := cat.MessageType(st.MessageType); !ok {
			return fmt.Errorf("message type %q does not exist", st.MessageType)
		}
	}
	if st.Size.Mean > model.MaxMessageBytes || st.Size.Max > model.MaxMessageBytes || st.Size.Mean < 0 || st.Size.Min < 0 {
		return fmt.Errorf("size outside 0..%d bytes", model.MaxMessageBytes)
	}
	switch st.Kind {
	case StatementSend:
	case StatementBeginDialog, StatementFanOut, StatementRoute:
		if err := validateDialogs(cat, st); err != nil {
			return err
		}
	case StatementGather:
		if err := ValidateStatements(cat, st.Then); err != nil {
			return fmt.Errorf("then: %w", err)
		}
	case StatementEnd:
		if st.ErrorCode < 0 {
			return fmt.Errorf("error code %d is negative (negative codes are the broker's, DLG-9)", st.ErrorCode)
		}
		if st.ErrorCode > 0 && st.WithCleanup {
			return fmt.Errorf("END CONVERSATION has WITH ERROR or WITH CLEANUP, not both")
		}
	case StatementTimer:
		if st.Timeout < 0 {
			return fmt.Errorf("timeout %v is negative", st.Timeout)
		}
	default:
		return fmt.Errorf("unknown statement kind %d", st.Kind)
	}
	if st.Kind != StatementGather && len(st.Then) > 0 {
		return fmt.Errorf("only gather has then")
	}
	if st.Target > TargetHandle {
		return fmt.Errorf("unknown target %d", st.Target)
	}
	return nil
}

// validateDialogs checks the far services and the contract of the dialogs a statement begins.
func validateDialogs(cat *model.Catalog, st Statement) error {
	switch {
	case len(st.ToServices) == 0:
		return fmt.Errorf("no to_services")
	case st.Kind == StatementBeginDialog && len(st.ToServices) != 1:
		return fmt.Errorf("begin_dialog names one service, got %d", len(st.ToServices))
	case st.Messages < 0:
		return fmt.Errorf("messages %d is negative", st.Messages)
	case st.By > RouteHash:
		return fmt.Errorf("unknown route choice %d", st.By)
	}
	for _, s := range st.ToServices {
		if len(cat.ServicesNamed(s)) == 0 {
			return fmt.Errorf("service %q does not exist", s)
		}
	}
	contract, ok := cat.Contract(orDefault(st.Contract, model.ContractDefault))
	if !ok {
		return fmt.Errorf("contract %q does not exist", st.Contract)
	}
	if st.Kind == StatementRoute && st.MessageType == "" {
		return nil // the received type, checked when it runs
	}
	mt, _ := cat.MessageType(orDefault(st.MessageType, model.MessageTypeDefault))
	if !cat.Allows(contract, mt, true) {
		return fmt.Errorf("contract %q does not let the initiator send %q (DLG-16)", orDefault(st.Contract, model.ContractDefault),
			orDefault(st.MessageType, model.MessageTypeDefault))
	}
	return nil
}
