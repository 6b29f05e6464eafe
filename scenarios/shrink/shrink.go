package shrink

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// Failure is what a run broke, as shrinking keeps it: the rule (an invariant's ID, or
// "error" for a run that could not finish) and the first line of what broke.
type Failure struct {
	Rule, What string
}

func (f Failure) String() string { return f.Rule + ": " + f.What }

// same reports whether g is the failure f: the same rule, and for an error the same
// message but for its numbers.
func (f Failure) same(g Failure) bool {
	if f.Rule != g.Rule {
		return false
	}
	return f.Rule != "error" || withoutDigits(f.What) == withoutDigits(g.What)
}

func withoutDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, s)
}

// FailureOf returns what a run broke, and false when it broke nothing.
func FailureOf(res *scenarios.Result, err error) (Failure, bool) {
	switch {
	case err != nil:
		return Failure{Rule: "error", What: firstLine(err.Error())}, true
	case res.Violation != nil:
		return Failure{Rule: res.Violation.Rule, What: firstLine(res.Violation.Message)}, true
	}
	return Failure{}, false
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// Size measures a case: the events its run took, the messages its workloads send (a
// reply counts as one) and the faults it holds (packet faults of its plan, timeline
// changes, down windows and partitions, random crashes, readers that roll back). Steps,
// messages and faults together, is what shrinking makes small.
type Size struct {
	Events           uint64
	Messages, Faults int
}

// Steps returns the messages and faults of the case.
func (s Size) Steps() int { return s.Messages + s.Faults }

func (s Size) String() string {
	return fmt.Sprintf("%s (%s, %s), %s", plural(s.Steps(), "step"), plural(s.Messages, "message"), plural(s.Faults, "fault"), plural(int(s.Events), "event"))
}

// sizeOf measures cfg, whose run took events.
func sizeOf(cfg *scenarios.Config, events uint64) Size {
	s := Size{Events: events}
	for _, w := range cfg.Workloads {
		n := w.Dialogs * max(w.Messages, 1)
		if w.Replies {
			n *= 2
		}
		s.Messages += n
	}
	if cfg.FaultPlan != nil {
		s.Faults += len(cfg.FaultPlan.Packets)
	}
	s.Faults += len(cfg.Timeline)
	for _, l := range cfg.Links {
		s.Faults += len(l.AToB.Down) + len(l.BToA.Down) + len(l.Partitions)
		if random(l.AToB) || random(l.BToA) {
			s.Faults++ // a link that draws its faults at random
		}
	}
	if len(cfg.Crashes.Instances) > 0 {
		s.Faults++
	}
	for _, r := range cfg.Readers {
		if r.RollbackRate > 0 {
			s.Faults++
		}
	}
	for _, p := range cfg.Procedures {
		if p.RollbackRate > 0 {
			s.Faults++
		}
	}
	return s
}

// random reports whether a direction draws faults or jitter at random: what a fault plan
// replaces.
func random(c faulty.Config) bool {
	return c.LossProbability > 0 || c.LossBurst.Enabled() || c.DuplicateProbability > 0 || c.CorruptProbability > 0 ||
		c.LatencyJitter != (sim.Distribution{})
}

// Options bound a shrink. MaxRuns is how many runs it may make (zero: DefaultMaxRuns):
// the bound is in runs, not time, so that a shrink gives the same case on every machine.
type Options struct {
	MaxRuns int
}

// DefaultMaxRuns bounds a shrink that Options do not.
const DefaultMaxRuns = 3000

// Outcome is a shrunk counterexample: the failure, the seed, the case (a configuration
// whose links replay a fault plan), its run, traced, and what shrinking took.
type Outcome struct {
	// Failure is what the shrunk case broke (the rule of the first run, its own values);
	// First what the first run broke, on FirstSeed.
	Failure, First Failure
	// Seed is the case's seed: FirstSeed, or one after it that a small case failed on.
	Seed, FirstSeed uint64
	Config          scenarios.Config
	// Result is the case's run, traced, its packets recorded (empty, but for Events, when
	// the run ended in an error rather than a violation).
	Result *scenarios.Result
	// Before and After measure the case as it failed first and once shrunk; Runs counts
	// the runs shrinking made, Accepted the smaller cases it kept on the way; AtBound says
	// that it stopped at Options.MaxRuns, not at a case no candidate could shrink.
	Before, After  Size
	Runs, Accepted int
	AtBound        bool
	// Replayable says whether the case replays a fault plan; false when the run failed
	// only with the links' random streams, and the case keeps them.
	Replayable bool
}

// ErrHolds says the run to shrink broke nothing.
var ErrHolds = errors.New("the run breaks no invariant: there is nothing to shrink")

// Shrink makes a failing run of cfg on seed small: it records what the links did to
// packets (scenarios.FaultPlan), replays it without their random streams, and then, as
// long as a smaller case fails the same rule, removes workloads, dialogs, messages,
// faults of the plan, changes of the timeline and down windows, shortens outages and
// turns off rollbacks, touches and random crashes, one candidate at a time, keeping the
// first that still fails (greedy, to a fixed point or o.MaxRuns). It checks invariants
// whatever cfg says.
func Shrink(cfg scenarios.Config, seed uint64, o Options) (*Outcome, error) {
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	cfg.CheckInvariants, cfg.Trace, cfg.TraceSink, cfg.Conversations = true, false, nil, false
	cfg.RecordFaults = true
	s := &shrinker{seed: seed, max: o.MaxRuns}
	res, err := s.run(cfg)
	f, failed := FailureOf(res, err)
	if !failed {
		return nil, ErrHolds
	}
	s.failure = f
	out := &Outcome{Failure: f, First: f, Seed: seed, FirstSeed: seed, Before: sizeOf(&cfg, events(res))}
	cur := cfg
	if res != nil && res.FaultPlan != nil {
		planned := cfg.Planned(res.FaultPlan)
		if _, ok := s.fails(planned); ok {
			cur, out.Replayable = planned, true
		}
	}
	if res != nil && res.Violation != nil {
		s.conv, s.last = res.Violation.Conversation, res
	}
	for changed := true; changed && s.runs < s.max; {
		changed = false
		for _, pass := range s.passes() {
			for s.runs < s.max {
				accepted := false
				for _, cand := range bySize(pass(cur)) {
					if s.runs >= s.max {
						break
					}
					if r, ok := s.fails(cand); ok {
						cur, accepted = cand, true
						if r.Violation != nil {
							s.conv, s.last = r.Violation.Conversation, r
						}
						if cur.FaultPlan != nil && r.FaultPlan != nil {
							cur.FaultPlan = r.FaultPlan // only the entries the run used
						}
						out.Accepted++
						break
					}
				}
				if !accepted {
					break
				}
				changed = true
			}
		}
	}
	final := cur
	final.Trace, final.RecordFaults = true, true
	r, err := s.run(final)
	g, failed := FailureOf(r, err)
	if !failed || !g.same(f) {
		return nil, fmt.Errorf("shrink: the shrunk case, run again with its trace, does not fail %s as its run did: %v", f.Rule, g)
	}
	if r == nil { // an error, not a violation: no result to show
		r = &scenarios.Result{}
	}
	final.Trace, final.RecordFaults = false, false
	out.Config, out.Result, out.Runs, out.After, out.Seed, out.Failure = final, r, s.runs, sizeOf(&final, r.Events), s.seed, g
	out.AtBound = s.runs >= s.max
	return out, nil
}

func events(res *scenarios.Result) uint64 {
	if res == nil {
		return 0
	}
	return res.Events
}

// shrinker holds what a shrink keeps between its runs.
type shrinker struct {
	seed      uint64
	max, runs int
	failure   Failure
	conv      model.ConversationID
	last      *scenarios.Result // the case's last failing run
}

// run runs cfg on the case's seed.
func (s *shrinker) run(cfg scenarios.Config) (*scenarios.Result, error) {
	return s.runSeed(cfg, s.seed)
}

// runSeed runs cfg on seed, a panic of the model turned into an error.
func (s *shrinker) runSeed(cfg scenarios.Config, seed uint64) (res *scenarios.Result, err error) {
	s.runs++
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return scenarios.Run(cfg, seed)
}

// fails runs cfg and reports whether it fails as the shrink's run did: on the case's seed,
// or, for a case of at most SeedSearchSteps steps, on one of the SeedSearch seeds after it
// (the seed is part of a case: with fewer dialogs, the streams the links' plan does not
// replace draw otherwise, and the failure may need another seed to show).
func (s *shrinker) fails(cfg scenarios.Config) (*scenarios.Result, bool) {
	if r, ok := s.failsOn(cfg, s.seed); ok {
		return r, true
	}
	if sizeOf(&cfg, 0).Steps() > SeedSearchSteps {
		return nil, false
	}
	for i := uint64(1); i <= SeedSearch && s.runs < s.max; i++ {
		if r, ok := s.failsOn(cfg, s.seed+i); ok {
			s.seed += i
			return r, true
		}
	}
	return nil, false
}

// SeedSearch is how many seeds after its own a small candidate case, of at most
// SeedSearchSteps steps, is tried on.
const (
	SeedSearch      = 16
	SeedSearchSteps = 200
)

// failsOn runs cfg on seed and reports whether it fails as the shrink's run did.
func (s *shrinker) failsOn(cfg scenarios.Config, seed uint64) (*scenarios.Result, bool) {
	res, err := s.runSeed(cfg, seed)
	f, failed := FailureOf(res, err)
	if !failed || !f.same(s.failure) || (err != nil && res == nil && s.failure.Rule != "error") {
		return nil, false
	}
	if res == nil {
		res = &scenarios.Result{}
	}
	return res, true
}

// A pass proposes smaller cases than c, the likeliest to help first.
type pass func(c scenarios.Config) []scenarios.Config

// passes are a shrink's passes, in order.
func (s *shrinker) passes() []pass {
	bulk := func(c scenarios.Config) []scenarios.Config { return planBulk(c, s.conv) }
	return []pass{bulk, s.transplant, timeline, links, workloads, planChunks, catalog, programs, rest}
}

// edit returns a copy of c that f changed; c's slices are cloned first so that f may
// change their elements.
func edit(c scenarios.Config, f func(*scenarios.Config)) scenarios.Config {
	c.Workloads = slices.Clone(c.Workloads)
	c.Readers = slices.Clone(c.Readers)
	c.Procedures = slices.Clone(c.Procedures)
	c.Timeline = slices.Clone(c.Timeline)
	c.Links = slices.Clone(c.Links)
	for i := range c.Links {
		c.Links[i].AToB.Down = slices.Clone(c.Links[i].AToB.Down)
		c.Links[i].BToA.Down = slices.Clone(c.Links[i].BToA.Down)
		c.Links[i].Partitions = slices.Clone(c.Links[i].Partitions)
	}
	if c.FaultPlan != nil {
		p := *c.FaultPlan
		p.Packets = slices.Clone(p.Packets)
		c.FaultPlan = &p
	}
	f(&c)
	return c
}

// smaller returns the values to try in place of n, floor at least: the floor, a quarter,
// half and three quarters of the way, one less; every value when there are few.
func smaller(n, floor int) []int {
	var out []int
	if n-floor <= 8 {
		for v := floor; v < n; v++ {
			out = append(out, v)
		}
		return out
	}
	for _, v := range []int{floor, floor + (n-floor)/4, floor + (n-floor)/2, floor + 3*(n-floor)/4, n - 1} {
		if v >= floor && v < n && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// planBulk drops whole classes of packet faults: all, all but conversation conv's (the one
// the failure names, zero for none), every delay, every loss, duplicate or corruption.
func planBulk(c scenarios.Config, conv model.ConversationID) []scenarios.Config {
	if c.FaultPlan == nil || len(c.FaultPlan.Packets) == 0 {
		return nil
	}
	var out []scenarios.Config
	keep := func(f func(*scenarios.PacketFault) bool) {
		cand := edit(c, func(c *scenarios.Config) {
			c.FaultPlan.Packets = slices.DeleteFunc(c.FaultPlan.Packets, func(p scenarios.PacketFault) bool { return !f(&p) })
		})
		if len(cand.FaultPlan.Packets) < len(c.FaultPlan.Packets) {
			out = append(out, cand)
		}
	}
	keep(func(*scenarios.PacketFault) bool { return false })
	if conv != 0 {
		keep(func(p *scenarios.PacketFault) bool { return convOf(p.Key) == conv.String() })
	}
	keep(func(p *scenarios.PacketFault) bool { return p.Lost || p.Corrupt || p.Duplicate })
	cand := edit(c, func(c *scenarios.Config) {
		for i := range c.FaultPlan.Packets {
			c.FaultPlan.Packets[i].Jitter, c.FaultPlan.Packets[i].DuplicateJitter = 0, 0
		}
	})
	if !slices.Equal(cand.FaultPlan.Packets, c.FaultPlan.Packets) {
		out = append(out, cand)
	}
	keep(func(p *scenarios.PacketFault) bool { return !p.Lost })
	keep(func(p *scenarios.PacketFault) bool { return !p.Duplicate })
	keep(func(p *scenarios.PacketFault) bool { return !p.Corrupt })
	return out
}

// chunks proposes n-element lists without one chunk, chunks of half the list first, down
// to single elements (ddmin's complements).
func chunks(n int, without func(from, to int) scenarios.Config) []scenarios.Config {
	var out []scenarios.Config
	for size := (n + 1) / 2; size >= 1; size /= 2 {
		for from := 0; from < n; from += size {
			out = append(out, without(from, min(from+size, n)))
		}
		if size == 1 {
			break
		}
	}
	return out
}

// planChunks removes packet faults, chunk by chunk, then delays alone.
func planChunks(c scenarios.Config) []scenarios.Config {
	if c.FaultPlan == nil {
		return nil
	}
	n := len(c.FaultPlan.Packets)
	out := chunks(n, func(from, to int) scenarios.Config {
		return edit(c, func(c *scenarios.Config) { c.FaultPlan.Packets = slices.Delete(c.FaultPlan.Packets, from, to) })
	})
	for i, p := range c.FaultPlan.Packets {
		if (p.Jitter != 0 || p.DuplicateJitter != 0) && (p.Lost || p.Corrupt || p.Duplicate) {
			out = append(out, edit(c, func(c *scenarios.Config) {
				c.FaultPlan.Packets[i].Jitter, c.FaultPlan.Packets[i].DuplicateJitter = 0, 0
			}))
		}
	}
	return out
}

// workloads removes workloads, dialogs, messages, replies, groups and big bodies.
func workloads(c scenarios.Config) []scenarios.Config {
	var out []scenarios.Config
	if len(c.Workloads) > 1 {
		for i := range c.Workloads {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads = slices.Delete(c.Workloads, i, i+1) }))
		}
	}
	for i, w := range c.Workloads {
		for _, n := range smaller(w.Dialogs, 1) {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads[i].Dialogs = n }))
		}
		for _, n := range smaller(w.Messages, 1) {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads[i].Messages = n }))
		}
		if w.Replies {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads[i].Replies = false }))
		}
		for _, n := range smaller(w.GroupSize, 0) {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads[i].GroupSize = n }))
		}
		if small := scenarios.FixedSize(100); w.Size != small && (w.Size.Mean > 100 || w.Size.Max > 100) {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads[i].Size = small }))
		}
		if w.Start > 0 {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Workloads[i].Start = 0 }))
		}
	}
	return out
}

