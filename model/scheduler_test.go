package model

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceChoice is the plainly correct slow scheduler: it lists every due fragment of
// every dialog towards peer, straight from the transmission queue rows and the fragments in
// flight, and sorts them by the rule of G-11 as documented on scheduler. It returns the
// dialog and the (sequence, fragment) that should go next.
func referenceChoice(b *Broker, now time.Duration, peer InstanceID) (*endpoint, SequenceNumber, int32) {
	type due struct {
		ep    *endpoint
		seq   SequenceNumber
		frag  int32
		since time.Duration
	}
	var all []due
	for ep := range b.endpoints.all {
		if ep.local || ep.deleted || ep.farInstance != peer || ep.out == nil {
			continue
		}
		o := ep.out
		for _, u := range o.unacked {
			if u.resend {
				all = append(all, due{ep, u.seq, u.f, u.sentAt + b.cfg.retryInterval(u.retries)})
			}
		}
		for i := o.head; i < len(o.rows); i++ {
			r := &o.rows[i]
			if r.removed || r.nextUnsent == r.count {
				continue
			}
			if len(o.unacked) < b.cfg.SendWindow &&
				(r.seq <= o.ackedSeq+SequenceNumber(b.cfg.ReceiveWindow) || r.msgType == ErrorMessageType) {
				all = append(all, due{ep, r.seq, r.nextUnsent, r.enqueued})
			}
			break
		}
	}
	if len(all) == 0 {
		return nil, 0, 0
	}
	// A dialog waits as long as its oldest due fragment, and sends its lowest one.
	oldest := map[*endpoint]time.Duration{}
	lowest := map[*endpoint]due{}
	for _, d := range all {
		if s, ok := oldest[d.ep]; !ok || d.since < s {
			oldest[d.ep] = d.since
		}
		if l, ok := lowest[d.ep]; !ok || d.seq < l.seq || (d.seq == l.seq && d.frag < l.frag) {
			lowest[d.ep] = d
		}
	}
	// The effective level, written out again from G-11 rather than calling the model's.
	aged := func(ep *endpoint) int {
		level := ep.txLevel.Level()
		if b.cfg.StarvationAgingOff || level >= int(b.cfg.StarvationAgingCap) {
			return level
		}
		return min(int(b.cfg.StarvationAgingCap), level+int((now-oldest[ep])/b.cfg.StarvationAgingStep))
	}
	// Each level offers one candidate: its earliest turn when aging has not raised it, else
	// its longest-waiting dialog. The highest effective level wins, ties to the earliest turn.
	var dialogs []*endpoint
	for ep := range oldest {
		dialogs = append(dialogs, ep)
	}
	slices.SortFunc(dialogs, func(x, y *endpoint) int {
		return cmp.Or(cmp.Compare(oldest[x], oldest[y]), cmp.Compare(x.conv, y.conv), cmpInitiatorFirst(x, y))
	})
	var best *endpoint
	bestEff, bestRaised := 0, false
	for level := 1; level <= 10; level++ {
		var oldestHere, earliestTurn *endpoint
		for _, ep := range dialogs { // in age order: the first of the level is its oldest
			if ep.txLevel.Level() != level {
				continue
			}
			if oldestHere == nil {
				oldestHere = ep
			}
			if earliestTurn == nil || ep.turn < earliestTurn.turn {
				earliestTurn = ep
			}
		}
		if oldestHere == nil {
			continue
		}
		eff, cand := aged(oldestHere), oldestHere
		if eff == level {
			cand = earliestTurn
		}
		// Ties: raised before not raised; raised by age, then turn; not raised by turn.
		better := false
		switch {
		case best == nil || eff > bestEff:
			better = true
		case eff < bestEff:
		case (eff > level) != bestRaised:
			better = eff > level
		case bestRaised:
			better = oldest[cand] < oldest[best] || (oldest[cand] == oldest[best] && cand.turn < best.turn)
		default:
			better = cand.turn < best.turn
		}
		if better {
			best, bestEff, bestRaised = cand, eff, eff > level
		}
	}
	return best, lowest[best].seq, lowest[best].frag
}

