package file

import (
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// handlers decodes a reader's or a procedure's program: on, a list of handlers, one per
// message type (docs/programs.md).
func (m *mapping) handlers(out *[]scenarios.Handler) {
	d := m.d
	m.list("on", "handlers", func(_ int, n *yaml.Node, path string) {
		hm := d.mapping(n, path, "handler")
		var h scenarios.Handler
		hm.name("message_type", &h.MessageType)
		hm.durationDistribution("processing_time", &h.ProcessingTime)
		hm.duration("processing_per_kb", &h.ProcessingPerKB)
		hm.probability("rollback_rate", &h.RollbackRate)
		h.Do = hm.statements("do")
		hm.done()
		*out = append(*out, h)
	})
}

// statementKeys are the statements a do list may hold, one key each.
var statementKeys = map[string]scenarios.StatementKind{"send": scenarios.StatementSend,
	"begin_dialog": scenarios.StatementBeginDialog, "fan_out": scenarios.StatementFanOut,
	"gather": scenarios.StatementGather, "route": scenarios.StatementRoute, "end": scenarios.StatementEnd,
	"timer": scenarios.StatementTimer}

var statementKeyList = "send, begin_dialog, fan_out, gather, route, end or timer"

// statements decodes a list of statements, each a mapping of one key (the statement) to
// its operands.
func (m *mapping) statements(key string) []scenarios.Statement {
	d := m.d
	var out []scenarios.Statement
	m.list(key, "statements", func(_ int, n *yaml.Node, path string) {
		if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
			d.errorf(n, path, "want one statement (%s: ...), got %s", statementKeyList, describe(n))
			return
		}
		k := n.Content[0]
		kind, ok := statementKeys[k.Value]
		if !ok {
			d.errorf(k, path, "unknown statement %q: want %s", k.Value, statementKeyList)
			return
		}
		spath := join(path, k.Value)
		d.pos[spath] = k
		sm := d.mapping(n.Content[1], spath, k.Value+" statement")
		st := scenarios.Statement{Kind: kind}
		sm.statement(&st)
		sm.done()
		out = append(out, st)
	})
	return out
}

var targetNames = map[string]scenarios.Target{"received": scenarios.TargetReceived, "origin": scenarios.TargetOrigin,
	"begun": scenarios.TargetBegun}

var routeChoices = map[string]scenarios.RouteBy{"round-robin": scenarios.RouteRoundRobin,
	"round_robin": scenarios.RouteRoundRobin, "random": scenarios.RouteRandom, "hash": scenarios.RouteHash}

// statement decodes the operands of one statement; which keys it knows depends on the kind.
func (m *mapping) statement(st *scenarios.Statement) {
	d := m.d
	sizeCapped := func(key string, out *scenarios.SizeDistribution) {
		if m.sizeDistribution(key, out) && (out.Max > model.MaxMessageBytes || out.Mean > model.MaxMessageBytes) {
			d.errorf(d.at(join(m.path, key)), join(m.path, key), "messages above the %d-byte cap", model.MaxMessageBytes)
		}
	}
	conversation := func() {
		var s string
		if !m.str("conversation", &s) {
			return
		}
		t, ok := targetNames[strings.ToLower(s)]
		if !ok {
			d.errorf(d.at(join(m.path, "conversation")), join(m.path, "conversation"), "want received, origin or begun, got %q", s)
		}
		st.Target = t
	}
	switch st.Kind {
	case scenarios.StatementSend:
		m.str("message_type", &st.MessageType)
		sizeCapped("size", &st.Size)
		conversation()
	case scenarios.StatementBeginDialog:
		var to string
		if m.name("to_service", &to) {
			st.ToServices = []string{to}
		}
		m.dialogOperands(st, sizeCapped)
	case scenarios.StatementFanOut, scenarios.StatementRoute:
		m.names("to_services", &st.ToServices)
		m.dialogOperands(st, sizeCapped)
		if st.Kind == scenarios.StatementRoute {
			var by string
			if m.str("by", &by) {
				b, ok := routeChoices[strings.ToLower(by)]
				if !ok {
					d.errorf(d.at(join(m.path, "by")), join(m.path, "by"), "want round-robin, random or hash, got %q", by)
				}
				st.By = b
			}
		}
	case scenarios.StatementGather:
		st.Then = m.statements("then")
	case scenarios.StatementEnd:
		var code int64
		if m.integer("with_error", &code, 1, math.MaxInt32) {
			st.ErrorCode = int32(code)
		}
		m.onOff("with_cleanup", &st.WithCleanup)
		m.onOff("if_silent", &st.IfSilent)
		if st.ErrorCode > 0 && st.WithCleanup {
			d.errorf(m.keyNode("with_cleanup"), join(m.path, "with_cleanup"), "END CONVERSATION has with_error or with_cleanup, not both")
		}
		conversation()
	case scenarios.StatementTimer:
		if !m.duration("timeout", &st.Timeout) && !m.has("timeout") {
			d.errorf(m.node, join(m.path, "timeout"), "the timer statement needs a timeout")
		}
		conversation()
	}
}

