package file

import (
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
)

// workloads decodes the initiating applications: BEGIN DIALOG, SEND, END CONVERSATION.
func (d *decoder) workloads(top *mapping) []scenarios.Workload {
	var out []scenarios.Workload
	top.list("workloads", "workloads", func(_ int, n *yaml.Node, path string) {
		m := d.mapping(n, path, "workload")
		var w scenarios.Workload
		m.name("name", &w.Name)
		m.name("from_service", &w.From)
		m.name("to_service", &w.To)
		m.brokerInstance("to_broker_instance", &w.ToBrokerInstance, true)
		m.str("contract", &w.Contract)
		m.str("message_type", &w.MessageType)
		m.intField("dialogs", &w.Dialogs, 0, math.MaxInt32)
		m.duration("start", &w.Start)
		m.durationDistribution("interarrival", &w.Interarrival)
		m.intField("messages", &w.Messages, 0, math.MaxInt32)
		m.durationDistribution("message_gap", &w.MessageGap)
		if m.sizeDistribution("size", &w.Size) && (w.Size.Max > model.MaxMessageBytes || w.Size.Mean > model.MaxMessageBytes) {
			d.errorf(d.at(join(path, "size")), join(path, "size"), "messages above the %d-byte cap", model.MaxMessageBytes)
		}
		m.onOff("replies", &w.Replies)
		m.str("reply_type", &w.ReplyType)
		if m.sizeDistribution("reply_size", &w.ReplySize) && (w.ReplySize.Max > model.MaxMessageBytes || w.ReplySize.Mean > model.MaxMessageBytes) {
			d.errorf(d.at(join(path, "reply_size")), join(path, "reply_size"), "messages above the %d-byte cap", model.MaxMessageBytes)
		}
		m.duration("lifetime", &w.Lifetime)
		m.onOff("end_with_error", &w.EndWithError)
		m.intField("group_size", &w.GroupSize, 0, math.MaxInt32)
		m.lifeCycle(&w.End)
		w.Reuse = d.reuse(m, path)
		d.checkLifeCycle(w, path)
		m.done()
		out = append(out, w)
	})
	return out
}

var readerModes = map[string]scenarios.ReaderMode{"receive": scenarios.ReceiveLoop, "get-conversation-group": scenarios.GroupLoop,
	"get_conversation_group": scenarios.GroupLoop}

func (m *mapping) readerMode(out *scenarios.ReaderMode) {
	var s string
	if !m.str("mode", &s) {
		return
	}
	mode, ok := readerModes[strings.ToLower(s)]
	if !ok {
		m.d.errorf(m.d.at(join(m.path, "mode")), join(m.path, "mode"), "want receive or get-conversation-group, got %q", s)
	}
	*out = mode
}

// readers decodes the reader programs of the queues (TXN-4, QUE-4, QUE-5).
func (d *decoder) readers(top *mapping) []scenarios.Reader {
	var out []scenarios.Reader
	top.list("readers", "readers", func(_ int, n *yaml.Node, path string) {
		m := d.mapping(n, path, "reader")
		var r scenarios.Reader
		m.name("queue", &r.Queue)
		m.readerMode(&r.Mode)
		m.intField("top", &r.Top, 0, math.MaxInt32)
		m.intField("sessions", &r.Sessions, 0, scenarios.MaxSessions)
		m.duration("wait_for", &r.WaitFor)
		m.durationDistribution("processing_time", &r.ProcessingTime)
		m.probability("rollback_rate", &r.RollbackRate)
		m.duration("rollback_until", &r.RollbackUntil)
		m.probability("touch_rate", &r.TouchRate)
		m.duration("touch_timer", &r.TouchTimer)
		m.intField("commit_every", &r.CommitEvery, 0, math.MaxInt32)
		m.handlers(&r.On)
		m.done()
		out = append(out, r)
	})
	return out
}

