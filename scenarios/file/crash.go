package file

import (
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// crashChange decodes a timeline change that crashes an instance (G-13):
// {at: 30s, crash: B, restart_after: 20s}, and a mirrored instance's failover to its
// standby host, {at: 30s, crash: B, restart_after: 10s, failover_to: B2}.
func (d *decoder) crashChange(m *mapping, path string, n *yaml.Node) *scenarios.CrashChange {
	c := &scenarios.CrashChange{}
	m.name("crash", &c.Instance)
	m.str("failover_to", &c.FailoverTo)
	if !m.duration("restart_after", &c.RestartAfter) && !m.has("restart_after") {
		d.errorf(n, join(path, "restart_after"), "a crash needs restart_after: a crashed instance restarts (G-13)")
	}
	return c
}

// crashes decodes the crashes key: crashes drawn at random (G-13),
// {instances: [A, B], start: 1m, until: 1h, interval: {exponential: 10m}, downtime: {uniform: [5s, 1m]}}.
func (d *decoder) crashes(top *mapping, out *scenarios.RandomCrashes) {
	n := top.get("crashes")
	if n == nil || isNull(n) {
		return
	}
	m := d.mapping(n, "crashes", "crashes")
	m.list("instances", "instance names", func(_ int, v *yaml.Node, path string) {
		if v.Kind != yaml.ScalarNode || isNull(v) || v.Value == "" {
			d.errorf(v, path, "want an instance name, got %s", describe(v))
			return
		}
		out.Instances = append(out.Instances, v.Value)
	})
	if len(out.Instances) == 0 {
		d.errorf(n, "crashes.instances", "crashes need instances: the instances that may crash")
	}
	m.duration("start", &out.Start)
	if !m.duration("until", &out.Until) && !m.has("until") {
		d.errorf(n, "crashes.until", "crashes need until: crashes are drawn from start until then")
	}
	if !m.durationDistribution("interval", &out.Interval) && !m.has("interval") {
		d.errorf(n, "crashes.interval", "crashes need an interval: the time between two crashes")
	}
	if !m.durationDistribution("downtime", &out.Downtime) && !m.has("downtime") {
		d.errorf(n, "crashes.downtime", "crashes need a downtime: how long a crashed instance stays down")
	}
	m.done()
}

// checkCrashes checks the instances the crashes name, each at its place in the file.
func (d *decoder) checkCrashes(cfg *scenarios.Config, cat *model.Catalog) {
	for _, b := range d.bare {
		if !slices.ContainsFunc(cfg.Timeline, func(c scenarios.Change) bool { return c.Crash != nil && c.Crash.FailoverTo == b.name }) {
			d.errorf(b.node, b.path, "the instance %q needs a database, unless it forwards (forwarding: {enabled: true}) or is the standby a crash fails over to (failover_to)", b.name)
		}
	}
	for i, c := range cfg.Timeline {
		if c.Crash != nil {
			if _, ok := cat.Instance(c.Crash.Instance); !ok {
				path := join(index("timeline", i), "crash")
				d.errorf(d.at(path), path, "instance %q does not exist", c.Crash.Instance)
			} else if err := c.Crash.Validate(cat); err != nil && c.Crash.FailoverTo != "" {
				path := join(index("timeline", i), "failover_to")
				d.errorf(d.at(path), path, "%v", err)
			}
		}
	}
	for i, name := range cfg.Crashes.Instances {
		if _, ok := cat.Instance(name); !ok {
			path := index("crashes.instances", i)
			d.errorf(d.at(path), path, "instance %q does not exist", name)
		}
	}
}

// crashChange encodes a timeline change that crashes an instance.
func (e *encoder) crashChange(cm node, c *scenarios.CrashChange) {
	cm.set("crash", strValue(c.Instance))
	cm.set("restart_after", durationValue(c.RestartAfter))
	if c.FailoverTo != "" {
		cm.set("failover_to", strValue(c.FailoverTo))
	}
}

// crashes encodes the crashes key, when the scenario draws any.
func (e *encoder) crashes(m node, r scenarios.RandomCrashes) {
	if len(r.Instances) == 0 {
		return
	}
	cm := newMap(true)
	names := newList(true)
	for _, name := range r.Instances {
		names.add(strValue(name))
	}
	cm.setList("instances", names)
	cm.duration("start", r.Start)
	cm.set("until", durationValue(r.Until))
	cm.set("interval", e.durationDistribution(r.Interval, "crashes.interval"))
	cm.set("downtime", e.durationDistribution(r.Downtime, "crashes.downtime"))
	m.set("crashes", cm.Node)
}
