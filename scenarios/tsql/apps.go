package tsql

import (
	"fmt"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/sim"
)

// PostEventNotification is the contract of a service that receives event notifications.
const PostEventNotification = "http://schemas.microsoft.com/SQL/Notifications/PostEventNotification"

// Skeleton defaults: what the workload skeleton and the links get where the scripts say
// nothing (docs/import.md lists them).
const (
	SkeletonDialogs      = 10
	SkeletonInterarrival = time.Second
	SkeletonSize         = 1024
	SkeletonLatency      = time.Millisecond
	SkeletonMaxTime      = 10 * time.Minute
)

// queueRef names a queue of the catalog.
type queueRef struct{ instance, database, queue string }

func (q queueRef) String() string { return q.instance + "/" + q.database + "/" + q.queue }

// activated is a queue's activation procedure as read.
type activated struct {
	ref  queueRef
	path string // the queue's path in the file
	prog program
	src  *procSource // nil when no script creates the procedure
	// folded are the handlers (by message type, "" for the unconditional) that became a
	// workload's replies and life cycle.
	folded map[string]bool
}

// programs reads the activation procedure of every queue that has one.
func (b *builder) programs() {
	for ii, in := range b.cfg.Instances {
		rin := b.r.instances[b.instanceIndex(in.Name)]
		for di, db := range in.Databases {
			rdb := rin.database(db.Name, Pos{})
			types := map[string]bool{}
			for _, mt := range db.MessageTypes {
				types[mt.Name] = true
			}
			for qi, q := range db.Queues {
				if q.Activation.Procedure == "" {
					continue
				}
				a := &activated{ref: queueRef{in.Name, db.Name, q.Name}, path: fmt.Sprintf("instances[%d].databases[%d].queues[%d]", ii, di, qi)}
				a.src = findProcedure(rin, rdb, q.Activation.Procedure)
				if a.src != nil {
					a.prog = readProgram(a.src, q.Name, types)
				} else {
					a.prog = program{proc: scenarios.Procedure{Name: q.Activation.Procedure},
						why: []string{fmt.Sprintf("no script creates the procedure %s", q.Activation.Procedure)}}
				}
				if !a.prog.recognised {
					a.prog.proc.Top, a.prog.proc.WaitFor = 1, scenarios.DefaultProcedureWaitFor
				}
				if q.PoisonMessageHandlingOff && a.prog.rollsBack {
					at := b.places[a.path+".poison_message_handling"]
					b.r.warn(posOf(at, Pos{}), file.LintPoisonHandling,
						"leave POISON_MESSAGE_HANDLING ON and END CONVERSATION WITH ERROR a message that keeps failing; in the scenario, set the procedure's rollback_rate to try it",
						"queue %s has POISON_MESSAGE_HANDLING OFF and its procedure %s rolls back (QUE-8): a message that keeps failing comes back for ever, and nothing tells anyone",
						q.Name, a.prog.proc.Name)
				}
				b.activated = append(b.activated, a)
			}
		}
	}
}

func (b *builder) instanceIndex(name string) int {
	for i, in := range b.r.instances {
		if in.name == name {
			return i
		}
	}
	return -1
}

// findProcedure finds an activation procedure in its queue's database, else in another
// database of the instance.
func findProcedure(in *instance, db *database, name string) *procSource {
	key := strings.ToLower(name)
	if p := db.procedures[key]; p != nil {
		return p
	}
	for _, other := range in.databases {
		if p := other.procedures[key]; p != nil {
			return p
		}
	}
	return nil
}

// service is a service of the catalog with where it is.
type service struct {
	model.Service
	instance, database string
	db                 *model.Database
	path               string // in the scenario file
}

func (b *builder) services() []service {
	var out []service
	for ii, in := range b.cfg.Instances {
		for di := range in.Databases {
			db := &in.Databases[di]
			for si, s := range db.Services {
				out = append(out, service{Service: s, instance: in.Name, database: db.Name, db: db,
					path: fmt.Sprintf("instances[%d].databases[%d].services[%d]", ii, di, si)})
			}
		}
	}
	return out
}

