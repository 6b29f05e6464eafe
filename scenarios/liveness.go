package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// Liveness is the liveness phase of a run, the checked form of INV-12, in the manner of
// TigerBeetle's simulator (VOPR): once every fault has healed, the world must deliver
// everything sent and empty its transmission queues within a bound. The zero value checks
// it with the defaults.
//
// The faults heal at After, or, when After is zero, when the last fault ends by itself:
// the end of the last partition or down window, the last ALTER QUEUE ... STATUS = ON of a
// queue that was OFF, the last timeline change that leaves a link without loss,
// duplication, corruption or a capacity. A link that is lossy for the whole run, or a
// queue left OFF, never heals by itself: such a run has no bound to meet, but it must
// still drain before its limits. A timeline change that creates or alters a route is no
// fault, but it counts as a healing at its time: the conversations delayed for want of a
// route (RTE-2 step 7) go once it comes, and none is late before.
//
// The check is made at the first input of a broker (a packet, a timer, a statement) or
// sample of the world (Config.SampleInterval) at or after the deadline, max(heal, the last
// SEND) + Within, so that it neither adds an event nor keeps a run going that would have
// drained; it fails when a message sent is not delivered or a transmission queue row is
// left. A run that drains is checked when it
// drains; a run that stops on a limit is checked then, and fails with anything left.
type Liveness struct {
	// Off says that the scenario expects its run not to drain (liveness: off): a run that
	// stops on a limit with messages undelivered passes, INV-12 unchecked. A run that drains
	// is still checked.
	Off bool
	// After, when set, is when every fault heals: the links lose, duplicate and corrupt
	// nothing more, their partitions and capacities end, every queue is set ON, and the
	// timeline's later changes bring no new fault.
	After time.Duration
	// Within is the bound; zero means DefaultLivenessWithin of the broker and links.
	Within time.Duration
}

// LivenessRetries is how many retry intervals of the longest (RetryIntervalMax, G-8) the
// default bound allows: after the faults heal, a row waits at most RetryIntervalMax for its
// next retry, and a conversation may need that many exchanges one after another (the
// message and its acknowledgement, the reply, the EndDialog of each side).
const LivenessRetries = 4

// DefaultLivenessWithin is the bound of a liveness phase that does not set one:
// LivenessRetries times RetryIntervalMax plus two round trips of the slowest link (one
// for the connection's handshake, G-12, one for the exchange), plus twice the backlog of
// the slowest link with a bandwidth (backlog) and twice the time the send window takes to
// let every declared fragment through, a window per round (windowed). With the broker's defaults and fast links
// that is 4 × (64 s + 2 round trips), a little over 4 minutes.
func DefaultLivenessWithin(cfg *Config) time.Duration {
	var rtt time.Duration
	for _, l := range cfg.Links {
		rtt = max(rtt, saturatingSum(1, oneWay(l.AToB), oneWay(l.BToA)))
	}
	for _, ch := range cfg.Timeline {
		if l := ch.Link; l != nil && l.AToB != nil && l.BToA != nil {
			rtt = max(rtt, saturatingSum(1, oneWay(*l.AToB), oneWay(*l.BToA)))
		}
	}
	b := cfg.Broker.WithDefaults()
	bound := saturatingSum(LivenessRetries, b.RetryIntervalMax, rtt, rtt)
	win := windowed(cfg, b, saturatingSum(1, rtt, b.AckDelay))
	wire := backlog(cfg)
	return saturatingSum(1, bound, wire, wire, win, win)
}

// windowed is how long the send window (G-11) takes to let every fragment the workloads
// declare through, one window of fragments per round (a round trip and the
// acknowledgement's delay): a message of many small fragments on a link with latency
// needs that long even when nothing is lost. The default bound allows it twice.
func windowed(cfg *Config, b model.Config, round time.Duration) time.Duration {
	var fragments float64
	for _, w := range cfg.Workloads {
		per := math.Ceil(float64(w.Size.distribution().MeanValue()) / float64(b.FragmentSize))
		if w.Replies {
			per += math.Ceil(float64(w.ReplySize.distribution().MeanValue()) / float64(b.FragmentSize))
		}
		fragments += float64(w.Dialogs) * float64(w.Messages) * max(per, 1)
	}
	d := fragments / float64(b.SendWindow) * float64(round)
	if d >= float64(Never) {
		return Never
	}
	return time.Duration(d)
}

