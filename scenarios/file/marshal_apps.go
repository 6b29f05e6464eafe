package file

import (
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// distribution writes a distribution of values that format writes.
func (e *encoder) distribution(kind sim.DistributionKind, mean, stdDev, lo, hi int64, format func(int64) *yaml.Node, path string) *yaml.Node {
	unused := false
	switch kind {
	case sim.Constant, sim.Exponential:
		unused = stdDev != 0 || lo != 0 || hi != 0
	case sim.Uniform:
		unused = mean != 0 || stdDev != 0
	case sim.Normal, sim.LogNormal:
		unused = lo != 0 || hi != 0
	default:
		e.fail(path, "distribution kind %d is unknown", int(kind))
		return plain("0")
	}
	if unused {
		e.fail(path, "a %s distribution with fields it does not use cannot be written", kind)
	}
	if kind == sim.Constant {
		return format(mean)
	}
	m := newMap(true)
	name := distributionKinds[kind]
	switch kind {
	case sim.Exponential:
		m.set(name, format(mean))
	case sim.Uniform:
		l := newList(true)
		l.add(format(lo))
		l.add(format(hi))
		m.set(name, l.Node)
	default:
		p := newMap(true)
		p.set("mean", format(mean))
		p.set("stddev", format(stdDev))
		m.set(name, p.Node)
	}
	return m.Node
}

func (e *encoder) durationDistribution(d sim.Distribution, path string) *yaml.Node {
	return e.distribution(d.Kind, int64(d.Mean), int64(d.StdDev), int64(d.Min), int64(d.Max),
		func(v int64) *yaml.Node { return durationValue(time.Duration(v)) }, path)
}

func (e *encoder) sizeDistribution(s scenarios.SizeDistribution, path string) *yaml.Node {
	return e.distribution(s.Kind, s.Mean, s.StdDev, s.Min, s.Max, intValue, path)
}

// setDistribution sets key unless the distribution is the constant zero.
func (e *encoder) setDistribution(m node, key string, d sim.Distribution, path string) {
	if d != (sim.Distribution{}) {
		m.set(key, e.durationDistribution(d, join(path, key)))
	}
}

func (e *encoder) applications(m node, cfg *scenarios.Config) {
	workloads := newList(false)
	for i, w := range cfg.Workloads {
		path := index("workloads", i)
		wm := newMap(false)
		wm.str("name", w.Name)
		wm.set("from_service", strValue(w.From))
		wm.set("to_service", strValue(w.To))
		wm.str("to_broker_instance", w.ToBrokerInstance)
		wm.str("contract", w.Contract)
		wm.str("message_type", w.MessageType)
		wm.integer("dialogs", int64(w.Dialogs))
		wm.duration("start", w.Start)
		e.setDistribution(wm, "interarrival", w.Interarrival, path)
		wm.integer("messages", int64(w.Messages))
		e.setDistribution(wm, "message_gap", w.MessageGap, path)
		if w.Size != (scenarios.SizeDistribution{}) {
			wm.set("size", e.sizeDistribution(w.Size, join(path, "size")))
		}
		wm.flag("replies", w.Replies)
		wm.str("reply_type", w.ReplyType)
		if w.ReplySize != (scenarios.SizeDistribution{}) {
			wm.set("reply_size", e.sizeDistribution(w.ReplySize, join(path, "reply_size")))
		}
		wm.duration("lifetime", w.Lifetime)
		wm.flag("end_with_error", w.EndWithError)
		wm.integer("group_size", int64(w.GroupSize))
		e.lifeCycle(wm, w, path)
		workloads.add(wm.Node)
	}
	m.setList("workloads", workloads)
	readers := newList(false)
	for i, r := range cfg.Readers {
		rm := newMap(true)
		rm.set("queue", strValue(r.Queue))
		if r.Mode != scenarios.ReceiveLoop {
			rm.set("mode", plain(r.Mode.String()))
		}
		rm.integer("top", int64(r.Top))
		rm.integer("sessions", int64(r.Sessions))
		rm.duration("wait_for", r.WaitFor)
		e.setDistribution(rm, "processing_time", r.ProcessingTime, index("readers", i))
		rm.float("rollback_rate", r.RollbackRate)
		rm.duration("rollback_until", r.RollbackUntil)
		rm.float("touch_rate", r.TouchRate)
		rm.duration("touch_timer", r.TouchTimer)
		rm.integer("commit_every", int64(r.CommitEvery))
		e.program(&rm, r.On, r.Hook != nil, index("readers", i))
		readers.add(rm.Node)
	}
	m.setList("readers", readers)
	procedures := newList(false)
	for i, p := range cfg.Procedures {
		pm := newMap(true)
		pm.set("name", strValue(p.Name))
		if p.Mode != scenarios.ReceiveLoop {
			pm.set("mode", plain(p.Mode.String()))
		}
		pm.integer("top", int64(p.Top))
		pm.duration("wait_for", p.WaitFor)
		e.setDistribution(pm, "processing_time", p.ProcessingTime, index("procedures", i))
		pm.float("rollback_rate", p.RollbackRate)
		pm.duration("rollback_until", p.RollbackUntil)
		pm.integer("commit_every", int64(p.CommitEvery))
		e.program(&pm, p.On, p.Hook != nil, index("procedures", i))
		procedures.add(pm.Node)
	}
	m.setList("procedures", procedures)
	activators := newList(false)
	for i, a := range cfg.ExternalActivators {
		am := newMap(true)
		am.set("queue", strValue(a.Queue))
		am.set("target_queue", strValue(a.Target))
		am.set("procedure", strValue(a.Procedure))
		e.setDistribution(am, "startup_delay", a.StartupDelay, index("external_activators", i))
		am.set("max_readers", intValue(int64(a.MaxReaders)))
		activators.add(am.Node)
	}
	m.setList("external_activators", activators)
	timeline := newList(false)
	for i, c := range cfg.Timeline {
		cm := newMap(true)
		cm.set("at", durationValue(c.At))
		if c.Crash != nil {
			e.crashChange(cm, c.Crash)
			timeline.add(cm.Node)
			continue
		}
		if rc := c.Route; rc != nil {
			routeChangeNode(cm, rc)
			timeline.add(cm.Node)
			continue
		}
		if l := c.Link; l != nil {
			pair := newList(true)
			pair.add(strValue(l.A))
			pair.add(strValue(l.B))
			cm.setList("link", pair)
			for _, dir := range []struct {
				key string
				cfg *faulty.Config
			}{{"a_to_b", l.AToB}, {"b_to_a", l.BToA}} {
				if dir.cfg != nil {
					cm.set(dir.key, e.direction(*dir.cfg, join(index("timeline", i), dir.key)).Node)
				}
			}
			timeline.add(cm.Node)
			continue
		}
		cm.set("alter_queue", strValue(c.Queue))
		if a := c.Activation; a != nil {
			am := newMap(true)
			if a.Status != nil {
				am.set("status", onOffValue(*a.Status))
			}
			if a.Procedure != nil {
				am.set("procedure_name", strValue(*a.Procedure))
			}
			if a.MaxQueueReaders != nil {
				am.set("max_queue_readers", intValue(int64(*a.MaxQueueReaders)))
			}
			cm.set("activation", am.Node)
		} else {
			cm.set("status", onOffValue(c.Status == model.QueueOn))
		}
		timeline.add(cm.Node)
	}
	m.setList("timeline", timeline)
}

func (e *encoder) expectation(x Expectation, path string) *yaml.Node {
	m := newMap(true)
	def, known := scenarios.LookupMetric(x.Metric)
	switch {
	case !known:
		e.fail(path, "unknown metric %q", x.Metric)
		return m.Node
	case def.Unit == scenarios.Verdict:
		if x.Value == 0 {
			m.set("invariants", plain("violated"))
		} else {
			m.set("invariants", plain("hold"))
		}
		return m.Node
	case x.Comparator < Below || x.Comparator > Equals:
		e.fail(path, "comparator %v is unknown", x.Comparator)
		return m.Node
	case x.Over.Mean && x.Comparator == Equals:
		e.fail(path, "a mean has no equals comparator")
		return m.Node
	}
	m.set("metric", plain(x.Metric))
	m.integer("level", int64(x.Level))
	m.str("queue", x.Queue)
	m.str("workload", x.Workload)
	m.str("instance", x.Instance)
	var v *yaml.Node
	switch def.Unit {
	case scenarios.Duration:
		v = durationValue(time.Duration(x.Value))
	case scenarios.Fraction, scenarios.Rate:
		v = floatValue(x.Value)
	default:
		v = plain(strconv.FormatFloat(x.Value, 'f', -1, 64))
	}
	m.set(x.comparatorKey(), v)
	x.Over.marshal(m)
	return m.Node
}
