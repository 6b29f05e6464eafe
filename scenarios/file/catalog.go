package file

import (
	"errors"
	"fmt"
	"github.com/sbsim/sbsim/scenarios"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
)

// activationRef is a queue's ACTIVATION clause and where the file sets it.
type activationRef struct {
	queue, procedure string
	on               bool
	path             string // of the procedure_name, or of the activation
}

// instances decodes the instances and their databases (ENT-1, ENT-2).
func (d *decoder) instances(m *mapping) []model.Instance {
	var out []model.Instance
	m.list("instances", "instances", func(_ int, n *yaml.Node, path string) {
		im := d.mapping(n, path, "instance")
		var in model.Instance
		im.name("name", &in.Name)
		obj := d.objects.add("instance", in.Name, n, path)
		im.list("databases", "databases", func(_ int, n *yaml.Node, path string) {
			in.Databases = append(in.Databases, d.database(n, path, obj))
		})
		d.instanceRouting(im, &in, obj)
		d.instanceCPUs(im, in.Name)
		im.done()
		if im.present() && len(in.Databases) == 0 && !in.Forwarding.Enabled {
			d.bare = append(d.bare, bareInstance{in.Name, join(path, "databases"), n}) // a failover's standby?
		}
		out = append(out, in)
	})
	return out
}

// database decodes one database: HONOR_BROKER_PRIORITY and its objects.
func (d *decoder) database(n *yaml.Node, path string, inst *objectPos) model.Database {
	m := d.mapping(n, path, "database")
	var db model.Database
	m.name("name", &db.Name)
	obj := inst.add("database", db.Name, n, path)
	m.onOff("honor_broker_priority", &db.HonorBrokerPriority)
	m.list("message_types", "message type names", func(_ int, n *yaml.Node, path string) {
		if n.Kind != yaml.ScalarNode || isNull(n) || n.Value == "" {
			d.errorf(n, path, "want a message type name, got %s", describe(n))
			return
		}
		obj.add("message type", n.Value, n, path)
		db.MessageTypes = append(db.MessageTypes, model.MessageType{Name: n.Value})
	})
	m.list("contracts", "contracts", func(_ int, n *yaml.Node, path string) {
		db.Contracts = append(db.Contracts, d.contract(n, path, obj))
	})
	m.list("queues", "queues", func(_ int, n *yaml.Node, path string) {
		db.Queues = append(db.Queues, d.queue(n, path, obj))
	})
	m.list("services", "services", func(_ int, n *yaml.Node, path string) {
		db.Services = append(db.Services, d.service(n, path, obj))
	})
	m.list("broker_priorities", "broker priorities", func(_ int, n *yaml.Node, path string) {
		db.Priorities = append(db.Priorities, d.brokerPriority(n, path, obj))
	})
	m.list("event_notifications", "event notifications", func(_ int, n *yaml.Node, path string) {
		em := d.mapping(n, path, "event notification")
		var en model.EventNotification
		em.name("name", &en.Name)
		o := obj.add("event notification", en.Name, n, path)
		em.name("queue", &en.Queue)
		em.name("service", &en.Service)
		o.add("queue", en.Queue, d.at(join(path, "queue")), join(path, "queue"))
		o.add("service", en.Service, d.at(join(path, "service")), join(path, "service"))
		em.done()
		db.EventNotifications = append(db.EventNotifications, en)
	})
	d.databaseRouting(m, &db, obj)
	m.done()
	return db
}

var sentByNames = map[string]model.SentBy{"any": model.SentByAny, "initiator": model.SentByInitiator, "target": model.SentByTarget}

// contract decodes CREATE CONTRACT: its message types and who sends each (DLG-16).
func (d *decoder) contract(n *yaml.Node, path string, db *objectPos) model.Contract {
	m := d.mapping(n, path, "contract")
	var c model.Contract
	m.name("name", &c.Name)
	obj := db.add("contract", c.Name, n, path)
	m.list("messages", "message types and who sends them", func(_ int, n *yaml.Node, path string) {
		mm := d.mapping(n, path, "contract message")
		var cm model.ContractMessage
		if mm.name("message_type", &cm.MessageType) {
			obj.add("message type", cm.MessageType, d.at(join(path, "message_type")), join(path, "message_type"))
		}
		var sentBy string
		if mm.name("sent_by", &sentBy) {
			s, ok := sentByNames[strings.ToLower(sentBy)]
			if !ok {
				d.errorf(d.at(join(path, "sent_by")), join(path, "sent_by"), "want initiator, target or any, got %q", sentBy)
			}
			cm.SentBy = s
		}
		mm.done()
		c.Messages = append(c.Messages, cm)
	})
	m.done()
	if m.present() && len(c.Messages) == 0 {
		d.errorf(n, join(path, "messages"), "the contract %q needs at least one message type", c.Name)
	}
	return c
}