// backlog is how long the slowest link with a bandwidth takes to carry, once, every byte
// the workloads declare (their messages and replies, at the mean size): a healthy world
// on a slow link may need that long after the last SEND. The default bound allows it
// twice, for the retries that share the wire. Zero when no link has a bandwidth.
func backlog(cfg *Config) time.Duration {
	slowest := int64(0)
	note := func(c faulty.Config) {
		if c.Bandwidth > 0 && (slowest == 0 || c.Bandwidth < slowest) {
			slowest = c.Bandwidth
		}
	}
	for _, l := range cfg.Links {
		note(l.AToB)
		note(l.BToA)
	}
	for _, ch := range cfg.Timeline {
		if l := ch.Link; l != nil {
			for _, c := range []*faulty.Config{l.AToB, l.BToA} {
				if c != nil {
					note(*c)
				}
			}
		}
	}
	if slowest == 0 {
		return 0
	}
	var bytes float64
	for _, w := range cfg.Workloads {
		per := w.Size.distribution().MeanValue()
		if w.Replies {
			per += w.ReplySize.distribution().MeanValue()
		}
		bytes += float64(w.Dialogs) * float64(w.Messages) * float64(per)
	}
	secs := bytes / float64(slowest)
	if secs >= float64(Never/time.Second) {
		return Never
	}
	return time.Duration(secs * float64(time.Second))
}

// saturatingSum returns n times the sum of ds, or Never when that does not fit in a
// time.Duration (durations of a few hundred years: Validate leaves them to the engine).
func saturatingSum(n int64, ds ...time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		if d < 0 || sum > Never-d {
			return Never
		}
		sum += d
	}
	if sum > Never/time.Duration(n) {
		return Never
	}
	return time.Duration(n) * sum
}

// oneWay is a direction's fixed latency plus its jitter's mean.
func oneWay(c faulty.Config) time.Duration {
	return saturatingSum(1, c.LatencyFixed, max(c.LatencyJitter.MeanValue(), 0))
}

// LivenessResult says how the liveness phase went.
type LivenessResult struct {
	// Off: the scenario expects its run not to drain.
	Off bool
	// HealAt is when the faults healed (or were to heal), or when the timeline's last
	// change that creates or alters a route comes, if later: delayed conversations wait for
	// it (RTE-2 step 7) as others wait for a link to heal. Never when the faults do not
	// heal by themselves and the scenario names no time.
	HealAt time.Duration
	// Within is the bound the run had to meet.
	Within time.Duration
	// CheckedAt is when a check found everything delivered, the last one; -1 for none.
	CheckedAt time.Duration
}

// Never is a time that never comes: faults that do not heal by themselves.
const Never = time.Duration(1<<63 - 1)

// liveness is the liveness phase of one run.
type liveness struct {
	cfg    LivenessResult
	healed bool          // After has come and every fault was healed
	forced bool          // the scenario names After
	healAt time.Duration // when the faults heal: After, or when they end by themselves
	// lastSend is when the last message was sent; checkedSend is what lastSend was at the
	// last check that passed (-1 before any), so that a new SEND calls for a new check.
	lastSend, checkedSend time.Duration
}

func newLiveness(cfg *Config) *liveness {
	l := &liveness{cfg: LivenessResult{Off: cfg.Liveness.Off, Within: cfg.Liveness.Within, CheckedAt: -1}, checkedSend: -1}
	if l.cfg.Within == 0 {
		l.cfg.Within = DefaultLivenessWithin(cfg)
	}
	l.cfg.HealAt, l.forced = faultsEnd(cfg), cfg.Liveness.After > 0
	if l.forced {
		l.cfg.HealAt = cfg.Liveness.After
	}
	l.healAt = l.cfg.HealAt
	if l.cfg.HealAt != Never {
		// A route the timeline creates (or alters) later lets the conversations delayed for
		// want of it go, as a healing would: none of them is late before it.
		l.cfg.HealAt = max(l.cfg.HealAt, routesSettle(cfg))
	}
	return l
}

// deadline is when the next check is due, Never when none is.
func (l *liveness) deadline() time.Duration {
	if l.cfg.HealAt == Never || l.lastSend == l.checkedSend {
		return Never
	}
	at := max(l.cfg.HealAt, l.lastSend)
	if at > Never-l.cfg.Within {
		return Never
	}
	return at + l.cfg.Within
}

// healEvent heals the faults of a world that had nothing left to do before their time
// (run).
type healEvent struct{ w *world }

func (h healEvent) HandleEvent(uint64) { h.w.beforeInput() }

// beforeInput runs before every input of a broker, and at every sample of the world: it
// heals the faults once their time has come, and checks INV-12 once its deadline has
// passed.
func (w *world) beforeInput() {
	l, now := w.liveness, w.now()
	if l.forced && !l.healed && now >= l.healAt {
		l.healed = true
		w.healEverything()
	}
	if w.checker == nil || w.violation != nil || l.cfg.Off || now < l.deadline() {
		return
	}
	if v := w.unfinished(now); v != nil {
		v.Message = fmt.Sprintf("not finished %v after the faults healed at %v and the last SEND at %v: %s",
			l.cfg.Within, l.cfg.HealAt, l.lastSend, v.Message)
		w.violation = v
		w.e.Stop()
		return
	}
	l.checkedSend, l.cfg.CheckedAt = l.lastSend, now
}

