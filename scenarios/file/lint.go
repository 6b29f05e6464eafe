package file

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// The lint diagnostics (docs/lint.md has each one's rule, fix and an example). An ID is
// never reused for another meaning.
const (
	LintContractInitiatorSendsNothing = "SB101" // error: no message type the initiator may send
	LintRouteServiceAcceptsNothing    = "SB102" // a route names a service that accepts none of its database's contracts
	LintQueueNotRead                  = "SB103" // a queue that receives messages and that nothing reads
	LintRouteGoesNowhere              = "SB104" // a route to a broker instance, service or address that does not exist
	LintUnreachedService              = "SB105" // a workload's target that no route reaches (RouteWarnings)
	LintForwardingLoop                = "SB106" // forwarders that send a service round a loop (RouteWarnings)
	LintActivationNoReaders           = "SB107" // ACTIVATION STATUS = ON with MAX_QUEUE_READERS 0
	LintPriorityUnmatched             = "SB108" // a broker priority that no conversation matches
	LintHonorPriorityOff              = "SB109" // HONOR_BROKER_PRIORITY OFF in a database with priorities
	LintPoisonHandling                = "SB110" // rollbacks with POISON_MESSAGE_HANDLING OFF, or certain to disable the queue
	LintDialogsNeverEnded             = "SB111" // a life cycle that leaves endpoints behind
	LintNoRouteBack                   = "SB112" // a target with no route back to the initiator (RouteWarnings)
)

// Lint returns every diagnostic of a loaded scenario (docs/lint.md): what is legal but
// likely wrong (Warning set), and what a server would refuse that the loader lets pass
// (Warning unset, error severity), each with its ID, the path of the object in the file's
// terms, its place (PlaceOf), a message naming the objects and the rule, and a fix. The
// route warnings of Scenario.Warnings are among them (SB105, SB106, SB112), computed again
// from the config. Lint reads only s.Config, its catalog (model.Compile) and s.Places, so
// that a scenario made in Go or imported from T-SQL lints as one loaded from YAML does.
// The order is by place (file, line, column), then ID, then path. A config that does not
// compile or validate gives that one error, without an ID.
func Lint(s *Scenario) []*Error {
	cfg := &s.Config
	cat, err := model.Compile(cfg.Instances)
	if err == nil {
		err = cfg.Validate(cat)
	}
	if err != nil {
		p := s.PlaceOf("")
		return []*Error{{File: p.File, Message: err.Error(), Err: err}}
	}
	l := &linter{s: s, cfg: cfg, cat: cat}
	l.index()
	l.eps, l.known = l.endpoints()
	l.known = l.known && len(cfg.Workloads) > 0
	l.contracts()
	l.routes()
	l.queues()
	l.priorities()
	l.lifeCycles()
	for _, w := range cfg.RouteWarnings(cat) {
		path, id, fix := routeDiagnostic(w)
		l.add(id, path, fix, "%s", w.Message)
	}
	slices.SortStableFunc(l.out, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.ID, b.ID), cmp.Compare(a.Path, b.Path))
	})
	return l.out
}

// linter is one run of Lint.
type linter struct {
	s   *Scenario
	cfg *scenarios.Config
	cat *model.Catalog
	out []*Error
	// dbPath, queuePath and servicePath are the file paths of the catalog's declared
	// objects; hidden ones have none.
	dbPath      map[model.DatabaseID]string
	queuePath   map[model.QueueID]string
	servicePath map[model.ServiceID]string
	// decl is each database's definition, by catalog id.
	decl map[model.DatabaseID]*model.Database
	// eps are the endpoints of the conversations the design begins; known is set when
	// they are all of them: the design has workloads, and no Go hook may begin others.
	eps   []endpoint
	known bool
}

// add records a warning; addError one of error severity.
func (l *linter) add(id, path, fix, format string, args ...any) {
	l.record(true, id, path, fix, format, args...)
}

func (l *linter) addError(id, path, fix, format string, args ...any) {
	l.record(false, id, path, fix, format, args...)
}

