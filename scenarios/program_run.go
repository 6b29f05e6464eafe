package scenarios

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// program is a reader program's handlers and hook at work, with the state they keep: per
// conversation group (a saga's origin and replies outstanding) and per conversation (a
// watchdog's "nothing arrived since the timer was armed").
type program struct {
	w        *world
	handlers []compiledHandler
	hook     Hook
	queue    string
	rng      *rand.Rand // route by random, and the hook's stream
	next     int        // route by round-robin
	groups   map[model.ConversationGroupID]*GroupState
	watches  map[model.ConversationHandle]bool // armed, and nothing arrived since (silent)
}

type compiledHandler struct {
	mt model.MessageTypeID
	h  *Handler
	do []compiledStatement
}

// compiledStatement is a Statement with its names resolved against the catalog.
type compiledStatement struct {
	st       *Statement
	mt       model.MessageTypeID
	hasType  bool
	to       []model.ServiceName
	contract model.ContractID
	then     []compiledStatement
}

// newProgram compiles a reader's handlers and hook; nil when it has neither, so that a
// reader without them runs exactly as before.
func (w *world) newProgram(kind programKind, q model.QueueID, index int, cfg *Reader) *program {
	if len(cfg.On) == 0 && cfg.Hook == nil {
		return nil
	}
	p := &program{w: w, hook: cfg.Hook, queue: w.cat.Queues[q].Name,
		rng:    w.e.Stream("program/" + kind.String() + "/" + strconv.Itoa(int(q)) + "/" + strconv.Itoa(index)),
		groups: map[model.ConversationGroupID]*GroupState{}, watches: map[model.ConversationHandle]bool{}}
	for i := range cfg.On {
		h := &cfg.On[i]
		mt, _ := handlerType(w.cat, h.MessageType) // Validate checked it
		p.handlers = append(p.handlers, compiledHandler{mt: mt, h: h, do: w.compileStatements(h.Do)})
	}
	return p
}

func (w *world) compileStatements(stmts []Statement) []compiledStatement {
	out := make([]compiledStatement, len(stmts))
	for i := range stmts {
		st := &stmts[i]
		c := compiledStatement{st: st}
		if st.MessageType != "" {
			c.mt, c.hasType = w.cat.MessageType(st.MessageType)
		} else if st.Kind != StatementRoute {
			c.mt, c.hasType = w.cat.MessageType(model.MessageTypeDefault)
		}
		for _, s := range st.ToServices {
			name, _ := w.cat.ServiceName(s)
			c.to = append(c.to, name)
		}
		c.contract, _ = w.cat.Contract(orDefault(st.Contract, model.ContractDefault))
		c.then = w.compileStatements(st.Then)
		out[i] = c
	}
	return out
}

func (p *program) handler(mt model.MessageTypeID) *compiledHandler {
	for i := range p.handlers {
		if p.handlers[i].mt == mt {
			return &p.handlers[i]
		}
	}
	return nil
}

// op is one broker statement a session's program runs, with its operands resolved; the
// session runs its ops in order, pausing at one that waits for a lock.
type op struct {
	kind    StatementKind // StatementSend, StatementBeginDialog, StatementEnd, StatementTimer, StatementGather
	m       model.ReceivedMessage
	target  Target
	h       model.ConversationHandle // the conversation, unless target is TargetBegun
	mt      model.MessageTypeID
	bytes   int64
	to      model.ServiceName
	c       *compiledStatement
	related bool // BEGIN DIALOG WITH RELATED_CONVERSATION = the received one (a fan-out)
	end     model.EndOptions
	silent  bool // end only if nothing arrived since the timer was armed
	timeout time.Duration
	// first marks the first op of a handler's list: no dialog is begun before it, so that
	// conversation: begun never names the dialog an earlier message's list began.
	first bool
	life  bool // the END of a workload's life cycle, after a handler (lifecycle_program.go)
}

// programCounts are the statements of a transaction, counted in ReaderResult if it commits.
type programCounts struct {
	sends, begins, ends, timers, gathered int64
}

