package tsql

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// Design is what the scripts make: a scenario with a workload skeleton, the notes of the
// import, and the comments the scenario file gets, by the file's path.
type Design struct {
	Scenario *file.Scenario
	Notes    []Note
	// Comments go above the values at their paths ("" for the head of the file).
	Comments map[string][]string
	// Sources are the scripts' names; Batches and Statements count what was read.
	Sources             []string
	Batches, Statements int
	// invented are the readers the skeleton assumed (by index); unreached the workloads it
	// left out for want of routes. LintView undoes both.
	invented    []int
	unreached   []scenarios.Workload
	unreachedAt []file.Place
}

func (d *Design) comment(path string, format string, args ...any) {
	d.Comments[path] = append(d.Comments[path], fmt.Sprintf(format, args...))
}

// builder turns what the reader read into a scenario.
type builder struct {
	r      *reader
	d      *Design
	cfg    *scenarios.Config
	places map[string]file.Place
	// activated are the queues' activation procedures as read; why says why each
	// workload's initiator was chosen; invented are the readers the scripts do not have.
	activated []*activated
	why       map[string]string
	invented  []int
	cat       *model.Catalog // compiled once the catalog is built, for the routes' reach
	// calledBy names, for each service an activation procedure begins dialogs to, the
	// first such procedure (programTargets, once the programs are read).
	calledBy map[string]string
	// unreached are the workloads the skeleton left out, no route reaching their target
	// and back: lint sees them (Design.LintView).
	unreached   []scenarios.Workload
	unreachedAt []file.Place
}

func filePlace(p Pos) file.Place { return file.Place{File: p.File, Line: p.Line, Column: p.Col} }

func (b *builder) place(path string, p place) {
	b.places[path] = filePlace(p.at)
	for k, at := range p.fields {
		b.places[path+"."+k] = filePlace(at)
	}
}

