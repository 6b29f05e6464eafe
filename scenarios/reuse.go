package scenarios

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sbsim/sbsim/model"
)

// pool is a workload's pool of reused dialogs (Reuse) at work: the conversation reuse
// table, one slot per dialog, and the senders that share it. Units of work arrive at the
// workload's interarrival and go to the senders in turn; a sender runs its units one after
// another, each in a transaction of its own.
type pool struct {
	wl      *workloadRun
	slots   []poolSlot
	senders []*sender
	arrived int // units of work arrived so far
}

// poolSlot is one row of the reuse table: the dialog its senders SEND on, nil when a
// recycling retired it and the next unit begins a new one.
type poolSlot struct {
	d       *dialogApp
	begunAt time.Duration
}

// sender is one application session that sends units of work on its slot's dialog.
type sender struct {
	p       *pool
	index   int
	slot    int
	rng     *rand.Rand // its transactions' hold times
	backlog int        // units arrived and not yet begun
	busy    bool
	t       *model.Tx
	d       *dialogApp // the dialog of the unit in progress
	// first is the dialog's SendSequence when the unit's first SEND got the group's lock:
	// its messages take the next sequence numbers (G-31), none of another unit's between.
	first model.SequenceNumber
	err   error
	// waited says the unit's first SEND waited for the group's lock, since waitedAt.
	waited   bool
	waitedAt time.Duration
	// owed is the CPU time its current step's statements cost; busyUntil is when the CPU
	// work and log flush of its last step are done: its next event waits for it (cost.go).
	owed      bill
	busyUntil time.Duration
}

// Sender events.
const (
	evUnit uint64 = iota
	evUnitLocked
	evUnitHeld
)

func newPool(wl *workloadRun) *pool {
	cfg := wl.cfg.Reuse
	p := &pool{wl: wl, slots: make([]poolSlot, cfg.Dialogs)}
	prefix := "workload/" + wl.cfg.Name + "/" + strconv.Itoa(wl.index) + "/sender/"
	for i := range cfg.senders() {
		p.senders = append(p.senders, &sender{p: p, index: i, slot: i % cfg.Dialogs, rng: wl.w.e.Stream(prefix + strconv.Itoa(i))})
	}
	if wl.cfg.Dialogs > 0 {
		wl.w.e.Schedule(wl.cfg.Start, p, 0)
	}
	return p
}

// HandleEvent is the arrival of a unit of work: its sender runs it now, or after those it
// has not finished.
func (p *pool) HandleEvent(uint64) {
	s := p.senders[p.arrived%len(p.senders)]
	p.arrived++
	s.backlog++
	if !s.busy {
		s.busy = true
		p.wl.w.e.After(0, s, evUnit)
	}
	if p.arrived < p.wl.cfg.Dialogs {
		p.wl.w.e.After(p.wl.cfg.Interarrival.Sample(p.wl.arrivals), p, 0)
	}
}

func (s *sender) HandleEvent(ev uint64) {
	wl := s.p.wl
	if s.busyUntil > wl.w.now() {
		wl.w.e.Schedule(s.busyUntil, s, ev) // still at its last step's CPU work
		return
	}
	wl.w.step(wl.inst, func(b *model.Broker) {
		switch ev {
		case evUnit:
			s.begin(b)
		case evUnitLocked:
			s.locked(b)
		case evUnitHeld:
			s.commit(b)
		}
	})
	s.payCPU(ev == evUnitHeld)
}

// charge notes that the sender ran n statements of kind k in its current step.
func (s *sender) charge(k costKind, n int) {
	if c := s.p.wl.w.cfg.Costs; c != nil {
		s.owed.add(c, k, n)
	}
}

// payCPU serves what the sender owes for its step on its instance's CPUs, with the log
// flush when the step committed; its next event waits until busyUntil.
func (s *sender) payCPU(commit bool) {
	wl := s.p.wl
	w := wl.w
	c := w.cfg.Costs
	if c == nil || s.owed.cpu == 0 && !(commit && s.owed.wrote) {
		return
	}
	s.busyUntil = max(s.busyUntil, s.owed.pay(&w.cpus[wl.inst], c, w.now(), int(w.cat.Services[wl.from].Database), commit))
}

func (s *sender) statementCompleted(err error) {
	s.err = err
	s.p.wl.w.e.After(0, s, evUnitLocked)
}

// begin starts the next unit: BEGIN TRANSACTION, then BEGIN DIALOG when the slot has no
// dialog, and the first SEND, which may wait for the group's lock.
func (s *sender) begin(b *model.Broker) {
	wl, w := s.p.wl, s.p.wl.w
	s.backlog--
	if s.t != nil && s.t.Done() {
		b.Recycle(s.t)
	}
	s.t = b.Begin(w.now())
	slot := &s.p.slots[s.slot]
	if slot.d == nil {
		s.charge(costBeginDialog, 1)
		h, err := s.t.BeginDialog(w.now(), wl.from, wl.to, wl.contract,
			model.BeginDialogOptions{Lifetime: wl.cfg.Lifetime, ToBrokerInstance: wl.toBroker})
		if err != nil {
			// A new group is never locked by another transaction: only the catalog refuses.
			s.fail(err)
			return
		}
		ep, _ := b.Endpoint(h)
		d := &dialogApp{wl: wl, initiator: h, initiatorLevel: ep.Priority, targetLevel: model.DefaultPriority, reused: true}
		w.dialogs[ep.ConversationID] = d
		wl.dialogs = append(wl.dialogs, d)
		wl.begun++
		slot.d, slot.begunAt = d, w.now()
	}
	s.d = slot.d
	err := s.send(b)
	if err == model.ErrWaiting {
		wl.lockWaits++
		s.waited, s.waitedAt = true, w.now()
		w.waiterOf[wl.inst][s.t.ID()] = s
		return
	}
	s.err = err
	s.locked(b)
}

