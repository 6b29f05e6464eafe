package file

import (
	"math"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
)

// faultPlan decodes fault_plan: the fate of each packet the links did something to
// (scenarios.FaultPlan), {from: A, to: B, packet: "c3 I→T seq=2 frag=0", copy: 1, at: 1.25s,
// lost: true}. An empty list is a plan with no packet fault, the key left out no plan.
func (d *decoder) faultPlan(top *mapping) *scenarios.FaultPlan {
	v := top.get("fault_plan")
	if v == nil || isNull(v) {
		return nil
	}
	plan := &scenarios.FaultPlan{}
	first := map[faultPlanKey]int{}
	d.items(v, "fault_plan", "packet faults", func(i int, n *yaml.Node, path string) {
		if isNull(n) {
			d.errorf(n, path, "want a packet fault, {from: A, to: B, packet: KEY, ...}, got nothing")
			return
		}
		m := d.mapping(n, path, "packet fault")
		var f scenarios.PacketFault
		m.name("from", &f.From)
		m.name("to", &f.To)
		m.name("packet", &f.Key)
		f.Copy = 1
		var c int64
		if m.integer("copy", &c, math.MinInt32, math.MaxInt32) {
			if c < 1 {
				d.errorf(d.at(join(path, "copy")), join(path, "copy"), "copy %d is not positive: copy 1 is the first packet with the key, 2 its first retransmission", c)
			}
			f.Copy = int(c)
		}
		m.duration("at", &f.At)
		m.onOff("lost", &f.Lost)
		m.onOff("corrupt", &f.Corrupt)
		m.onOff("duplicate", &f.Duplicate)
		m.duration("jitter", &f.Jitter)
		m.duration("duplicate_jitter", &f.DuplicateJitter)
		m.done()
		if f.Lost && f.Duplicate {
			d.errorf(d.at(join(path, "duplicate")), join(path, "duplicate"), "a lost packet has no copy: duplicate and lost exclude each other")
		}
		if !m.present() {
			return
		}
		k := faultPlanKey{f.From, f.To, f.Key, f.Copy}
		if j, dup := first[k]; dup {
			d.errorf(n, path, "%s→%s %q copy %d is listed twice (first fault_plan[%d]): a packet has one fate", f.From, f.To, f.Key, f.Copy, j)
		} else {
			first[k] = i
		}
		plan.Packets = append(plan.Packets, f)
	})
	return plan
}

// faultPlanKey is what a plan's entry matches a packet by: the link, the key and the copy.
type faultPlanKey struct {
	from, to, key string
	copy          int
}

// checkFaultPlan checks the instances the plan's entries name, each at its place.
func (d *decoder) checkFaultPlan(cfg *scenarios.Config, cat *model.Catalog) {
	if cfg.FaultPlan == nil {
		return
	}
	var names []string
	for _, in := range cat.Instances {
		names = append(names, in.Name)
	}
	for i, f := range cfg.FaultPlan.Packets {
		path := index("fault_plan", i)
		known := true
		for _, end := range []struct{ key, name string }{{"from", f.From}, {"to", f.To}} {
			if _, ok := cat.Instance(end.name); !ok {
				p := join(path, end.key)
				d.errorf(d.at(p), p, "instance %q does not exist (instances: %s)", end.name, strings.Join(names, ", "))
				known = false
			}
		}
		if known && f.From == f.To {
			d.errorf(d.at(join(path, "to")), join(path, "to"), "no link joins the instance %q to itself", f.To)
		}
	}
}

// faultPlan encodes fault_plan, when the scenario has a plan: an empty one as [].
func (e *encoder) faultPlan(m node, p *scenarios.FaultPlan) {
	if p == nil {
		return
	}
	list := newList(len(p.Packets) == 0)
	for i, f := range p.Packets {
		if f.Lost && f.Duplicate {
			e.fail(index("fault_plan", i), "a lost packet that is duplicated cannot be written: a lost packet has no copy")
		}
		fm := newMap(true)
		fm.set("from", strValue(f.From))
		fm.set("to", strValue(f.To))
		fm.set("packet", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.Key, Style: yaml.DoubleQuotedStyle})
		fm.set("copy", intValue(int64(f.Copy)))
		fm.set("at", durationValue(f.At))
		fate(fm, f.Fate)
		list.add(fm.Node)
	}
	m.set("fault_plan", list.Node)
}

// fate writes what a plan's entry does to its packet.
func fate(m node, f faulty.Fate) {
	m.flag("lost", f.Lost)
	m.flag("corrupt", f.Corrupt)
	m.flag("duplicate", f.Duplicate)
	m.duration("jitter", f.Jitter)
	m.duration("duplicate_jitter", f.DuplicateJitter)
}

// defects decodes broker.defects: the names of deliberate defects (model.Defects), for
// testing sbsim's own tools, each once.
func (d *decoder) defects(m *mapping) model.Defects {
	var out model.Defects
	m.list("defects", "defect names", func(_ int, n *yaml.Node, path string) {
		if n.Kind != yaml.ScalarNode || isNull(n) {
			d.errorf(n, path, "want a defect name (one of %s), got %s", strings.Join(model.DefectNames(), ", "), describe(n))
			return
		}
		def, err := model.ParseDefect(n.Value)
		switch {
		case err != nil:
			d.add(n, path, err.Error(), err)
		case out&def != 0:
			d.errorf(n, path, "defect %q is listed twice", n.Value)
		}
		out |= def
	})
	return out
}

// defects encodes broker.defects, when the broker has any.
func (e *encoder) defects(m node, defects model.Defects) {
	if defects == 0 {
		return
	}
	names := newList(true)
	var known model.Defects
	for _, name := range defects.Names() {
		def, _ := model.ParseDefect(name)
		known |= def
		names.add(plain(name))
	}
	if known != defects {
		e.fail("broker.defects", "defects %#x has bits no defect name gives", uint8(defects))
	}
	m.setList("defects", names)
}