func (l *linter) record(warning bool, id, path, fix, format string, args ...any) {
	p := l.s.PlaceOf(path)
	l.out = append(l.out, &Error{File: p.File, Line: p.Line, Column: p.Column, Path: path,
		Message: fmt.Sprintf(format, args...), ID: id, Fix: fix, Warning: warning})
}

// index maps the catalog's declared objects to their paths: Compile numbers databases,
// and each database's queues and services, in the order they are declared.
func (l *linter) index() {
	l.dbPath, l.queuePath, l.servicePath = map[model.DatabaseID]string{}, map[model.QueueID]string{}, map[model.ServiceID]string{}
	l.decl = map[model.DatabaseID]*model.Database{}
	for i := range l.cfg.Instances {
		in := &l.cfg.Instances[i]
		for j := range in.Databases {
			id := l.cat.Instances[i].Databases[j]
			path := index(join(index("instances", i), "databases"), j)
			l.dbPath[id], l.decl[id] = path, &in.Databases[j]
			db := l.cat.Databases[id]
			for k := range in.Databases[j].Queues {
				l.queuePath[db.Queues[k]] = index(join(path, "queues"), k)
			}
			for k := range in.Databases[j].Services {
				l.servicePath[db.Services[k]] = index(join(path, "services"), k)
			}
		}
	}
}

// where names a database as instance/database.
func (l *linter) where(db model.DatabaseID) string {
	d := l.cat.Databases[db]
	return l.cat.Instances[d.Instance].Name + "/" + d.Name
}

// contracts: SB101, a contract on which the initiator may send nothing. CREATE CONTRACT
// refuses one on a server (it needs a message type SENT BY INITIATOR or ANY); a dialog on
// it could never carry its first message (DLG-16).
func (l *linter) contracts() {
	for db, path := range sortedMap(l.dbPath) {
		for k, c := range l.decl[db].Contracts {
			if slices.ContainsFunc(c.Messages, func(m model.ContractMessage) bool { return m.SentBy != model.SentByTarget }) {
				continue
			}
			l.addError(LintContractInitiatorSendsNothing, index(join(path, "contracts"), k),
				"add a message type SENT BY INITIATOR (or ANY): the initiator sends a dialog's first message",
				"contract %q of %s lets the initiator send no message type (every one is SENT BY TARGET): SQL Server's CREATE CONTRACT refuses it, and no dialog on it could send its first message (DLG-16)",
				c.Name, l.where(db))
		}
	}
}

// routes: SB102 and SB104, for the routes the instances and databases declare (the
// timeline's route changes are not linted).
func (l *linter) routes() {
	for i := range l.cfg.Instances {
		in := &l.cfg.Instances[i]
		for k, r := range in.Routes {
			l.route(model.InstanceID(i), model.Msdb, index(join(index("instances", i), "msdb_routes"), k), r)
		}
	}
	for db, path := range sortedMap(l.dbPath) {
		for k, r := range l.decl[db].Routes {
			l.route(l.cat.Databases[db].Instance, db, index(join(path, "routes"), k), r)
		}
	}
}