// programAct is act for a program: it reports whether a handler or the hook took the
// message; if so, its statements are queued to run after the batch's default acts.
func (s *session) programAct(m model.ReceivedMessage) bool {
	p := s.r.prog
	if m.MessageType == model.EventNotificationMessageType {
		return false // an external activator's, never a program's
	}
	user := !isSystemType(m.MessageType)
	silent, watched := p.watches[m.ConversationHandle]
	switch {
	case user && watched && silent:
		s.setWatch(m.ConversationHandle, false, true) // a message came in time
	case watched && (m.MessageType == model.EndDialogMessageType || m.MessageType == model.ErrorMessageType):
		s.setWatch(m.ConversationHandle, false, false) // the conversation is ending: forget it
	}
	var stmts []compiledStatement
	if h := p.handler(m.MessageType); h != nil {
		stmts = h.do
	} else if p.hook != nil {
		ctx := &HookContext{Now: s.r.w.now(), Queue: p.queue, Message: m, Rand: p.rng}
		if g := p.groups[m.ConversationGroupID]; g != nil {
			c := *g // a copy: the program's state changes only with the transaction's undo list
			ctx.Group = &c
		}
		got, handled := p.hook(ctx)
		if !handled {
			return false
		}
		stmts = s.r.w.compileStatements(s.validHookStatements(got))
	} else {
		return false
	}
	if user {
		s.acts = append(s.acts, appAct{kind: actReceived, msg: m, at: s.receivedAt})
	}
	at, before := len(s.ops), len(s.ops)
	if s.opsRunning {
		at = s.pc + 1
	}
	s.queueStatements(m, stmts, 0)
	if len(s.ops) > before {
		s.ops[at].first = true
	}
	return true
}

// validHookStatements keeps the statements of a hook that the catalog accepts; each other
// one is a misuse, counted as a failed statement and a statement error.
func (s *session) validHookStatements(stmts []Statement) []Statement {
	valid := stmts[:0:0]
	for _, st := range stmts {
		if err := ValidateStatement(s.r.w.cat, st); err != nil {
			s.r.stats.StatementFailures++
			s.r.w.statementFailed(fmt.Errorf("queue %s: a hook's %v statement: %w", s.r.prog.queue, st.Kind, err))
			continue
		}
		valid = append(valid, st)
	}
	return valid
}

func isSystemType(mt model.MessageTypeID) bool {
	switch mt {
	case model.DialogTimerMessageType, model.EndDialogMessageType, model.ErrorMessageType, model.EventNotificationMessageType:
		return true
	}
	return false
}

// queueStatements expands statements into ops at the end of the session's list (or after
// its current op, for a gather's then); origin is the group's origin for TargetOrigin.
func (s *session) queueStatements(m model.ReceivedMessage, stmts []compiledStatement, origin model.ConversationHandle) {
	if !s.opsRunning {
		for i := range stmts {
			s.ops = s.expand(s.ops, m, &stmts[i], origin)
		}
		return
	}
	var ops []op
	for i := range stmts {
		ops = s.expand(ops, m, &stmts[i], origin)
	}
	s.ops = append(s.ops[:s.pc+1], append(ops, s.ops[s.pc+1:]...)...)
}

// expand appends the ops of one statement.
func (s *session) expand(ops []op, m model.ReceivedMessage, c *compiledStatement, origin model.ConversationHandle) []op {
	p := s.r.prog
	st := c.st
	target := op{m: m, target: st.Target, h: m.ConversationHandle}
	switch st.Target {
	case TargetOrigin:
		target.h = origin
		if origin == 0 {
			if g := p.groups[m.ConversationGroupID]; g != nil {
				target.h = g.Origin
			}
		}
	case TargetHandle:
		target.h = st.Conversation
	}
	size := func() int64 { return int64(st.Size.distribution().Sample(s.rng)) }
	switch st.Kind {
	case StatementSend:
		o := target
		o.kind, o.mt, o.bytes = StatementSend, c.mt, size()
		return append(ops, o)
	case StatementEnd:
		o := target
		o.kind, o.silent = StatementEnd, st.IfSilent
		if st.ErrorCode > 0 {
			o.end = model.EndOptions{WithError: true, ErrorCode: st.ErrorCode}
		}
		o.end.WithCleanup = st.WithCleanup
		return append(ops, o)
	case StatementTimer:
		o := target
		o.kind, o.timeout = StatementTimer, st.Timeout
		return append(ops, o)
	case StatementGather:
		return append(ops, op{kind: StatementGather, m: m, c: c, h: m.ConversationHandle})
	}
	// BEGIN DIALOG and SENDs: one dialog (begin_dialog), one of K (route), each (fan_out).
	var to []model.ServiceName
	switch st.Kind {
	case StatementRoute:
		to = []model.ServiceName{c.to[p.pick(st.By, len(c.to), m)]}
	default:
		to = c.to
	}
	mt, bytes, messages := c.mt, int64(-1), max(st.Messages, 1)
	if st.Kind == StatementRoute {
		if !c.hasType {
			mt = m.MessageType
		}
		if st.Size == (SizeDistribution{}) {
			bytes = m.Bytes
		}
	}
	for _, name := range to {
		ops = append(ops, op{kind: StatementBeginDialog, m: m, to: name, c: c, related: st.Kind == StatementFanOut})
		for range messages {
			b := bytes
			if b < 0 {
				b = size()
			}
			ops = append(ops, op{kind: StatementSend, m: m, target: TargetBegun, mt: mt, bytes: b})
		}
	}
	return ops
}

