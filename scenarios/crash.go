package scenarios

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// CrashChange, in a timeline entry, crashes an instance at the entry's time and restarts it
// RestartAfter later (G-13): what is durable survives, what is volatile is lost (see
// model.Broker.Crash). While it is down the links carry nothing to it, its reader
// sessions and activated tasks are gone (their transactions rolled back), and the
// workloads that send from it wait; at the restart its static readers start again and the
// workloads go on.
//
// With FailoverTo, the instance's databases are mirrored to that instance, a standby host
// with no database of its own, and fail over to it: the broker restarts there after
// RestartAfter, with everything committed (synchronous mirroring), and answers at that
// address from then on, while nothing answers at its own any more. Dialogs whose route
// names the standby as MIRROR_ADDRESS follow it (RTE-3); the others keep sending to the
// old address, in vain.
type CrashChange struct {
	Instance     string
	RestartAfter time.Duration
	FailoverTo   string
}

// RandomCrashes draws crashes at random: from Start until Until, one every Interval (the
// time between two crashes of the world), of one of Instances chosen at random, down for
// Downtime. They come from a random stream of their own ("crashes"), so that drawing them
// shifts no other stream; a crash drawn for an instance that is still down is skipped.
// The zero value draws none.
type RandomCrashes struct {
	Instances    []string
	Start, Until time.Duration
	Interval     sim.Distribution
	Downtime     sim.Distribution
}

// MaxRandomCrashes bounds the crashes RandomCrashes may draw in one run.
const MaxRandomCrashes = 10000

// MinDowntime is the shortest downtime of a crash that RandomCrashes draws: a restart
// comes strictly after its crash.
const MinDowntime = time.Millisecond

// CrashResult is one crash of an instance: when it crashed, when it restarted (or was to,
// when the run ended first), and when delivery to it resumed: the first time after the
// restart that a message from another instance became ready on its queues (-1 while none
// has).
type CrashResult struct {
	Instance              string
	CrashedAt, RestartsAt time.Duration
	// Restarted is set once the instance has restarted.
	Restarted bool
	ResumedAt time.Duration
}

// Resumed reports whether delivery to the instance resumed after the restart, and how long
// after it.
func (c CrashResult) Resumed() (time.Duration, bool) {
	if !c.Restarted || c.ResumedAt < 0 {
		return 0, false
	}
	return c.ResumedAt - c.RestartsAt, true
}

// plannedCrash is a crash the world will carry out: from the timeline or drawn.
type plannedCrash struct {
	at, downtime time.Duration
	inst         model.InstanceID
	// failover is the standby the instance fails over to, when failing is set.
	failover model.InstanceID
	failing  bool
	// timeline is the timeline entry's index, -1 for a drawn crash.
	timeline int
}

// drawnLast orders a drawn crash after the timeline's at the same time.
func drawnLast(c plannedCrash) int {
	if c.timeline < 0 {
		return 1
	}
	return 0
}

func (r RandomCrashes) enabled() bool { return len(r.Instances) > 0 }

// validate checks the random crashes against the catalog.
func (r RandomCrashes) validate(cat *model.Catalog) error {
	if !r.enabled() {
		return nil
	}
	for _, name := range r.Instances {
		if _, ok := cat.Instance(name); !ok {
			return fmt.Errorf("Crashes: instance %q does not exist", name)
		}
	}
	switch {
	case r.Start < 0:
		return fmt.Errorf("Crashes: Start %v is negative", r.Start)
	case r.Until <= r.Start:
		return fmt.Errorf("Crashes: Until %v is not after Start %v: crashes are drawn between them", r.Until, r.Start)
	case r.Interval.MeanValue() <= 0:
		return fmt.Errorf("Crashes: Interval %v has no positive mean", r.Interval)
	case (r.Until-r.Start)/r.Interval.MeanValue() > MaxRandomCrashes:
		return fmt.Errorf("Crashes: about %d crashes between Start and Until, above %d", (r.Until-r.Start)/r.Interval.MeanValue(), MaxRandomCrashes)
	}
	if err := r.Interval.Validate(); err != nil {
		return fmt.Errorf("Crashes: Interval: %w", err)
	}
	if err := r.Downtime.Validate(); err != nil {
		return fmt.Errorf("Crashes: Downtime: %w", err)
	}
	return nil
}