// route lints one route of database db (model.Msdb for instance inst's msdb).
func (l *linter) route(inst model.InstanceID, db model.DatabaseID, path string, r model.Route) {
	cat := l.cat
	table := cat.Instances[inst].Name + "'s msdb"
	if db != model.Msdb {
		table = l.where(db)
	}
	if g := r.BrokerInstance; g != "" && !slices.ContainsFunc(cat.Databases, func(d model.DatabaseInfo) bool { return cat.BrokerInstance(d.Broker) == g }) {
		l.add(LintRouteGoesNowhere, join(path, "broker_instance"),
			"write the service_broker_guid of the database that has the service (or instance/database), or drop broker_instance",
			"route %q of %s names broker instance %s, which no database of the design has: a conversation to it finds no database at the end of the route (RTE-2, RTE-7)",
			r.Name, table, g)
	}
	if r.ServiceName == "" {
		return
	}
	dest, ok := inst, true
	switch r.Address {
	case model.RouteLocal:
	case model.RouteTransport:
		dest, ok = cat.Instance(model.TransportInstance(r.ServiceName))
	default:
		dest, _ = cat.Instance(r.Address)
	}
	switch {
	case !ok:
		l.add(LintRouteGoesNowhere, join(path, "address"),
			"name the service tcp://INSTANCE:port/... or INSTANCE/..., or give the route an instance's ADDRESS",
			"TRANSPORT route %q of %s takes the instance from the service name %q, and no instance is called %q (RTE-3)",
			r.Name, table, r.ServiceName, model.TransportInstance(r.ServiceName))
		return
	case !l.hasService(dest, r.ServiceName) && (r.Address == model.RouteLocal || !cat.Instances[dest].Forwarding.Enabled):
		l.add(LintRouteGoesNowhere, join(path, "address"),
			"point the route at the instance that has the service, or create the service there",
			"route %q of %s sends service %q to %s, which has no service of that name and does not forward (RTE-4, RTE-7): its messages would be dropped there",
			r.Name, table, r.ServiceName, cat.Instances[dest].Name)
		return
	}
	if db == model.Msdb {
		return
	}
	// A route to an initiator's service is its way back (acknowledgements, replies, the
	// EndDialog): that service need accept nothing.
	named := cat.ServicesNamed(r.ServiceName)
	if l.known && len(named) > 0 && !slices.ContainsFunc(named, func(s model.ServiceID) bool {
		return slices.ContainsFunc(cat.Services[s].Contracts, func(c model.ContractID) bool { return slices.Contains(cat.Databases[db].Contracts, c) })
	}) && !slices.ContainsFunc(l.eps, func(e endpoint) bool { return e.initiator && e.local == r.ServiceName }) {
		l.add(LintRouteServiceAcceptsNothing, join(path, "service_name"),
			"list the dialogs' contract in the target service's CREATE SERVICE (ON QUEUE q (contract))",
			"route %q of %s leads to service %q, which accepts no contract that %s defines and begins no conversation of the design (so the route is no way back): every dialog begun to it would be refused with an error (ENT-3)",
			r.Name, table, r.ServiceName, l.where(db))
	}
}

// hasService reports whether instance inst has a declared service called name.
func (l *linter) hasService(inst model.InstanceID, name string) bool {
	return slices.ContainsFunc(l.cat.ServicesNamed(name), func(s model.ServiceID) bool {
		return l.cat.Services[s].Instance == inst && !l.cat.Services[s].Hidden
	})
}

// queueOf resolves a queue selector, -1 when it names none (Validate refused that).
func (l *linter) queueOf(sel string) model.QueueID {
	q, err := scenarios.FindQueue(l.cat, sel)
	if err != nil {
		return -1
	}
	return q
}

// enabledLater reports whether a timeline change sets the queue's STATUS ON.
func (l *linter) enabledLater(q model.QueueID) bool {
	return slices.ContainsFunc(l.queueChanges(q), func(c scenarios.Change) bool { return c.Activation == nil && c.Status == model.QueueOn })
}

// activatedLater reports whether the timeline's ALTER QUEUE ... WITH ACTIVATION changes,
// in order, make the queue's activation usable at some point: STATUS ON, a procedure, and
// MAX_QUEUE_READERS above 0.
func (l *linter) activatedLater(q model.QueueID) bool {
	a := l.cat.Queues[q].Activation
	for _, c := range l.queueChanges(q) {
		if ch := c.Activation; ch != nil {
			a.Status = derefOr(ch.Status, a.Status)
			a.Procedure = derefOr(ch.Procedure, a.Procedure)
			a.MaxQueueReaders = derefOr(ch.MaxQueueReaders, a.MaxQueueReaders)
			if a.Status && a.Procedure != "" && a.MaxQueueReaders > 0 {
				return true
			}
		}
	}
	return false
}

