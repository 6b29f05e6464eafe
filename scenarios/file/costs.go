package file

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/scenarios"
)

// costFields are the keys of the costs mapping, in the order Marshal writes them.
var costFields = []struct {
	key string
	get func(*scenarios.Costs) *time.Duration
}{
	{"begin_dialog", func(c *scenarios.Costs) *time.Duration { return &c.BeginDialog }},
	{"send", func(c *scenarios.Costs) *time.Duration { return &c.Send }},
	{"receive_call", func(c *scenarios.Costs) *time.Duration { return &c.ReceiveCall }},
	{"receive_row", func(c *scenarios.Costs) *time.Duration { return &c.ReceiveRow }},
	{"end_conversation", func(c *scenarios.Costs) *time.Duration { return &c.End }},
	{"begin_conversation_timer", func(c *scenarios.Costs) *time.Duration { return &c.Timer }},
	{"commit", func(c *scenarios.Costs) *time.Duration { return &c.Commit }},
	{"log_flush", func(c *scenarios.Costs) *time.Duration { return &c.LogFlush }},
}

// costs decodes the cost model (docs/costs.md): costs: default (or on, or an empty
// mapping) turns on the defaults; a mapping sets some costs, the others at their default;
// off, or no key, leaves every statement free.
func (d *decoder) costs(top *mapping, cfg *scenarios.Config) {
	n := top.get("costs")
	if n == nil {
		return
	}
	c := scenarios.DefaultCosts
	if isNull(n) {
		cfg.Costs = &c
		return
	}
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "default", "on", "true", "yes":
			cfg.Costs = &c
		case "off", "false", "no":
		default:
			d.errorf(n, "costs", "want default, off or a mapping of costs (begin_dialog: 1500us, ...), got %q", n.Value)
		}
		return
	}
	m := d.mapping(n, "costs", "costs")
	for _, f := range costFields {
		if m.duration(f.key, f.get(&c)) && *f.get(&c) > time.Hour {
			d.errorf(m.get(f.key), join("costs", f.key), "a cost of %v is above the 1h cap", *f.get(&c))
		}
	}
	m.onOff("processing_on_cpu", &c.ProcessingOnCPU)
	m.done()
	cfg.Costs = &c
}

// instanceCPUs decodes an instance's cpus.
func (d *decoder) instanceCPUs(im *mapping, name string) {
	var n int
	if !im.intField("cpus", &n, 1, scenarios.MaxCPUs) {
		return
	}
	if d.cpus == nil {
		d.cpus = map[string]int{}
	}
	d.cpus[name] = n
}

// costs encodes the cost model: default when every cost is, else the costs that are not.
func (e *encoder) costs(m node, c *scenarios.Costs) {
	if c == nil {
		return
	}
	if *c == scenarios.DefaultCosts {
		m.set("costs", plain("default"))
		return
	}
	cm := newMap(false)
	for _, f := range costFields {
		if v := *f.get(c); v != *f.get(&scenarios.DefaultCosts) {
			cm.set(f.key, durationValue(v))
		}
	}
	if c.ProcessingOnCPU {
		cm.set("processing_on_cpu", onOffValue(true))
	}
	m.set("costs", cm.Node)
}

// instanceCPUs encodes an instance's cpus, when the config gives it some.
func instanceCPUs(m node, cfg *scenarios.Config, name string) {
	if n, ok := cfg.CPUs[name]; ok {
		m.set("cpus", intValue(int64(n)))
	}
}