// dialogOperands decodes what begin_dialog, fan_out and route share.
func (m *mapping) dialogOperands(st *scenarios.Statement, size func(string, *scenarios.SizeDistribution)) {
	m.str("contract", &st.Contract)
	m.str("message_type", &st.MessageType)
	size("size", &st.Size)
	if st.Kind != scenarios.StatementRoute {
		m.intField("messages", &st.Messages, 1, math.MaxInt32)
	}
}

// names decodes a non-empty list of names.
func (m *mapping) names(key string, out *[]string) {
	d := m.d
	v := m.get(key)
	path := join(m.path, key)
	if v == nil {
		if m.present() || m.node == nil {
			d.errorf(m.node, path, "the %s needs %s", m.what, key)
		}
		return
	}
	if v.Kind != yaml.SequenceNode {
		d.errorf(v, path, "want a list of service names, got %s", describe(v))
		return
	}
	if len(v.Content) == 0 {
		d.errorf(v, path, "want at least one service name, got an empty list")
		return
	}
	for i, n := range v.Content {
		n = d.resolve(n)
		if n == nil {
			continue
		}
		d.pos[index(path, i)] = n
		if n.Kind != yaml.ScalarNode || isNull(n) || n.Value == "" {
			d.errorf(n, index(path, i), "want a service name, got %s", describe(n))
			continue
		}
		*out = append(*out, n.Value)
	}
}

// checkHandlers checks a program's names against the catalog, and then, if they exist,
// that no statement can only fail (scenarios.CheckProgram), each at its place.
func (d *decoder) checkHandlers(cat *model.Catalog, path string, queues []model.QueueID, on []scenarios.Handler) {
	before := len(d.errs)
	defer func() {
		if len(d.errs) == before {
			d.checkProgram(cat, path, queues, on)
		}
	}()
	var seen []model.MessageTypeID
	for i, h := range on {
		hpath := index(join(path, "on"), i)
		mt, ok := scenarios.HandlerMessageType(cat, h.MessageType)
		switch {
		case !ok:
			d.notDefined(join(hpath, "message_type"), "message type", h.MessageType)
		case slices.Contains(seen, mt):
			d.errorf(d.at(join(hpath, "message_type")), join(hpath, "message_type"), "message type %q already has a handler", h.MessageType)
		}
		seen = append(seen, mt)
		d.checkStatements(cat, join(hpath, "do"), h.Do)
	}
}

// checkProgram places each problem scenarios.CheckProgram finds at its statement.
func (d *decoder) checkProgram(cat *model.Catalog, path string, queues []model.QueueID, on []scenarios.Handler) {
	for _, p := range scenarios.CheckProgram(cat, queues, on) {
		spath := index(join(path, "on"), p.Handler)
		stmts := on[p.Handler].Do
		key := "do"
		for _, j := range p.Path {
			spath = join(index(join(spath, key), j), stmts[j].Kind.String())
			stmts, key = stmts[j].Then, "then"
		}
		d.add(d.at(spath), spath, p.Err.Error(), p.Err)
	}
}

