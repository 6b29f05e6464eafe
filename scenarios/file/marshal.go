package file

import (
	"bytes"
	"fmt"
	"github.com/sbsim/sbsim/scenarios"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// Marshal writes the file as YAML that Load reads back to the same File. Keys at their
// default are left out. A distribution with fields its kind does not use, or an
// expectation without a comparator or with an unknown metric, cannot be written: Marshal
// returns an error naming it.
func (f *Scenario) Marshal() ([]byte, error) { return f.MarshalCommented(nil) }

// MarshalCommented is Marshal with comments: each entry's lines go above the value at its
// path, in the file's own terms (workloads[0], instances[1].databases[0].queues[2]); the
// path "" puts them at the head of the file. A value written in flow style
// ({name: Q}) cannot hold a comment inside it: its comment goes above the block that
// holds it. Comments at paths the file does not have are left out.
func (f *Scenario) MarshalCommented(comments map[string][]string) ([]byte, error) {
	e := &encoder{}
	root := e.file(f)
	if len(comments) > 0 {
		if head := comments[""]; len(head) > 0 {
			root.HeadComment = commentText(head)
		}
		attachComments(root, "", comments)
	}
	if e.err != nil {
		return nil, fmt.Errorf("scenario %q: %w", f.Config.Name, e.err)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", f.Config.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", f.Config.Name, err)
	}
	return spaceSections(buf.Bytes()), nil
}

// attachComments puts the comments of each path inside n on the key (or, in a list, the
// item) that begins it.
func attachComments(n *yaml.Node, path string, comments map[string][]string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			p := join(path, key.Value)
			add(key, comments[p])
			if value.Style&yaml.FlowStyle != 0 {
				addNested(key, value, p, comments)
				continue
			}
			attachComments(value, p, comments)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			p := index(path, i)
			add(item, comments[p])
			if item.Style&yaml.FlowStyle != 0 || n.Style&yaml.FlowStyle != 0 {
				addNested(item, item, p, comments)
				continue
			}
			attachComments(item, p, comments)
		}
	}
}

// addNested puts the comments of the paths inside a flow value on the block node above it.
func addNested(on, value *yaml.Node, path string, comments map[string][]string) {
	switch value.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(value.Content); i += 2 {
			p := join(path, value.Content[i].Value)
			add(on, comments[p])
			addNested(on, value.Content[i+1], p, comments)
		}
	case yaml.SequenceNode:
		for i, item := range value.Content {
			p := index(path, i)
			add(on, comments[p])
			addNested(on, item, p, comments)
		}
	}
}

func add(n *yaml.Node, lines []string) {
	if len(lines) == 0 {
		return
	}
	if n.HeadComment != "" {
		n.HeadComment += "\n"
	}
	n.HeadComment += commentText(lines)
}

// commentText makes comment lines of lines, wrapped at 96 columns.
func commentText(lines []string) string {
	var out []string
	for _, l := range lines {
		words := strings.Fields(l)
		cur := "#"
		for _, w := range words {
			if len(cur)+1+len(w) > 96 && cur != "#" {
				out = append(out, cur)
				cur = "#  "
			}
			cur += " " + w
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// sections are the top-level keys that begin a part of the file; Marshal puts a blank line
// before each.
var sections = []string{"instances:", "links:", "broker:", "workloads:", "readers:", "procedures:",
	"external_activators:", "timeline:", "crashes:", "fault_plan:", "limits:", "expect:"}

// spaceSections puts a blank line before each section. A line that starts in column one
// is a top-level key: the encoder indents everything else, block scalars included.
func spaceSections(out []byte) []byte {
	var b, comment bytes.Buffer // comment: the comment lines above the next key
	for _, line := range bytes.SplitAfter(out, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("#")) {
			comment.Write(line)
			continue
		}
		for _, s := range sections {
			if bytes.HasPrefix(line, []byte(s)) && b.Len() > 0 {
				b.WriteByte('\n')
				break
			}
		}
		b.Write(comment.Bytes())
		comment.Reset()
		b.Write(line)
	}
	b.Write(comment.Bytes())
	return b.Bytes()
}

// encoder builds the node tree of a File; it keeps the first error.
type encoder struct {
	err error
}

func (e *encoder) fail(path, format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
}

// node is a mapping or list being built.
type node struct{ *yaml.Node }

func newMap(flow bool) node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return node{n}
}

func newList(flow bool) node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return node{n}
}