// send SENDs one message of the unit on its dialog.
func (s *sender) send(b *model.Broker) error {
	wl := s.p.wl
	s.charge(costSend, 1)
	size := int64(wl.cfg.Size.distribution().Sample(wl.sizes))
	err := s.t.Send(wl.w.now(), s.d.initiator, wl.messageType, size)
	if err == nil || err == model.ErrWaiting {
		s.d.sent++
		wl.messagesSent++
	}
	return err
}

// locked goes on once the unit's first SEND holds the dialog's group: if the dialog was
// retired meanwhile (the sender before recycled it), the unit starts again on the slot's
// next dialog; otherwise it sends the rest, recycles the dialog when it is due, and holds
// the transaction open for its hold time.
func (s *sender) locked(b *model.Broker) {
	wl, w := s.p.wl, s.p.wl.w
	// The first SEND was counted when it was issued, if it did not fail at once.
	counted := s.waited || s.err == nil
	if s.waited {
		s.waited = false
		wl.lockWait += w.now() - s.waitedAt
	}
	slot := &s.p.slots[s.slot]
	failed := errors.Is(s.err, model.ErrHandleNotFound) || errors.Is(s.err, model.ErrConversationNotSending)
	if (s.err != nil || slot.d != s.d) && counted {
		s.d.sent-- // the SEND is rolled back
		wl.messagesSent--
	}
	if s.err != nil && !failed {
		s.fail(s.err)
		return
	}
	if failed && slot.d == s.d {
		slot.d = nil // the dialog failed (an Error, its lifetime): the slot begins a new one
	}
	if failed || slot.d != s.d {
		s.t.Rollback(w.now())
		s.backlog++ // begin takes it again
		s.begin(b)
		return
	}
	ep, _ := b.Endpoint(s.d.initiator)
	s.first = ep.SendSequence
	for range wl.cfg.Messages - 1 {
		if err := s.send(b); err != nil {
			s.fail(err) // the unit holds the group: its SENDs cannot wait
			return
		}
	}
	if s.due(slot) {
		s.recycle(b, slot)
	}
	w.e.After(wl.cfg.Reuse.HoldTime.Sample(s.rng), s, evUnitHeld)
}

// carried is how many messages the unit's dialog will have carried once the unit
// commits: those before its first (the dialog's SendSequence then), and its own.
func (s *sender) carried() int { return int(s.first) + s.p.wl.cfg.Messages }

// due reports whether the slot's dialog is due for recycling after this unit.
func (s *sender) due(slot *poolSlot) bool {
	r := s.p.wl.cfg.Reuse
	return (r.RecycleAfterMessages > 0 && s.carried() >= r.RecycleAfterMessages) ||
		(r.RecycleAfter > 0 && s.p.wl.w.now()-slot.begunAt >= r.RecycleAfter)
}

// recycle retires the slot's dialog in the unit's transaction: an end-of-stream message
// that the target ends on, or END CONVERSATION after the unit's messages (DLG-8). The
// slot's next unit begins a new dialog.
func (s *sender) recycle(b *model.Broker, slot *poolSlot) {
	wl, w := s.p.wl, s.p.wl.w
	d := slot.d
	slot.d = nil
	wl.recycled++
	if wl.cfg.Reuse.EndOfStream {
		s.charge(costSend, 1)
		if err := s.t.Send(w.now(), d.initiator, wl.messageType, 0); err != nil {
			s.fail(err)
			return
		}
		d.endOfStream = s.carried() + 1 // d.sent counts SENDs still waiting, to be rolled back
		return
	}
	s.charge(costEnd, 1)
	if err := s.t.EndConversation(w.now(), d.initiator, model.EndOptions{}); err != nil {
		s.fail(err)
		return
	}
	d.ended = true
	wl.ended++
}

// commit commits the unit, checks that its messages took consecutive sequence numbers
// after the first (no other unit's between: the group's lock, LOCK-9 and LOCK-3), and
// starts the sender's next unit.
func (s *sender) commit(b *model.Broker) {
	wl, w := s.p.wl, s.p.wl.w
	if s.t.Done() {
		return // a failed statement rolled it back
	}
	s.t.Commit(w.now())
	s.charge(costCommit, 1)
	want := s.first + model.SequenceNumber(wl.cfg.Messages)
	if s.d.endOfStream > 0 {
		want++
	}
	// An Error or the lifetime's end that came during the unit drops its SENDs at the
	// commit (ER): nothing to check then.
	if ep, ok := b.Endpoint(s.d.initiator); ok && ep.State != model.Error && ep.State != model.DisconnectedInbound {
		got := ep.SendSequence
		if ep.EndDialogSequence >= 0 {
			got = ep.EndDialogSequence // the EndDialog took the next one
		}
		if got != want {
			panic(fmt.Sprintf("scenarios: workload %s: sender %d's unit on conversation %v took sequence numbers %d..%d, not consecutive from %d: another unit's SENDs came between (LOCK-9) at t=%v",
				wl.cfg.Name, s.index, s.d.initiator, s.first, got-1, s.first, w.now()))
		}
	}
	s.next()
}

// fail counts a statement that failed and abandons the unit.
func (s *sender) fail(err error) {
	w := s.p.wl.w
	w.statementFailed(err)
	s.p.wl.sendFails++
	if !s.t.Done() {
		s.t.Rollback(w.now())
	}
	s.next()
}

// next starts the sender's next unit, if one has arrived.
func (s *sender) next() {
	if s.backlog > 0 {
		s.p.wl.w.e.After(0, s, evUnit)
		return
	}
	s.busy = false
}