func (d *decoder) checkStatements(cat *model.Catalog, path string, stmts []scenarios.Statement) {
	for j, st := range stmts {
		spath := join(index(path, j), st.Kind.String())
		then := st.Then
		st.Then = nil
		if err := scenarios.ValidateStatement(cat, st); err != nil {
			d.add(d.at(spath), spath, err.Error(), err)
		}
		d.checkStatements(cat, join(spath, "then"), then)
	}
}

// handlersNode writes a program's handlers, block style, each statement a flow mapping.
func (e *encoder) handlersNode(on []scenarios.Handler, path string) node {
	list := newList(false)
	for i, h := range on {
		hpath := index(join(path, "on"), i)
		hm := newMap(false)
		hm.set("message_type", strValue(h.MessageType))
		e.setDistribution(hm, "processing_time", h.ProcessingTime, hpath)
		hm.duration("processing_per_kb", h.ProcessingPerKB)
		hm.float("rollback_rate", h.RollbackRate)
		hm.setList("do", e.statementsNode(h.Do, join(hpath, "do")))
		list.add(hm.Node)
	}
	return list
}

var statementKindKeys = map[scenarios.StatementKind]string{}

func init() {
	for k, v := range statementKeys {
		statementKindKeys[v] = k
	}
}

func (e *encoder) statementsNode(stmts []scenarios.Statement, path string) node {
	list := newList(false)
	for j, st := range stmts {
		key := statementKindKeys[st.Kind]
		spath := join(index(path, j), key)
		sm := newMap(true)
		if st.Target == scenarios.TargetHandle || st.Conversation != 0 {
			e.fail(spath, "a statement on an explicit conversation handle (a Go hook's) cannot be written")
		}
		if st.Target != scenarios.TargetReceived {
			sm.set("conversation", plain(st.Target.String()))
		}
		switch st.Kind {
		case scenarios.StatementBeginDialog:
			if len(st.ToServices) == 1 {
				sm.set("to_service", strValue(st.ToServices[0]))
			}
		case scenarios.StatementFanOut, scenarios.StatementRoute:
			names := newList(true)
			for _, s := range st.ToServices {
				names.add(strValue(s))
			}
			sm.set("to_services", names.Node)
			if st.Kind == scenarios.StatementRoute && st.By != scenarios.RouteRoundRobin {
				sm.set("by", plain(st.By.String()))
			}
		}
		sm.str("contract", st.Contract)
		sm.str("message_type", st.MessageType)
		if st.Size != (scenarios.SizeDistribution{}) {
			sm.set("size", e.sizeDistribution(st.Size, join(spath, "size")))
		}
		if st.Kind == scenarios.StatementBeginDialog || st.Kind == scenarios.StatementFanOut {
			sm.integer("messages", int64(st.Messages))
		}
		sm.integer("with_error", int64(st.ErrorCode))
		sm.flag("with_cleanup", st.WithCleanup)
		sm.flag("if_silent", st.IfSilent)
		sm.duration("timeout", st.Timeout)
		if st.Kind == scenarios.StatementTimer && st.Timeout == 0 {
			sm.set("timeout", plain("0s"))
		}
		if len(st.Then) > 0 {
			sm.Style = 0 // a block mapping: then holds a block list
			sm.setList("then", e.statementsNode(st.Then, join(spath, "then")))
		}
		item := newMap(true)
		if len(st.Then) > 0 {
			item.Style = 0
		}
		item.set(key, sm.Node)
		list.add(item.Node)
	}
	return list
}

// program writes a reader's or a procedure's handlers; the mapping turns block style to
// hold them. A Go hook cannot be written.
func (e *encoder) program(m *node, on []scenarios.Handler, hook bool, path string) {
	if hook {
		e.fail(path, "a Go hook cannot be written to a scenario file")
	}
	if len(on) == 0 {
		return
	}
	m.Style = 0
	m.setList("on", e.handlersNode(on, path))
}