func (n node) set(key string, v *yaml.Node) {
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func (n node) add(v *yaml.Node) { n.Content = append(n.Content, v) }

func (n node) empty() bool { return len(n.Content) == 0 }

// setList sets key to the list when it has elements.
func (n node) setList(key string, l node) {
	if !l.empty() {
		n.set(key, l.Node)
	}
}

func strValue(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// plain is a number or a keyword: written without a tag or quotes.
func plain(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func intValue(i int64) *yaml.Node { return plain(strconv.FormatInt(i, 10)) }

func floatValue(f float64) *yaml.Node { return plain(strconv.FormatFloat(f, 'g', -1, 64)) }

func durationValue(d time.Duration) *yaml.Node { return plain(formatDuration(d)) }

func onOffValue(b bool) *yaml.Node {
	if b {
		return plain("on")
	}
	return plain("off")
}

// formatDuration writes a duration as Go parses it, whole hours and minutes short: 24h, 5m.
func formatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// Optional setters: a zero value is the default and is left out.
func (n node) str(key, s string) {
	if s != "" {
		n.set(key, strValue(s))
	}
}

func (n node) integer(key string, i int64) {
	if i != 0 {
		n.set(key, intValue(i))
	}
}

func (n node) float(key string, f float64) {
	if f != 0 {
		n.set(key, floatValue(f))
	}
}

func (n node) duration(key string, d time.Duration) {
	if d != 0 {
		n.set(key, durationValue(d))
	}
}

func (n node) on(key string, b bool) {
	if b {
		n.set(key, onOffValue(true))
	}
}

func (n node) flag(key string, b bool) {
	if b {
		n.set(key, plain("true"))
	}
}

func (e *encoder) file(f *Scenario) *yaml.Node {
	cfg := &f.Config
	m := newMap(false)
	m.set("name", strValue(cfg.Name))
	m.str("question", f.Question)
	m.str("description", f.Description)
	m.integer("seeds", int64(f.Seeds))
	instances := newList(false)
	for i := range cfg.Instances {
		in := node{e.instance(&cfg.Instances[i])}
		instanceCPUs(in, cfg, cfg.Instances[i].Name)
		instances.add(in.Node)
	}
	m.setList("instances", instances)
	links := newList(false)
	for i := range cfg.Links {
		links.add(e.link(&cfg.Links[i], index("links", i)))
	}
	m.setList("links", links)
	if b := e.broker(cfg.Broker); !b.empty() {
		m.set("broker", b.Node)
	}
	e.applications(m, cfg)
	e.crashes(m, cfg.Crashes)
	e.faultPlan(m, cfg.FaultPlan)
	limits := newMap(true)
	limits.duration("max_time", cfg.MaxTime)
	limits.integer("max_events", int64(min(cfg.MaxEvents, 1<<63-1)))
	limits.integer("max_memory", cfg.MaxMemory)
	if !limits.empty() {
		m.set("limits", limits.Node)
	}
	m.duration("sample_interval", cfg.SampleInterval)
	snapshots := newMap(true)
	snapshots.integer("count", int64(cfg.Snapshots.Count))
	snapshots.integer("rows", int64(cfg.Snapshots.Rows))
	if !snapshots.empty() {
		m.set("snapshots", snapshots.Node)
	}
	if !cfg.CheckInvariants {
		m.set("check_invariants", plain("false"))
	}
	m.flag("trace", cfg.Trace)
	e.liveness(m, cfg.Liveness)
	e.costs(m, cfg.Costs)
	expect := newList(false)
	for i, x := range f.Expectations {
		expect.add(e.expectation(x, index("expect", i)))
	}
	m.setList("expect", expect)
	marks := newList(true)
	for _, mk := range f.RequireMarks {
		marks.add(strValue(mk.Name()))
	}
	m.setList(RequireMarksKey, marks)
	return m.Node
}

func (e *encoder) instance(in *model.Instance) *yaml.Node {
	m := newMap(false)
	m.set("name", strValue(in.Name))
	dbs := newList(false)
	for i := range in.Databases {
		dbs.add(e.database(&in.Databases[i]))
	}
	m.setList("databases", dbs)
	instanceRoutingNode(m, in)
	return m.Node
}

func (e *encoder) database(db *model.Database) *yaml.Node {
	m := newMap(false)
	m.set("name", strValue(db.Name))
	m.on("honor_broker_priority", db.HonorBrokerPriority)
	types := newList(true)
	for _, t := range db.MessageTypes {
		types.add(strValue(t.Name))
	}
	m.setList("message_types", types)
	contracts := newList(false)
	for _, c := range db.Contracts {
		cm := newMap(false)
		cm.set("name", strValue(c.Name))
		msgs := newList(false)
		for _, x := range c.Messages {
			mm := newMap(true)
			mm.set("message_type", strValue(x.MessageType))
			mm.set("sent_by", plain(strings.ToLower(x.SentBy.String())))
			msgs.add(mm.Node)
		}
		cm.setList("messages", msgs)
		contracts.add(cm.Node)
	}
	m.setList("contracts", contracts)
	queues := newList(false)
	for _, q := range db.Queues {
		queues.add(queueNode(q))
	}
	m.setList("queues", queues)
	services := newList(false)
	for _, s := range db.Services {
		sm := newMap(true)
		sm.set("name", strValue(s.Name))
		sm.set("queue", strValue(s.Queue))
		cs := newList(true)
		for _, c := range s.Contracts {
			cs.add(strValue(c))
		}
		sm.setList("contracts", cs)
		services.add(sm.Node)
	}
	m.setList("services", services)
	priorities := newList(false)
	for _, p := range db.Priorities {
		pm := newMap(true)
		pm.set("name", strValue(p.Name))
		pm.str("contract_name", p.Contract)
		pm.str("local_service_name", p.LocalService)
		pm.str("remote_service_name", p.RemoteService)
		if p.Level != 0 {
			pm.set("priority_level", intValue(int64(p.Level)))
		}
		priorities.add(pm.Node)
	}
	m.setList("broker_priorities", priorities)
	notifications := newList(false)
	for _, n := range db.EventNotifications {
		nm := newMap(true)
		nm.set("name", strValue(n.Name))
		nm.set("queue", strValue(n.Queue))
		nm.set("service", strValue(n.Service))
		notifications.add(nm.Node)
	}
	m.setList("event_notifications", notifications)
	databaseRoutingNode(m, db)
	return m.Node
}

func queueNode(q model.Queue) *yaml.Node {
	m := newMap(true)
	m.set("name", strValue(q.Name))
	if q.Status == model.QueueOff {
		m.set("status", onOffValue(false))
	}
	m.on("retention", q.Retention)
	if q.PoisonMessageHandlingOff {
		m.set("poison_message_handling", onOffValue(false))
	}
	if a := q.Activation; a != (model.Activation{}) {
		am := newMap(true)
		am.set("status", onOffValue(a.Status))
		am.str("procedure_name", a.Procedure)
		am.integer("max_queue_readers", int64(a.MaxQueueReaders))
		m.set("activation", am.Node)
	}
	return m.Node
}

func (e *encoder) link(l *scenarios.Link, path string) *yaml.Node {
	m := newMap(false)
	between := newList(true)
	between.add(strValue(l.A))
	between.add(strValue(l.B))
	m.set("between", between.Node)
	ab, ba := e.direction(l.AToB, join(path, "a_to_b")), e.direction(l.BToA, join(path, "b_to_a"))
	switch {
	case reflect.DeepEqual(normalDirection(l.AToB), normalDirection(l.BToA)):
		if !ab.empty() {
			m.set("both", ab.Node)
		}
	default:
		if !ab.empty() {
			m.set("a_to_b", ab.Node)
		}
		if !ba.empty() {
			m.set("b_to_a", ba.Node)
		}
	}
	partitions := newList(false)
	for _, p := range l.Partitions {
		pm := newMap(true)
		pm.set("from", durationValue(p.From))
		pm.set("until", durationValue(p.Until))
		if p.Direction != faulty.Both {
			pm.set("direction", plain(p.Direction.String()))
		}
		partitions.add(pm.Node)
	}
	m.setList("partitions", partitions)
	return m.Node
}

// normalDirection makes an empty Down nil, as Load leaves it.
func normalDirection(c faulty.Config) faulty.Config {
	if len(c.Down) == 0 {
		c.Down = nil
	}
	return c
}

func (e *encoder) direction(c faulty.Config, path string) node {
	m := newMap(false)
	m.duration("latency", c.LatencyFixed)
	if c.LatencyJitter != (sim.Distribution{}) {
		m.set("jitter", e.durationDistribution(c.LatencyJitter, join(path, "jitter")))
	}
	m.integer("bandwidth", c.Bandwidth)
	m.float("loss", c.LossProbability)
	if b := c.LossBurst; b != (faulty.GilbertElliott{}) {
		bm := newMap(true)
		bm.float("good_to_bad", b.GoodToBad)
		bm.float("bad_to_good", b.BadToGood)
		bm.float("loss_good", b.LossGood)
		bm.float("loss_bad", b.LossBad)
		m.set("loss_burst", bm.Node)
	}
	m.float("duplicate", c.DuplicateProbability)
	m.float("corrupt", c.CorruptProbability)
	m.integer("capacity", int64(c.Capacity))
	down := newList(false)
	for _, w := range c.Down {
		wm := newMap(true)
		wm.set("from", durationValue(w.From))
		wm.set("until", durationValue(w.Until))
		down.add(wm.Node)
	}
	m.setList("down", down)
	return m
}

func (e *encoder) broker(c model.Config) node {
	m := newMap(false)
	m.integer("fragment_size", int64(c.FragmentSize))
	m.duration("retry_interval_min", c.RetryIntervalMin)
	m.duration("retry_interval_max", c.RetryIntervalMax)
	m.duration("ack_delay", c.AckDelay)
	m.integer("receive_window", int64(c.ReceiveWindow))
	m.integer("send_window", int64(c.SendWindow))
	m.integer("block_fragments_max", int64(c.BlockFragmentsMax))
	m.integer("block_bytes_max", int64(c.BlockBytesMax))
	m.duration("connection_idle_close", c.ConnectionIdleClose)
	m.integer("transmission_object_bytes", int64(c.TransmissionObjectBytes))
	m.duration("closed_target_retention", c.ClosedTargetRetention)
	m.duration("route_retry_interval", c.RouteRetryInterval)
	if c.StarvationAgingOff {
		m.set("starvation_aging", onOffValue(false))
	}
	m.duration("starvation_aging_step", c.StarvationAgingStep)
	m.integer("starvation_aging_cap", int64(c.StarvationAgingCap))
	e.defects(m, c.Defects)
	return m
}