// sent notes a message sent, for the deadline.
func (l *liveness) sent(at time.Duration) { l.lastSend = max(l.lastSend, at) }

// finish checks INV-12 once the run has stopped for reason: a run that drained must have
// delivered everything; one that stopped on a limit fails with anything left, unless the
// scenario expects it not to drain.
func (w *world) finish(reason sim.StopReason) {
	if w.checker == nil || w.violation != nil {
		return
	}
	now := w.now()
	if reason == sim.Drained {
		// Nothing is left to happen: every timer has fired, so everything sent must have
		// arrived (INV-12).
		w.violation = w.unfinished(now)
		return
	}
	if w.liveness.cfg.Off {
		return
	}
	if v := w.unfinished(now); v != nil {
		heal := "its faults never heal"
		if h := w.liveness.cfg.HealAt; h != Never {
			heal = fmt.Sprintf("its faults healed at %v", h)
		}
		v.Message = fmt.Sprintf("the run stopped at %v (%v) with messages undelivered (%s; a scenario that expects this says liveness: off): %s",
			now, reason, heal, v.Message)
		w.violation = v
		return
	}
	w.liveness.cfg.CheckedAt = now
}

// unfinished returns the INV-12 violation of the first conversation, in conversation order,
// that has not delivered everything it sent or still has a transmission queue row, or nil.
func (w *world) unfinished(now time.Duration) *invariant.Violation {
	v := w.checker.Finish(now)
	if v == nil {
		return nil
	}
	v.Message = w.unfinishedDetail(v) + v.Message
	return v
}

// unfinishedDetail says where the violation's conversation stands, from
// sys.transmission_queue and sys.conversation_endpoints of every instance: "3 messages
// still in sys.transmission_queue of A (transmission_status "..."), the target endpoint
// of B in SI; ".
func (w *world) unfinishedDetail(v *invariant.Violation) string {
	var parts []string
	for i, b := range w.brokers {
		name := w.cat.Instances[i].Name
		var rows []model.TransmissionQueueRow
		for _, r := range b.TransmissionQueue() {
			if ep, ok := b.Endpoint(r.ConversationHandle); ok && ep.ConversationID == v.Conversation {
				rows = append(rows, r)
			}
		}
		if len(rows) > 0 {
			last := slices.MaxFunc(rows, func(x, y model.TransmissionQueueRow) int {
				return cmp.Compare(x.MessageSequenceNumber, y.MessageSequenceNumber)
			})
			part := fmt.Sprintf("%d %s still in sys.transmission_queue of %s", len(rows), map[bool]string{true: "message", false: "messages"}[len(rows) == 1], name)
			if last.TransmissionStatus != "" {
				part += fmt.Sprintf(" (the last's transmission_status %q)", last.TransmissionStatus)
			}
			parts = append(parts, part)
		}
		for _, ep := range b.Endpoints() {
			if ep.ConversationID != v.Conversation {
				continue
			}
			side := "target"
			if ep.IsInitiator {
				side = "initiator"
			}
			parts = append(parts, fmt.Sprintf("the %s endpoint of %s in %v", side, name, ep.State))
			if ep.Delayed {
				parts = append(parts, "delayed: no route leads to its far service (RTE-2 step 7)")
			}
			switch next := w.cat.Instances[ep.FarInstance]; {
			case !ep.IsInitiator || ep.Delayed:
			case next.Forwarding.Enabled && !slices.ContainsFunc(w.brokers, func(b *model.Broker) bool {
				return w.hasEndpoint(b.ID(), v.Conversation, false)
			}):
				parts = append(parts, fmt.Sprintf("no target endpoint on any instance (the messages go by forwarder %s)", next.Name))
			case !next.Forwarding.Enabled && !w.hasEndpoint(ep.FarInstance, v.Conversation, false):
				parts = append(parts, fmt.Sprintf("no target endpoint on %s", next.Name))
			}
		}
	}
	if len(parts) == 0 {
		return "no endpoint left; "
	}
	return strings.Join(parts, ", ") + "; "
}

// hasEndpoint reports whether instance inst has the initiator's (or the target's) endpoint
// of a conversation.
func (w *world) hasEndpoint(inst model.InstanceID, conv model.ConversationID, initiator bool) bool {
	return slices.ContainsFunc(w.brokers[inst].Endpoints(), func(ep model.ConversationEndpoint) bool {
		return ep.ConversationID == conv && ep.IsInitiator == initiator
	})
}