// queue decodes CREATE QUEUE: STATUS, RETENTION, POISON_MESSAGE_HANDLING and ACTIVATION
// (ENT-4), with SQL Server's defaults.
func (d *decoder) queue(n *yaml.Node, path string, db *objectPos) model.Queue {
	m := d.mapping(n, path, "queue")
	var q model.Queue
	m.name("name", &q.Name)
	db.add("queue", q.Name, n, path)
	on := true
	if m.onOff("status", &on) && !on {
		q.Status = model.QueueOff
	}
	m.onOff("retention", &q.Retention)
	poison := true
	m.onOff("poison_message_handling", &poison)
	q.PoisonMessageHandlingOff = !poison
	if a := m.get("activation"); a != nil {
		apath := join(path, "activation")
		am := d.mapping(a, apath, "activation")
		q.Activation.Status = true // STATUS defaults to ON in an ACTIVATION clause
		am.onOff("status", &q.Activation.Status)
		am.str("procedure_name", &q.Activation.Procedure)
		am.intField("max_queue_readers", &q.Activation.MaxQueueReaders, 0, model.MaxQueueReadersLimit)
		am.done()
		ref := activationRef{queue: q.Name, procedure: q.Activation.Procedure, on: q.Activation.Status, path: apath}
		if am.has("procedure_name") {
			ref.path = join(apath, "procedure_name")
		} else if q.Activation.Status {
			d.errorf(a, apath, "ACTIVATION with STATUS = ON needs a procedure_name")
		}
		d.activations = append(d.activations, ref)
	}
	m.done()
	return q
}

// service decodes CREATE SERVICE name ON QUEUE queue (contracts) (ENT-3).
func (d *decoder) service(n *yaml.Node, path string, db *objectPos) model.Service {
	m := d.mapping(n, path, "service")
	var s model.Service
	m.name("name", &s.Name)
	obj := db.add("service", s.Name, n, path)
	if m.name("queue", &s.Queue) {
		obj.add("queue", s.Queue, d.at(join(path, "queue")), join(path, "queue"))
	}
	m.list("contracts", "contract names", func(_ int, n *yaml.Node, path string) {
		if n.Kind != yaml.ScalarNode || isNull(n) || n.Value == "" {
			d.errorf(n, path, "want a contract name, got %s", describe(n))
			return
		}
		obj.add("contract", n.Value, n, path)
		s.Contracts = append(s.Contracts, n.Value)
	})
	m.done()
	return s
}

// anyName reads a broker priority criterion: ANY (any case) is model.Any.
func anyCriterion(s string) string {
	if strings.EqualFold(s, "ANY") {
		return model.Any
	}
	return s
}

// brokerPriority decodes CREATE BROKER PRIORITY (PRI-1).
func (d *decoder) brokerPriority(n *yaml.Node, path string, db *objectPos) model.BrokerPriority {
	m := d.mapping(n, path, "broker priority")
	var p model.BrokerPriority
	m.name("name", &p.Name)
	obj := db.add("broker priority", p.Name, n, path)
	for _, c := range []struct {
		key, sql string
		out      *string
	}{{"contract_name", "CONTRACT_NAME", &p.Contract}, {"local_service_name", "LOCAL_SERVICE_NAME", &p.LocalService},
		{"remote_service_name", "REMOTE_SERVICE_NAME", &p.RemoteService}} {
		if m.str(c.key, c.out) {
			*c.out = anyCriterion(*c.out)
			obj.add(c.sql, *c.out, d.at(join(path, c.key)), join(path, c.key))
		}
	}
	if v, ok := m.scalar("priority_level", "a level from 1 to 10 or default"); ok && !strings.EqualFold(v.Value, "default") {
		l, err := parseInteger(v.Value)
		switch {
		case err != nil:
			d.errorf(v, join(path, "priority_level"), "want a level from 1 to 10 or default, got %q", v.Value)
		case l < 1 || l > 10:
			d.errorf(v, join(path, "priority_level"), "PRIORITY_LEVEL %d is outside 1..10", l)
		default:
			p.Level = model.PriorityLevel(l)
		}
	}
	m.done()
	return p
}