// qualified names a service as a workload does: its name, or instance/database/name when
// several databases have one of that name.
func qualified(all []service, s service) string {
	n := 0
	for _, o := range all {
		if o.Name == s.Name {
			n++
		}
	}
	if n > 1 {
		return s.instance + "/" + s.database + "/" + s.Name
	}
	return s.Name
}

// workloads writes a skeleton: one workload to each service that accepts a contract,
// from the service most likely to begin its dialogs, with what the target's procedure
// does as its replies and life cycle. Every figure in it is marked to edit.
func (b *builder) workloads() {
	b.calledBy = b.programTargets()
	all := b.services()
	covered := map[string]bool{}
	for _, d := range b.r.dialogs {
		from, okFrom := findService(all, d.from, d.database)
		to, okTo := findService(all, d.to, "")
		if !okFrom || !okTo || covered[from.Name+"→"+to.Name] {
			continue
		}
		covered[from.Name+"→"+to.Name], covered[to.Name] = true, true
		contract := d.contract
		if contract == "" {
			contract = "DEFAULT"
		}
		b.workload(all, from, to, contract, d.messageType, fmt.Sprintf("as the application's BEGIN DIALOG at %s does", d.pos))
	}
	for _, t := range all {
		contract := ""
		for _, k := range t.Contracts {
			if k == PostEventNotification {
				contract = ""
				break
			}
			if contract == "" || contract == "DEFAULT" {
				contract = k
			}
		}
		if contract == "" || covered[t.Name] {
			continue
		}
		if by := b.calledBy[t.Name]; by != "" {
			b.d.comment("workloads", "No workload to %s: the procedure %s begins its dialogs.", t.Name, by)
			continue
		}
		from, ok := b.initiator(all, t, contract)
		if !ok {
			continue
		}
		b.workload(all, from, t, contract, "", b.why[from.Name+"→"+t.Name])
	}
	if len(b.cfg.Workloads) == 0 && len(all) > 0 {
		b.d.comment("", "No workload: no service accepts a contract that another service could begin a dialog on.")
	}
	b.procedures()
	b.readers()
	b.cfg.MaxTime = SkeletonMaxTime
	b.d.comment("limits", "EDIT: the run stops after %v minutes of simulated time: readers that poll never run out of events.", SkeletonMaxTime.Minutes())
}

// findService finds a service by name, in database db when one there has it.
func findService(all []service, name, db string) (service, bool) {
	var found []service
	for _, s := range all {
		if s.Name == name {
			found = append(found, s)
		}
	}
	for _, s := range found {
		if strings.EqualFold(s.database, db) {
			return s, true
		}
	}
	if len(found) > 0 {
		return found[0], true
	}
	return service{}, false
}

// workload adds the skeleton workload from one service to another.
func (b *builder) workload(all []service, from, t service, contract, messageType, why string) {
	wpath := fmt.Sprintf("workloads[%d]", len(b.cfg.Workloads))
	w := b.newWorkload(all, from, t, contract, messageType)
	if w.Contract != "" && w.MessageType == "" {
		b.d.comment("workloads", "No workload to %s: its contract %s lets the initiator send nothing (simulate lint: SB101).", t.Name, contract)
		return
	}
	b.d.comment(wpath, "EDIT: a skeleton. How many dialogs to %s, how often, how big: the scripts do not say.", t.Name)
	b.d.comment(wpath, "From %s: %s.", from.Name, why)
	b.replies(&w, t, wpath)
	b.places[wpath] = b.places[t.path] // lint's diagnostics of a workload point at its target's CREATE SERVICE
	b.cfg.Workloads = append(b.cfg.Workloads, w)
}

