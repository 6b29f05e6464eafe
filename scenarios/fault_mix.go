package scenarios

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// FaultMix is the fault mix an exploration (simulate explore) draws for one seed (DrawFaultMix): which faults are on
// and how strong, on each link of the scenario, and the crashes, queue outages and
// rollbacks it adds, until HealAt, when every fault heals and the liveness phase begins
// (Liveness). The seed alone gives it back: the mix comes from a random stream
// of its own, apart from the run's.
type FaultMix struct {
	Seed  uint64
	Swarm bool
	// HealAt ends the faults: from then on the run must deliver everything within the
	// liveness bound (INV-12).
	HealAt time.Duration
	Links  []LinkMix
	// Crashes are crashes of instances, each restarted after its downtime (G-13).
	Crashes []CrashMix
	// QueuesOff are queues set OFF for a while, then ON (TXQ-4, G-18).
	QueuesOff []QueueOffMix
	// RollbackRate is the chance that a reader's transaction rolls back (TXN-3), for
	// every reader and procedure whose own rate is lower.
	RollbackRate float64
}

// LinkMix is the faults drawn for the link between instances A and B, both ways: every
// pair of instances has one, whether the config declares its link or leaves it to the
// default (a perfect link).
type LinkMix struct {
	A, B string
	// Loss is the chance a packet is lost; Burst makes the losses come in bursts (a
	// Gilbert-Elliott channel of that mean loss).
	Loss  float64
	Burst bool
	// Duplicate and Corrupt are the chances a packet arrives twice, or corrupt.
	Duplicate, Corrupt float64
	// Jitter is the mean of an exponential delay added to each packet: packets overtake
	// each other (reordering).
	Jitter time.Duration
	// Slow, when set, makes the link slow until the faults heal: Latency more one way and
	// Bandwidth bytes a second.
	Slow      bool
	Latency   time.Duration
	Bandwidth int64
	// Partitions cut the link for a while, both ways or one.
	Partitions []faulty.Partition
}

// CrashMix is one crash of an instance at At, restarted after Downtime.
type CrashMix struct {
	Instance string
	At       time.Duration
	Downtime time.Duration
}

// QueueOffMix is a queue set OFF at From and ON again at Until.
type QueueOffMix struct {
	Queue       string
	From, Until time.Duration
}

// The kinds of fault a mix draws, in the order DrawFaultMix draws them.
const (
	faultLoss = iota
	faultBurst
	faultDuplicate
	faultReorder
	faultCorrupt
	faultSlow
	faultPartition
	faultCrash
	faultQueueOff
	faultRollback
	faultKinds
)

// Bounds of what DrawFaultMix draws. Outages reach past every timer of the broker (the
// retry's 64 s, the 30 minutes a closed target is kept, G-16): a mix must be able to
// break what only a long outage breaks.
const (
	minFaultPhase, maxFaultPhase   = 30 * time.Second, 2 * time.Hour
	minOutage, maxOutage           = time.Second, 2 * time.Hour
	minMixDowntime, maxMixDowntime = 100 * time.Millisecond, 20 * time.Minute
)