// timeline removes changes, chunk by chunk, and shortens crashes.
func timeline(c scenarios.Config) []scenarios.Config {
	out := chunks(len(c.Timeline), func(from, to int) scenarios.Config {
		return edit(c, func(c *scenarios.Config) { c.Timeline = slices.Delete(c.Timeline, from, to) })
	})
	for i, ch := range c.Timeline {
		if ch.Crash != nil && ch.Crash.RestartAfter > time.Second {
			out = append(out, edit(c, func(c *scenarios.Config) {
				cr := *c.Timeline[i].Crash
				cr.RestartAfter /= 2
				c.Timeline[i].Crash = &cr
			}))
		}
	}
	return out
}

// links removes down windows and partitions, then halves them.
func links(c scenarios.Config) []scenarios.Config {
	var out []scenarios.Config
	for i, l := range c.Links {
		windows := []struct {
			n   int
			get func(c *scenarios.Config) *[]faulty.Window
		}{
			{len(l.AToB.Down), func(c *scenarios.Config) *[]faulty.Window { return &c.Links[i].AToB.Down }},
			{len(l.BToA.Down), func(c *scenarios.Config) *[]faulty.Window { return &c.Links[i].BToA.Down }},
		}
		for _, w := range windows {
			for j := range w.n {
				out = append(out, edit(c, func(c *scenarios.Config) { d := w.get(c); *d = slices.Delete(*d, j, j+1) }))
				out = append(out, edit(c, func(c *scenarios.Config) { d := w.get(c); (*d)[j] = halve((*d)[j]) }))
			}
		}
		for j := range l.Partitions {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Links[i].Partitions = slices.Delete(c.Links[i].Partitions, j, j+1) }))
			out = append(out, edit(c, func(c *scenarios.Config) {
				c.Links[i].Partitions[j].Window = halve(c.Links[i].Partitions[j].Window)
			}))
		}
		if c.FaultPlan == nil && (random(l.AToB) || random(l.BToA)) { // a case that keeps the random streams
			out = append(out, edit(c, func(c *scenarios.Config) {
				clean := scenarios.Config{Links: []scenarios.Link{l}}.Planned(nil).Links[0]
				c.Links[i].AToB, c.Links[i].BToA = clean.AToB, clean.BToA
			}))
		}
	}
	return out
}