func (r *reader) design(srcs []Source) (*Design, error) {
	f := &file.Scenario{}
	d := &Design{Scenario: f, Comments: map[string][]string{}, Batches: r.batches, Statements: r.statements}
	for _, s := range srcs {
		d.Sources = append(d.Sources, s.Name)
	}
	b := &builder{r: r, d: d, cfg: &f.Config, places: map[string]file.Place{}}
	b.resolveRoutes()
	b.instances()
	b.programs()
	b.links()
	b.workloads()
	f.Places = b.places
	d.invented, d.unreached, d.unreachedAt = b.invented, b.unreached, b.unreachedAt
	name := "imported"
	if len(srcs) > 0 {
		base := srcs[0].Name
		base = base[strings.LastIndexAny(base, `/\`)+1:]
		name = strings.TrimSuffix(base, ".sql")
	}
	f.Config.Name = name
	f.Config.CheckInvariants = true
	f.Question = "What does the design in " + strings.Join(d.Sources, ", ") + " do under load? (edit: the question this scenario answers)"
	d.Notes = r.notes
	if err := b.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// resolveRoutes turns each route's address into an instance's name, LOCAL or TRANSPORT.
// An address that names no instance leaves the route out, with a warning.
func (b *builder) resolveRoutes() {
	for _, in := range b.r.instances {
		dbs := in.databases
		if in.msdb != nil {
			dbs = append(append([]*database(nil), dbs...), in.msdb)
		}
		for _, db := range dbs {
			for i := 0; i < len(db.routes.items); i++ {
				rt := &db.routes.items[i]
				at := db.routes.places[i]
				addr, ok := b.address(rt.address, at.fieldAt("address"))
				if ok && rt.mirror != "" {
					rt.MirrorAddress, ok = b.address(rt.mirror, at.fieldAt("mirror_address"))
				}
				if !ok {
					db.routes.drop(i)
					i--
					continue
				}
				rt.Address = addr
			}
		}
	}
}

func (p place) fieldAt(key string) Pos {
	if at, ok := p.fields[key]; ok {
		return at
	}
	return p.at
}

var localHosts = map[string]bool{"localhost": true, "127.0.0.1": true, ".": true, "(local)": true, "::1": true}

// address resolves a route's ADDRESS: LOCAL and TRANSPORT stay; TCP://host:port names the
// instance -map gives it, or the one instance whose name is the host (or its first label),
// or, when the host is this machine, the one whose endpoint listens on the port.
func (b *builder) address(addr string, at Pos) (string, bool) {
	switch up := strings.ToUpper(addr); up {
	case model.RouteLocal, model.RouteTransport:
		return up, true
	}
	if v, ok := lookupFold(b.r.opts.Map, addr); ok {
		return b.instanceNamed(v), true
	}
	u, err := url.Parse(addr)
	if err != nil || !strings.EqualFold(u.Scheme, "tcp") || u.Hostname() == "" {
		b.r.warn(at, file.LintRouteGoesNowhere, "write ADDRESS = 'LOCAL', 'TRANSPORT' or 'TCP://host:port'",
			"ADDRESS %q is not LOCAL, TRANSPORT or TCP://host:port: the route is left out", addr)
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	var found []*instance
	for _, in := range b.r.instances {
		if strings.EqualFold(in.name, host) {
			found = append(found, in) // the instance of that very name first
		}
	}
	if len(found) == 0 {
		first := func(s string) string {
			if f := strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '\\' || r == ',' }); len(f) > 0 {
				return f[0]
			}
			return s
		}
		ip := net.ParseIP(host) != nil // an address's labels are no names: 10.0.0.5 is not 10.0.0.4
		for _, in := range b.r.instances {
			name := strings.ToLower(in.name)
			if localHosts[host] || (!ip && net.ParseIP(name) == nil && first(name) == first(host)) {
				found = append(found, in)
			}
		}
	}
	if len(found) > 1 && port != "" {
		var byPort []*instance
		for _, in := range found {
			if in.endpoint != nil && strconv.FormatInt(in.endpoint.port, 10) == port {
				byPort = append(byPort, in)
			}
		}
		found = byPort
	}
	if len(found) == 1 {
		if !strings.EqualFold(found[0].name, addr) {
			b.r.note(at, Inferred, "ADDRESS %q is instance %s", addr, found[0].name)
		}
		return found[0].name, true
	}
	b.r.warn(at, file.LintRouteGoesNowhere, fmt.Sprintf("import the other side's script too, or map the address with -map %s=INSTANCE", addr),
		"ADDRESS %q is no instance of the scripts (instances: %s): the route is left out", addr, b.instanceList())
	return "", false
}

func (b *builder) instanceNamed(name string) string {
	for _, in := range b.r.instances {
		if strings.EqualFold(in.name, name) {
			return in.name
		}
	}
	b.r.instances = append(b.r.instances, &instance{name: name})
	return name
}

func (b *builder) instanceList() string {
	var names []string
	for _, in := range b.r.instances {
		names = append(names, in.name)
	}
	return strings.Join(names, ", ")
}

// kept reports whether a database goes into the scenario: it has an object, or is the
// instance's only one.
func (db *database) kept() bool {
	return len(db.messageTypes.items)+len(db.contracts.items)+len(db.queues.items)+len(db.services.items)+
		len(db.priorities.items)+len(db.notes.items)+len(db.routes.items) > 0 || db.honor || db.noAutoLocal
}

// instances writes the catalog, with the place of every object.
func (b *builder) instances() {
	b.inferBrokerInstances()
	for _, in := range b.r.instances {
		mi := model.Instance{Name: in.name}
		ipath := fmt.Sprintf("instances[%d]", len(b.cfg.Instances))
		for _, db := range in.databases {
			if !db.kept() {
				continue
			}
			dpath := fmt.Sprintf("%s.databases[%d]", ipath, len(mi.Databases))
			b.places[dpath] = filePlace(db.at)
			mdb := model.Database{Name: db.name, HonorBrokerPriority: db.honor, BrokerInstance: db.broker, NoAutoCreatedLocal: db.noAutoLocal}
			if db.noAutoLocal {
				b.places[dpath+".auto_created_local"] = filePlace(db.noAutoLocalAt)
			}
			if db.honor {
				b.places[dpath+".honor_broker_priority"] = filePlace(db.honorAt)
			}
			mdb.MessageTypes = db.messageTypes.items
			placeAll(b, dpath+".message_types", db.messageTypes)
			mdb.Contracts = db.contracts.items
			placeAll(b, dpath+".contracts", db.contracts)
			mdb.Queues = db.queues.items
			placeAll(b, dpath+".queues", db.queues)
			mdb.Services = db.services.items
			placeAll(b, dpath+".services", db.services)
			mdb.Priorities = db.priorities.items
			placeAll(b, dpath+".broker_priorities", db.priorities)
			mdb.EventNotifications = db.notes.items
			placeAll(b, dpath+".event_notifications", db.notes)
			for _, r := range db.routes.items {
				mdb.Routes = append(mdb.Routes, r.Route)
			}
			placeAll(b, dpath+".routes", db.routes)
			mi.Databases = append(mi.Databases, mdb)
		}
		if in.msdb != nil {
			for _, r := range in.msdb.routes.items {
				mi.Routes = append(mi.Routes, r.Route)
			}
			placeAll(b, ipath+".msdb_routes", in.msdb.routes)
			mi.NoAutoCreatedLocal = in.msdb.noAutoLocal
		}
		if e := in.endpoint; e != nil {
			mi.Forwarding.Enabled = e.forwarding
			if e.forwardSizeSet && e.forwarding {
				mi.Forwarding.MaxBytes = e.forwardSizeMB << 20
				b.places[ipath+".forwarding.max_size"] = filePlace(e.forwardSizeAt)
			}
			if e.forwarding {
				b.places[ipath+".forwarding"] = filePlace(e.forwardingAt)
			}
		}
		if len(mi.Databases) == 0 {
			name := "master"
			for _, db := range in.databases {
				if db.named {
					name = db.name
					break
				}
			}
			mi.Databases = []model.Database{{Name: name}}
			b.d.comment(ipath, "No script creates a Service Broker object in a database of %s: it has %s, empty.", in.name, name)
		}
		b.cfg.Instances = append(b.cfg.Instances, mi)
	}
}

func placeAll[T any](b *builder, path string, l list[T]) {
	for i, p := range l.places {
		b.place(fmt.Sprintf("%s[%d]", path, i), p)
	}
}

// inferBrokerInstances gives a database the BROKER_INSTANCE that a route to one of its
// services names, when no other database has that GUID: the script's author copied it
// from sys.databases.service_broker_guid, which the scripts cannot say.
func (b *builder) inferBrokerInstances() {
	for _, in := range b.r.instances {
		dbs := append([]*database(nil), in.databases...)
		if in.msdb != nil {
			dbs = append(dbs, in.msdb)
		}
		for _, db := range dbs {
			for i, rt := range db.routes.items {
				guid := rt.BrokerInstance
				if guid == "" || rt.ServiceName == "" || strings.Contains(guid, "/") {
					continue
				}
				target := b.databaseOf(rt.Address, rt.ServiceName)
				if target == nil {
					continue
				}
				switch {
				case target.broker == "":
					target.broker = guid
					b.r.note(db.routes.places[i].fieldAt("broker_instance"), Inferred,
						"BROKER_INSTANCE %s is database %s's on %s (route %s to service %s)", guid, target.name, rt.Address, rt.Name, rt.ServiceName)
				case !strings.EqualFold(target.broker, guid):
					b.r.warn(db.routes.places[i].fieldAt("broker_instance"), LintScriptWarning, "give every route to the database the same BROKER_INSTANCE, its sys.databases.service_broker_guid",
						"route %s names BROKER_INSTANCE %s, but another route gave database %s the broker instance %s: messages on this route reach no database", rt.Name, guid, target.name, target.broker)
				}
			}
		}
	}
}

// databaseOf returns the database of instance name that has the service, or nil.
func (b *builder) databaseOf(instanceName, service string) *database {
	for _, in := range b.r.instances {
		if in.name != instanceName {
			continue
		}
		for _, db := range in.databases {
			for _, s := range db.services.items {
				if s.Name == service { // a service name is compared byte for byte
					return db
				}
			}
		}
	}
	return nil
}

// compileObject finds the objects model.Compile's and Validate's errors name.
var compileObject = regexp.MustCompile(`(instance|database|message type|contract|queue|service|broker priority|event notification|route) "((?:[^"\\]|\\.)*)"`)

// check compiles the catalog and validates the scenario: an error the scripts make (a
// service on a queue no script creates) is reported at the statement that made it.
func (b *builder) check() error {
	var err error
	for {
		var cat *model.Catalog
		if cat, err = model.Compile(b.cfg.Instances); err == nil {
			err = b.cfg.Validate(cat)
		}
		if err == nil {
			return nil
		}
		// A program read from a procedure that does not validate (a statement after the
		// END of its conversation, a SEND the contract refuses) is the importer's reading,
		// not the scripts' mistake: its handlers go, and a comment says why.
		m := procedureError.FindStringSubmatch(err.Error())
		if m == nil {
			break
		}
		k, _ := strconv.Atoi(m[1])
		if k >= len(b.cfg.Procedures) || len(b.cfg.Procedures[k].On) == 0 {
			break
		}
		b.cfg.Procedures[k].On = nil
		b.d.comment(fmt.Sprintf("procedures[%d]", k), "Not understood: the handlers read from it do not make a valid program (%v): they are left out; write them by hand (docs/programs.md).", err)
	}
	at := b.blame(err.Error())
	return Errors{&Error{Pos: at, Msg: err.Error()}}
}

// procedureError finds the procedure a Config.Validate error names.
var procedureError = regexp.MustCompile(`^procedure (\d+) `)

// blame returns the place of the innermost object an error names, or of the procedure
// it is about.
func (b *builder) blame(msg string) Pos {
	var best Pos
	if m := procedureError.FindStringSubmatch(msg); m != nil {
		if p, ok := b.places["procedures["+m[1]+"]"]; ok {
			return posOf(p, best)
		}
	}
	kinds := map[string]string{"message type": "message_types", "contract": "contracts", "queue": "queues",
		"service": "services", "broker priority": "broker_priorities", "event notification": "event_notifications", "route": "routes"}
	for _, m := range compileObject.FindAllStringSubmatch(msg, -1) {
		name, _ := strconv.Unquote(`"` + m[2] + `"`)
		for ii, in := range b.cfg.Instances {
			for di, db := range in.Databases {
				if m[1] == "database" {
					if db.Name == name {
						best = posOf(b.places[fmt.Sprintf("instances[%d].databases[%d]", ii, di)], best)
					}
					continue
				}
				names := map[string][]string{"message type": namesOf(db.MessageTypes, func(x model.MessageType) string { return x.Name }),
					"contract":           namesOf(db.Contracts, func(x model.Contract) string { return x.Name }),
					"queue":              namesOf(db.Queues, func(x model.Queue) string { return x.Name }),
					"service":            namesOf(db.Services, func(x model.Service) string { return x.Name }),
					"broker priority":    namesOf(db.Priorities, func(x model.BrokerPriority) string { return x.Name }),
					"event notification": namesOf(db.EventNotifications, func(x model.EventNotification) string { return x.Name }),
					"route":              namesOf(db.Routes, func(x model.Route) string { return x.Name })}[m[1]]
				for k, n := range names {
					if n == name {
						best = posOf(b.places[fmt.Sprintf("instances[%d].databases[%d].%s[%d]", ii, di, kinds[m[1]], k)], best)
					}
				}
			}
		}
	}
	return best
}

// namesOf returns the names of a database's objects of one kind.
func namesOf[T any](items []T, name func(T) string) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = name(x)
	}
	return out
}