// DrawFaultMix draws the fault mix of seed for scenario cfg. Without swarm every kind of fault
// is on, at a strength drawn for the seed; with swarm each kind is on for about half the
// seeds (swarm testing: a seed with fewer kinds on lets the others act fully).
func DrawFaultMix(cfg *Config, seed uint64, swarm bool) FaultMix {
	h := fnv.New64a()
	fmt.Fprintf(h, "explore/%t", swarm)
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	on := [faultKinds]bool{}
	for k := range on {
		on[k] = !swarm || r.IntN(2) == 0
	}
	m := FaultMix{Seed: seed, Swarm: swarm, HealAt: logUniform(r, minFaultPhase, maxFaultPhase)}
	for _, pair := range linkPairs(cfg) {
		lm := LinkMix{A: pair[0], B: pair[1]}
		if on[faultLoss] {
			lm.Loss = 0.2 * r.Float64() * r.Float64() // most seeds lose little, some a fifth
			lm.Burst = on[faultBurst] && r.IntN(2) == 0
		}
		if on[faultDuplicate] {
			lm.Duplicate = 0.05 * r.Float64()
		}
		if on[faultCorrupt] {
			lm.Corrupt = 0.02 * r.Float64()
		}
		if on[faultReorder] {
			lm.Jitter = logUniform(r, time.Millisecond, 500*time.Millisecond)
		}
		if on[faultSlow] && r.IntN(2) == 0 {
			lm.Slow, lm.Latency = true, logUniform(r, 50*time.Millisecond, 2*time.Second)
			lm.Bandwidth = int64(logUniform(r, 2_000, 2_000_000)) // bytes a second
		}
		if on[faultPartition] {
			for range 1 + r.IntN(3) {
				from := time.Duration(r.Int64N(int64(m.HealAt)))
				length := logUniform(r, minOutage, maxOutage)
				lm.Partitions = append(lm.Partitions, faulty.Partition{
					Window:    faulty.Window{From: from, Until: min(from+length, m.HealAt)},
					Direction: faulty.Direction(r.IntN(3))})
			}
		}
		m.Links = append(m.Links, lm)
	}
	if names := crashable(cfg); on[faultCrash] && len(names) > 0 {
		down := ownDowntimes(cfg) // a crash while an instance is down would be dropped
		for range r.IntN(4) {
			at := time.Duration(r.Int64N(int64(m.HealAt)))
			c := CrashMix{Instance: names[r.IntN(len(names))], At: at,
				Downtime: min(logUniform(r, minMixDowntime, maxMixDowntime), m.HealAt-at+minMixDowntime)}
			window := faulty.Window{From: c.At, Until: c.At + c.Downtime}
			if slices.ContainsFunc(down[c.Instance], func(w faulty.Window) bool { return w.From <= window.Until && window.From <= w.Until }) {
				continue
			}
			down[c.Instance] = append(down[c.Instance], window)
			m.Crashes = append(m.Crashes, c)
		}
		slices.SortStableFunc(m.Crashes, func(a, b CrashMix) int { return int(a.At - b.At) })
	}
	if on[faultQueueOff] {
		queues := queueNames(cfg)
		for range min(r.IntN(3), len(queues)) {
			k := r.IntN(len(queues)) // each queue once: two outages of one queue would end at the first ON
			from := time.Duration(r.Int64N(int64(m.HealAt)))
			m.QueuesOff = append(m.QueuesOff, QueueOffMix{Queue: queues[k], From: from,
				Until: min(from+logUniform(r, minOutage, 30*time.Minute), m.HealAt)})
			queues = slices.Delete(slices.Clone(queues), k, k+1)
		}
	}
	if on[faultRollback] {
		m.RollbackRate = 0.2 * r.Float64()
	}
	return m
}

// linkPairs lists every pair of instances, each once: as the config's link names it
// (A, B), in the order of the links, then the pairs the config leaves to the default link,
// in the order of the instances.
func linkPairs(cfg *Config) [][2]string {
	var pairs [][2]string
	declared := map[[2]string]bool{}
	for _, l := range cfg.Links {
		pairs = append(pairs, [2]string{l.A, l.B})
		declared[[2]string{l.A, l.B}], declared[[2]string{l.B, l.A}] = true, true
	}
	for a := range cfg.Instances {
		for b := a + 1; b < len(cfg.Instances); b++ {
			if p := [2]string{cfg.Instances[a].Name, cfg.Instances[b].Name}; !declared[p] {
				pairs = append(pairs, p)
			}
		}
	}
	return pairs
}