// pick chooses one of n services for a route.
func (p *program) pick(by RouteBy, n int, m model.ReceivedMessage) int {
	switch by {
	case RouteRandom:
		return p.rng.IntN(n)
	case RouteHash:
		h := uint64(m.ConversationID) * 0x9E3779B97F4A7C15 // Fibonacci hashing: a conversation sticks to one
		return int(h>>32) % n
	}
	i := p.next % n
	p.next++
	return i
}

// runOps runs the session's ops from its cursor; it reports whether the session paused
// (an op waits for a lock) or stopped (a deadlock victim), so that the caller goes on only
// when it returns false.
func (s *session) runOps() bool {
	s.opsRunning = true
	defer func() { s.opsRunning = false }()
	for s.pc < len(s.ops) {
		o := &s.ops[s.pc]
		h, err := s.exec(o)
		if err == model.ErrWaiting {
			s.phase = phaseProgram
			s.r.stats.StatementWaits++
			s.r.w.waiterOf[s.r.inst][s.t.ID()] = s
			return true
		}
		if s.opDone(o, h, err) {
			return true
		}
		s.pc++
	}
	s.ops, s.pc = s.ops[:0], 0
	return false
}

// resumeOps goes on after the op that waited has completed.
func (s *session) resumeOps() {
	o := &s.ops[s.pc]
	_, _, h := s.t.Result(nil)
	if s.opDone(o, h, s.err) {
		return
	}
	s.pc++
	s.phase = phaseProcessing
	s.afterOps()
}

// exec runs one op's statement in the session's transaction.
func (s *session) exec(o *op) (model.ConversationHandle, error) {
	w := s.r.w
	now := w.now()
	p := s.r.prog
	if o.first {
		s.begunDialog = 0
	}
	if o.target == TargetBegun {
		o.h = s.begunDialog
	}
	switch o.kind {
	case StatementBeginDialog:
		s.charge(costBeginDialog, 1)
		opts := model.BeginDialogOptions{}
		if o.related {
			opts.RelatedConversation = o.m.ConversationHandle
		}
		s.begunDialog = 0
		return s.t.BeginDialog(now, o.m.Service, o.to, o.c.contract, opts)
	case StatementGather:
		s.gather(o)
		return 0, nil
	}
	if o.h == 0 {
		return 0, fmt.Errorf("%v on no conversation: %w", o.kind, model.ErrHandleNotFound)
	}
	switch o.kind {
	case StatementSend:
		s.charge(costSend, 1)
		return 0, s.t.Send(now, o.h, o.mt, o.bytes)
	case StatementTimer:
		s.charge(costTimer, 1)
		return 0, s.t.BeginConversationTimer(now, o.h, o.timeout)
	}
	if silent, armed := p.watches[o.h]; o.silent && armed && !silent {
		return 0, errSkipped // a message arrived in time: the watchdog lets it be
	}
	s.charge(costEnd, 1)
	return 0, s.t.EndConversation(now, o.h, o.end)
}

// errSkipped is an END CONVERSATION IfSilent that a message arrived in time for.
var errSkipped = errors.New("skipped")

// opDone books an op's outcome; it reports whether the session stopped (a deadlock
// victim: the transaction is gone).
func (s *session) opDone(o *op, h model.ConversationHandle, err error) bool {
	if o.life {
		return s.lifeCycleEndDone(o, err)
	}
	s.replyRefused(o, err)
	switch {
	case err == errSkipped:
		return false
	case errors.Is(err, model.ErrDeadlockVictim):
		s.failed(err)
		return true
	case err != nil:
		s.r.stats.StatementFailures++
		if !worldFailure(o, err) {
			s.r.w.statementFailed(fmt.Errorf("queue %s: %v: %w", s.r.prog.queue, o.kind, err))
		}
		return false
	}
	switch o.kind {
	case StatementBeginDialog:
		s.begunDialog = h
		s.counts.begins++
		if o.related {
			s.addOutstanding(o.m, 1)
		}
	case StatementSend:
		s.counts.sends++
	case StatementTimer:
		s.counts.timers++
		s.setWatch(o.h, true, true)
	case StatementEnd:
		s.counts.ends++
		if _, ok := s.r.prog.watches[o.h]; ok {
			s.setWatch(o.h, false, false)
		}
	}
	return false
}