// Validate checks a timeline entry's crash against the catalog.
func (c *CrashChange) Validate(cat *model.Catalog) error { return c.validate(cat) }

// validateStandbys checks the failovers' standby hosts: each takes over one instance, and
// a standby does not crash of its own (the instance it hosts after the failover does, on
// it). A standby down when its principal fails, or hosting two brokers, is not modelled.
func (c *Config) validateStandbys() error {
	of := map[string]string{}
	for i, ch := range c.Timeline {
		if ch.Crash == nil || ch.Crash.FailoverTo == "" || ch.Crash.FailoverTo == ch.Crash.Instance {
			continue // the crash's own check says what is wrong with the last
		}
		if prev, ok := of[ch.Crash.FailoverTo]; ok && prev != ch.Crash.Instance {
			return fmt.Errorf("timeline %d: crash of %s: FailoverTo: %s is already the standby of %s; a standby takes over one instance",
				i, ch.Crash.Instance, ch.Crash.FailoverTo, prev)
		}
		of[ch.Crash.FailoverTo] = ch.Crash.Instance
	}
	for i, ch := range c.Timeline {
		if ch.Crash != nil && of[ch.Crash.Instance] != "" {
			return fmt.Errorf("timeline %d: crash of %s: it is the standby of %s; crash %s, which it hosts after the failover",
				i, ch.Crash.Instance, of[ch.Crash.Instance], of[ch.Crash.Instance])
		}
	}
	for _, name := range c.Crashes.Instances {
		if p := of[name]; p != "" {
			return fmt.Errorf("Crashes: %s is the standby of %s and does not crash of its own", name, p)
		}
	}
	return nil
}

// validate checks a timeline entry's crash.
func (c *CrashChange) validate(cat *model.Catalog) error {
	if _, ok := cat.Instance(c.Instance); !ok {
		return fmt.Errorf("crash: instance %q does not exist", c.Instance)
	}
	if c.RestartAfter <= 0 {
		return fmt.Errorf("crash of %s: RestartAfter %v is not positive: a crashed instance restarts", c.Instance, c.RestartAfter)
	}
	if c.FailoverTo != "" {
		m, ok := cat.Instance(c.FailoverTo)
		switch {
		case !ok:
			return fmt.Errorf("crash of %s: FailoverTo: instance %q does not exist", c.Instance, c.FailoverTo)
		case c.FailoverTo == c.Instance:
			return fmt.Errorf("crash of %s: FailoverTo is the instance itself", c.Instance)
		case len(cat.Instances[m].Databases) > 0:
			return fmt.Errorf("crash of %s: FailoverTo: %s has databases of its own; a mirror host must be a standby with none", c.Instance, c.FailoverTo)
		}
	}
	return nil
}

// crashesOf lists every crash of cfg: those of the timeline and those RandomCrashes draws
// from draw (the world's "crashes" stream), in time order, ties in timeline order, leaving
// out a crash of an instance still down by then.
func crashesOf(cfg *Config, cat *model.Catalog, draw func(d sim.Distribution) time.Duration, pick func(n int) int) []plannedCrash {
	var all []plannedCrash
	for i, ch := range cfg.Timeline {
		if c := ch.Crash; c != nil {
			inst, _ := cat.Instance(c.Instance)
			m, failing := cat.Instance(c.FailoverTo)
			all = append(all, plannedCrash{at: ch.At, downtime: c.RestartAfter, inst: inst, timeline: i, failover: m, failing: failing})
		}
	}
	if r := cfg.Crashes; r.enabled() && draw != nil {
		for at := r.Start + draw(r.Interval); at < r.Until && len(all) < MaxRandomCrashes; at += max(draw(r.Interval), 1) {
			inst, _ := cat.Instance(r.Instances[pick(len(r.Instances))])
			all = append(all, plannedCrash{at: at, downtime: max(draw(r.Downtime), MinDowntime), inst: inst, timeline: -1})
		}
	}
	slices.SortStableFunc(all, func(x, y plannedCrash) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(drawnLast(x), drawnLast(y)))
	})
	upAt := map[model.InstanceID]time.Duration{}
	kept := all[:0]
	for _, c := range all {
		if up, down := upAt[c.inst]; down && c.at < up {
			continue
		}
		upAt[c.inst] = c.at + c.downtime
		kept = append(kept, c)
	}
	return kept
}