// halve shortens a window to its first half, at least a millisecond long.
func halve(w faulty.Window) faulty.Window {
	if d := w.Until - w.From; d > 2*time.Millisecond {
		w.Until = w.From + d/2
	}
	return w
}

// programs removes reader sessions, rollbacks, touches and batches.
func programs(c scenarios.Config) []scenarios.Config {
	var out []scenarios.Config
	for i, r := range c.Readers {
		for _, n := range smaller(max(r.Sessions, 1), 1) {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Readers[i].Sessions = n }))
		}
		if r.RollbackRate > 0 {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Readers[i].RollbackRate = 0 }))
		}
		if r.TouchRate > 0 {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Readers[i].TouchRate = 0 }))
		}
		if r.CommitEvery > 1 {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Readers[i].CommitEvery = 0 }))
		}
		if slow, ok := slower(r.ProcessingTime); ok {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Readers[i].ProcessingTime = slow }))
		}
	}
	for i, p := range c.Procedures {
		if p.RollbackRate > 0 {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Procedures[i].RollbackRate = 0 }))
		}
		if p.CommitEvery > 1 {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Procedures[i].CommitEvery = 0 }))
		}
		if slow, ok := slower(p.ProcessingTime); ok {
			out = append(out, edit(c, func(c *scenarios.Config) { c.Procedures[i].ProcessingTime = slow }))
		}
	}
	return out
}