// procedures decodes the activation procedures (ACT-9, G-7).
func (d *decoder) procedures(top *mapping) []scenarios.Procedure {
	var out []scenarios.Procedure
	top.list("procedures", "procedures", func(_ int, n *yaml.Node, path string) {
		m := d.mapping(n, path, "procedure")
		var p scenarios.Procedure
		m.name("name", &p.Name)
		m.readerMode(&p.Mode)
		m.intField("top", &p.Top, 0, math.MaxInt32)
		m.duration("wait_for", &p.WaitFor)
		m.durationDistribution("processing_time", &p.ProcessingTime)
		m.probability("rollback_rate", &p.RollbackRate)
		m.duration("rollback_until", &p.RollbackUntil)
		m.intField("commit_every", &p.CommitEvery, 0, math.MaxInt32)
		m.handlers(&p.On)
		m.done()
		out = append(out, p)
	})
	return out
}

// externalActivators decodes the external activation applications (ACT-11, ACT-12).
func (d *decoder) externalActivators(top *mapping) []scenarios.ExternalActivator {
	var out []scenarios.ExternalActivator
	top.list("external_activators", "external activators", func(_ int, n *yaml.Node, path string) {
		m := d.mapping(n, path, "external activator")
		var a scenarios.ExternalActivator
		m.name("queue", &a.Queue)
		m.name("target_queue", &a.Target)
		m.name("procedure", &a.Procedure)
		m.durationDistribution("startup_delay", &a.StartupDelay)
		if !m.intField("max_readers", &a.MaxReaders, 1, math.MaxInt32) && !m.has("max_readers") && m.present() {
			d.errorf(n, join(path, "max_readers"), "the external activator needs max_readers")
		}
		m.done()
		out = append(out, a)
	})
	return out
}

// timeline decodes the timeline of changes: ALTER QUEUE ... WITH STATUS (QUE-1, G-18) or
// WITH ACTIVATION (ACT-7).
func (d *decoder) timeline(top *mapping) []scenarios.Change {
	var out []scenarios.Change
	top.list("timeline", "changes", func(_ int, n *yaml.Node, path string) {
		m := d.mapping(n, path, "timeline change")
		var c scenarios.Change
		if !m.duration("at", &c.At) && !m.has("at") && m.present() {
			d.errorf(n, join(path, "at"), "the change needs an at")
		}
		if m.has("crash") {
			c.Crash = d.crashChange(m, path, n)
			m.done()
			out = append(out, c)
			return
		}
		if c.Route = d.routeChange(m, path); c.Route != nil {
			m.done()
			out = append(out, c)
			return
		}
		if m.has("link") {
			c.Link = d.linkChange(m, path)
			m.done()
			out = append(out, c)
			return
		}
		m.name("alter_queue", &c.Queue)
		if a := m.get("activation"); a != nil {
			if m.has("status") {
				d.errorf(n, join(path, "status"), "one change alters the status or the activation, not both")
			}
			apath := join(path, "activation")
			am := d.mapping(a, apath, "activation change")
			var ch model.ActivationChange
			var on bool
			if am.onOff("status", &on) {
				ch.Status = &on
			}
			var proc string
			if am.str("procedure_name", &proc) {
				ch.Procedure = &proc
			}
			var readers int
			if am.intField("max_queue_readers", &readers, 0, model.MaxQueueReadersLimit) {
				ch.MaxQueueReaders = &readers
			}
			am.done()
			c.Activation = &ch
			m.done()
			out = append(out, c)
			return
		}
		on := true
		if m.onOff("status", &on) && !on {
			c.Status = model.QueueOff
		} else if !m.has("status") && m.present() {
			d.errorf(n, join(path, "status"), "ALTER QUEUE needs a status (on or off) or an activation change")
		}
		m.done()
		out = append(out, c)
	})
	return out
}