// logUniform draws a duration whose logarithm is uniform between those of lo and hi:
// short and long outages alike.
func logUniform(r *rand.Rand, lo, hi time.Duration) time.Duration {
	return time.Duration(math.Exp(math.Log(float64(lo)) + r.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
}

// ownDowntimes lists, by instance, when the scenario's own timeline has it down.
func ownDowntimes(cfg *Config) map[string][]faulty.Window {
	down := map[string][]faulty.Window{}
	for _, ch := range cfg.Timeline {
		if c := ch.Crash; c != nil {
			down[c.Instance] = append(down[c.Instance], faulty.Window{From: ch.At, Until: ch.At + c.RestartAfter})
		}
	}
	return down
}

// crashable lists the instances a mix may crash: all but the standbys of failovers, which
// host nothing until their failover; none when a workload reuses a pool of dialogs, which
// the model does not carry through crashes.
func crashable(cfg *Config) []string {
	for _, w := range cfg.Workloads {
		if w.Reuse != nil {
			return nil
		}
	}
	standby := map[string]bool{}
	for _, ch := range cfg.Timeline {
		if ch.Crash != nil && ch.Crash.FailoverTo != "" {
			standby[ch.Crash.FailoverTo] = true
		}
	}
	var names []string
	for _, in := range cfg.Instances {
		if !standby[in.Name] {
			names = append(names, in.Name)
		}
	}
	return names
}

// queueNames lists the world's queues as instance/database/queue.
func queueNames(cfg *Config) []string {
	var names []string
	for _, in := range cfg.Instances {
		for _, db := range in.Databases {
			for _, q := range db.Queues {
				names = append(names, in.Name+"/"+db.Name+"/"+q.Name)
			}
		}
	}
	return names
}

// Apply returns cfg with the mix's faults added: the links' drawn faults on top of their
// own, partitions, crashes and queue outages on the timeline, the rollback rate for
// readers whose own is lower, every fault healed at HealAt, and a time limit that leaves
// the liveness phase room. The checkers are on, and the run must drain.
func (m FaultMix) Apply(cfg Config) Config {
	cfg.CheckInvariants = true
	cfg.Links = slices.Clone(cfg.Links)
	own := cfg.Timeline // the scenario's own changes
	cfg.Timeline = slices.Clone(cfg.Timeline)
	for _, lm := range m.Links {
		i := slices.IndexFunc(cfg.Links, func(l Link) bool { return l.A == lm.A && l.B == lm.B })
		if i < 0 { // a pair the config leaves to the default link: a perfect one, declared now
			cfg.Links, i = append(cfg.Links, Link{A: lm.A, B: lm.B}), len(cfg.Links)
		}
		l := &cfg.Links[i]
		atHeal := l.PairConfig // the scenario's link when the faults heal
		l.AToB, l.BToA = lm.apply(l.AToB), lm.apply(l.BToA)
		l.Partitions = append(slices.Clone(l.Partitions), lm.Partitions...)
		// The scenario's own changes of the link before the heal keep the mix's faults.
		for j, ch := range own {
			lc := ch.Link
			if lc == nil || !(lc.A == l.A && lc.B == l.B || lc.A == l.B && lc.B == l.A) || ch.At > m.HealAt {
				continue
			}
			forward := lc.A == l.A
			for _, d := range []struct {
				c    *faulty.Config
				same bool
			}{{lc.AToB, forward}, {lc.BToA, !forward}} {
				switch {
				case d.c == nil:
				case d.same:
					atHeal.AToB = *d.c
				default:
					atHeal.BToA = *d.c
				}
			}
			if ch.At == m.HealAt {
				continue
			}
			changed := *lc
			for _, c := range []**faulty.Config{&changed.AToB, &changed.BToA} {
				if *c != nil {
					v := lm.apply(**c)
					if lm.Slow {
						v = lm.slow(v)
					}
					*c = &v
				}
			}
			cfg.Timeline[j].Link = &changed
		}
		if lm.Slow {
			// Slow until the faults heal, then as fast as the scenario's own link: a slowness
			// that stayed would be the design's, and its backlog the liveness bound's.
			aToB, bToA := lm.slow(l.AToB), lm.slow(l.BToA)
			cfg.Timeline = append(cfg.Timeline,
				Change{Link: &LinkChange{A: l.A, B: l.B, AToB: &aToB, BToA: &bToA}},
				Change{At: m.HealAt, Link: &LinkChange{A: l.A, B: l.B, AToB: &atHeal.AToB, BToA: &atHeal.BToA}})
		}
	}
	for _, c := range m.Crashes {
		cfg.Timeline = append(cfg.Timeline, Change{At: c.At,
			Crash: &CrashChange{Instance: c.Instance, RestartAfter: c.Downtime}})
	}
	for _, q := range m.QueuesOff {
		cfg.Timeline = append(cfg.Timeline, Change{At: q.From, Queue: q.Queue, Status: model.QueueOff},
			Change{At: q.Until, Queue: q.Queue, Status: model.QueueOn})
	}
	if m.RollbackRate > 0 { // until the faults heal: rollbacks that go on would disable a queue for good (QUE-8)
		cfg.Readers = slices.Clone(cfg.Readers)
		for i := range cfg.Readers {
			if r := &cfg.Readers[i]; r.RollbackRate < m.RollbackRate {
				r.RollbackRate, r.RollbackUntil = m.RollbackRate, m.HealAt
			}
		}
		cfg.Procedures = slices.Clone(cfg.Procedures)
		for i := range cfg.Procedures {
			if p := &cfg.Procedures[i]; p.RollbackRate < m.RollbackRate {
				p.RollbackRate, p.RollbackUntil = m.RollbackRate, m.HealAt
			}
		}
	}
	cfg.Liveness = Liveness{After: m.HealAt, Within: cfg.Liveness.Within, Off: cfg.Liveness.Off}
	within := cfg.Liveness.Within
	if within == 0 {
		within = DefaultLivenessWithin(&cfg)
	}
	if limit := m.HealAt + 4*within + time.Hour; cfg.MaxTime != 0 && cfg.MaxTime < limit {
		cfg.MaxTime = limit
	}
	return cfg
}

// apply adds the link's drawn faults to one direction's configuration.
func (lm LinkMix) apply(c faulty.Config) faulty.Config {
	// The drawn loss replaces the link's own when it is larger in the mean (a link loses
	// independently or in bursts, not both).
	if own := max(c.LossProbability, c.LossBurst.MeanLoss()); lm.Loss > own {
		c.LossProbability, c.LossBurst = lm.Loss, faulty.GilbertElliott{}
		if lm.Burst {
			// Bursts of 5 packets on average, all lost, in the share of the time that makes
			// the mean loss lm.Loss.
			c.LossProbability = 0
			c.LossBurst = faulty.GilbertElliott{GoodToBad: 0.2 * lm.Loss / (1 - lm.Loss), BadToGood: 0.2, LossBad: 1}
		}
	}
	c.DuplicateProbability = max(c.DuplicateProbability, lm.Duplicate)
	c.CorruptProbability = max(c.CorruptProbability, lm.Corrupt)
	if lm.Jitter > 0 && c.LatencyJitter.Mean < lm.Jitter {
		c.LatencyJitter = sim.ExponentialMean(lm.Jitter)
	}
	return c
}

// slow makes one direction of the link slow: more latency, less bandwidth.
func (lm LinkMix) slow(c faulty.Config) faulty.Config {
	c.LatencyFixed += lm.Latency
	if c.Bandwidth == 0 || c.Bandwidth > lm.Bandwidth {
		c.Bandwidth = lm.Bandwidth
	}
	return c
}

// String prints the mix on one line per kind of fault, as explore prints it under the
// seed.
func (m FaultMix) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "faults until %v, then the liveness phase", m.HealAt.Round(time.Millisecond))
	if m.Swarm {
		b.WriteString(" (swarm)")
	}
	for _, l := range m.Links {
		var parts []string
		if l.Loss > 0 {
			loss := fmt.Sprintf("loss %.2f%%", 100*l.Loss)
			if l.Burst {
				loss = fmt.Sprintf("loss %.2f%% in bursts", 100*l.Loss)
			}
			parts = append(parts, loss)
		}
		if l.Duplicate > 0 {
			parts = append(parts, fmt.Sprintf("duplication %.2f%%", 100*l.Duplicate))
		}
		if l.Corrupt > 0 {
			parts = append(parts, fmt.Sprintf("corruption %.2f%%", 100*l.Corrupt))
		}
		if l.Jitter > 0 {
			parts = append(parts, fmt.Sprintf("reordering (jitter %v)", l.Jitter.Round(time.Millisecond)))
		}
		if l.Slow {
			parts = append(parts, fmt.Sprintf("slow (+%v, %d B/s)", l.Latency.Round(time.Millisecond), l.Bandwidth))
		}
		for _, p := range l.Partitions {
			parts = append(parts, fmt.Sprintf("partition %s %v", p.Direction, roundWindow(p.Window)))
		}
		if len(parts) == 0 {
			parts = []string{"no fault"}
		}
		fmt.Fprintf(&b, "\n  link %s-%s: %s", l.A, l.B, strings.Join(parts, ", "))
	}
	for _, c := range m.Crashes {
		fmt.Fprintf(&b, "\n  crash of %s at %v, down %v", c.Instance, c.At.Round(time.Millisecond), c.Downtime.Round(time.Millisecond))
	}
	for _, q := range m.QueuesOff {
		fmt.Fprintf(&b, "\n  queue %s OFF %v", q.Queue, roundWindow(faulty.Window{From: q.From, Until: q.Until}))
	}
	if m.RollbackRate > 0 {
		fmt.Fprintf(&b, "\n  readers roll back %.2f%% of their transactions", 100*m.RollbackRate)
	}
	return b.String()
}

func roundWindow(w faulty.Window) faulty.Window {
	return faulty.Window{From: w.From.Round(time.Millisecond), Until: w.Until.Round(time.Millisecond)}
}