func posOf(p file.Place, def Pos) Pos {
	if p.File == "" {
		return def
	}
	return Pos{File: p.File, Line: p.Line, Col: p.Column}
}

// YAML writes the design as a commented scenario file: at its head the scripts it came
// from and every note but control flow, each at its file:line:col; above each value what
// the import inferred about it, and EDIT where the scripts say nothing.
func (d *Design) YAML() ([]byte, error) {
	comments := map[string][]string{}
	for k, v := range d.Comments {
		comments[k] = v
	}
	head := []string{"Imported by `simulate import` from " + strings.Join(d.Sources, ", ") +
		fmt.Sprintf(" (%d batches, %d statements).", d.Batches, d.Statements),
		"The catalog is the scripts'. Lines marked EDIT are a skeleton the scripts cannot give: the workload, links, timings. docs/import.md says how each statement is read."}
	flow := 0
	for _, kind := range []NoteKind{Warning, NotModelled, Inferred} {
		first := true
		for _, n := range d.Notes {
			if n.Kind != kind {
				continue
			}
			if first {
				head = append(head, "", strings.ToUpper(kind.String()[:1])+kind.String()[1:]+":")
				first = false
			}
			head = append(head, "  "+n.Pos.String()+": "+n.Message)
		}
	}
	for _, n := range d.Notes {
		if n.Kind == ControlFlow {
			flow++
		}
	}
	if flow > 0 {
		head = append(head, "", fmt.Sprintf("%d control-flow statements (IF guards, BEGIN ... END, PRINT, SET) were read through: the DDL inside them is read as if it ran.", flow))
	}
	comments[""] = append(head, comments[""]...)
	out, err := d.Scenario.MarshalCommented(comments)
	if err != nil {
		return nil, err
	}
	if _, err := file.Load(d.Scenario.Config.Name+".yaml", out); err != nil {
		return nil, fmt.Errorf("the imported scenario does not load (an importer's mistake: please report it): %w", err)
	}
	return out, nil
}

// Report writes what the import did, for the terminal: the counts, then every note but
// control flow.
func (d *Design) Report() string {
	var b strings.Builder
	cfg := &d.Scenario.Config
	objects := 0
	for _, in := range cfg.Instances {
		for _, db := range in.Databases {
			objects += len(db.MessageTypes) + len(db.Contracts) + len(db.Queues) + len(db.Services) + len(db.Priorities) + len(db.EventNotifications) + len(db.Routes)
		}
		objects += len(in.Routes)
	}
	fmt.Fprintf(&b, "read %d scripts, %d batches, %d statements: %d instances, %d catalog objects, %d procedures, %d workloads (a skeleton)\n",
		len(d.Sources), d.Batches, d.Statements, len(cfg.Instances), objects, len(cfg.Procedures), len(cfg.Workloads))
	flow := 0
	for _, n := range d.Notes {
		if n.Kind == ControlFlow {
			flow++
			continue
		}
		fmt.Fprintln(&b, n)
	}
	if flow > 0 {
		fmt.Fprintf(&b, "%d control-flow statements read through\n", flow)
	}
	return b.String()
}