func cmpInitiatorFirst(x, y *endpoint) int {
	switch {
	case x.isInitiator == y.isInitiator:
		return 0
	case x.isInitiator:
		return -1
	}
	return 1
}

// schedulerSpec is a generated mix of dialogs, levels, options and faults.
type schedulerSpec struct {
	Seed      uint64
	Dialogs   int
	Honor     bool
	AgingOff  bool
	AgingMs   int
	Loss      int // one packet from A in Loss+1 is lost; 0 for none
	MaxFrags  int
	ToggleAt  int // ms at which HONOR_BROKER_PRIORITY flips; 0 for never
	WireMicro int // wire time per fragment
}

// runScheduler drives two brokers with the spec and checks every decision of A's
// scheduler against referenceChoice. It returns "" or what went wrong.
func runScheduler(t *testing.T, s schedulerSpec) string {
	cfg := Config{FragmentSize: 256, StarvationAgingOff: s.AgingOff, StarvationAgingStep: time.Duration(s.AgingMs) * time.Millisecond}
	w := newWorld(t, cfg)
	w.wirePerFragment = time.Duration(s.WireMicro) * time.Microsecond
	r := rand.New(rand.NewPCG(s.Seed, 3))
	a := w.brokers[instA]
	require.NoError(t, a.SetHonorBrokerPriority(0, 0, s.Honor))
	decisions, failure := 0, ""
	a.onPick = func(now time.Duration, peer InstanceID, picked *endpoint) {
		decisions++
		want, seq, frag := referenceChoice(a, now, peer)
		r, f, _, _ := a.nextFragment(picked)
		switch {
		case failure != "":
		case want != picked:
			failure = fmt.Sprintf("decision %d at %v: scheduler picked %v (level %d), reference %v", decisions, now,
				picked.conv, picked.txLevel.Level(), convOf(want))
		case r.seq != seq || f != frag:
			failure = fmt.Sprintf("decision %d at %v: dialog %v sends (%d,%d), reference (%d,%d)", decisions, now,
				picked.conv, r.seq, f, seq, frag)
		}
	}
	if s.Loss > 0 {
		w.filter = func(p *Packet, n int) action {
			if p.From == instA && r.IntN(s.Loss+1) == 0 {
				return drop
			}
			return deliver
		}
	}
	if s.ToggleAt > 0 {
		w.at(time.Duration(s.ToggleAt)*time.Millisecond, func() { require.NoError(t, a.SetHonorBrokerPriority(w.now, 0, !s.Honor)) })
	}
	for i := range s.Dialogs {
		start := time.Duration(r.IntN(200)) * time.Millisecond
		level := PriorityLevel(1 + r.IntN(10))
		messages, frags := 1+r.IntN(6), 1+r.IntN(s.MaxFrags)
		w.at(start, func() {
			h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
			a.endpoints.get(uint64(h)).priority = level // as if a broker priority matched (PRI-4 is tested apart)
			for range messages {
				require.NoError(t, w.send(instA, h, "Request", int64(frags*256)))
			}
		})
		_ = i
	}
	w.runUntil(10 * time.Minute)
	if failure == "" && len(a.TransmissionQueue()) != 0 {
		failure = fmt.Sprintf("%d rows left", len(a.TransmissionQueue()))
	}
	if failure == "" && decisions == 0 {
		failure = "no decision was made"
	}
	return failure
}

func convOf(ep *endpoint) string {
	if ep == nil {
		return "nothing"
	}
	return fmt.Sprintf("%v (level %d)", ep.conv, ep.txLevel.Level())
}

// TestPRI11_SchedulerMatchesTheSortedReferenceOnEveryDecision checks, over random dialogs,
// levels, HONOR_BROKER_PRIORITY settings and flips, aging steps and losses, that every
// choice the scheduler makes is the one the sorted reference makes (PRI-11, PRI-12, G-11,
// G-26): which dialog, and which of its fragments.
func TestPRI11_SchedulerMatchesTheSortedReferenceOnEveryDecision(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(20261130)
	params.MinSuccessfulTests = 150
	if testing.Short() {
		params.MinSuccessfulTests = 40
	}
	properties := gopter.NewProperties(params)
	properties.Property("the scheduler's choice is the reference's", prop.ForAll(
		func(s schedulerSpec) string { return runScheduler(t, s) },
		gen.Struct(reflect.TypeFor[schedulerSpec](), map[string]gopter.Gen{
			"Seed":      gen.UInt64(),
			"Dialogs":   gen.IntRange(1, 30),
			"Honor":     gen.Bool(),
			"AgingOff":  gen.Bool(),
			"AgingMs":   gen.IntRange(1, 500),
			"Loss":      gen.IntRange(0, 6),
			"MaxFrags":  gen.IntRange(1, 40),
			"ToggleAt":  gen.IntRange(0, 300),
			"WireMicro": gen.IntRange(0, 3000),
		})))
	properties.TestingRun(t)
}

