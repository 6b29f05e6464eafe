package tsql

import (
	"strings"

	"github.com/sbsim/sbsim/model"
)

// exec interprets one statement on the reader's current instance and database.
func (r *reader) exec(s Statement, b Batch) error {
	switch s.Verb {
	case "USE":
		if s.Name == "" {
			return errorAt(s.Pos, "USE: want a database name")
		}
		r.use = s.Name
		_, db := r.here(s, b)
		db.named = true
		return nil
	case "CREATE", "ALTER", "DROP":
	default:
		r.skip(s)
		return nil
	}
	c := newCursor(s)
	c.next() // the verb
	c.accept("OR", "ALTER")
	for range strings.Fields(s.Object) {
		c.next()
	}
	c.accept("IF", "EXISTS")
	key := s.Verb + " " + s.Object
	switch s.Object {
	case "MESSAGE TYPE":
		return r.messageType(c, s, b)
	case "CONTRACT":
		if s.Verb == "ALTER" {
			return errorAt(s.Pos, "ALTER CONTRACT: T-SQL has no such statement (drop the contract and create it again)")
		}
		return r.contract(c, s, b)
	case "QUEUE":
		return r.queue(c, s, b)
	case "SERVICE":
		return r.service(c, s, b)
	case "ROUTE":
		return r.route(c, s, b)
	case "BROKER PRIORITY":
		return r.priority(c, s, b)
	case "EVENT NOTIFICATION":
		return r.eventNotification(c, s, b)
	case "ENDPOINT":
		return r.endpoint(c, s, b)
	case "DATABASE":
		return r.alterDatabase(c, s, b)
	case "PROCEDURE", "PROC":
		return r.procedure(c, s, b)
	}
	if s.Object == "" {
		key = s.Verb + " " + c.rest() // CREATE XML SCHEMA COLLECTION ...: what it creates
		if len(key) > 60 {
			key = key[:60] + "..."
		}
	}
	r.note(s.Pos, NotModelled, "%s%s (%s)", key, nameSuffix(s.Name), unmodelledWhy(s.Object))
	return nil
}

func nameSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " " + name
}

// unmodelledWhy says why a kind of object has no place in a scenario.
func unmodelledWhy(object string) string {
	switch object {
	case "CERTIFICATE", "USER", "LOGIN", "MASTER KEY", "ROLE", "REMOTE SERVICE BINDING", "SCHEMA":
		return "security: the simulated brokers trust each other"
	case "TABLE", "VIEW", "INDEX", "FUNCTION", "TRIGGER":
		return "data: programs' work is their processing time"
	}
	return "not a Service Broker object"
}

// alterFix is the fix of an ALTER of an object no script creates.
const alterFix = "import the script that creates it too, before this one (scripts are read in the order given)"

// skip records a statement that is not DDL: control flow around the DDL (IF EXISTS
// guards, BEGIN ... END, PRINT, SET NOCOUNT ON) is kept apart from the rest.
func (r *reader) skip(s Statement) {
	if r.appDialog(s) {
		return
	}
	c := newCursor(s)
	c.next()
	if (s.Verb == "BEGIN" || s.Verb == "END") && (c.is("CONVERSATION") || c.is("DIALOG")) {
		r.note(s.Pos, NotModelled, "%s %s: an application's statement: the workload skeleton stands for the applications", s.Verb, strings.ToUpper(c.peek().Value))
		return
	}
	switch s.Verb {
	case "IF", "BEGIN", "END", "PRINT", "SET", "DECLARE", "SELECT", "RAISERROR", "THROW", "RETURN", "WHILE":
		r.note(s.Pos, ControlFlow, "%s: control flow, not modelled: the DDL it guards is read as if it ran", s.Verb)
	case "GRANT", "DENY", "REVOKE":
		r.note(s.Pos, NotModelled, "%s (security: the simulated brokers trust each other)", s.Verb)
	case "":
		r.note(s.Pos, NotModelled, "%q: not a statement the importer knows", s.Tokens[0].Value)
	default:
		r.note(s.Pos, NotModelled, "%s (run-time work: a scenario's workloads and programs do it)", s.Verb)
	}
}