// slower returns a processing time ten times as long, while its mean is under
// slowestProcessing: not a smaller case, but one in which a queue backs up with fewer
// messages, so that a failure that needs a backlog may then shrink its workload.
func slower(d sim.Distribution) (sim.Distribution, bool) {
	if m := d.MeanValue(); m <= 0 || m >= slowestProcessing {
		return d, false
	}
	d.Mean, d.StdDev, d.Min, d.Max = 10*d.Mean, 10*d.StdDev, 10*d.Min, 10*d.Max
	return d, true
}

// slowestProcessing bounds the processing times shrinking makes slower.
const slowestProcessing = 5 * time.Second

// rest turns off random crashes and the cost model.
func rest(c scenarios.Config) []scenarios.Config {
	var out []scenarios.Config
	if len(c.Crashes.Instances) > 0 {
		out = append(out, edit(c, func(c *scenarios.Config) { c.Crashes = scenarios.RandomCrashes{} }))
	}
	if c.Costs != nil {
		out = append(out, edit(c, func(c *scenarios.Config) { c.Costs = nil }))
	}
	return out
}

// transplant moves the failure to a smaller workload when the fault plan names the failing
// conversation: the plan's keys name conversations, and with fewer dialogs the failing one
// may never begin. For each workload cut to one or two dialogs, starting as it did or when
// the failing conversation began, a probe run finds the conversations that begin, and
// faults are moved to each of the first three: the failing conversation's, and every fault
// from its beginning to the failure (a packet of acknowledgements is keyed by its first,
// which may be another conversation's).
func (s *shrinker) transplant(c scenarios.Config) []scenarios.Config {
	if s.conv == 0 || c.FaultPlan == nil || s.runs >= s.max {
		return nil
	}
	t0, began := s.began()
	var mine, during, rest []scenarios.PacketFault
	for _, p := range c.FaultPlan.Packets {
		in := convOf(p.Key) == s.conv.String()
		span := began && p.At >= t0 && p.At <= s.last.Violation.At
		if in {
			mine = append(mine, p)
		}
		if in || span {
			during = append(during, p)
		} else {
			rest = append(rest, p)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	sets := [][]scenarios.PacketFault{mine}
	if len(during) > len(mine) {
		sets = append(sets, during)
	}
	starts := []time.Duration{-1}
	if began {
		starts = append(starts, t0)
	}
	var out []scenarios.Config
	for i, w := range c.Workloads {
		for _, n := range []int{1, 2} {
			for _, start := range starts {
				if n >= w.Dialogs || s.runs >= s.max {
					continue
				}
				probe := edit(c, func(c *scenarios.Config) {
					c.Workloads[i].Dialogs = n
					if start >= 0 {
						c.Workloads[i].Start = start
					}
					c.FaultPlan.Packets = slices.Clone(rest)
				})
				out = append(out, s.transplanted(probe, sets)...)
			}
		}
		// Two dialogs a second apart, the second when the failing one began: the first
		// opens the connections the failing one found open.
		if began && w.Dialogs > 2 && s.runs < s.max {
			probe := edit(c, func(c *scenarios.Config) {
				c.Workloads[i].Dialogs = 2
				c.Workloads[i].Interarrival = sim.Fixed(time.Second)
				c.Workloads[i].Start = max(t0-time.Second, 0)
				c.FaultPlan.Packets = slices.Clone(rest)
			})
			out = append(out, s.transplanted(probe, sets)...)
		}
	}
	return out
}

// convOf returns the conversation a packet key names.
func convOf(key string) string {
	f := strings.Fields(key)
	if len(f) > 1 && f[0] == "ack" {
		return f[1]
	}
	if len(f) > 0 {
		return f[0]
	}
	return ""
}

// rekey returns a packet key naming conversation to instead.
func rekey(key, to string) string {
	from := convOf(key)
	if from == "" {
		return key
	}
	return strings.Replace(key, from, to, 1)
}

// movedKeys returns the keys a fault of key becomes on conversation to: the same packet of
// to, or, for a block of acknowledgements keyed by another conversation's, which may have
// carried the failing one's, the acknowledgements of to's first messages in both
// directions (the passes after drop those that do not matter).
func (s *shrinker) movedKeys(key string, to model.ConversationID) []string {
	if convOf(key) == s.conv.String() || !strings.HasPrefix(key, "ack ") {
		return []string{rekey(key, to.String())}
	}
	var keys []string
	for _, dir := range []bool{true, false} {
		for seq := range movedAcks {
			keys = append(keys, fmt.Sprintf("ack %v %s seq=%d frag=0", to, scenarios.Arrow(dir), seq))
		}
	}
	return keys
}

// movedAcks is how many messages' acknowledgements movedKeys gives, in each direction.
const movedAcks = 4

// began returns when the failing conversation began in the case's last failing run: its
// first record the checker kept, or its first packet.
func (s *shrinker) began() (time.Duration, bool) {
	r := s.last
	if r == nil || r.Violation == nil {
		return 0, false
	}
	t0, ok := time.Duration(0), false
	for _, rec := range r.Violation.Records {
		if rec.Conversation == s.conv && (!ok || rec.At < t0) {
			t0, ok = rec.At, true
		}
	}
	for _, p := range r.Packets {
		if p.Conversation == s.conv && (!ok || p.At < t0) {
			t0, ok = p.At, true
		}
	}
	return t0, ok
}

// transplanted runs probe, finds the conversations that begin in it, and returns probe
// with each set of faults moved to each of the first three.
func (s *shrinker) transplanted(probe scenarios.Config, sets [][]scenarios.PacketFault) []scenarios.Config {
	res, _ := s.run(probe)
	if res == nil {
		return nil
	}
	var convs []model.ConversationID
	for _, p := range res.Packets {
		if p.Conversation != 0 && !slices.Contains(convs, p.Conversation) && len(convs) < 3 {
			convs = append(convs, p.Conversation)
		}
	}
	var out []scenarios.Config
	for _, to := range convs {
		for _, set := range sets {
			out = append(out, edit(probe, func(c *scenarios.Config) {
				seen := map[string]bool{}
				for _, p := range set {
					for _, key := range s.movedKeys(p.Key, to) {
						q := p
						q.Key = key
						id := fmt.Sprintf("%s>%s %s %d", q.From, q.To, q.Key, q.Copy)
						if !seen[id] {
							seen[id] = true
							c.FaultPlan.Packets = append(c.FaultPlan.Packets, q)
						}
					}
				}
			}))
		}
	}
	return out
}

// catalog lowers the MAX_QUEUE_READERS of activated queues.
func catalog(c scenarios.Config) []scenarios.Config {
	var out []scenarios.Config
	for i := range c.Instances {
		for d := range c.Instances[i].Databases {
			for q, queue := range c.Instances[i].Databases[d].Queues {
				for _, n := range smaller(queue.Activation.MaxQueueReaders, 1) {
					out = append(out, edit(c, func(c *scenarios.Config) {
						c.Instances = slices.Clone(c.Instances)
						c.Instances[i].Databases = slices.Clone(c.Instances[i].Databases)
						c.Instances[i].Databases[d].Queues = slices.Clone(c.Instances[i].Databases[d].Queues)
						c.Instances[i].Databases[d].Queues[q].Activation.MaxQueueReaders = n
					}))
				}
			}
		}
	}
	return out
}

// bySize orders candidates smallest first (stable): the first that fails is the smallest
// of its pass.
func bySize(cands []scenarios.Config) []scenarios.Config {
	steps := make([]int, len(cands))
	idx := make([]int, len(cands))
	for i := range cands {
		steps[i], idx[i] = sizeOf(&cands[i], 0).Steps(), i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return steps[a] - steps[b] })
	out := make([]scenarios.Config, len(cands))
	for i, j := range idx {
		out[i] = cands[j]
	}
	return out
}