// The world's side of crashes.

// crashEvent carries out the world's planned crash with the event's index.
type crashEvent struct{ w *world }

func (c crashEvent) HandleEvent(i uint64) { c.w.crash(c.w.crashPlan[i]) }

// restartEvent restarts the instance with the event's index.
type restartEvent struct{ w *world }

func (r restartEvent) HandleEvent(i uint64) { r.w.restart(model.InstanceID(i)) }

// deferredEvent is an application's event that came while its instance was down: it runs
// at the restart, in the order it came.
type deferredEvent struct {
	h   sim.Handler
	arg uint64
}

// planCrashes lists the world's crashes, drawn from a stream of their own when the
// config draws any, and schedules them. The liveness phase begins after the last restart.
func (w *world) planCrashes() {
	var draw func(sim.Distribution) time.Duration
	var pick func(int) int
	if w.cfg.Crashes.enabled() {
		rng := w.e.Stream("crashes")
		draw = func(d sim.Distribution) time.Duration { return d.Sample(rng) }
		pick = func(n int) int { return rng.IntN(n) }
	}
	w.crashPlan = crashesOf(w.cfg, w.cat, draw, pick)
	if len(w.crashPlan) == 0 {
		return
	}
	w.failingOver = map[model.InstanceID]model.InstanceID{}
	for _, c := range w.crashPlan {
		if c.failing && w.host == nil {
			w.host, w.at = make([]model.InstanceID, len(w.brokers)), make([]int32, len(w.brokers))
			for i := range w.host {
				w.host[i], w.at[i] = model.InstanceID(i), int32(i)
			}
		}
		if c.failing {
			w.at[c.failover] = -1 // a standby: nothing answers there before the failover
		}
	}
	w.deferred = make([][]deferredEvent, len(w.brokers))
	w.epochs = make([]uint32, len(w.brokers))
	w.droppedWhileDown = make([]int64, len(w.brokers))
	for i, c := range w.crashPlan {
		w.e.Schedule(c.at, crashEvent{w}, uint64(i))
	}
	w.liveness.afterCrashes(w.crashPlan)
}

// afterCrashes moves the end of the faults to the last restart, unless the scenario
// names when they heal (crashes after that are not carried out).
func (l *liveness) afterCrashes(plan []plannedCrash) {
	if l.forced || l.cfg.HealAt == Never {
		return
	}
	for _, c := range plan {
		l.cfg.HealAt = max(l.cfg.HealAt, c.at+c.downtime)
	}
}

// crash crashes an instance (G-13), unless it is down already or every fault has healed
// (Liveness.After): its broker loses what is volatile, its sessions die with their
// transactions, and its restart is scheduled.
func (w *world) crash(c plannedCrash) {
	w.beforeInput() // the faults may heal at this very instant
	b := w.brokers[c.inst]
	if b.Down() || w.healed() {
		return
	}
	w.step(c.inst, func(b *model.Broker) { b.Crash(w.now()) })
	w.epochs[c.inst]++
	for _, r := range w.programs { // every program: static, activated and external
		if r.inst == c.inst {
			r.killSessions()
		}
	}
	w.redoAfterRestart(c.inst)
	clear(w.waiterOf[c.inst])
	w.crashes = append(w.crashes, CrashResult{Instance: w.cat.Instances[c.inst].Name, CrashedAt: w.now(), RestartsAt: w.now() + c.downtime,
		ResumedAt: -1})
	if c.failing {
		w.failingOver[c.inst] = c.failover
	}
	w.e.After(c.downtime, restartEvent{w}, uint64(c.inst))
}