// Reference: spec PRI-11 and PRI-12: with HONOR_BROKER_PRIORITY ON, a backlog leaves in
// level order; OFF, every dialog leaves at level 5, in the order its messages waited.
func TestPRI12_HonorBrokerPriorityOrdersTheBacklog(t *testing.T) {
	for _, honor := range []bool{true, false} {
		t.Run(fmt.Sprintf("honor %v", honor), func(t *testing.T) {
			w := newWorld(t, Config{StarvationAgingOff: true})
			w.wirePerFragment = time.Millisecond
			a := w.brokers[instA]
			require.NoError(t, a.SetHonorBrokerPriority(0, 0, honor))
			var order []PriorityLevel
			a.onPick = func(now time.Duration, peer InstanceID, ep *endpoint) { order = append(order, ep.priority) }
			for _, level := range []PriorityLevel{1, 5, 10, 3, 8} {
				h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
				a.endpoints.get(uint64(h)).priority = level
				require.NoError(t, w.send(instA, h, "Request", 100))
			}
			w.runUntil(time.Second)

			// The first dialog's message leaves alone, in the first block; the others wait.
			if honor {
				assert.Equal(t, []PriorityLevel{1, 10, 8, 5, 3}, order)
			} else {
				assert.Equal(t, []PriorityLevel{1, 5, 10, 3, 8}, order, "level 5 for all: the order they waited in")
			}
		})
	}
}

// Reference: spec G-11 and PRI-15(b): under a saturating level-10 backlog, a level-1 message
// is sent once aging has raised it to 10, after (10-1) aging steps: it has then waited
// longer than anything else at level 10. Without aging it waits for the backlog to drain.
func TestG11_AgingBoundsTheWaitOfALowLevel(t *testing.T) {
	const step = 100 * time.Millisecond
	sentAt := func(agingOff bool) time.Duration {
		w := newWorld(t, Config{StarvationAgingStep: step, StarvationAgingOff: agingOff})
		w.wirePerFragment = 10 * time.Millisecond // 7 fragments of 8 KiB a block: 70 ms a block
		a := w.brokers[instA]
		require.NoError(t, a.SetHonorBrokerPriority(0, 0, true))
		low := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
		a.endpoints.get(uint64(low)).priority = 1
		// A level-10 flood: a new dialog of 20 fragments every 100 ms for 10 s.
		for k := range 100 {
			w.at(time.Duration(k)*step, func() {
				h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
				a.endpoints.get(uint64(h)).priority = 10
				require.NoError(t, w.send(instA, h, "Request", 20*8192))
			})
		}
		w.at(time.Millisecond, func() { require.NoError(t, w.send(instA, low, "Request", 100)) })
		w.runUntil(time.Minute)
		for _, r := range w.records(instA, TraceFragmentSent) {
			if ep := a.endpoints.get(uint64(low)); ep != nil && r.Conversation == ep.conv {
				return r.At
			}
		}
		t.Fatal("the level-1 message was never sent")
		return 0
	}

	aged := sentAt(false)
	assert.GreaterOrEqual(t, aged, time.Millisecond+9*step, "not before aging raised it to 10")
	assert.LessOrEqual(t, aged, time.Millisecond+9*step+70*time.Millisecond, "within one block of reaching 10")
	assert.Greater(t, sentAt(true), 10*time.Second, "without aging it waits for the flood to pass")
}