// links decodes the links between instances: each direction's faults and the partitions.
func (d *decoder) links(m *mapping) []scenarios.Link {
	var out []scenarios.Link
	m.list("links", "links", func(_ int, n *yaml.Node, path string) {
		lm := d.mapping(n, path, "link")
		var l scenarios.Link
		d.between(lm, &l)
		both := lm.get("both")
		if both != nil {
			l.AToB = d.direction(both, join(path, "both"))
			l.BToA = l.AToB
			l.BToA.Down = slices.Clone(l.AToB.Down)
		}
		for _, dir := range []struct {
			key string
			out *faulty.Config
		}{{"a_to_b", &l.AToB}, {"b_to_a", &l.BToA}} {
			if v := lm.get(dir.key); v != nil {
				if both != nil {
					d.errorf(lm.keyNode(dir.key), join(path, dir.key), "%s and both exclude each other: give both, or a_to_b and b_to_a", dir.key)
					continue
				}
				*dir.out = d.direction(v, join(path, dir.key))
			}
		}
		lm.list("partitions", "partitions", func(_ int, n *yaml.Node, path string) {
			l.Partitions = append(l.Partitions, d.partition(n, path))
		})
		lm.done()
		out = append(out, l)
	})
	return out
}

// between decodes the pair of instances a link joins.
func (d *decoder) between(lm *mapping, l *scenarios.Link) {
	v := lm.get("between")
	path := join(lm.path, "between")
	switch {
	case v == nil:
		if lm.present() {
			d.errorf(lm.node, path, "the link needs between: [instance, instance]")
		}
		return
	case v.Kind != yaml.SequenceNode || len(v.Content) != 2:
		d.errorf(v, path, "want two instance names, [A, B], got %s", describe(v))
		return
	}
	for i, out := range []*string{&l.A, &l.B} {
		n := d.resolve(v.Content[i])
		if n == nil {
			continue
		}
		d.pos[index(path, i)] = n
		if n.Kind != yaml.ScalarNode || isNull(n) || n.Value == "" {
			d.errorf(n, index(path, i), "want an instance name, got %s", describe(n))
			continue
		}
		*out = n.Value
	}
}

// faultyKeys are the file's keys for faulty.Config's fields.
var faultyKeys = map[string]string{"LatencyFixed": "latency", "LatencyJitter": "jitter", "Bandwidth": "bandwidth",
	"LossProbability": "loss", "LossBurst.GoodToBad": "loss_burst.good_to_bad", "LossBurst.BadToGood": "loss_burst.bad_to_good",
	"LossBurst.LossGood": "loss_burst.loss_good", "LossBurst.LossBad": "loss_burst.loss_bad",
	"DuplicateProbability": "duplicate", "CorruptProbability": "corrupt", "Capacity": "capacity"}

// direction decodes one direction of a link (G-19).
func (d *decoder) direction(n *yaml.Node, path string) faulty.Config {
	m := d.mapping(n, path, "link direction")
	var c faulty.Config
	m.duration("latency", &c.LatencyFixed)
	m.durationDistribution("jitter", &c.LatencyJitter)
	m.size("bandwidth", &c.Bandwidth)
	m.probability("loss", &c.LossProbability)
	if v := m.get("loss_burst"); v != nil {
		bm := d.mapping(v, join(path, "loss_burst"), "loss burst (Gilbert-Elliott)")
		bm.probability("good_to_bad", &c.LossBurst.GoodToBad)
		bm.probability("bad_to_good", &c.LossBurst.BadToGood)
		bm.probability("loss_good", &c.LossBurst.LossGood)
		bm.probability("loss_bad", &c.LossBurst.LossBad)
		bm.done()
	}
	m.probability("duplicate", &c.DuplicateProbability)
	m.probability("corrupt", &c.CorruptProbability)
	m.intField("capacity", &c.Capacity, 0, math.MaxInt32)
	m.list("down", "windows", func(_ int, n *yaml.Node, path string) {
		w, _ := d.window(d.mapping(n, path, "down window"))
		c.Down = append(c.Down, w)
	})
	m.done()
	if err := c.Validate(); err != nil && m.present() {
		var fe *faulty.FieldError
		key, msg := "", err.Error()
		if errors.As(err, &fe) {
			key = faultyKeys[fe.Field]
			r := strings.NewReplacer("LossProbability", "loss", "LossBurst", "loss_burst", "Down window", "down window")
			msg = fmt.Sprintf("%s %v %s", strings.ReplaceAll(key, "loss_burst.", ""), fe.Value, r.Replace(fe.Reason))
		}
		if key != "" {
			path = join(path, key)
		}
		d.add(d.at(path), path, msg, err)
	}
	return c
}