// healEverything heals every fault (Liveness.After): every crashed instance restarts; the
// links keep their latency, jitter and bandwidth but lose, duplicate and corrupt nothing
// more, and have no capacity or down window; every queue OFF is set ON.
func (w *world) healEverything() {
	w.healCrashes()
	for _, p := range w.pairs {
		for _, link := range []*faulty.Link[model.Packet]{p.pair.AToB, p.pair.BToA} {
			if err := link.Reconfigure(healed(link.Config())); err != nil {
				panic(fmt.Sprintf("scenarios: healing link %s at t=%v: %v", link.Name(), w.now(), err))
			}
		}
	}
	for q := range w.cat.Queues {
		id := model.QueueID(q)
		inst := w.queueInstance(id)
		if s, err := w.brokers[inst].QueueStatus(id); err != nil || s != model.QueueOff {
			continue
		}
		w.step(inst, func(b *model.Broker) {
			if err := b.AlterQueueStatus(w.now(), id, model.QueueOn); err != nil {
				panic(fmt.Sprintf("scenarios: healing queue %d at t=%v: %v", q, w.now(), err))
			}
		})
		w.queueStatusChanged(id, model.QueueOn)
		if r := w.readers[id]; r != nil {
			r.wake()
		}
	}
}

// healed returns c without its faults.
func healed(c faulty.Config) faulty.Config {
	c.LossProbability, c.LossBurst, c.DuplicateProbability, c.CorruptProbability = 0, faulty.GilbertElliott{}, 0, 0
	c.Capacity, c.Down = 0, nil
	return c
}

// impaired reports whether a direction loses, duplicates or corrupts packets, or drops
// them when full. Jitter reorders but delivers, and is no fault here.
func impaired(c faulty.Config) bool {
	return c.LossProbability > 0 || c.LossBurst.Enabled() || c.DuplicateProbability > 0 || c.CorruptProbability > 0 ||
		c.Capacity > 0
}

// faultsEnd returns when the last fault of cfg ends by itself, Never when one does not.
func faultsEnd(cfg *Config) time.Duration {
	var end time.Duration
	type dir struct{ a, b string }
	bad := map[dir]bool{} // the directions impaired now
	windows := func(ws []faulty.Window) {
		for _, win := range ws {
			end = max(end, win.Until)
		}
	}
	for _, l := range cfg.Links {
		bad[dir{l.A, l.B}], bad[dir{l.B, l.A}] = impaired(l.AToB), impaired(l.BToA)
		windows(l.AToB.Down)
		windows(l.BToA.Down)
		for _, p := range l.Partitions {
			end = max(end, p.Until)
		}
	}
	off := map[string]bool{} // by selector, the queues OFF now
	for _, in := range cfg.Instances {
		for _, db := range in.Databases {
			for _, q := range db.Queues {
				if q.Status == model.QueueOff {
					off[in.Name+"/"+db.Name+"/"+q.Name] = true
				}
			}
		}
	}
	timeline := slices.Clone(cfg.Timeline)
	slices.SortStableFunc(timeline, func(x, y Change) int { return cmp.Compare(x.At, y.At) })
	for _, ch := range timeline {
		if l := ch.Link; l != nil {
			for _, d := range []struct {
				dir dir
				cfg *faulty.Config
			}{{dir{l.A, l.B}, l.AToB}, {dir{l.B, l.A}, l.BToA}} {
				if d.cfg == nil {
					continue
				}
				if bad[d.dir] && !impaired(*d.cfg) {
					end = max(end, ch.At)
				}
				bad[d.dir] = impaired(*d.cfg)
				for _, win := range d.cfg.Down {
					end = max(end, max(win.Until, ch.At))
				}
			}
			continue
		}
		if ch.Activation != nil || ch.Route != nil {
			continue // a route change is no fault: routesSettle counts it
		}
		name := queueSelector(cfg, ch.Queue)
		if ch.Status == model.QueueOff {
			off[name] = true
		} else if off[name] {
			off[name] = false
			end = max(end, ch.At)
		}
	}
	for _, b := range bad {
		if b {
			return Never
		}
	}
	for _, o := range off {
		if o {
			return Never
		}
	}
	return end
}

// queueSelector returns the instance/database/queue form of a timeline's queue selector.
func queueSelector(cfg *Config, sel string) string {
	for _, in := range cfg.Instances {
		for _, db := range in.Databases {
			for _, q := range db.Queues {
				if full := in.Name + "/" + db.Name + "/" + q.Name; full == sel || q.Name == sel {
					return full
				}
			}
		}
	}
	return sel
}

// healed reports whether every fault was healed on purpose (Liveness.After).
func (w *world) healed() bool { return w.liveness.healed }

func (l Liveness) validate() error {
	switch {
	case l.After < 0:
		return fmt.Errorf("Liveness: After %v is negative", l.After)
	case l.Within < 0:
		return fmt.Errorf("Liveness: Within %v is negative", l.Within)
	}
	return nil
}
