package model

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Defects is a set of deliberate defects: a broker with one is broken on purpose, the way
// FoundationDB's BUGGIFY breaks a server under simulation. sbsim's own tests use them to
// show that the invariant checkers catch a broken model and that shrinking turns the
// failure into a small counterexample (docs/counterexamples.md). A design never sets one.
type Defects uint8

const (
	// DefectRedeliverDuplicates breaks PROTO-5: a copy of a one-fragment message already
	// delivered is enqueued again instead of being discarded (INV-1, INV-2 catch it).
	DefectRedeliverDuplicates Defects = 1 << iota
	// DefectShareHeldLock breaks LOCK-6 and G-24: a statement whose wait for a
	// conversation group lock would close a deadlock cycle takes the lock beside its holder
	// instead of waiting and having a victim rolled back (INV-4 catches it). It shows only
	// when transactions deadlock.
	DefectShareHeldLock
	// DefectActivateBeyondMax breaks ACT-6: the queue monitor starts a task while
	// MAX_QUEUE_READERS already run (INV-8 catches it).
	DefectActivateBeyondMax

	defectsAll = DefectRedeliverDuplicates | DefectShareHeldLock | DefectActivateBeyondMax
)

var defectNames = []string{"redeliver-duplicates", "share-held-lock", "activate-beyond-max"}

// DefectNames returns the names of every defect, in bit order: the scenario file's
// broker.defects takes them.
func DefectNames() []string { return slices.Clone(defectNames) }

// ParseDefect returns the defect of a name DefectNames lists.
func ParseDefect(name string) (Defects, error) {
	if i := slices.Index(defectNames, name); i >= 0 {
		return 1 << i, nil
	}
	return 0, fmt.Errorf("unknown defect %q: one of %s", name, strings.Join(defectNames, ", "))
}

// Names returns the names of the defects in the set, in bit order.
func (d Defects) Names() []string {
	var names []string
	for i, n := range defectNames {
		if d&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return names
}

func (d Defects) String() string { return strings.Join(d.Names(), "+") }

func (d Defects) validate() error {
	if d&^defectsAll != 0 {
		return fmt.Errorf("broker config: Defects %#x has unknown bits", uint8(d))
	}
	return nil
}

// redeliver is DefectRedeliverDuplicates: it enqueues again a copy of a one-fragment user
// message already delivered, and reports whether it did.
func (b *Broker) redeliver(now time.Duration, ep *endpoint, f *Fragment) bool {
	if b.cfg.Defects&DefectRedeliverDuplicates == 0 || f.Count != 1 || !f.MessageType.IsUser() ||
		ep.state != Conversing || ep.discardArrivals || ep.deleted {
		return false
	}
	b.arrive(now, ep, queuedMessage{seq: f.Sequence, msgType: f.MessageType, bytes: f.MessageBytes, sentAt: f.SentAt,
		txAt: f.TransmittedAt}, f.FromInitiator, 1)
	return true
}

// shareHeld is DefectShareHeldLock: when t waiting for g would close a cycle of waits, t
// takes g's lock beside its holder, and shareHeld reports that it did.
func (b *Broker) shareHeld(now time.Duration, t *Tx, g *group) bool {
	if b.cfg.Defects&DefectShareHeldLock == 0 {
		return false
	}
	h, steps := g.holder, 0
	for h != t {
		if h == nil || h.wait == nil || h.wait.lock == nil || steps > len(b.waiting) {
			return false
		}
		h, steps = h.wait.lock.holder, steps+1
	}
	g.holder = t
	t.locks = append(t.locks, g)
	b.trace(TraceRecord{At: now, Kind: TraceLockAcquired, Tx: t.id, Group: g.id})
	return true
}