// window decodes {from, until}; it reports a window that is not an interval.
func (d *decoder) window(m *mapping) (faulty.Window, bool) {
	var w faulty.Window
	okF := m.duration("from", &w.From)
	okU := m.duration("until", &w.Until)
	if !m.has("until") && m.present() {
		d.errorf(m.node, join(m.path, "until"), "the window needs an until")
		return w, false
	}
	if okF && okU && w.Until <= w.From {
		d.errorf(d.at(join(m.path, "until")), join(m.path, "until"), "until %v is not after from %v", w.Until, w.From)
		return w, false
	}
	return w, okF && okU
}

var directionNames = map[string]faulty.Direction{"both": faulty.Both, "a-to-b": faulty.AToB, "b-to-a": faulty.BToA,
	"a_to_b": faulty.AToB, "b_to_a": faulty.BToA}

// partition decodes a partition: a window during which the pair is cut.
func (d *decoder) partition(n *yaml.Node, path string) faulty.Partition {
	m := d.mapping(n, path, "partition")
	var p faulty.Partition
	p.Window, _ = d.window(m)
	var dir string
	if m.str("direction", &dir) {
		v, ok := directionNames[strings.ToLower(dir)]
		if !ok {
			d.errorf(d.at(join(path, "direction")), join(path, "direction"), "want both, a-to-b or b-to-a, got %q", dir)
		}
		p.Direction = v
	}
	m.done()
	return p
}

// broker decodes the protocol parameters, model.Config: a key left out takes its default
// (G-8 to G-16).
func (d *decoder) broker(top *mapping) model.Config {
	var c model.Config
	v := top.get("broker")
	if v == nil {
		return c
	}
	m := d.mapping(v, "broker", "broker")
	m.sizeInt("fragment_size", &c.FragmentSize)
	m.duration("retry_interval_min", &c.RetryIntervalMin)
	m.duration("retry_interval_max", &c.RetryIntervalMax)
	m.duration("ack_delay", &c.AckDelay)
	m.intField("receive_window", &c.ReceiveWindow, 0, math.MaxInt32)
	m.intField("send_window", &c.SendWindow, 0, math.MaxInt32)
	m.intField("block_fragments_max", &c.BlockFragmentsMax, 0, math.MaxInt32)
	m.sizeInt("block_bytes_max", &c.BlockBytesMax)
	m.duration("connection_idle_close", &c.ConnectionIdleClose)
	m.sizeInt("transmission_object_bytes", &c.TransmissionObjectBytes)
	m.duration("closed_target_retention", &c.ClosedTargetRetention)
	m.duration("route_retry_interval", &c.RouteRetryInterval)
	aging := true
	m.onOff("starvation_aging", &aging)
	c.StarvationAgingOff = !aging
	m.duration("starvation_aging_step", &c.StarvationAgingStep)
	var capLevel int64
	if m.integer("starvation_aging_cap", &capLevel, 1, 10) {
		c.StarvationAgingCap = model.PriorityLevel(capLevel)
	}
	c.Defects = d.defects(m)
	m.done()
	if err := c.WithDefaults().Validate(); err != nil {
		path := join("broker", snake(strings.Fields(strings.TrimPrefix(err.Error(), "broker config: "))[0]))
		d.add(d.at(path), path, err.Error(), err)
	}
	return c
}