// here returns the instance and database the statement runs on.
func (r *reader) here(s Statement, b Batch) (*instance, *database) {
	dbName := r.use
	if dbName == "" {
		dbName = r.opts.Database
	}
	in := r.instanceFor(dbName, b)
	return in, in.database(dbName, s.Pos)
}

func (r *reader) messageType(c *cursor, s Statement, b Batch) error {
	name, at, err := c.objectName("a message type name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	i := db.messageTypes.find(name)
	switch s.Verb {
	case "CREATE":
		if i >= 0 {
			return errorAt(at, "CREATE MESSAGE TYPE: %q already exists (%s)", name, db.messageTypes.places[i].at)
		}
		db.messageTypes.add(model.MessageType{Name: name}, s.Pos)
	case "ALTER":
		if i < 0 {
			r.warn(s.Pos, LintScriptWarning, alterFix, "ALTER MESSAGE TYPE %s: no such message type in the scripts; ignored", name)
		}
	case "DROP":
		if i >= 0 {
			db.messageTypes.drop(i)
		}
		return nil
	}
	if c.accept("AUTHORIZATION") {
		if _, _, err := c.name("an owner"); err != nil {
			return err
		}
		r.note(c.toks[c.i-1].Pos, NotModelled, "%s AUTHORIZATION (security: the simulated brokers trust each other)", s.Object)
	}
	if at := c.pos(); c.accept("VALIDATION") {
		if err := c.expectPunct("="); err != nil {
			return err
		}
		switch {
		case c.accept("NONE"), c.accept("EMPTY"), c.accept("WELL_FORMED_XML"):
		case c.accept("VALID_XML"):
			if err := c.expect("WITH", "SCHEMA", "COLLECTION"); err != nil {
				return err
			}
			if _, _, err := c.name("a schema collection"); err != nil {
				return err
			}
		default:
			return c.errorf("VALIDATION: want NONE, EMPTY, WELL_FORMED_XML or VALID_XML WITH SCHEMA COLLECTION, found %s", c.what())
		}
		r.note(at, NotModelled, "MESSAGE TYPE %s VALIDATION (a body is a size here: nothing is validated)", name)
	}
	return c.end()
}

// end reports tokens left after a statement's last clause.
func (c *cursor) end() error {
	if !c.done() {
		return c.errorf("unexpected %s", c.what())
	}
	return nil
}

func (r *reader) contract(c *cursor, s Statement, b Batch) error {
	name, at, err := c.objectName("a contract name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	i := db.contracts.find(name)
	if s.Verb == "DROP" {
		if i >= 0 {
			db.contracts.drop(i)
		}
		return c.end()
	}
	if i >= 0 {
		return errorAt(at, "CREATE CONTRACT: %q already exists (%s)", name, db.contracts.places[i].at)
	}
	if c.accept("AUTHORIZATION") {
		if _, _, err := c.name("an owner"); err != nil {
			return err
		}
		r.note(c.toks[c.i-1].Pos, NotModelled, "%s AUTHORIZATION (security: the simulated brokers trust each other)", s.Object)
	}
	if err := c.expectPunct("("); err != nil {
		return err
	}
	var k model.Contract
	k.Name = name
	for {
		mt, _, err := c.objectName("a message type name")
		if err != nil {
			return err
		}
		if err := c.expect("SENT", "BY"); err != nil {
			return err
		}
		var by model.SentBy
		switch {
		case c.accept("INITIATOR"):
			by = model.SentByInitiator
		case c.accept("TARGET"):
			by = model.SentByTarget
		case c.accept("ANY"):
			by = model.SentByAny
		default:
			return c.errorf("SENT BY: want INITIATOR, TARGET or ANY, found %s", c.what())
		}
		k.Messages = append(k.Messages, model.ContractMessage{MessageType: mt, SentBy: by})
		if !c.acceptPunct(",") {
			break
		}
	}
	if err := c.expectPunct(")"); err != nil {
		return err
	}
	db.contracts.add(k, s.Pos)
	return c.end()
}

func (r *reader) queue(c *cursor, s Statement, b Batch) error {
	parts, at, err := c.name("a queue name")
	if err != nil {
		return err
	}
	name := parts[len(parts)-1]
	_, db := r.here(s, b)
	if len(parts) == 3 { // [Db].[dbo].[Queue]: the database it names
		db = r.instanceFor(parts[0], b).database(parts[0], s.Pos)
	}
	i := db.queues.find(name)
	var q *model.Queue
	var p *place
	switch s.Verb {
	case "DROP":
		if i >= 0 {
			db.queues.drop(i)
		}
		return c.end()
	case "CREATE":
		if i >= 0 {
			return errorAt(at, "CREATE QUEUE: %q already exists (%s)", name, db.queues.places[i].at)
		}
		q = db.queues.add(model.Queue{Name: name}, s.Pos)
		p = &db.queues.places[len(db.queues.places)-1]
	case "ALTER":
		if i < 0 {
			r.warn(s.Pos, LintScriptWarning, alterFix, "ALTER QUEUE %s: no such queue in the scripts; ignored", name)
			return nil
		}
		q, p = &db.queues.items[i], &db.queues.places[i]
		if c.accept("REBUILD") || c.accept("REORGANIZE") || c.accept("MOVE") {
			r.note(s.Pos, NotModelled, "ALTER QUEUE %s %s (storage)", name, c.toks[c.i-1].Value)
			return nil
		}
	}
	if c.accept("WITH") {
		for {
			if err := r.queueOption(c, q, p, s.Verb == "CREATE"); err != nil {
				return err
			}
			if !c.acceptPunct(",") {
				break
			}
		}
	}
	if c.accept("ON") {
		fg := c.pos()
		if !c.accept("DEFAULT") {
			if _, _, err := c.name("a filegroup"); err != nil {
				return err
			}
		}
		r.note(fg, NotModelled, "QUEUE %s ON filegroup (storage)", name)
	}
	return c.end()
}

func (r *reader) queueOption(c *cursor, q *model.Queue, p *place, create bool) error {
	at := c.pos()
	switch {
	case c.accept("STATUS"):
		if err := c.expectPunct("="); err != nil {
			return err
		}
		on, _, err := c.onOff("STATUS")
		if err != nil {
			return err
		}
		q.Status = model.QueueOn
		if !on {
			q.Status = model.QueueOff
		}
		p.set("status", at)
	case c.accept("RETENTION"):
		if err := c.expectPunct("="); err != nil {
			return err
		}
		on, _, err := c.onOff("RETENTION")
		if err != nil {
			return err
		}
		q.Retention = on
		p.set("retention", at)
	case c.accept("POISON_MESSAGE_HANDLING"):
		if err := c.expectPunct("("); err != nil {
			return err
		}
		if err := c.expect("STATUS"); err != nil {
			return err
		}
		if err := c.expectPunct("="); err != nil {
			return err
		}
		on, _, err := c.onOff("POISON_MESSAGE_HANDLING STATUS")
		if err != nil {
			return err
		}
		q.PoisonMessageHandlingOff = !on
		p.set("poison_message_handling", at)
		return c.expectPunct(")")
	case c.accept("ACTIVATION"):
		p.set("activation", at)
		return r.activation(c, q, p, create)
	default:
		return c.errorf("want STATUS, RETENTION, ACTIVATION or POISON_MESSAGE_HANDLING, found %s", c.what())
	}
	return nil
}

// activation reads ACTIVATION ( ... ): in CREATE QUEUE its STATUS is ON unless it says
// OFF; in ALTER QUEUE what it leaves out stays as it was, and DROP removes it.
func (r *reader) activation(c *cursor, q *model.Queue, p *place, create bool) error {
	if err := c.expectPunct("("); err != nil {
		return err
	}
	if c.accept("DROP") {
		q.Activation = model.Activation{}
		return c.expectPunct(")")
	}
	a := q.Activation
	if create || a.Procedure == "" {
		a.Status = true
	}
	for {
		at := c.pos()
		switch {
		case c.accept("STATUS"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			on, _, err := c.onOff("ACTIVATION STATUS")
			if err != nil {
				return err
			}
			a.Status = on
			p.set("activation.status", at)
		case c.accept("PROCEDURE_NAME"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			name, _, err := c.lastName("a procedure name")
			if err != nil {
				return err
			}
			a.Procedure = name
			p.set("activation.procedure_name", at)
		case c.accept("MAX_QUEUE_READERS"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			n, _, err := c.integer("MAX_QUEUE_READERS")
			if err != nil {
				return err
			}
			if n < 0 || n > 32767 {
				return errorAt(at, "MAX_QUEUE_READERS %d is outside 0..32767", n)
			}
			a.MaxQueueReaders = int(n)
			p.set("activation.max_queue_readers", at)
		case c.accept("EXECUTE", "AS"):
			if !c.accept("SELF") && !c.accept("OWNER") {
				if _, _, err := c.stringValue("SELF, OWNER or a user name"); err != nil {
					return err
				}
			}
			r.note(at, NotModelled, "ACTIVATION EXECUTE AS (security)")
		default:
			return c.errorf("ACTIVATION: want STATUS, PROCEDURE_NAME, MAX_QUEUE_READERS, EXECUTE AS or DROP, found %s", c.what())
		}
		if !c.acceptPunct(",") {
			break
		}
	}
	q.Activation = a
	return c.expectPunct(")")
}

func (r *reader) service(c *cursor, s Statement, b Batch) error {
	name, at, err := c.objectName("a service name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	i := db.services.find(name)
	var svc *model.Service
	var p *place
	switch s.Verb {
	case "DROP":
		if i >= 0 {
			db.services.drop(i)
		}
		return c.end()
	case "CREATE":
		if i >= 0 {
			return errorAt(at, "CREATE SERVICE: %q already exists (%s)", name, db.services.places[i].at)
		}
		svc = db.services.add(model.Service{Name: name}, s.Pos)
		p = &db.services.places[len(db.services.places)-1]
		if c.accept("AUTHORIZATION") {
			if _, _, err := c.name("an owner"); err != nil {
				return err
			}
			r.note(c.toks[c.i-1].Pos, NotModelled, "%s AUTHORIZATION (security: the simulated brokers trust each other)", s.Object)
		}
		if err := c.expect("ON", "QUEUE"); err != nil {
			return err
		}
	case "ALTER":
		if i < 0 {
			r.warn(s.Pos, LintScriptWarning, alterFix, "ALTER SERVICE %s: no such service in the scripts; ignored", name)
			return nil
		}
		svc, p = &db.services.items[i], &db.services.places[i]
	}
	if s.Verb == "CREATE" || c.accept("ON", "QUEUE") {
		qat := c.pos()
		q, _, err := c.lastName("a queue name")
		if err != nil {
			return err
		}
		svc.Queue = q
		p.set("queue", qat)
	}
	if !c.acceptPunct("(") {
		return c.end()
	}
	for {
		at := c.pos()
		switch {
		case s.Verb == "CREATE":
			k, _, err := c.objectName("a contract name")
			if err != nil {
				return err
			}
			svc.Contracts = append(svc.Contracts, k)
		case c.accept("ADD", "CONTRACT"):
			k, _, err := c.objectName("a contract name")
			if err != nil {
				return err
			}
			svc.Contracts = append(svc.Contracts, k)
		case c.accept("DROP", "CONTRACT"):
			k, kat, err := c.objectName("a contract name")
			if err != nil {
				return err
			}
			j := indexFold(svc.Contracts, k)
			if j < 0 {
				return errorAt(kat, "ALTER SERVICE %s: DROP CONTRACT %s: the service has no such contract", name, k)
			}
			svc.Contracts = append(svc.Contracts[:j], svc.Contracts[j+1:]...)
		default:
			return c.errorf("want ADD CONTRACT or DROP CONTRACT, found %s", c.what())
		}
		p.set("contracts", at)
		if !c.acceptPunct(",") {
			break
		}
	}
	if err := c.expectPunct(")"); err != nil {
		return err
	}
	return c.end()
}

func indexFold(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	for i, v := range list {
		if strings.EqualFold(v, s) {
			return i
		}
	}
	return -1
}

func (r *reader) route(c *cursor, s Statement, b Batch) error {
	name, at, err := c.objectName("a route name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	i := db.routes.find(name)
	var rt *rawRoute
	var p *place
	switch s.Verb {
	case "DROP":
		if i >= 0 {
			db.routes.drop(i)
		} else if name == model.AutoCreatedLocal {
			db.noAutoLocal, db.noAutoLocalAt = true, s.Pos
		}
		return c.end()
	case "CREATE":
		if i >= 0 {
			return errorAt(at, "CREATE ROUTE: %q already exists (%s)", name, db.routes.places[i].at)
		}
		if name == model.AutoCreatedLocal && !db.noAutoLocal {
			return errorAt(at, "CREATE ROUTE: %q already exists (every database has it until DROP ROUTE AutoCreatedLocal)", name)
		}
		rt = db.routes.add(rawRoute{Route: model.Route{Name: name}}, s.Pos)
		p = &db.routes.places[len(db.routes.places)-1]
		if c.accept("AUTHORIZATION") {
			if _, _, err := c.name("an owner"); err != nil {
				return err
			}
			r.note(c.toks[c.i-1].Pos, NotModelled, "%s AUTHORIZATION (security: the simulated brokers trust each other)", s.Object)
		}
	case "ALTER":
		if i < 0 {
			r.warn(s.Pos, LintScriptWarning, alterFix, "ALTER ROUTE %s: no such route in the scripts; ignored", name)
			return nil
		}
		rt, p = &db.routes.items[i], &db.routes.places[i]
	}
	if err := c.expect("WITH"); err != nil {
		return err
	}
	for {
		at := c.pos()
		switch {
		case c.accept("SERVICE_NAME"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			v, _, err := c.stringValue("a service name")
			if err != nil {
				return err
			}
			rt.ServiceName = v
			p.set("service_name", at)
		case c.accept("BROKER_INSTANCE"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			v, _, err := c.stringValue("a broker instance")
			if err != nil {
				return err
			}
			rt.BrokerInstance = v
			p.set("broker_instance", at)
		case c.accept("LIFETIME"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			n, _, err := c.integer("LIFETIME")
			if err != nil {
				return err
			}
			rt.Lifetime = seconds(n)
			p.set("lifetime", at)
		case c.accept("ADDRESS"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			v, _, err := c.stringValue("an address")
			if err != nil {
				return err
			}
			rt.address = v
			p.set("address", at)
		case c.accept("MIRROR_ADDRESS"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			v, _, err := c.stringValue("a mirror address")
			if err != nil {
				return err
			}
			rt.mirror = v
			p.set("mirror_address", at)
		default:
			return c.errorf("want SERVICE_NAME, BROKER_INSTANCE, LIFETIME, ADDRESS or MIRROR_ADDRESS, found %s", c.what())
		}
		if !c.acceptPunct(",") {
			break
		}
	}
	if rt.address == "" {
		return errorAt(s.Pos, "%s ROUTE %s: ADDRESS is required", s.Verb, name)
	}
	return c.end()
}

func (r *reader) priority(c *cursor, s Statement, b Batch) error {
	name, at, err := c.objectName("a broker priority name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	i := db.priorities.find(name)
	var bp *model.BrokerPriority
	var p *place
	switch s.Verb {
	case "DROP":
		if i >= 0 {
			db.priorities.drop(i)
		}
		return c.end()
	case "CREATE":
		if i >= 0 {
			return errorAt(at, "CREATE BROKER PRIORITY: %q already exists (%s)", name, db.priorities.places[i].at)
		}
		bp = db.priorities.add(model.BrokerPriority{Name: name}, s.Pos)
		p = &db.priorities.places[len(db.priorities.places)-1]
	case "ALTER":
		if i < 0 {
			r.warn(s.Pos, LintScriptWarning, alterFix, "ALTER BROKER PRIORITY %s: no such priority in the scripts; ignored", name)
			return nil
		}
		bp, p = &db.priorities.items[i], &db.priorities.places[i]
	}
	if err := c.expect("FOR", "CONVERSATION"); err != nil {
		return err
	}
	if !c.accept("SET") {
		return c.end()
	}
	if err := c.expectPunct("("); err != nil {
		return err
	}
	for {
		at := c.pos()
		var out *string
		var key string
		switch {
		case c.accept("CONTRACT_NAME"):
			out, key = &bp.Contract, "contract_name"
		case c.accept("LOCAL_SERVICE_NAME"):
			out, key = &bp.LocalService, "local_service_name"
		case c.accept("REMOTE_SERVICE_NAME"):
			out, key = &bp.RemoteService, "remote_service_name"
		case c.accept("PRIORITY_LEVEL"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			key = "priority_level"
			if c.accept("DEFAULT") {
				bp.Level = 0
				break
			}
			n, nat, err := c.integer("PRIORITY_LEVEL")
			if err != nil {
				return err
			}
			if n < 1 || n > 10 {
				return errorAt(nat, "PRIORITY_LEVEL %d is outside 1..10", n)
			}
			bp.Level = model.PriorityLevel(n)
		default:
			return c.errorf("want CONTRACT_NAME, LOCAL_SERVICE_NAME, REMOTE_SERVICE_NAME or PRIORITY_LEVEL, found %s", c.what())
		}
		if out != nil {
			if err := c.expectPunct("="); err != nil {
				return err
			}
			if c.accept("ANY") {
				*out = model.Any
			} else {
				v, _, err := c.stringValue("a name or ANY")
				if err != nil {
					return err
				}
				*out = v
			}
		}
		p.set(key, at)
		if !c.acceptPunct(",") {
			break
		}
	}
	if err := c.expectPunct(")"); err != nil {
		return err
	}
	return c.end()
}

func (r *reader) eventNotification(c *cursor, s Statement, b Batch) error {
	name, _, err := c.objectName("an event notification name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	i := db.notes.find(name)
	if s.Verb == "ALTER" {
		return errorAt(s.Pos, "ALTER EVENT NOTIFICATION: T-SQL has no such statement (drop it and create it again)")
	}
	if err := c.expect("ON"); err != nil {
		return err
	}
	if !c.accept("QUEUE") {
		r.note(s.Pos, NotModelled, "%s EVENT NOTIFICATION %s ON %s (only FOR QUEUE_ACTIVATION on a queue is)", s.Verb, name, c.rest())
		return nil
	}
	queue, _, err := c.lastName("a queue name")
	if err != nil {
		return err
	}
	if s.Verb == "DROP" {
		if i >= 0 {
			db.notes.drop(i)
		}
		return c.end()
	}
	if i >= 0 {
		return errorAt(s.Pos, "CREATE EVENT NOTIFICATION: %q already exists (%s)", name, db.notes.places[i].at)
	}
	c.accept("WITH", "FAN_IN")
	if err := c.expect("FOR"); err != nil {
		return err
	}
	if !c.accept("QUEUE_ACTIVATION") {
		r.note(s.Pos, NotModelled, "CREATE EVENT NOTIFICATION %s FOR %s (only QUEUE_ACTIVATION is)", name, c.what())
		return nil
	}
	if err := c.expect("TO", "SERVICE"); err != nil {
		return err
	}
	svc, _, err := c.stringValue("the notification's service name")
	if err != nil {
		return err
	}
	if err := c.expectPunct(","); err != nil {
		return err
	}
	broker, bat, err := c.stringValue("'current database' or a broker instance")
	if err != nil {
		return err
	}
	if !strings.EqualFold(broker, "current database") {
		r.note(bat, Inferred, "event notification %s: broker instance %q read as the service's own database", name, broker)
	}
	db.notes.add(model.EventNotification{Name: name, Queue: queue, Service: svc}, s.Pos)
	return c.end()
}

func (r *reader) endpoint(c *cursor, s Statement, b Batch) error {
	name, _, err := c.objectName("an endpoint name")
	if err != nil {
		return err
	}
	in, _ := r.here(s, b)
	if s.Verb == "DROP" {
		if in.endpoint != nil && strings.EqualFold(in.endpoint.name, name) {
			in.endpoint = nil
		}
		return c.end()
	}
	e := in.endpoint
	switch {
	case s.Verb == "CREATE" || e == nil:
		e = &endpoint{name: name, at: s.Pos}
	case !strings.EqualFold(e.name, name):
		r.warn(s.Pos, LintScriptWarning, "ALTER the endpoint the instance has, or DROP it first", "ALTER ENDPOINT %s: the instance's Service Broker endpoint is %s; ignored", name, e.name)
		return nil
	}
	broker := s.Verb == "ALTER" // ALTER ENDPOINT need not say FOR again
	for !c.done() {
		switch {
		case c.accept("FOR"):
			if !c.accept("SERVICE_BROKER") {
				r.note(s.Pos, NotModelled, "%s ENDPOINT %s FOR %s (only Service Broker endpoints are)", s.Verb, name, c.what())
				return nil
			}
			broker = true
			if c.punct("(") {
				if err := r.brokerEndpointOptions(c, e); err != nil {
					return err
				}
			}
		case c.accept("AS", "TCP"):
			if err := c.expectPunct("("); err != nil {
				return err
			}
			for !c.done() && !c.punct(")") {
				if c.is("LISTENER_IP") {
					r.note(c.pos(), NotModelled, "endpoint %s LISTENER_IP (the instance's name is its address here)", name)
				}
				if c.accept("LISTENER_PORT") {
					if err := c.expectPunct("="); err != nil {
						return err
					}
					n, _, err := c.integer("LISTENER_PORT")
					if err != nil {
						return err
					}
					e.port = n
					continue
				}
				c.next()
			}
			if err := c.expectPunct(")"); err != nil {
				return err
			}
		default:
			c.skipValue() // STATE = STARTED, AUTHORIZATION login, ...
		}
	}
	if broker {
		in.endpoint = e
	}
	return nil
}

func (r *reader) brokerEndpointOptions(c *cursor, e *endpoint) error {
	c.expectPunct("(")
	for !c.done() && !c.punct(")") {
		at, kw := c.pos(), strings.ToUpper(c.peek().Value)
		switch {
		case c.accept("MESSAGE_FORWARDING"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			switch {
			case c.accept("ENABLED"):
				e.forwarding = true
			case c.accept("DISABLED"):
				e.forwarding = false
			default:
				return c.errorf("MESSAGE_FORWARDING: want ENABLED or DISABLED, found %s", c.what())
			}
			e.forwardingAt = at
		case c.accept("MESSAGE_FORWARD_SIZE"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			n, _, err := c.integer("MESSAGE_FORWARD_SIZE")
			if err != nil {
				return err
			}
			if n < 1 {
				return errorAt(at, "MESSAGE_FORWARD_SIZE %d: want at least 1 (megabytes)", n)
			}
			e.forwardSizeMB, e.forwardSizeAt, e.forwardSizeSet = n, at, true
		case c.accept("AUTHENTICATION"), c.accept("ENCRYPTION"):
			if err := c.expectPunct("="); err != nil {
				return err
			}
			for !c.done() && !c.punct(",") && !c.punct(")") {
				c.next()
			}
			r.note(at, NotModelled, "endpoint %s %s (security)", e.name, kw)
		default:
			return c.errorf("FOR SERVICE_BROKER: want AUTHENTICATION, ENCRYPTION, MESSAGE_FORWARDING or MESSAGE_FORWARD_SIZE, found %s", c.what())
		}
		c.acceptPunct(",")
	}
	return c.expectPunct(")")
}

func (r *reader) alterDatabase(c *cursor, s Statement, b Batch) error {
	name, _, err := c.lastName("a database name")
	if err != nil {
		return err
	}
	if strings.EqualFold(name, "CURRENT") {
		name = r.use
		if name == "" {
			name = r.opts.Database
		}
	}
	in := r.instanceFor(name, b)
	db := in.database(name, s.Pos)
	switch s.Verb {
	case "CREATE":
		db.named = true
		return nil // its files, collation and options are not modelled
	case "DROP":
		for i, d := range in.databases {
			if d == db {
				in.databases = append(in.databases[:i], in.databases[i+1:]...)
			}
		}
		return nil
	}
	if !c.accept("SET") {
		r.note(s.Pos, NotModelled, "ALTER DATABASE %s %s", name, c.rest())
		return nil
	}
	for !c.done() {
		at := c.pos()
		switch {
		case c.accept("HONOR_BROKER_PRIORITY"):
			on, _, err := c.onOff("HONOR_BROKER_PRIORITY")
			if err != nil {
				return err
			}
			db.honor, db.honorAt = on, at
		case c.accept("ENABLE_BROKER"), c.accept("NEW_BROKER"), c.accept("ERROR_BROKER_CONVERSATIONS"):
			r.note(at, Inferred, "ALTER DATABASE %s SET %s: every simulated database's broker is enabled from the start", name, c.toks[c.i-1].Value)
		case c.accept("DISABLE_BROKER"):
			r.warn(at, LintScriptWarning, "a disabled broker delivers nothing: to try a database that stops receiving, set its queues' STATUS = OFF in the scenario's timeline",
				"ALTER DATABASE %s SET DISABLE_BROKER: not modelled; the simulated broker stays enabled", name)
		case c.accept("WITH"):
			for !c.done() && !c.punct(",") {
				c.next() // ROLLBACK IMMEDIATE, NO_WAIT
			}
		default:
			opt := c.next()
			for !c.done() && !c.punct(",") && !c.is("WITH") {
				c.next()
			}
			r.note(at, NotModelled, "ALTER DATABASE %s SET %s", name, opt.Value)
		}
		c.acceptPunct(",")
	}
	return nil
}

func (r *reader) procedure(c *cursor, s Statement, b Batch) error {
	name, _, err := c.lastName("a procedure name")
	if err != nil {
		return err
	}
	_, db := r.here(s, b)
	key := strings.ToLower(name)
	if s.Verb == "DROP" {
		delete(db.procedures, key)
		return nil
	}
	if _, ok := db.procedures[key]; !ok {
		db.procOrder = append(db.procOrder, key)
	}
	db.procedures[key] = &procSource{name: name, stmt: s}
	return nil
}

// dialog is an application's BEGIN DIALOG in a script, outside any procedure: the
// workload skeleton begins its dialogs the same way.
type dialog struct {
	from, to, contract, messageType string
	handle                          string
	pos                             Pos
	instance, database              string
}

// appDialog reads BEGIN DIALOG [CONVERSATION] @h FROM SERVICE s TO SERVICE 'x' [ON
// CONTRACT c], and the SEND ON CONVERSATION @h MESSAGE TYPE m after it.
func (r *reader) appDialog(s Statement) bool {
	c := newCursor(s)
	switch {
	case c.accept("BEGIN", "DIALOG"):
		c.accept("CONVERSATION")
		d := dialog{pos: s.Pos, handle: strings.ToLower(c.next().Value)}
		for !c.done() {
			switch {
			case c.accept("FROM", "SERVICE"):
				d.from, _, _ = c.objectName("a service")
			case c.accept("TO", "SERVICE"):
				d.to, _, _ = c.stringValue("a service")
			case c.accept("ON", "CONTRACT"):
				d.contract, _, _ = c.objectName("a contract")
			default:
				c.next()
			}
		}
		if d.from == "" || d.to == "" {
			return false
		}
		d.instance, d.database = r.use, r.use
		r.dialogs = append(r.dialogs, d)
		r.note(s.Pos, Inferred, "an application's BEGIN DIALOG from %s to %s: the workload skeleton begins its dialogs so", d.from, d.to)
		return true
	case c.accept("SEND", "ON", "CONVERSATION") && len(r.dialogs) > 0:
		h := strings.ToLower(c.next().Value)
		d := &r.dialogs[len(r.dialogs)-1]
		if d.handle != h || d.messageType != "" {
			return false
		}
		d.messageType = "DEFAULT"
		if c.accept("MESSAGE", "TYPE") {
			d.messageType, _, _ = c.objectName("a message type")
		}
		r.note(s.Pos, Inferred, "the application's SEND of %s: the workload skeleton's message type", d.messageType)
		return true
	}
	return false
}