// queueChanges returns the timeline's ALTER QUEUE changes of queue q, in order.
func (l *linter) queueChanges(q model.QueueID) []scenarios.Change {
	var out []scenarios.Change
	for _, c := range l.cfg.Timeline {
		if c.Link == nil && c.Route == nil && c.Crash == nil && c.Queue != "" && l.queueOf(c.Queue) == q {
			out = append(out, c)
		}
	}
	return out
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// program is a reader program of a queue, with the path of its configuration.
type program struct {
	path         string
	rollbackRate float64
	on           []scenarios.Handler
	hook         bool
	// activation marks the queue's own activation procedure, which reads only while the
	// activation is usable.
	activation bool
}

// programs returns the reader programs of each queue: its readers, its activation
// procedure, and the procedures of the external activators that read it.
func (l *linter) programs() map[model.QueueID][]program {
	out := map[model.QueueID][]program{}
	for i, r := range l.cfg.Readers {
		if q := l.queueOf(r.Queue); q >= 0 {
			out[q] = append(out[q], program{path: index("readers", i), rollbackRate: r.RollbackRate, on: r.On, hook: r.Hook != nil})
		}
	}
	proc := func(name string) (program, bool) {
		for i, p := range l.cfg.Procedures {
			if p.Name == name {
				return program{path: index("procedures", i), rollbackRate: p.RollbackRate, on: p.On, hook: p.Hook != nil}, true
			}
		}
		return program{}, false
	}
	for id, q := range l.cat.Queues {
		if a := q.Activation; a.Procedure != "" {
			if p, ok := proc(a.Procedure); ok {
				p.activation = true
				out[model.QueueID(id)] = append(out[model.QueueID(id)], p)
			}
		}
	}
	for _, a := range l.cfg.ExternalActivators {
		if q := l.queueOf(a.Target); q >= 0 {
			if p, ok := proc(a.Procedure); ok {
				out[q] = append(out[q], p)
			}
		}
	}
	return out
}

// receivers returns, for each queue that messages arrive on, why: the workloads' targets,
// the initiators that get replies or the target's EndDialog, the services programs begin
// dialogs to, and the services event notifications notify.
func (l *linter) receivers() map[model.QueueID]string {
	cat := l.cat
	out := map[model.QueueID]string{}
	note := func(s model.ServiceID, why string) {
		if q := cat.Services[s].Queue; out[q] == "" {
			out[q] = why
		}
	}
	for i, w := range l.cfg.Workloads {
		if w.Dialogs == 0 {
			continue
		}
		for _, t := range cat.ServicesNamed(w.To) {
			note(t, fmt.Sprintf("the target of workload %d (%s)", i, w.Name))
		}
		if from, err := scenarios.FindService(cat, w.From); err == nil &&
			(w.Replies || w.End == scenarios.EndTarget || w.End == scenarios.EndTargetAfterReply) {
			note(from, fmt.Sprintf("the initiator of workload %d (%s), which receives replies or the target's EndDialog", i, w.Name))
		}
	}
	for _, ps := range sortedMap(l.programs()) {
		for _, p := range ps {
			for _, st := range statementsBeginning(p.on) {
				for _, name := range st.ToServices {
					for _, t := range cat.ServicesNamed(name) {
						note(t, fmt.Sprintf("a service the program of %s begins dialogs to", p.path))
					}
				}
			}
		}
	}
	for _, en := range cat.EventNotifications {
		note(en.To, fmt.Sprintf("notified by event notification %q", en.Name))
	}
	return out
}

// queues: SB103, SB107 and SB110.
func (l *linter) queues() {
	cat := l.cat
	progs, recv := l.programs(), l.receivers()
	read := map[model.QueueID]bool{}
	for _, en := range cat.EventNotifications {
		read[en.Queue] = true // its monitor notifies an external reader (ACT-11)
	}
	for _, a := range l.cfg.ExternalActivators {
		if q := l.queueOf(a.Queue); q >= 0 {
			read[q] = true
		}
	}
	for q, path := range sortedMap(l.queuePath) {
		info := cat.Queues[q]
		a := info.Activation
		noReaders := a.Status && a.MaxQueueReaders == 0 && !l.activatedLater(q)
		if noReaders {
			l.add(LintActivationNoReaders, join(path, "activation.max_queue_readers"),
				"set MAX_QUEUE_READERS to the number of procedures that may run at once (1 or more)",
				"queue %q of %s has ACTIVATION (STATUS = ON) with MAX_QUEUE_READERS 0: its monitor never starts procedure %q (ACT-6)",
				info.Name, l.where(info.Database), a.Procedure)
		}
		l.poison(q, path, progs[q])
		why := recv[q]
		readers := slices.ContainsFunc(progs[q], func(p program) bool { return !p.activation })
		switch {
		case why == "" || noReaders: // SB107 says why nothing reads it
		case info.Status == model.QueueOff && !l.enabledLater(q):
			l.add(LintQueueNotRead, join(path, "status"),
				"create the queue WITH STATUS = ON, or turn it ON in the timeline",
				"queue %q of %s is %s and STATUS = OFF for the whole run, and no timeline change turns it ON: its messages wait in the senders' transmission queues (QUE-1)",
				info.Name, l.where(info.Database), why)
		case readers || read[q] || (a.Status && a.MaxQueueReaders > 0) || l.activatedLater(q):
		case a.Status || a.Procedure != "":
			l.add(LintQueueNotRead, join(path, "activation"),
				"turn the activation ON (STATUS = ON), in the queue or in the timeline, or describe the application that reads the queue under readers:",
				"queue %q of %s is %s, and nothing reads it: its ACTIVATION is OFF (or has MAX_QUEUE_READERS 0) and no reader, event notification or external activator serves it: its messages would pile up (ACT-1, ACT-6)",
				info.Name, l.where(info.Database), why)
		default:
			l.add(LintQueueNotRead, path,
				"give the queue ACTIVATION (STATUS = ON, PROCEDURE_NAME, MAX_QUEUE_READERS), an event notification FOR QUEUE_ACTIVATION, or describe the application that reads it under readers:",
				"queue %q of %s is %s, and the design reads it with nothing: no activation, reader, event notification or external activator: the sim stands its default reader in for the application you did not describe; on a server, its messages would pile up unless one reads it",
				info.Name, l.where(info.Database), why)
		}
	}
}

// poison: SB110, for queue q with reader programs ps. POISON_MESSAGE_HANDLING OFF with a
// program that can roll back is the mistake: a message that always fails comes back for
// ever and nothing tells (QUE-8 disabled). ON with a program that always rolls back
// disables the queue after five rollbacks (QUE-8, G-14).
func (l *linter) poison(q model.QueueID, path string, ps []program) {
	info := l.cat.Queues[q]
	for _, p := range ps {
		rate, rpath := p.rollbackRate, join(p.path, "rollback_rate")
		for h, hd := range p.on {
			if hd.RollbackRate > rate {
				rate, rpath = hd.RollbackRate, join(index(join(p.path, "on"), h), "rollback_rate")
			}
		}
		switch {
		case rate == 0:
		case info.PoisonMessageHandlingOff:
			l.add(LintPoisonHandling, join(path, "poison_message_handling"),
				"leave POISON_MESSAGE_HANDLING ON and handle the Broker:Queue Disabled event, or make the program end a message it cannot process (END CONVERSATION WITH ERROR) instead of rolling back",
				"queue %q of %s has POISON_MESSAGE_HANDLING OFF, and its reader (%s) rolls back (rate %v): a message whose transaction always rolls back is received again for ever, and nothing disables the queue or raises Broker:Queue Disabled (QUE-8)",
				info.Name, l.where(info.Database), p.path, rate)
			return
		case rate == 1:
			l.add(LintPoisonHandling, rpath,
				"commit what the program cannot process (END CONVERSATION WITH ERROR), or re-enable the queue (ALTER QUEUE ... STATUS = ON) when the Broker:Queue Disabled event comes",
				"every transaction of the reader (%s) of queue %q of %s that receives rolls back: after five in a row POISON_MESSAGE_HANDLING turns the queue OFF, and every service on it stops (QUE-8, G-14)",
				p.path, info.Name, l.where(info.Database))
			return
		}
	}
}

// endpoint is one side of a conversation the design begins: in database db, on a
// contract, its local and remote service names (PRI-2).
type endpoint struct {
	db            model.DatabaseID
	contract      string
	local, remote string
	initiator     bool
}

// endpoints returns both sides of every conversation the workloads, the programs and the
// event notifications begin; ok is false when a Go hook may begin others.
func (l *linter) endpoints() (out []endpoint, ok bool) {
	cat := l.cat
	pair := func(from model.ServiceID, to, contract string) {
		name := cat.Services[from].Name
		out = append(out, endpoint{cat.Services[from].Database, contract, name, to, true})
		for _, t := range cat.ServicesNamed(to) {
			out = append(out, endpoint{cat.Services[t].Database, contract, to, name, false})
		}
	}
	for _, w := range l.cfg.Workloads {
		if from, err := scenarios.FindService(cat, w.From); err == nil && w.Dialogs > 0 {
			pair(from, w.To, orDefault(w.Contract, model.ContractDefault))
		}
	}
	for q, ps := range sortedMap(l.programs()) {
		for _, p := range ps {
			if p.hook {
				return nil, false
			}
			for _, st := range statementsBeginning(p.on) {
				for s, info := range cat.Services {
					if info.Queue == q && !info.Hidden {
						for _, to := range st.ToServices {
							pair(model.ServiceID(s), to, orDefault(st.Contract, model.ContractDefault))
						}
					}
				}
			}
		}
	}
	for _, en := range cat.EventNotifications {
		pair(en.From, cat.Services[en.To].Name, model.ContractPostEventNotification)
	}
	return out, true
}

// statementsBeginning returns a program's statements that begin dialogs.
func statementsBeginning(on []scenarios.Handler) []scenarios.Statement {
	var out []scenarios.Statement
	var walk func([]scenarios.Statement)
	walk = func(stmts []scenarios.Statement) {
		for _, st := range stmts {
			switch st.Kind {
			case scenarios.StatementBeginDialog, scenarios.StatementFanOut, scenarios.StatementRoute:
				out = append(out, st)
			}
			walk(st.Then)
		}
	}
	for _, h := range on {
		walk(h.Do)
	}
	return out
}

// priorities: SB108 and SB109.
func (l *linter) priorities() {
	cat := l.cat
	for db, path := range sortedMap(l.dbPath) {
		d := l.decl[db]
		if len(d.Priorities) > 0 && !d.HonorBrokerPriority {
			l.add(LintHonorPriorityOff, join(path, "honor_broker_priority"),
				"ALTER DATABASE ... SET HONOR_BROKER_PRIORITY ON, if the levels are meant to order sending",
				"%s defines %d broker priorities but HONOR_BROKER_PRIORITY is OFF: its messages leave at level 5 (PRI-12), and the levels only order RECEIVE and GET CONVERSATION GROUP (PRI-8)",
				l.where(db), len(d.Priorities))
		}
		for k, p := range d.Priorities {
			ppath := index(join(path, "broker_priorities"), k)
			if p.RemoteService != model.Any && !slices.ContainsFunc(cat.ServicesNamed(p.RemoteService), func(s model.ServiceID) bool { return !cat.Services[s].Hidden }) {
				l.add(LintPriorityUnmatched, join(ppath, "remote_service_name"),
					"write the far service's name exactly (it is compared byte by byte), or ANY",
					"broker priority %q of %s names REMOTE_SERVICE_NAME %q, which no service of the design is called (compared byte by byte, PRI-1): no conversation matches it",
					p.Name, l.where(db), p.RemoteService)
				continue
			}
			if l.known && !slices.ContainsFunc(l.eps, func(e endpoint) bool { return e.db == db && priorityMatches(p, e) }) {
				l.add(LintPriorityUnmatched, ppath,
					"make the criteria those of a conversation the database has (PRI-2: local is this database's side), or drop the priority",
					"broker priority %q of %s (contract %s, local %s, remote %s) matches no endpoint of the conversations the workloads, programs and event notifications begin (PRI-2, PRI-4): it changes nothing",
					p.Name, l.where(db), anyOr(p.Contract), anyOr(p.LocalService), anyOr(p.RemoteService))
			}
		}
	}
}

func priorityMatches(p model.BrokerPriority, e endpoint) bool {
	return (p.Contract == model.Any || p.Contract == e.contract) && (p.LocalService == model.Any || p.LocalService == e.local) &&
		(p.RemoteService == model.Any || p.RemoteService == e.remote)
}

func anyOr(s string) string {
	if s == model.Any {
		return "ANY"
	}
	return fmt.Sprintf("%q", s)
}

// lifeCycles: SB111, the workloads whose life cycle leaves endpoints that never go away.
func (l *linter) lifeCycles() {
	for i, w := range l.cfg.Workloads {
		if w.Dialogs == 0 || w.Reuse != nil {
			continue
		}
		var what string
		switch w.End {
		case scenarios.EndFireAndForget:
			what = "the initiator ends right after its last SEND and the target never ends its side: every target endpoint stays DISCONNECTED_INBOUND for ever (DLG-4, DLG-6, G-16)"
		case scenarios.EndNever:
			what = "nobody ends them: both endpoints of every dialog stay CONVERSING for ever (DLG-6)"
		case scenarios.EndCleanup:
			what = "the initiator ends WITH CLEANUP and the target is never told: every target endpoint stays CONVERSING for ever (DLG-10, DLG-6)"
		default:
			continue
		}
		l.add(LintDialogsNeverEnded, join(index("workloads", i), "end"),
			"let the target END CONVERSATION when the EndDialog arrives (end: initiator), or have the target end (end: target, target-after-reply)",
			"the dialogs of workload %d (%s) are never ended: %s; sys.conversation_endpoints grows with every dialog",
			i, w.Name, what)
	}
}

// sortedMap yields a map's entries in ascending key order.
func sortedMap[K cmp.Ordered, V any](m map[K]V) func(yield func(K, V) bool) {
	return func(yield func(K, V) bool) {
		keys := make([]K, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, m[k]) {
				return
			}
		}
	}
}

