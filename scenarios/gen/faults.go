package gen

import (
	"fmt"
	mathrand "math/rand"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// FaultMix is a fault mix for any world, a user's design say: the faults a World draws
// (loss, duplication, corruption, jitter, a partition, a bandwidth, queue flips) and,
// with Crashed, the crashes a Crash draws, put on a config that has its own instances,
// services and workloads. Apply puts it on a config; Swarm draws one per seed.
type FaultMix struct {
	Loss      float64 // on every link, both ways
	Duplicate float64
	Corrupt   float64
	JitterMs  int // the mean of an exponential jitter added to every link's latency
	// PartitionMs is how long a window cuts the link of the first two instances (none when
	// 0): up to 20 s, below every timer that would make a dialog of a healthy design run
	// twice (the retention of closed targets, G-16); OneWay cuts one direction only.
	PartitionMs int
	OneWay      bool
	// Bandwidth is every link's, per direction, in bytes per second: 0 leaves the links'
	// own, else 16 KiB/s to 10 MiB/s.
	Bandwidth  int
	QueueFlips int // ALTER QUEUE OFF, then ON again, of a queue drawn each time: 0 to 3
	Crashed    bool
	// Crash is the crashes of a mix with Crashed, on the timeline or at random; a mix does
	// not reroute the design (Gateway and Failover are left out), and a design whose
	// workloads use pools of reused dialogs is not crashed (pools are not modelled through
	// crashes).
	Crash Crash
}

// String prints every field by name, the crashes only when the mix has them.
func (m FaultMix) String() string {
	s := fmt.Sprintf("loss=%v duplicate=%v corrupt=%v jitter=%dms partition=%dms one-way=%v bandwidth=%d queue-flips=%d",
		m.Loss, m.Duplicate, m.Corrupt, m.JitterMs, m.PartitionMs, m.OneWay, m.Bandwidth, m.QueueFlips)
	if m.Crashed {
		s += fmt.Sprintf(" crashes=%d window=%dms max-down=%dms random=%v", m.Crash.Count, m.Crash.WindowMs, m.Crash.MaxDownMs, m.Crash.Random)
	}
	return s
}

// FaultMixes draws a FaultMix: loss and duplication up to 50 %, corruption up to 20 %,
// jitter up to 50 ms, no partition or one up to 20 s (one way half the time), the links'
// own bandwidth or 16 KiB/s to 10 MiB/s, up to 3 queue flips, crashes half the time
// (Crashes).
func FaultMixes() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[FaultMix](), map[string]gopter.Gen{
		"Loss":        gopgen.Float64Range(0, 0.5),
		"Duplicate":   gopgen.Float64Range(0, 0.5),
		"Corrupt":     gopgen.Float64Range(0, 0.2),
		"JitterMs":    gopgen.IntRange(0, 50),
		"PartitionMs": gopgen.OneGenOf(gopgen.Const(0), gopgen.IntRange(1, 20_000)),
		"OneWay":      gopgen.Bool(),
		"Bandwidth":   gopgen.OneGenOf(gopgen.Const(0), gopgen.IntRange(16<<10, 10<<20)),
		"QueueFlips":  gopgen.IntRange(0, 3),
		"Crashed":     gopgen.Bool(),
		"Crash":       Crashes(),
	})
}

// Apply puts the mix on cfg, with seed drawing the partition's start, the queues flipped
// and the crashes' instants (from streams of their own, not the run's): every pair of
// instances gets a link with the mix's faults (a pair cfg declares keeps its latency and
// partitions, a new one has 5 ms), and cfg's invariants are checked. cfg itself is not
// changed.
func (m FaultMix) Apply(cfg scenarios.Config, seed uint64) scenarios.Config {
	r := rand.New(rand.NewPCG(seed, 3))
	cfg.CheckInvariants = true
	links := slices.Clone(cfg.Links)
	for a := range cfg.Instances {
		for b := a + 1; b < len(cfg.Instances); b++ {
			x, y := cfg.Instances[a].Name, cfg.Instances[b].Name
			k := slices.IndexFunc(links, func(l scenarios.Link) bool { return (l.A == x && l.B == y) || (l.A == y && l.B == x) })
			if k < 0 {
				fixed := faulty.Config{LatencyFixed: 5 * time.Millisecond}
				links = append(links, scenarios.Link{A: x, B: y, PairConfig: faulty.PairConfig{AToB: fixed, BToA: fixed}})
				k = len(links) - 1
			}
			l := &links[k]
			l.AToB, l.BToA = m.link(l.AToB), m.link(l.BToA)
			if m.PartitionMs > 0 && a == 0 && b == 1 {
				l.Partitions = append(slices.Clone(l.Partitions), partition(r, m.PartitionMs, m.OneWay))
			}
		}
	}
	cfg.Links = links
	var queues []string
	for _, in := range cfg.Instances {
		for _, db := range in.Databases {
			for _, q := range db.Queues {
				queues = append(queues, q.Name)
			}
		}
	}
	if len(queues) > 0 {
		cfg.Timeline = append(slices.Clone(cfg.Timeline), queueFlips(r, queues, m.QueueFlips)...)
	}
	pooled := slices.ContainsFunc(cfg.Workloads, func(w scenarios.Workload) bool { return w.Reuse != nil })
	if m.Crashed && !pooled {
		c := m.Crash
		c.Gateway, c.Failover = false, false
		cfg = c.Apply(cfg, seed)
	}
	return cfg
}

// link is c with the mix's faults: its loss, duplication and corruption, its jitter, and
// its bandwidth when it has one.
func (m FaultMix) link(c faulty.Config) faulty.Config {
	c.LossProbability, c.DuplicateProbability, c.CorruptProbability = m.Loss, m.Duplicate, m.Corrupt
	if m.JitterMs > 0 {
		c.LatencyJitter = sim.ExponentialMean(time.Duration(m.JitterMs) * time.Millisecond)
	}
	if m.Bandwidth > 0 {
		c.Bandwidth = int64(m.Bandwidth)
	}
	return c
}

// Swarm is cfg with the fault mix of seed: one drawn from FaultMixes by a generator
// seeded with seed, so that the seed alone gives the mix, and the mix applied (Apply).
// A swarm runs each seed in a world of its own: Swarm(cfg, seed), run with seed.
func Swarm(cfg scenarios.Config, seed uint64) (scenarios.Config, FaultMix) {
	m := Draw[FaultMix](FaultMixes(), seed)
	return m.Apply(cfg, seed), m
}

// Draw draws one value from g, a generator of T (Worlds, FaultMixes, ...), with a gopter
// generator seeded with seed: the same seed gives the same value. It panics when g draws
// none (a generator with a sieve that refused it), or a value that is not a T.
func Draw[T any](g gopter.Gen, seed uint64) T {
	params := &gopter.GenParameters{MaxSize: 100, MaxShrinkCount: 1000, Rng: mathrand.New(gopter.NewLockedSource(int64(seed)))}
	v, ok := g(params).Retrieve()
	if !ok {
		panic(fmt.Sprintf("gen.Draw: the generator drew no value for seed %d", seed))
	}
	return v.(T)
}