// newWorkload is the skeleton's workload from one service to another.
func (b *builder) newWorkload(all []service, from, t service, contract, messageType string) scenarios.Workload {
	w := scenarios.Workload{Name: "to " + t.Name, From: qualified(all, from), To: t.Name, Dialogs: SkeletonDialogs,
		Interarrival: sim.ExponentialMean(SkeletonInterarrival), Messages: 1, Size: scenarios.FixedSize(SkeletonSize)}
	if qualified(all, t) != t.Name {
		// TO SERVICE is a name that routes find; several databases have this one, so the
		// skeleton names the broker instance of the one it chose.
		w.ToBrokerInstance = t.instance + "/" + t.database
		w.Name = "to " + t.instance + "/" + t.database + "/" + t.Name
	}
	if contract != "DEFAULT" {
		w.Contract = contract
		w.MessageType = messageType
		if w.MessageType == "" {
			w.MessageType = initiatorType(t.db, contract)
		}
	}
	if w.MessageType == "DEFAULT" {
		w.MessageType = ""
	}
	return w
}

// initiator picks the service that begins dialogs to t: of those whose database has the
// contract, and from which a route reaches t and comes back (RouteWarnings finds none),
// first one whose database routes t's name, else one with no contract of its own (an
// initiator's service) in another database, else in the same, else any other service.
// When none has a way there and back, the first by that order, which lint will flag.
func (b *builder) initiator(all []service, t service, contract string) (service, bool) {
	if b.why == nil {
		b.why = map[string]string{}
	}
	hasContract := func(s service) bool {
		if contract == "DEFAULT" {
			return true
		}
		for _, k := range s.db.Contracts {
			if k.Name == contract {
				return true
			}
		}
		return false
	}
	tiers := []struct {
		why string
		ok  func(s service) bool
	}{
		{"its database has a route to " + t.Name, func(s service) bool {
			for _, r := range s.db.Routes {
				if r.ServiceName == t.Name {
					return true
				}
			}
			return false
		}},
		{"a service with no contract (it can only begin dialogs) in another database", func(s service) bool {
			return len(s.Contracts) == 0 && s.database != t.database
		}},
		{"a service with no contract (it can only begin dialogs)", func(s service) bool { return len(s.Contracts) == 0 }},
		{"another service whose database has the contract", func(s service) bool { return true }},
	}
	type candidate struct {
		s   service
		why string
	}
	var candidates []candidate
	seen := map[string]bool{}
	for _, tier := range tiers {
		for _, s := range all {
			key := s.instance + "/" + s.database + "/" + s.Name
			if seen[key] || (s.Name == t.Name && s.instance == t.instance && s.database == t.database) {
				continue
			}
			if hasContract(s) && tier.ok(s) {
				seen[key] = true
				candidates = append(candidates, candidate{s, tier.why})
			}
		}
	}
	if len(candidates) == 0 {
		b.d.comment("workloads", "No workload to %s/%s/%s: no other service's database has its contract %s.", t.instance, t.database, t.Name, contract)
		return service{}, false
	}
	for _, c := range candidates {
		if b.routesBothWays(all, c.s, t) {
			b.why[c.s.Name+"→"+t.Name] = c.why + ", and a route reaches " + t.Name + " from it and comes back"
			return c.s, true
		}
	}
	b.d.comment("workloads", "No workload to %s/%s/%s: no service whose database has %s has a route to it and back (simulate lint says which route is missing).",
		t.instance, t.database, t.Name, contract)
	if w := b.newWorkload(all, candidates[0].s, t, contract, ""); w.Contract == "" || w.MessageType != "" {
		b.unreached = append(b.unreached, w)
		b.unreachedAt = append(b.unreachedAt, b.places[t.path])
	}
	return service{}, false
}

// routesBothWays reports whether a dialog from one service reaches t and can come back,
// by the catalog's routes (Config.RouteWarnings).
func (b *builder) routesBothWays(all []service, from, t service) bool {
	if b.cat == nil {
		cat, err := model.Compile(b.cfg.Instances)
		if err != nil {
			return true // check reports the catalog's error
		}
		b.cat = cat
	}
	w := scenarios.Workload{From: qualified(all, from), To: t.Name}
	if qualified(all, t) != t.Name {
		w.ToBrokerInstance = t.instance + "/" + t.database
	}
	cfg := scenarios.Config{Instances: b.cfg.Instances, Workloads: []scenarios.Workload{w}}
	return len(cfg.RouteWarnings(b.cat)) == 0
}