// PrintLint writes a loaded scenario's diagnostics (Lint) to stderr, one a line, and to
// stdout "NAME: ok" or "NAME: 2 errors, 3 warnings", and returns how many of each.
func PrintLint(name string, s *Scenario, stdout, stderr io.Writer) (errors, warnings int) {
	return PrintDiagnostics(name, Lint(s), stdout, stderr)
}

// PrintDiagnostics writes diagnostics as PrintLint does, and returns how many of each
// severity there are.
func PrintDiagnostics(name string, diags []*Error, stdout, stderr io.Writer) (errors, warnings int) {
	for _, e := range diags {
		fmt.Fprintf(stderr, "%v\n", e)
		if e.Warning {
			warnings++
		} else {
			errors++
		}
	}
	var parts []string
	if errors > 0 {
		parts = append(parts, plural(errors, "error"))
	}
	if warnings > 0 {
		parts = append(parts, plural(warnings, "warning"))
	}
	if len(parts) == 0 {
		parts = []string{"ok"}
	}
	fmt.Fprintf(stdout, "%s: %s\n", name, strings.Join(parts, ", "))
	return errors, warnings
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// LintFiles loads each scenario file (or library name, as Open takes it) and reports
// whether every one loaded with no diagnostic of error severity: a file that does not
// load gets its errors on stderr, as ValidateFiles writes them; one that does, its
// diagnostics (PrintLint). Warnings do not fail a file.
func LintFiles(names []string, stdout, stderr io.Writer) bool {
	unloaded, failing := LintEach(names, stdout, stderr)
	return unloaded == 0 && failing == 0
}

// LintEach is LintFiles, returning how many files did not load and how many loaded
// with a diagnostic of error severity.
func LintEach(names []string, stdout, stderr io.Writer) (unloaded, failing int) {
	for _, p := range names {
		f, err := Open(p)
		if err != nil {
			printLoadError(p, err, stderr)
			unloaded++
			continue
		}
		if errs, _ := PrintLint(p, f, stdout, stderr); errs > 0 {
			failing++
		}
	}
	return unloaded, failing
}