// restart restarts a crashed instance: its broker sends its transmission queues again and
// activation starts again; its static readers start again, and what its applications
// were to do while it was down goes on.
func (w *world) restart(inst model.InstanceID) {
	w.beforeInput() // the faults may heal at this very instant, restarting the instance
	if !w.brokers[inst].Down() {
		return
	}
	if to, ok := w.failingOver[inst]; ok {
		delete(w.failingOver, inst)
		w.failOver(inst, to)
	}
	w.step(inst, func(b *model.Broker) { b.Restart(w.now()) })
	for _, m := range w.moves {
		w.step(inst, func(b *model.Broker) { b.PrincipalMoved(w.now(), m.from, m.to) })
	}
	for i := range w.crashes {
		if c := &w.crashes[i]; c.Instance == w.cat.Instances[inst].Name && !c.Restarted {
			c.Restarted, c.RestartsAt = true, w.now()
		}
	}
	for _, r := range w.programs {
		if r.inst == inst && r.kind == staticProgram {
			r.restartSessions()
		}
	}
	// What waited runs now, in the order it came, before the queue monitors evaluate (an
	// evaluation the restart asked for is an event of its own at this instant): an ALTER
	// QUEUE ... STATUS = OFF that came while the instance was down must not find a task
	// started for a queue that is to be OFF.
	deferred := w.deferred[inst]
	w.deferred[inst] = nil
	for _, d := range deferred {
		d.h.HandleEvent(d.arg)
	}
}

// healCrashes restarts every instance still down when the faults heal (Liveness.After).
func (w *world) healCrashes() {
	for i, b := range w.brokers {
		if b.Down() {
			w.restart(model.InstanceID(i))
		}
	}
}

// whileDown defers an application's event that comes while inst is down to its restart,
// and reports whether it did.
func (w *world) whileDown(inst model.InstanceID, h sim.Handler, arg uint64) bool {
	if w.deferred == nil || !w.brokers[inst].Down() {
		return false
	}
	w.deferred[inst] = append(w.deferred[inst], deferredEvent{h, arg})
	return true
}

// killSessions ends every session of the program that runs: they die with their
// instance, and what their transactions did for the applications is undone (the broker
// rolled them back).
func (r *readerProgram) killSessions() {
	for _, s := range r.sessions {
		s.kill()
	}
}

// kill ends a session that died with its instance.
func (s *session) kill() {
	if s.dead || s.exited {
		return
	}
	s.dead = true
	s.undoActs()
	s.batch, s.phase, s.t = s.batch[:0], phaseIdle, nil
	s.exited, s.stopped = true, true
	s.r.running--
	if s.begun {
		s.r.active--
	}
}

// restartSessions starts again, as new sessions, the static reader's sessions that died
// in a crash; those that ended for another reason stay ended.
func (r *readerProgram) restartSessions() {
	for i, s := range r.sessions {
		if !s.dead {
			continue
		}
		fresh := &session{r: r, index: s.index, rng: s.rng}
		r.sessions[i] = fresh
		r.running++
		r.stats.Sessions++
		r.stats.PeakRunning = max(r.stats.PeakRunning, r.running)
		r.w.e.After(0, fresh, evStart)
	}
}