// initiatorType is the first message type the contract lets the initiator send.
func initiatorType(db *model.Database, contract string) string {
	for _, k := range db.Contracts {
		if k.Name != contract {
			continue
		}
		for _, m := range k.Messages {
			if m.SentBy == model.SentByInitiator || m.SentBy == model.SentByAny {
				return m.MessageType
			}
		}
	}
	return ""
}

// replies sets the workload's replies and life cycle from what the target's procedure
// does with the request, when that is a reply and an END CONVERSATION or less.
func (b *builder) replies(w *scenarios.Workload, t service, wpath string) {
	var a *activated
	for _, x := range b.activated {
		if x.ref.instance == t.instance && x.ref.database == t.database && x.ref.queue == t.Queue {
			a = x
		}
	}
	if a == nil || !a.prog.recognised {
		b.d.comment(wpath, "The target's program is not read from a procedure: the initiator ends after its last message.")
		return
	}
	key := w.MessageType
	stmts, ok := a.prog.handlers[key]
	if !ok {
		key = ""
		stmts = a.prog.handlers[key]
	}
	if by := b.calledBy[t.Name]; by != "" {
		b.d.comment(wpath, "%s's handler stays a handler: the procedure %s begins dialogs to %s too, and its replies to those are the handler's.", a.prog.proc.Name, by, t.Name)
		b.replyOf(w, t, stmts)
		return
	}
	typ, ends, ok := reply(stmts)
	if !ok {
		b.d.comment(wpath, "%s's handler of %s is more than a reply and an END CONVERSATION: it stays a handler (procedures).", a.prog.proc.Name, orDefault(w.MessageType))
		b.replyOf(w, t, stmts)
		return
	}
	if a.folded == nil {
		a.folded = map[string]bool{}
	}
	a.folded[key] = true
	switch {
	case typ != "" && ends:
		w.Replies, w.ReplyType, w.End = true, typ, scenarios.EndTargetAfterReply
		w.ReplySize = w.Size
		b.d.comment(wpath, "%s answers with %s and ends the conversation: replies, end: target-after-reply.", a.prog.proc.Name, typ)
	case typ != "":
		w.Replies, w.ReplyType = true, typ
		w.ReplySize = w.Size
		b.d.comment(wpath, "%s answers with %s: replies; the initiator ends once it has the reply.", a.prog.proc.Name, typ)
	case ends:
		w.End = scenarios.EndTarget
		b.d.comment(wpath, "%s ends the conversation once it has the message: end: target.", a.prog.proc.Name)
	default:
		b.d.comment(wpath, "%s neither answers nor ends: the initiator ends after its last message.", a.prog.proc.Name)
	}
	if w.ReplyType == "DEFAULT" {
		w.ReplyType = ""
	}
}

// replyOf makes a workload wait for the reply a handler it keeps sends: the first SEND of
// a type the target may send on the workload's contract.
func (b *builder) replyOf(w *scenarios.Workload, t service, stmts []scenarios.Statement) {
	for _, s := range stmts {
		if s.Kind == scenarios.StatementSend && s.Target == scenarios.TargetReceived && mayTargetSend(t.db, w.Contract, s.MessageType) {
			w.Replies, w.ReplyType, w.ReplySize = true, s.MessageType, w.Size
			if w.ReplyType == "DEFAULT" {
				w.ReplyType = ""
			}
			return
		}
	}
}

// mayTargetSend reports whether a contract lets the target send a message type.
func mayTargetSend(db *model.Database, contract, messageType string) bool {
	if contract == "" || contract == "DEFAULT" {
		return messageType == "DEFAULT" || messageType == ""
	}
	for _, k := range db.Contracts {
		if k.Name != contract {
			continue
		}
		for _, m := range k.Messages {
			if m.MessageType == messageType && (m.SentBy == model.SentByTarget || m.SentBy == model.SentByAny) {
				return true
			}
		}
	}
	return false
}