// checkReferences checks the names the links, applications and timeline use against the
// catalog, each at its place in the file.
func (d *decoder) checkReferences(f *Scenario, cat *model.Catalog) {
	cfg := &f.Config
	d.checkLinks(cfg, cat)
	workloadOf := map[string]int{}
	for i, w := range cfg.Workloads {
		path := index("workloads", i)
		if first, dup := workloadOf[w.Name]; dup {
			d.errorf(d.at(join(path, "name")), join(path, "name"), "workload %q is defined twice (first workloads[%d]): expectations and results name workloads", w.Name, first)
		}
		workloadOf[w.Name] = i
		if _, err := scenarios.FindService(cat, w.From); err != nil {
			d.add(d.at(join(path, "from_service")), join(path, "from_service"), err.Error(), err)
		}
		if len(cat.ServicesNamed(w.To)) == 0 { // TO SERVICE is a name: routes find which (section 9)
			d.notDefined(join(path, "to_service"), "service", w.To)
		}
		if _, err := scenarios.FindBrokerInstance(cat, w.ToBrokerInstance); err != nil {
			d.add(d.at(join(path, "to_broker_instance")), join(path, "to_broker_instance"), err.Error(), err)
		}
		if _, ok := cat.Contract(orDefault(w.Contract, model.ContractDefault)); !ok {
			d.notDefined(join(path, "contract"), "contract", w.Contract)
		}
		for _, t := range []struct{ key, name string }{{"message_type", w.MessageType}, {"reply_type", w.ReplyType}} {
			if _, ok := cat.MessageType(orDefault(t.name, model.MessageTypeDefault)); !ok {
				d.notDefined(join(path, t.key), "message type", t.name)
			}
		}
	}
	readerOf := map[model.QueueID]int{}
	for i, r := range cfg.Readers {
		path := join(index("readers", i), "queue")
		q, ok := d.findQueue(cat, path, r.Queue)
		if !ok {
			continue
		}
		if first, dup := readerOf[q]; dup {
			d.errorf(d.at(path), path, "queue %q already has a reader, readers[%d]", r.Queue, first)
		}
		readerOf[q] = i
	}
	for i, r := range cfg.Readers {
		var queues []model.QueueID
		if q, err := scenarios.FindQueue(cat, r.Queue); err == nil {
			queues = append(queues, q)
		}
		d.checkHandlers(cat, index("readers", i), queues, r.On)
	}
	for i, p := range cfg.Procedures {
		d.checkHandlers(cat, index("procedures", i), cfg.ProcedureQueues(cat, p.Name), p.On)
	}
	var procs []string
	for i, p := range cfg.Procedures {
		if slices.Contains(procs, p.Name) {
			path := join(index("procedures", i), "name")
			d.errorf(d.at(path), path, "procedure %q is defined twice", p.Name)
		}
		procs = append(procs, p.Name)
	}
	for _, a := range d.activations {
		if (a.on || a.procedure != "") && !slices.Contains(procs, a.procedure) {
			d.errorf(d.at(a.path), a.path, "procedure %q is not in procedures (defined: %s)", a.procedure, listOrNone(procs))
		}
	}
	for i, a := range cfg.ExternalActivators {
		path := index("external_activators", i)
		d.findQueue(cat, join(path, "queue"), a.Queue)
		d.findQueue(cat, join(path, "target_queue"), a.Target)
		if !slices.Contains(procs, a.Procedure) {
			d.errorf(d.at(join(path, "procedure")), join(path, "procedure"), "procedure %q is not in procedures (defined: %s)", a.Procedure, listOrNone(procs))
		}
	}
	d.checkCrashes(cfg, cat)
	d.checkFaultPlan(cfg, cat)
	for i, c := range cfg.Timeline {
		if c.Crash != nil {
			continue
		}
		if c.Route != nil {
			d.checkRouteChange(cat, i, c.Route)
			continue
		}
		if l := c.Link; l != nil {
			path := join(index("timeline", i), "link")
			for j, name := range []string{l.A, l.B} {
				if _, found := cat.Instance(name); !found {
					p := index(path, j)
					d.errorf(d.at(p), p, "instance %q does not exist", name)
				}
			}
			continue
		}
		d.findQueue(cat, join(index("timeline", i), "alter_queue"), c.Queue)
	}
}