// redoAfterRestart defers to the restart of inst what the workloads' statements that
// waited for a lock when inst crashed were to do: the crash rolled them back. A BEGIN
// DIALOG begins its dialog again; a SEND or an END CONVERSATION is taken back from the
// workload's counts, and the dialog sends and ends again from where it was. The waits are
// taken in transaction order.
func (w *world) redoAfterRestart(inst model.InstanceID) {
	ids := slices.Sorted(maps.Keys(w.waiterOf[inst]))
	for _, id := range ids {
		switch p := w.waiterOf[inst][id].(type) {
		case *pendingBegin:
			w.deferred[inst] = append(w.deferred[inst], deferredEvent{p.wl, beginAgain})
		case *pendingStatement:
			if p.end {
				p.d.ended = false
				p.wl.ended--
			} else {
				p.d.sent--
				p.wl.messagesSent--
			}
			w.deferred[inst] = append(w.deferred[inst], deferredEvent{p.wl, uint64(slices.Index(p.wl.dialogs, p.d))})
		}
	}
}

// pendingStatement is a workload's SEND or END CONVERSATION, run in a transaction of its
// own, that waits for its group's lock, in a world with crashes.
type pendingStatement struct {
	wl    *workloadRun
	d     *dialogApp
	end   bool
	epoch uint32
}

// statementCompleted counts a failure as the world counts that of any statement run on
// its own (completedStatement).
func (p *pendingStatement) statementCompleted(err error) {
	if err != nil && !errors.Is(err, model.ErrConversationNotSending) && !errors.Is(err, model.ErrHandleNotFound) {
		p.wl.w.statementFailed(err)
	}
}

// waitingStatement notes a workload's statement that waits, in a world with crashes, so
// that a crash of inst can redo it; in a world without, its completion is only checked
// for a failure (completedStatement).
func (w *world) waitingStatement(inst model.InstanceID, b *model.Broker, p *pendingStatement) {
	if w.epochs != nil {
		w.waiterOf[inst][b.LastTransaction()] = p
	}
}

// epoch counts the crashes of inst so far.
func (w *world) epoch(inst model.InstanceID) uint32 {
	if w.epochs == nil {
		return 0
	}
	return w.epochs[inst]
}

// delivered notes that messages from another instance became ready on inst: the first time
// after a restart is when delivery to it resumed.
func (w *world) delivered(inst model.InstanceID) {
	name := w.cat.Instances[inst].Name
	for i := len(w.crashes) - 1; i >= 0; i-- {
		if c := &w.crashes[i]; c.Instance == name {
			if c.Restarted && c.ResumedAt < 0 {
				c.ResumedAt = w.now()
			}
			return
		}
	}
}

// A mirrored instance's failover (CrashChange.FailoverTo).

// principalMove is a failover the brokers were told of: the databases at from answer at to.
type principalMove struct{ from, to model.InstanceID }

// failOver moves the broker of inst to the host of its standby, to: from now on it sends
// over to's links and answers at to's address, and nothing answers at inst's (its host is
// gone). Every broker up is told (the others are at their restart), so that the dialogs
// whose routes name the mirror follow it.
func (w *world) failOver(inst, to model.InstanceID) {
	w.host[inst], w.at[to], w.at[inst] = to, int32(inst), -1
	for peer := range w.brokers {
		if p := model.InstanceID(peer); p != to && p != inst {
			l := w.links[to][p]
			w.brokers[inst].SetConnectDelay(p, l.Config().LatencyFixed+w.links[p][to].Config().LatencyFixed)
		}
	}
	w.moves = append(w.moves, principalMove{inst, to})
	for i, b := range w.brokers {
		if i != int(inst) && !b.Down() {
			w.step(model.InstanceID(i), func(b *model.Broker) { b.PrincipalMoved(w.now(), inst, to) })
		}
	}
}

// hostOf returns the host whose links a broker's packets take: its own, or its standby's
// after a failover.
func (w *world) hostOf(inst model.InstanceID) model.InstanceID {
	if w.host == nil {
		return inst
	}
	return w.host[inst]
}

// brokerAt returns the broker that answers at an address, or -1 for none (a standby before
// its failover, a host after its broker moved away).
func (w *world) brokerAt(address model.InstanceID) int32 {
	if w.at == nil {
		return int32(address)
	}
	return w.at[address]
}