// programTargets are the services that some activation procedure begins dialogs to, with
// the procedure's name.
func (b *builder) programTargets() map[string]string {
	out := map[string]string{}
	for _, a := range b.activated {
		for _, cond := range a.prog.order { // in order, never the map's: the first procedure names it
			for _, s := range a.prog.handlers[cond] {
				if s.Kind != scenarios.StatementBeginDialog {
					continue
				}
				for _, to := range s.ToServices {
					if out[to] == "" {
						out[to] = a.prog.proc.Name
					}
				}
			}
		}
	}
	return out
}

func orDefault(s string) string {
	if s == "" {
		return "DEFAULT"
	}
	return s
}

// procedures writes each activation procedure as a program, once per name, with what the
// reading understood and what not.
func (b *builder) procedures() {
	done := map[string]bool{}
	for _, a := range b.activated {
		p := a.prog.proc
		if done[p.Name] {
			continue
		}
		done[p.Name] = true
		ppath := fmt.Sprintf("procedures[%d]", len(b.cfg.Procedures))
		if a.src != nil {
			b.places[ppath] = filePlace(a.src.stmt.Pos)
		}
		if !a.prog.recognised {
			b.d.comment(ppath, "A reference program (G-7: RECEIVE TOP(1), TIMEOUT 5 s), not the procedure's own: %s.", strings.Join(a.prog.why, "; "))
			b.cfg.Procedures = append(b.cfg.Procedures, p)
			continue
		}
		b.d.comment(ppath, "Read from procedure %s (%s).", p.Name, a.src.stmt.Pos)
		for _, u := range a.prog.understood {
			b.d.comment(ppath, "%s.", u)
		}
		for _, w := range a.prog.why {
			b.d.comment(ppath, "Not understood: %s.", w)
		}
		if p.ProcessingTime.Kind == 0 && p.ProcessingTime.Mean == 0 {
			b.d.comment(ppath, "EDIT: processing_time, how long the procedure's work takes per message.")
		}
		for _, cond := range a.prog.order {
			stmts := a.prog.handlers[cond]
			switch {
			case (cond == "EndDialog" || cond == "Error") && len(stmts) == 1 && stmts[0].Kind == scenarios.StatementEnd && stmts[0].ErrorCode == 0:
				continue // the default: END CONVERSATION (DLG-6)
			case a.folded[cond]:
				continue // the workload's replies and life cycle
			case cond == "":
				b.d.comment(ppath, "Statements under no message type comparison: %s; a handler needs a message type, edit them in.", kinds(stmts))
				continue
			}
			p.On = append(p.On, scenarios.Handler{MessageType: cond, Do: stmts})
		}
		b.cfg.Procedures = append(b.cfg.Procedures, p)
	}
	for i := range b.cfg.Instances {
		for j := range b.cfg.Instances[i].Databases {
			db := &b.cfg.Instances[i].Databases[j]
			for _, n := range db.EventNotifications {
				b.externalActivator(db, n)
			}
		}
	}
}

func kinds(stmts []scenarios.Statement) string {
	var out []string
	for _, s := range stmts {
		out = append(out, s.Kind.String())
	}
	return strings.Join(out, ", ")
}

// externalActivator adds an external activation application for an event notification
// FOR QUEUE_ACTIVATION: it reads the notifications on the notification service's queue and
// runs a reference program on the notified queue.
func (b *builder) externalActivator(db *model.Database, n model.EventNotification) {
	queue := ""
	for _, s := range db.Services {
		if s.Name == n.Service {
			queue = s.Queue
		}
	}
	if queue == "" {
		return // Compile names the missing service
	}
	name := "external reader of " + n.Queue
	path := fmt.Sprintf("external_activators[%d]", len(b.cfg.ExternalActivators))
	b.d.comment(path, "EDIT: the external activator that event notification %s implies: the scripts do not say what it runs (a reference program, %s).", n.Name, name)
	b.cfg.ExternalActivators = append(b.cfg.ExternalActivators, scenarios.ExternalActivator{Queue: queue, Target: n.Queue, Procedure: name, MaxReaders: 1})
	b.cfg.Procedures = append(b.cfg.Procedures, scenarios.Procedure{Name: name, Top: 1, WaitFor: scenarios.DefaultProcedureWaitFor})
}