// A target that closes while its EndDialog waits for a retry leaves the scheduler: the
// wire is slow (10 s a fragment), the retry of the EndDialog queues behind it, and the ack
// of the first copy closes the endpoint before the wire frees. It used to stay scheduled
// with nothing due, and the next decision crashed (review finding).
func TestG16_ClosedTargetLeavesTheScheduler(t *testing.T) {
	w := newWorld(t, Config{})
	d := establish(w)
	w.wirePerFragment = 10 * time.Second
	w.filter = func(p *Packet, n int) action {
		if p.From == instA && len(p.Fragments) == 0 {
			return delayBy(5 * time.Second) // A's acks are slow
		}
		return deliver
	}
	require.NoError(t, d.endTarget(EndOptions{}))
	require.NotPanics(t, func() { w.runUntil(w.now + 10*time.Minute) })

	assert.Equal(t, "CD", d.state(false))
	for _, s := range w.brokers[instB].sched {
		assert.Zero(t, s.size, "nothing left in B's schedulers")
	}
}

// Reference: spec G-11 ("ties round-robin over dialogs") and PROTO-6 (a small message may be
// sent between the fragments of a large one): two dialogs at one level, the second starting
// while the first has a backlog, take turns fragment by fragment.
func TestG11_TiesTakeTurns(t *testing.T) {
	w := newWorld(t, Config{StarvationAgingOff: true})
	w.wirePerFragment = time.Millisecond
	a := w.brokers[instA]
	first := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	for range 10 {
		require.NoError(t, w.send(instA, first, "Request", 100))
	}
	var second ConversationHandle
	w.at(time.Millisecond/2, func() {
		second = w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
		for range 3 {
			require.NoError(t, w.send(instA, second, "Request", 100))
		}
	})
	w.runUntil(time.Second)

	var order []int
	for _, r := range w.records(instA, TraceFragmentSent) {
		if r.Conversation == a.endpoints.get(uint64(first)).conv {
			order = append(order, 1)
		} else {
			order = append(order, 2)
		}
	}
	assert.Equal(t, []int{1, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1}, order,
		"the first fragment left alone; then the dialogs alternate while both wait")
}

// Reference: spec G-26 (HONOR_BROKER_PRIORITY is OFF by default) and PRI-12 with CONF-2:
// with the option left alone, dialogs leave at level 5 in the order they waited, while the
// transmission queue rows still show each endpoint's own level.
func TestG26_HonorIsOffByDefaultAndRowsShowTheEndpointLevel(t *testing.T) {
	w := newWorld(t, Config{StarvationAgingOff: true})
	w.wirePerFragment = time.Millisecond
	a := w.brokers[instA]
	var order []PriorityLevel
	a.onPick = func(now time.Duration, peer InstanceID, ep *endpoint) { order = append(order, ep.priority) }
	for _, level := range []PriorityLevel{1, 10, 3} {
		h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
		a.endpoints.get(uint64(h)).priority = level
		require.NoError(t, w.send(instA, h, "Request", 100))
	}
	var shown []PriorityLevel
	for _, r := range a.TransmissionQueue() {
		shown = append(shown, r.Priority)
	}
	assert.ElementsMatch(t, []PriorityLevel{1, 10, 3}, shown, "the rows show the endpoints' levels")
	w.runUntil(time.Second)
	assert.Equal(t, []PriorityLevel{1, 10, 3}, order, "all at level 5 on the wire: the order they waited in")
}

// Reference: spec G-10 and TXQ-8: messages to one instance travel in blocks, each of at
// most BlockFragmentsMax fragments, whatever their size.
func TestG10_BlocksHoldAtMostBlockFragmentsMax(t *testing.T) {
	w := newWorld(t, Config{FragmentSize: 256, BlockFragmentsMax: 32})
	w.wirePerFragment = time.Millisecond
	var sizes []int
	w.filter = func(p *Packet, n int) action {
		if len(p.Fragments) > 0 {
			sizes = append(sizes, len(p.Fragments))
		}
		return deliver
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, d.initiator, "Request", 100*256)) // 100 fragments
	w.runUntil(time.Minute)

	require.NotEmpty(t, sizes)
	for i, n := range sizes {
		assert.LessOrEqual(t, n, 32, "block %d", i)
	}
	assert.Contains(t, sizes, 32, "a backlog fills blocks to the limit")
}
