package scenarios

import (
	"fmt"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// world is one run: the engine, a broker per instance, the links between them, the
// applications, and the observers. It is the one place where model, links and engine meet.
type world struct {
	// plan replays and records fault plans (Config.FaultPlan, Config.RecordFaults); nil
	// when the run does neither.
	plan    *packetPlan
	cfg     *Config
	e       *sim.Engine
	cat     *model.Catalog
	brokers []*model.Broker
	links   [][]*faulty.Link[model.Packet] // [from][to]; nil on the diagonal
	pairs   []linkPair

	timers     timerSlab
	readers    []*readerProgram // by QueueID: the configured (or default) reader, or nil
	activated  []*readerProgram // by QueueID: the activated tasks' program, or nil
	programs   []*readerProgram // every program, in the order they appeared
	activators []*activator
	queues     []queueStats // by QueueID
	series     Series
	sampling   sampling
	waiterOf   []map[model.TxID]statementWaiter // by instance: the applications' waiting transactions
	workloads  []*workloadRun
	dialogs    map[model.ConversationID]*dialogApp
	flows      flows        // time in queue, sojourn, backlog, round trips (figures.go)
	snapshots  snapshotting // the views at instants of the run (snapshots.go)

	checker   *invariant.Checker
	violation *invariant.Violation
	liveness  *liveness // the liveness phase, checked with the checker (INV-12)
	// tracing says the trace records go to the trace, the table of conversations or the
	// sink of Config (trace_sink.go).
	tracing   bool
	trace     []model.TraceRecord
	convStats map[model.ConversationID]*conversationStats
	latency   *latencyRecorder
	levels    [11]levelStats // by the sending endpoint's level
	// statementErrors counts statements the applications issued that failed unexpectedly;
	// firstStatementError describes the first.
	statementErrors     int64
	firstStatementError string
	// delayed counts, by instance, the conversations delayed for want of a route.
	delayed []int64

	// memoryLimit is set when the run outgrew its memory budget (budget.go).
	memoryLimit *MemoryLimit

	// crashPlan lists the crashes to carry out, crashes those carried out (crash.go);
	// epochs counts each instance's crashes, deferred holds by instance the applications'
	// events that came while it was down, and droppedWhileDown counts by instance the
	// packets the links could not deliver to it then. All stay nil without crashes.
	crashPlan        []plannedCrash
	crashes          []CrashResult
	epochs           []uint32
	deferred         [][]deferredEvent
	droppedWhileDown []int64
	// host and at map brokers to the hosts whose links they use and addresses to the
	// brokers that answer there, once a failover is planned (nil otherwise: each instance is
	// its own host); failingOver holds the standby of each instance down for a failover,
	// moves the failovers done.
	host        []model.InstanceID
	at          []int32
	failingOver map[model.InstanceID]model.InstanceID
	moves       []principalMove

	// cpus are the instances' CPUs and logs, by instance, with costs on (cost.go).
	cpus []cpuPool
	// marks counts the marked paths of the world itself; the brokers count theirs
	// (model.Mark).
	marks model.MarkCounts
}

type linkPair struct {
	a, b model.InstanceID
	pair *faulty.Pair[model.Packet]
}

// build wires a world from a validated config and a seed. Its checkers keep no histories:
// Run runs the world again to show what led to a violation (withHistories).
func build(cfg *Config, cat *model.Catalog, seed uint64) (*world, error) {
	return buildKeeping(cfg, cat, seed, histories{})
}

// histories says which histories a world's checkers keep: none (the zero value), all, or
// those of the conversations named (invariant.Checker.KeepHistoriesOf).
type histories struct {
	all bool
	of  []model.ConversationID
}

// buildKeeping is build, with the checkers keeping the histories h says.
func buildKeeping(cfg *Config, cat *model.Catalog, seed uint64, h histories) (*world, error) {
	w := &world{
		cfg: cfg, e: sim.New(seed), cat: cat,
		dialogs: map[model.ConversationID]*dialogApp{},
		latency: newLatencyRecorder(),
	}
	w.timers.w = w
	if cfg.CheckInvariants {
		w.checker = invariant.New()
		if w.checker.KeepHistories(h.all); h.of != nil {
			w.checker.KeepHistoriesOf(h.of)
		}
	}
	w.liveness = newLiveness(cfg)
	w.startTracing()
	for i := range cat.Instances {
		b, err := model.NewBroker(cat, model.InstanceID(i), cfg.Broker)
		if err != nil {
			return nil, err
		}
		b.SetTracing(w.tracing || cfg.CheckInvariants)
		w.brokers = append(w.brokers, b)
	}
	plan, err := newPacketPlan(cfg, cat)
	if err != nil {
		return nil, err
	}
	w.plan = plan
	if err := w.buildLinks(); err != nil {
		return nil, err
	}
	w.waiterOf = make([]map[model.TxID]statementWaiter, len(cat.Instances))
	for i := range w.waiterOf {
		w.waiterOf[i] = map[model.TxID]statementWaiter{}
	}
	w.newCPUPools()
	w.buildReaders()
	for i := range cfg.Workloads {
		wl, err := w.newWorkload(i)
		if err != nil {
			return nil, err
		}
		w.workloads = append(w.workloads, wl)
	}
	for i, ch := range cfg.Timeline {
		if ch.Crash == nil {
			w.e.Schedule(ch.At, changeEvent{w}, uint64(i))
		}
	}
	w.planCrashes()
	return w, nil
}

// buildReaders starts the configured readers, a default reader on every other queue that
// no monitor serves, the external activators and the sampler of queue states. A queue with
// activation or an event notification gets its readers from them (ACT-6, ACT-11); the
// queues the sim made for event notifications get none.
func (w *world) buildReaders() {
	cat := w.cat
	n := len(cat.Queues)
	w.readers, w.activated, w.queues = make([]*readerProgram, n), make([]*readerProgram, n), make([]queueStats, n)
	configured := make([]*Reader, n)
	for i := range w.cfg.Readers {
		q, _ := FindQueue(cat, w.cfg.Readers[i].Queue)
		configured[q] = &w.cfg.Readers[i]
	}
	served := make([]bool, n) // by a monitor or an activator's inbox
	for _, en := range cat.EventNotifications {
		served[en.Queue] = true
	}
	for i := range w.cfg.ExternalActivators {
		q, _ := FindQueue(cat, w.cfg.ExternalActivators[i].Queue)
		served[q] = true
	}
	hidden := make([]bool, n)
	for _, s := range cat.Services {
		if s.Hidden {
			hidden[s.Queue] = true
		}
	}
	for i, q := range cat.Queues {
		w.queues[i].visible = !hidden[i]
		if q.Status == model.QueueOff {
			w.queues[i].res.StatusChanges = []QueueStatusChange{{Status: model.QueueOff}}
		}
		db := cat.Databases[q.Database]
		w.queues[i].res.Queue, w.queues[i].res.Database, w.queues[i].res.Instance = q.Name, db.Name, cat.Instances[db.Instance].Name
		a := q.Activation
		switch {
		case configured[i] != nil:
			w.readers[i] = w.newReaderProgram(model.QueueID(i), *configured[i])
		case hidden[i] || served[i] || a.Status || a.Procedure != "":
		default:
			w.readers[i] = w.newReaderProgram(model.QueueID(i), DefaultReader)
		}
		if w.readers[i] != nil {
			w.programs = append(w.programs, w.readers[i])
		}
	}
	for i := range w.cfg.ExternalActivators {
		w.activators = append(w.activators, w.newActivator(i))
	}
	w.e.Schedule(0, sampler{w}, 0)
}

// buildLinks joins every pair of instances, with the configured link or a perfect one.
func (w *world) buildLinks() error {
	n := len(w.cat.Instances)
	w.links = make([][]*faulty.Link[model.Packet], n)
	for i := range w.links {
		w.links[i] = make([]*faulty.Link[model.Packet], n)
	}
	configured := map[[2]model.InstanceID]faulty.PairConfig{}
	for _, l := range w.cfg.Links {
		a, _ := w.cat.Instance(l.A)
		b, _ := w.cat.Instance(l.B)
		if a > b {
			a, b = b, a
			l.PairConfig.AToB, l.PairConfig.BToA = l.PairConfig.BToA, l.PairConfig.AToB
			for i := range l.PairConfig.Partitions {
				p := &l.PairConfig.Partitions[i]
				switch p.Direction {
				case faulty.AToB:
					p.Direction = faulty.BToA
				case faulty.BToA:
					p.Direction = faulty.AToB
				}
			}
		}
		configured[[2]model.InstanceID{a, b}] = l.PairConfig
	}
	for a := range n {
		for b := a + 1; b < n; b++ {
			ia, ib := model.InstanceID(a), model.InstanceID(b)
			cfg := configured[[2]model.InstanceID{ia, ib}]
			pair, err := faulty.NewPair(w.e, w.cat.Instances[a].Name, w.cat.Instances[b].Name, cfg,
				w.deliverTo(ib), w.deliverTo(ia))
			if err != nil {
				return err
			}
			w.links[a][b], w.links[b][a] = pair.AToB, pair.BToA
			pair.AToB.SetRelease(w.recycleTo(ia))
			pair.BToA.SetRelease(w.recycleTo(ib))
			w.plan.wire(w, ia, ib, pair.AToB)
			w.plan.wire(w, ib, ia, pair.BToA)
			w.pairs = append(w.pairs, linkPair{ia, ib, pair})
			// Opening a connection costs the handshake's round trip (G-12).
			rtt := cfg.AToB.LatencyFixed + cfg.BToA.LatencyFixed
			w.brokers[a].SetConnectDelay(ib, rtt)
			w.brokers[b].SetConnectDelay(ia, rtt)
		}
	}
	return nil
}

// deliverTo returns the receiver of packets for instance to.
func (w *world) deliverTo(address model.InstanceID) func(faulty.Delivery[model.Packet]) {
	return func(d faulty.Delivery[model.Packet]) {
		at := w.brokerAt(address)
		switch {
		case at < 0: // nothing answers there: a standby before its failover, a host left
			w.droppedWhileDown[address]++
			return
		case w.brokers[at].Down():
			w.droppedWhileDown[at]++ // the instance is down: nothing reaches it (G-13)
			return
		}
		if w.links[d.Packet.From][address].Counters().DroppedPartition > 0 {
			w.marks[model.MarkPartitionHealed]++ // it delivers again after a partition dropped some (G-19)
		}
		to := model.InstanceID(at) // another than address once a broker failed over there
		d.Packet.To = to
		if w.crashes == nil {
			w.step(to, func(b *model.Broker) { b.PacketArrived(w.now(), &d.Packet, d.Corrupt) })
			return
		}
		enqueued := w.brokers[to].Counters().MessagesEnqueued
		w.step(to, func(b *model.Broker) { b.PacketArrived(w.now(), &d.Packet, d.Corrupt) })
		if w.brokers[to].Counters().MessagesEnqueued > enqueued {
			w.delivered(to)
		}
	}
}

// recycleTo returns where a link from address gives back the packets it is done with:
// to the broker there, which sent them, so that its free lists get back what it filled.
// No broker keeps a packet it received past PacketArrived, and nothing else in the world
// keeps one past deliverTo.
func (w *world) recycleTo(address model.InstanceID) func(model.Packet) {
	return func(p model.Packet) {
		if at := w.brokerAt(address); at >= 0 {
			w.brokers[at].RecyclePacket(&p)
		}
	}
}

// step gives the broker of inst an input at the engine's time and carries out every
// effect it asks for. It is the one way the world drives a broker, so that no input's
// effects can be forgotten: input may be one call (PacketArrived, TimerFired) or an
// application's statements in one event, whose effects are carried out together once it
// returns.
//
// A block holds its connection (G-10): the link says at once when it will have carried
// the block, and that answer, WireFreeAt, is the broker's next input, given here in the
// same event, since it may let the next block go. So step goes round until the broker
// asks nothing more. (Scheduling WireFreeAt as an event of its own would keep what the
// brokers do, but add an event per block: it would change every run's event count and
// the event numbers of its trace.)
func (w *world) step(inst model.InstanceID, input func(b *model.Broker)) {
	w.beforeInput()
	b := w.brokers[inst]
	if eff := b.Effects(); pendingEffects(eff) {
		panic(fmt.Sprintf("scenarios: instance %d has effects that no step carried out (%d packets, %d timers, %d completions, %d activations) at t=%v: an input was given outside step",
			inst, len(eff.Transmit), len(eff.Timers), len(eff.Completed), len(eff.Activations), w.now()))
	}
	input(b)
	var buf [8]wireNote
	for blocks := w.carryOut(inst, buf[:0]); len(blocks) > 0; blocks = w.carryOut(inst, buf[:0]) {
		for _, n := range blocks {
			b.WireFreeAt(w.now(), n.peer, n.at)
		}
	}
}

// carryOut carries out what the broker of inst asks after an input: packets onto links,
// timers onto the engine, readers woken, trace records to the observers. It returns, in
// blocks, when the link will have carried each block that holds its connection, for the
// broker's next input.
func (w *world) carryOut(inst model.InstanceID, blocks []wireNote) []wireNote {
	b := w.brokers[inst]
	eff := b.Effects()
	for i := range eff.Trace {
		w.countDelayed(inst, &eff.Trace[i])
		w.observe(&eff.Trace[i])
	}
	for _, p := range eff.Transmit {
		host := w.hostOf(inst)
		link := w.links[host][p.To]
		p.From = host // the address the far side answers
		link.Send(p, p.Size())
		if p.HoldsConnection {
			blocks = append(blocks, wireNote{p.To, link.WireFreeAt()})
		}
	}
	for _, t := range eff.Timers {
		w.timers.schedule(inst, t)
	}
	for _, q := range eff.Ready {
		w.noteReady(inst, q)
		if r := w.readers[q]; r != nil {
			r.wake()
		}
	}
	for _, c := range eff.Completed {
		w.completedStatement(inst, c)
	}
	for _, q := range eff.QueueDisabled {
		w.queues[q].res.PoisonDisables++
		w.queueStatusChanged(q, model.QueueOff)
	}
	for _, lw := range eff.LockWaits {
		w.queues[lw.Queue].lockWait(lw)
	}
	for _, a := range eff.Activations {
		w.startActivated(inst, a)
	}
	b.Advance()
	return blocks
}

// pendingEffects reports whether the broker asks anything of the world that has not been
// carried out.
func pendingEffects(eff *model.Effects) bool {
	return len(eff.Transmit)+len(eff.Timers)+len(eff.Ready)+len(eff.Trace)+len(eff.Completed)+
		len(eff.QueueDisabled)+len(eff.LockWaits)+len(eff.Activations) > 0
}

// wireNote says when the link to peer will have carried a block.
type wireNote struct {
	peer model.InstanceID
	at   time.Duration
}

// observe stamps a trace record with the engine's event number and hands it to the checker
// and the collectors.
func (w *world) observe(r *model.TraceRecord) {
	r.Event = w.e.Fired()
	if w.checker != nil && w.violation == nil {
		if v := w.checker.ObserveRecord(r); v != nil {
			w.violation = v
			w.e.Stop()
		}
		if r.Kind == model.TraceMessageSent {
			w.liveness.sent(r.At)
		}
	}
	if w.tracing {
		w.record(r)
	}
}

// changeEvent applies one timeline entry.
type changeEvent struct{ w *world }

func (c changeEvent) HandleEvent(i uint64) {
	ch := c.w.cfg.Timeline[i]
	if rc := ch.Route; rc != nil {
		if inst, _, err := findRouteTable(c.w.cat, rc.Instance, rc.Database); err == nil && c.w.whileDown(inst, c, i) {
			return // the route changes once the instance restarts
		}
		c.w.changeRoute(int(i), rc)
		return
	}
	if l := ch.Link; l != nil {
		a, _ := c.w.cat.Instance(l.A)
		b, _ := c.w.cat.Instance(l.B)
		for _, d := range []struct {
			link *faulty.Link[model.Packet]
			cfg  *faulty.Config
		}{{c.w.links[a][b], l.AToB}, {c.w.links[b][a], l.BToA}} {
			if d.cfg == nil {
				continue
			}
			cfg := *d.cfg
			if c.w.healed() { // no new fault once every fault healed (Liveness.After)
				cfg = healed(cfg)
			}
			if err := d.link.Reconfigure(cfg); err != nil {
				panic(fmt.Sprintf("scenarios: timeline %d at t=%v: %v", i, c.w.e.Now(), err)) // Validate checked it
			}
		}
		return
	}
	q, _ := FindQueue(c.w.cat, ch.Queue)
	inst := c.w.cat.Databases[c.w.cat.Queues[q].Database].Instance
	if c.w.whileDown(inst, c, i) {
		return // ALTER QUEUE waits for the instance to restart
	}
	if ch.Activation != nil {
		c.w.step(inst, func(b *model.Broker) {
			if err := b.AlterQueueActivation(c.w.now(), q, *ch.Activation); err != nil {
				c.w.statementFailed(fmt.Errorf("timeline %d: %w", i, err))
			}
		})
		return
	}
	if ch.Status == model.QueueOff && c.w.healed() {
		return
	}
	c.w.step(inst, func(b *model.Broker) {
		if err := b.AlterQueueStatus(c.w.now(), q, ch.Status); err != nil {
			panic(fmt.Sprintf("scenarios: timeline %d at t=%v: %v", i, c.w.now(), err))
		}
	})
	c.w.queueStatusChanged(q, ch.Status)
	if r := c.w.readers[q]; r != nil && ch.Status == model.QueueOn {
		r.wake()
	}
}

// instanceOfService returns the broker hosting a service.
func (w *world) instanceOfService(s model.ServiceID) model.InstanceID {
	return w.cat.Services[s].Instance
}

// now is the engine's virtual time.
func (w *world) now() time.Duration { return w.e.Now() }

// statementFailed counts a statement that failed where the application did not expect it.
func (w *world) statementFailed(err error) {
	if w.statementErrors == 0 {
		w.firstStatementError = fmt.Sprintf("t=%v: %v", w.now(), err)
	}
	w.statementErrors++
}