// readers adds a reader program on each queue that a workload's dialogs fill and nothing
// reads: no activation, no event notification. Lint sees the design without them.
func (b *builder) readers() {
	read := map[string]bool{}
	for _, in := range b.cfg.Instances {
		for _, db := range in.Databases {
			for _, q := range db.Queues {
				if q.Activation.Status && q.Activation.Procedure != "" {
					read[in.Name+"/"+db.Name+"/"+q.Name] = true
				}
			}
			for _, n := range db.EventNotifications {
				read[in.Name+"/"+db.Name+"/"+n.Queue] = true
			}
			for _, s := range db.Services {
				if len(s.Contracts) == 1 && s.Contracts[0] == PostEventNotification {
					read[in.Name+"/"+db.Name+"/"+s.Queue] = true
				}
			}
		}
	}
	all := b.services()
	for _, w := range b.cfg.Workloads {
		to := w.To
		if w.ToBrokerInstance != "" {
			to = w.ToBrokerInstance + "/" + w.To
		}
		for _, name := range []string{to, w.From} {
			for _, s := range all {
				ref := s.instance + "/" + s.database + "/" + s.Queue
				if qualified(all, s) != name || read[ref] {
					continue
				}
				read[ref] = true
				q := s.Queue
				if b.queueCount(s.Queue) > 1 {
					q = ref
				}
				path := fmt.Sprintf("readers[%d]", len(b.cfg.Readers))
				b.d.comment(path, "EDIT: nothing in the scripts reads %s (no activation, no event notification): an application's reader, assumed here.", ref)
				b.cfg.Readers = append(b.cfg.Readers, scenarios.Reader{Queue: q, Top: 1, WaitFor: scenarios.DefaultProcedureWaitFor})
				b.invented = append(b.invented, len(b.cfg.Readers)-1)
			}
		}
	}
}

func (b *builder) queueCount(name string) int {
	n := 0
	for _, in := range b.cfg.Instances {
		for _, db := range in.Databases {
			for _, q := range db.Queues {
				if q.Name == name {
					n++
				}
			}
		}
	}
	return n
}

// links joins every two instances that a route joins (or every two, when no script
// declares a route and the catalog routes between every instance, RTE-1), with the
// skeleton's LAN.
func (b *builder) links() {
	joined := map[[2]string]bool{}
	explicit := false
	for _, in := range b.cfg.Instances {
		routes := in.Routes
		for _, db := range in.Databases {
			routes = append(routes, db.Routes...)
		}
		for _, r := range routes {
			explicit = true
			for _, to := range []string{r.Address, r.MirrorAddress} {
				if to == "" || to == model.RouteLocal || to == model.RouteTransport || to == in.Name {
					continue
				}
				joined[[2]string{min(in.Name, to), max(in.Name, to)}] = true
			}
		}
	}
	for i, a := range b.cfg.Instances {
		for _, c := range b.cfg.Instances[i+1:] {
			key := [2]string{min(a.Name, c.Name), max(a.Name, c.Name)}
			if !joined[key] && explicit {
				continue
			}
			path := fmt.Sprintf("links[%d]", len(b.cfg.Links))
			b.d.comment(path, "EDIT: %s, no loss, no limit on bandwidth: a LAN. A WAN has tens of milliseconds and some loss.", SkeletonLatency)
			l := scenarios.Link{A: a.Name, B: c.Name}
			l.AToB.LatencyFixed, l.BToA.LatencyFixed = SkeletonLatency, SkeletonLatency
			b.cfg.Links = append(b.cfg.Links, l)
		}
	}
}