// worldFailure reports whether a statement failed because of the world: the dialog had
// ended or failed (DLG-11, DLG-12), or the conversation a fan-out relates to had ended. A
// statement that found no conversation at all (no saga's origin, no dialog begun) or
// whose type the contract refuses on that side is the program's mistake: a statement
// error of the run, as a workload's are.
func worldFailure(o *op, err error) bool {
	if errors.Is(err, model.ErrConversationNotSending) {
		return true
	}
	return errors.Is(err, model.ErrHandleNotFound) && (o.h != 0 || o.kind == StatementBeginDialog)
}

// gather counts a reply against its group's fan-out, ends the sub-dialog it came on, and
// runs then once the last reply is in.
func (s *session) gather(o *op) {
	g := s.r.prog.groups[o.m.ConversationGroupID]
	if g == nil || g.Outstanding == 0 {
		s.r.stats.StatementFailures++
		s.r.w.statementFailed(fmt.Errorf("queue %s: gather: a reply no fan_out waits for", s.r.prog.queue))
		return
	}
	s.addOutstanding(o.m, -1)
	origin := g.Origin
	var then []compiledStatement
	end := compiledStatement{st: &Statement{Kind: StatementEnd}}
	then = append(then, end)
	if g.Outstanding == 0 {
		s.counts.gathered++
		then = append(then, o.c.then...)
		s.dropGroup(o.m.ConversationGroupID)
	}
	s.queueStatements(o.m, then, origin)
}

// addOutstanding changes the replies outstanding of m's group by n, creating its state
// with m's conversation as the origin; the session's undo list keeps the change.
func (s *session) addOutstanding(m model.ReceivedMessage, n int) {
	p := s.r.prog
	id := m.ConversationGroupID
	g := p.groups[id]
	if g == nil {
		g = &GroupState{Origin: m.ConversationHandle}
		p.groups[id] = g
		s.acts = append(s.acts, appAct{kind: actProgram, undo: func() { delete(p.groups, id) }})
	}
	g.Outstanding += n
	s.acts = append(s.acts, appAct{kind: actProgram, undo: func() { g.Outstanding -= n }})
}

// dropGroup forgets a group's state once its saga is complete (undone on rollback).
func (s *session) dropGroup(id model.ConversationGroupID) {
	p := s.r.prog
	g := p.groups[id]
	delete(p.groups, id)
	s.acts = append(s.acts, appAct{kind: actProgram, undo: func() { p.groups[id] = g }})
}

// setWatch sets (keep) or forgets a conversation's watchdog state, undone on rollback.
func (s *session) setWatch(h model.ConversationHandle, silent, keep bool) {
	p := s.r.prog
	old, had := p.watches[h]
	if keep {
		p.watches[h] = silent
	} else {
		delete(p.watches, h)
	}
	s.acts = append(s.acts, appAct{kind: actProgram, undo: func() {
		if had {
			p.watches[h] = old
		} else {
			delete(p.watches, h)
		}
	}})
}

// handlerBusy is the processing time of one received message under its handler, and
// whether its handler rolls the transaction back (drawn only for handlers that may).
func (s *session) handlerBusy(m model.ReceivedMessage) (time.Duration, bool, bool) {
	p := s.r.prog
	if p == nil {
		return 0, false, false
	}
	h := p.handler(m.MessageType)
	if h == nil {
		return 0, false, false
	}
	busy := h.h.ProcessingTime.Sample(s.rng) + time.Duration(m.Bytes*int64(h.h.ProcessingPerKB)/1024)
	rollback := h.h.RollbackRate > 0 && s.rng.Float64() < h.h.RollbackRate
	return min(busy, sim.MaxDelay), rollback, true
}

// commitCounts adds a committed transaction's statements to the reader's results.
func (s *session) commitCounts() {
	c := &s.counts
	st := &s.r.stats
	st.Sends += c.sends
	st.BeginDialogs += c.begins
	st.Ends += c.ends
	st.Timers += c.timers
	st.Gathered += c.gathered
	*c = programCounts{}
}