// linkChange decodes a timeline change of a link: link: [A, B] and both, or a_to_b and
// b_to_a, each a whole new direction configuration.
func (d *decoder) linkChange(m *mapping, path string) *scenarios.LinkChange {
	v := m.get("link")
	lpath := join(path, "link")
	var l scenarios.LinkChange
	if v.Kind != yaml.SequenceNode || len(v.Content) != 2 {
		d.errorf(v, lpath, "want two instance names, [A, B], got %s", describe(v))
	} else {
		for i, out := range []*string{&l.A, &l.B} {
			n := d.resolve(v.Content[i])
			if n == nil {
				continue
			}
			d.pos[index(lpath, i)] = n
			if n.Kind != yaml.ScalarNode || isNull(n) || n.Value == "" {
				d.errorf(n, index(lpath, i), "want an instance name, got %s", describe(n))
				continue
			}
			*out = n.Value
		}
		if l.A != "" && l.A == l.B {
			d.errorf(v, lpath, "the link joins the instance %q to itself", l.A)
		}
	}
	if both := m.get("both"); both != nil {
		c := d.direction(both, join(path, "both"))
		c2 := c
		c2.Down = slices.Clone(c.Down)
		l.AToB, l.BToA = &c, &c2
	}
	for _, dir := range []struct {
		key string
		out **faulty.Config
	}{{"a_to_b", &l.AToB}, {"b_to_a", &l.BToA}} {
		if v := m.get(dir.key); v != nil {
			if m.has("both") {
				d.errorf(m.keyNode(dir.key), join(path, dir.key), "%s and both exclude each other: give both, or a_to_b and b_to_a", dir.key)
				continue
			}
			c := d.direction(v, join(path, dir.key))
			*dir.out = &c
		}
	}
	if l.AToB == nil && l.BToA == nil && m.present() {
		d.errorf(m.node, path, "a link change needs both, a_to_b or b_to_a")
	}
	for _, k := range []string{"alter_queue", "status", "activation"} {
		if m.has(k) {
			d.errorf(m.keyNode(k), join(path, k), "a change alters a link or a queue, not both")
		}
	}
	return &l
}

// checkLinks checks that each link joins two distinct instances, and each pair once.
func (d *decoder) checkLinks(cfg *scenarios.Config, cat *model.Catalog) {
	var names []string
	for _, in := range cat.Instances {
		names = append(names, in.Name)
	}
	linked := map[[2]string]int{}
	for i, l := range cfg.Links {
		path := join(index("links", i), "between")
		ok := true
		for j, name := range []string{l.A, l.B} {
			if _, found := cat.Instance(name); !found {
				p := index(path, j)
				d.errorf(d.at(p), p, "instance %q does not exist (instances: %s)", name, strings.Join(names, ", "))
				ok = false
			}
		}
		switch {
		case !ok:
		case l.A == l.B:
			d.errorf(d.at(path), path, "the link joins the instance %q to itself", l.A)
		default:
			key := [2]string{min(l.A, l.B), max(l.A, l.B)}
			if first, dup := linked[key]; dup {
				d.errorf(d.at(path), path, "%s and %s are already linked by links[%d]", l.A, l.B, first)
			}
			linked[key] = i
		}
	}
}

// queue resolves a queue name at path.
func (d *decoder) findQueue(cat *model.Catalog, path, name string) (model.QueueID, bool) {
	q, err := scenarios.FindQueue(cat, name)
	if err != nil {
		d.add(d.at(path), path, err.Error(), err)
		return 0, false
	}
	return q, true
}

func (d *decoder) notDefined(path, kind, name string) {
	d.errorf(d.at(path), path, "%s %q does not exist", kind, name)
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
