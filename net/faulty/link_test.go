package faulty

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

// packet is what the tests send: a number and the time it was sent.
type packet struct {
	id     int
	sentAt time.Duration
}

// arrival is one delivery as the receiver saw it.
type arrival struct {
	id      int
	sentAt  time.Duration
	at      time.Duration
	corrupt bool
}

// harness is one link on its own engine, with a receiver that records every arrival and
// checks the counters at each one.
type harness struct {
	t    *testing.T
	e    *sim.Engine
	link *Link[packet]
	got  []arrival
}

func newHarness(t *testing.T, seed uint64, cfg Config) *harness {
	t.Helper()
	h := &harness{t: t, e: sim.New(seed)}
	link, err := New(h.e, "A->B", cfg, h.receive)
	require.NoError(t, err)
	h.link = link
	return h
}

func (h *harness) receive(d Delivery[packet]) {
	h.got = append(h.got, arrival{id: d.Packet.id, sentAt: d.Packet.sentAt, at: h.e.Now(), corrupt: d.Corrupt})
	if err := h.link.Counters().Check(); err != nil {
		h.t.Fatalf("at %v: counters do not add up: %v", h.e.Now(), err)
	}
}

// sendEvery sends n packets of size bytes, one every interval from time zero, then runs the
// engine until nothing is left in flight.
func (h *harness) sendEvery(n int, interval time.Duration, size int) {
	next := 0
	var send sim.HandlerFunc
	send = func(uint64) {
		h.link.Send(packet{id: next, sentAt: h.e.Now()}, size)
		next++
		if next < n {
			h.e.After(interval, send, 0)
		}
	}
	h.e.Schedule(0, send, 0)
	require.Equal(h.t, sim.Drained, h.e.Run(sim.Limits{MaxEvents: uint64(10*n + 100)}))
	c := h.link.Counters()
	require.NoError(h.t, c.Check())
	require.Zero(h.t, c.InFlight, "nothing stays in flight once the engine drains")
}

func (h *harness) ids() []int {
	ids := make([]int, len(h.got))
	for i, a := range h.got {
		ids[i] = a.id
	}
	return ids
}

func TestZeroConfigIsAPerfectLink(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.sendEvery(100, time.Millisecond, 500)

	require.Len(t, h.got, 100)
	for i, a := range h.got {
		assert.Equal(t, i, a.id, "order")
		assert.Equal(t, a.sentAt, a.at, "packet %d: no delay", i)
		assert.False(t, a.corrupt, "packet %d: intact", i)
	}
	assert.Equal(t, Counters{Sent: 100, Delivered: 100, Bytes: 50000, BytesDelivered: 50000}, h.link.Counters())
}

func TestLatencyAndBandwidthDelayPacketsInFIFOOrder(t *testing.T) {
	// 1000 B/s: a 1000-byte packet takes one second on the wire; ten sent at once queue.
	h := newHarness(t, 1, Config{LatencyFixed: 50 * time.Millisecond, Bandwidth: 1000})
	h.sendEvery(10, 0, 1000)

	require.Len(t, h.got, 10)
	for i, a := range h.got {
		assert.Equal(t, i, a.id)
		assert.Equal(t, time.Duration(i+1)*time.Second+50*time.Millisecond, a.at, "packet %d", i)
	}
}

// binomialBound is five standard deviations of the fraction of n Bernoulli(p) trials: a
// correct link falls outside it with probability about 6 in 10 million.
func binomialBound(p float64, n int) float64 { return 5 * math.Sqrt(p*(1-p)/float64(n)) }

func TestMeasuredLossIsWithinFiveSigmaOfTheProbability(t *testing.T) {
	const n = 50000
	for _, p := range []float64{0.01, 0.1, 0.3, 0.5} {
		for seed := uint64(1); seed <= 3; seed++ {
			h := newHarness(t, seed, Config{LossProbability: p})
			h.sendEvery(n, time.Millisecond, 100)

			measured := float64(h.link.Counters().Lost) / n
			assert.InDelta(t, p, measured, binomialBound(p, n), "loss %v seed %d", p, seed)
		}
	}
}

// burstVariance is the asymptotic variance per packet of the loss count under a stationary
// Gilbert–Elliott chain: the Bernoulli variance plus the autocovariance the shared state
// adds, which decays as λ^k with λ = 1 − GoodToBad − BadToGood.
func burstVariance(g GilbertElliott) float64 {
	bad := g.GoodToBad / (g.GoodToBad + g.BadToGood)
	good := 1 - bad
	mean := g.MeanLoss()
	lambda := 1 - g.GoodToBad - g.BadToGood
	d := g.LossGood - g.LossBad
	return mean*(1-mean) + 2*good*bad*d*d*lambda/(1-lambda)
}

func TestBurstyLossHasItsMeanAndComesInBursts(t *testing.T) {
	const n = 200000
	g := GilbertElliott{GoodToBad: 0.01, BadToGood: 0.2, LossGood: 0.001, LossBad: 0.8}
	for seed := uint64(1); seed <= 3; seed++ {
		h := newHarness(t, seed, Config{LossBurst: g})
		h.sendEvery(n, time.Millisecond, 100)

		measured := float64(h.link.Counters().Lost) / n
		bound := 5 * math.Sqrt(burstVariance(g)/n)
		assert.InDelta(t, g.MeanLoss(), measured, bound, "seed %d", seed)

		// Losses cluster: the mean run of consecutive losses is far longer than under
		// independent loss with the same mean, where it is 1/(1-p) ≈ 1.04.
		runs, inRun, lost := 0, false, 0
		delivered := make([]bool, n)
		for _, a := range h.got {
			delivered[a.id] = true
		}
		for _, ok := range delivered {
			if !ok {
				lost++
				if !inRun {
					runs++
				}
			}
			inRun = !ok
		}
		assert.Greater(t, float64(lost)/float64(runs), 2.0, "seed %d: mean loss run", seed)
	}
}

func TestNoDuplicatesWithoutDuplication(t *testing.T) {
	cfg := Config{LatencyJitter: sim.ExponentialMean(10 * time.Millisecond), LossProbability: 0.2,
		CorruptProbability: 0.2, Bandwidth: 1 << 20}
	h := newHarness(t, 1, cfg)
	h.sendEvery(20000, time.Millisecond, 1000)

	seen := make(map[int]bool)
	for _, a := range h.got {
		require.False(t, seen[a.id], "packet %d delivered twice", a.id)
		seen[a.id] = true
	}
	assert.Zero(t, h.link.Counters().Duplicated)
}

func TestDuplicationDeliversExtraCopiesAtItsRate(t *testing.T) {
	const n, p = 50000, 0.2
	h := newHarness(t, 1, Config{DuplicateProbability: p})
	h.sendEvery(n, time.Millisecond, 100)

	c := h.link.Counters()
	assert.Equal(t, int64(n), c.Delivered)
	assert.Equal(t, c.Delivered+c.Duplicated, int64(len(h.got)))
	assert.InDelta(t, p, float64(c.Duplicated)/n, binomialBound(p, n))
}

func TestOrderIsKeptWithoutJitter(t *testing.T) {
	cfg := Config{LatencyFixed: 30 * time.Millisecond, Bandwidth: 100000, LossProbability: 0.1,
		DuplicateProbability: 0.1, CorruptProbability: 0.1}
	h := newHarness(t, 1, cfg)
	h.sendEvery(20000, 5*time.Millisecond, 1000)

	for i := 1; i < len(h.got); i++ {
		require.LessOrEqual(t, h.got[i-1].id, h.got[i].id, "arrival %d overtook arrival %d", i, i-1)
	}
}

func TestJitterReorders(t *testing.T) {
	h := newHarness(t, 1, Config{LatencyJitter: sim.UniformBetween(0, 20*time.Millisecond)})
	h.sendEvery(1000, time.Millisecond, 100)

	overtaken := 0
	for i := 1; i < len(h.got); i++ {
		if h.got[i].id < h.got[i-1].id {
			overtaken++
		}
	}
	assert.Greater(t, overtaken, 100, "jitter of 20 ms over 1 ms spacing must reorder")
}

func TestCorruptedPacketsArriveMarked(t *testing.T) {
	t.Run("probability one marks every delivery", func(t *testing.T) {
		h := newHarness(t, 1, Config{CorruptProbability: 1, DuplicateProbability: 0.5})
		h.sendEvery(1000, time.Millisecond, 100)
		for _, a := range h.got {
			require.True(t, a.corrupt, "packet %d delivered unmarked", a.id)
		}
		assert.Equal(t, int64(len(h.got)), h.link.Counters().Corrupted)
	})
	t.Run("the counter matches the marks seen, at the configured rate", func(t *testing.T) {
		const n, p = 50000, 0.1
		h := newHarness(t, 1, Config{CorruptProbability: p, LossProbability: 0.1})
		h.sendEvery(n, time.Millisecond, 100)
		marked := 0
		for _, a := range h.got {
			if a.corrupt {
				marked++
			}
		}
		assert.Equal(t, int64(marked), h.link.Counters().Corrupted)
		assert.InDelta(t, p, float64(marked)/float64(len(h.got)), binomialBound(p, len(h.got)))
	})
}

func TestCapacityDropsPacketsBeyondIt(t *testing.T) {
	// Ten 1000-byte packets at once on a 1000 B/s link that holds three.
	h := newHarness(t, 1, Config{Bandwidth: 1000, Capacity: 3})
	h.sendEvery(10, 0, 1000)

	assert.Equal(t, []int{0, 1, 2}, h.ids())
	c := h.link.Counters()
	assert.Equal(t, int64(7), c.DroppedCapacity)
	assert.Equal(t, int64(3), c.Delivered)
}

func TestCapacityFreesAsPacketsArrive(t *testing.T) {
	// One packet per 100 ms on a 100 ms link of capacity 1: each leaves as the next comes.
	h := newHarness(t, 1, Config{LatencyFixed: 100 * time.Millisecond, Capacity: 1})
	h.sendEvery(10, 100*time.Millisecond, 10)

	assert.Len(t, h.got, 10)
	assert.Zero(t, h.link.Counters().DroppedCapacity)
}

func TestNothingCrossesADownWindow(t *testing.T) {
	down := []Window{{From: 2 * time.Second, Until: 3 * time.Second}, {From: 5 * time.Second, Until: 5500 * time.Millisecond}}
	cfg := Config{LatencyFixed: 40 * time.Millisecond, LatencyJitter: sim.ExponentialMean(20 * time.Millisecond),
		DuplicateProbability: 0.3, Down: down}
	h := newHarness(t, 1, cfg)
	h.sendEvery(8000, time.Millisecond, 100)

	for _, a := range h.got {
		for _, w := range down {
			crossed := w.From <= a.at && w.Until > a.sentAt
			require.False(t, crossed, "packet %d sent at %v arrived at %v across down window %v", a.id, a.sentAt, a.at, w)
		}
	}
	c := h.link.Counters()
	assert.Greater(t, c.DroppedPartition, int64(1500), "about 1.5 s of 1 ms traffic falls in the windows")
	assert.Greater(t, c.Delivered, int64(6000), "traffic outside the windows gets through")
}

func TestPairPartitionsCutOneDirectionOrBoth(t *testing.T) {
	w := Window{From: time.Second, Until: 2 * time.Second}
	tests := []struct {
		name             string
		direction        Direction
		wantAB, wantBA   bool // whether traffic inside the window gets through
		wantDroppedTotal int64
	}{
		{"symmetric", Both, false, false, 200},
		{"one way A to B", AToB, false, true, 100},
		{"one way B to A", BToA, true, false, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := sim.New(1)
			var atB, atA []time.Duration
			pair, err := NewPair(e, "A", "B", PairConfig{Partitions: []Partition{{Window: w, Direction: tt.direction}}},
				func(d Delivery[packet]) { atB = append(atB, d.Packet.sentAt) },
				func(d Delivery[packet]) { atA = append(atA, d.Packet.sentAt) })
			require.NoError(t, err)
			var tick sim.HandlerFunc
			tick = func(n uint64) {
				pair.AToB.Send(packet{sentAt: e.Now()}, 10)
				pair.BToA.Send(packet{sentAt: e.Now()}, 10)
				if n < 299 {
					e.After(10*time.Millisecond, tick, n+1)
				}
			}
			e.Schedule(0, tick, 0)
			e.Run(sim.Limits{})

			assert.Equal(t, tt.wantAB, sentInside(atB, w), "A->B inside the window")
			assert.Equal(t, tt.wantBA, sentInside(atA, w), "B->A inside the window")
			dropped := pair.AToB.Counters().DroppedPartition + pair.BToA.Counters().DroppedPartition
			assert.Equal(t, tt.wantDroppedTotal, dropped)
			assert.Equal(t, "A->B", pair.AToB.Name())
			assert.Equal(t, "B->A", pair.BToA.Name())
		})
	}
}

func sentInside(sent []time.Duration, w Window) bool {
	for _, s := range sent {
		if s >= w.From && s < w.Until {
			return true
		}
	}
	return false
}

func TestEnablingOneFaultLeavesTheOthersDrawsAlone(t *testing.T) {
	lostIDs := func(cfg Config) []int {
		h := newHarness(t, 9, cfg)
		h.sendEvery(5000, time.Millisecond, 100)
		got := make(map[int]bool)
		for _, a := range h.got {
			got[a.id] = true
		}
		var lost []int
		for id := range 5000 {
			if !got[id] {
				lost = append(lost, id)
			}
		}
		return lost
	}
	base := lostIDs(Config{LossProbability: 0.1})
	require.NotEmpty(t, base)

	assert.Equal(t, base, lostIDs(Config{LossProbability: 0.1, DuplicateProbability: 0.3, CorruptProbability: 0.3,
		LatencyJitter: sim.ExponentialMean(time.Millisecond)}))
}

func TestSameSeedSameDeliveries(t *testing.T) {
	cfg := Config{LatencyFixed: 10 * time.Millisecond, LatencyJitter: sim.LogNormalMean(5*time.Millisecond, 5*time.Millisecond),
		Bandwidth: 1 << 20, LossBurst: GilbertElliott{GoodToBad: 0.05, BadToGood: 0.3, LossBad: 0.5},
		DuplicateProbability: 0.05, CorruptProbability: 0.05, Capacity: 50}
	run := func(seed uint64) []arrival {
		h := newHarness(t, seed, cfg)
		h.sendEvery(3000, time.Millisecond, 1500)
		return h.got
	}
	assert.Equal(t, run(4), run(4))
	assert.NotEqual(t, run(4), run(5))
}

func TestConfigValidateNamesTheField(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{LatencyFixed: -1}, "LatencyFixed -1ns is negative"},
		{Config{LatencyJitter: sim.UniformBetween(2, 1)}, "LatencyJitter uniform(2ns, 1ns) is invalid: uniform distribution: max 1ns is below min 2ns"},
		{Config{Bandwidth: -5}, "Bandwidth -5 is negative"},
		{Config{LossProbability: 1.5}, "LossProbability 1.5 outside [0, 1]"},
		{Config{LossProbability: math.NaN()}, "LossProbability NaN outside [0, 1]"},
		{Config{DuplicateProbability: -0.1}, "DuplicateProbability -0.1 outside [0, 1]"},
		{Config{CorruptProbability: 2}, "CorruptProbability 2 outside [0, 1]"},
		{Config{LossBurst: GilbertElliott{GoodToBad: 0.1, BadToGood: 1.1}}, "LossBurst.BadToGood 1.1 outside [0, 1]"},
		{Config{LossBurst: GilbertElliott{GoodToBad: 0.1, BadToGood: 0.1}, LossProbability: 0.1},
			"LossProbability 0.1 set together with LossBurst: choose independent or bursty loss"},
		{Config{LossBurst: GilbertElliott{GoodToBad: 0.1}}, "LossBurst.BadToGood 0 would keep the link Bad for ever once it enters it: use a Down window for an outage"},
		{Config{LossBurst: GilbertElliott{LossBad: 0.5}}, "LossBurst.GoodToBad 0 is zero while other LossBurst fields are set: the model would never leave Good"},
		{Config{Capacity: -1}, "Capacity -1 is negative"},
		{Config{Down: []Window{{0, time.Second}, {3 * time.Second, 2 * time.Second}}},
			"Down[1] [3s, 2s) is not an interval: From must be >= 0 and before Until"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			err := tt.cfg.Validate()
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var fe *FieldError
			assert.ErrorAs(t, err, &fe)

			_, err = New(sim.New(1), "X->Y", tt.cfg, func(Delivery[int]) {})
			assert.EqualError(t, err, "link X->Y: "+tt.want)
		})
	}
	assert.NoError(t, Config{}.Validate(), "the zero config is a perfect link")
}

func TestNewPairRejectsBadPartitions(t *testing.T) {
	e := sim.New(1)
	deliver := func(Delivery[int]) {}
	_, err := NewPair(e, "A", "B", PairConfig{Partitions: []Partition{{Window: Window{2, 1}}}}, deliver, deliver)
	assert.EqualError(t, err, "pair A<->B: Partitions[0] [2ns, 1ns) is not an interval: From must be >= 0 and before Until")
	_, err = NewPair(e, "A", "B", PairConfig{Partitions: []Partition{{Window: Window{1, 2}, Direction: 7}}}, deliver, deliver)
	assert.EqualError(t, err, "pair A<->B: Partitions[0].Direction 7 is unknown")
	_, err = New(e, "A->B", Config{}, (func(Delivery[int]))(nil))
	assert.EqualError(t, err, "link A->B: no receiver to deliver to")
}

func TestDownWindowsAreSortedAndMerged(t *testing.T) {
	got := downWindows([]Window{{5, 7}, {1, 3}, {2, 4}, {7, 8}})
	assert.Equal(t, []Window{{1, 4}, {5, 8}}, got)
	assert.Equal(t, "[1s, 2s)", Window{time.Second, 2 * time.Second}.String())
	assert.Equal(t, []string{"both", "a-to-b", "b-to-a"}, []string{Both.String(), AToB.String(), BToA.String()})
	assert.Equal(t, fmt.Sprint(Direction(9)), "Direction(9)")
}

func TestLinkNameUsedTwiceIsAnError(t *testing.T) {
	e := sim.New(1)
	deliver := func(Delivery[int]) {}
	_, err := New(e, "A->B", Config{}, deliver)
	require.NoError(t, err)

	_, err = New(e, "A->B", Config{}, deliver)
	assert.EqualError(t, err, "link A->B: the name is already used by another link of this engine")
	_, err = NewPair(e, "A", "B", PairConfig{}, deliver, deliver)
	assert.EqualError(t, err, "link A->B: the name is already used by another link of this engine")
}

func TestWireFreeAtIsWhenTheLastAcceptedPacketIsSerialised(t *testing.T) {
	e := sim.New(1)
	link, err := New(e, "A->B", Config{Bandwidth: 1000, LatencyFixed: time.Second}, func(Delivery[int]) {})
	require.NoError(t, err)
	assert.Equal(t, time.Duration(0), link.WireFreeAt(), "an idle wire is free now")

	link.Send(1, 500)
	link.Send(2, 1500)
	assert.Equal(t, 2*time.Second, link.WireFreeAt(), "2000 bytes at 1000 B/s, latency apart")

	e.Schedule(5*time.Second, sim.HandlerFunc(func(uint64) {
		assert.Equal(t, 5*time.Second, link.WireFreeAt(), "never before now")
	}), 0)
	e.Run(sim.Limits{})
}

// Reconfigure applies to packets sent from then on; those on their way keep their latency,
// and a bad configuration is refused, the old one kept.
func TestReconfigureAppliesToLaterPackets(t *testing.T) {
	e := sim.New(1)
	var arrivals []time.Duration
	l, err := New(e, "ab", Config{LatencyFixed: 10 * time.Millisecond}, func(d Delivery[int]) { arrivals = append(arrivals, e.Now()) })
	require.NoError(t, err)
	l.Send(1, 100)
	require.Error(t, l.Reconfigure(Config{LossProbability: 2}))
	require.NoError(t, l.Reconfigure(Config{LatencyFixed: 50 * time.Millisecond}))
	l.Send(2, 100)
	e.Run(sim.Limits{})
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 50 * time.Millisecond}, arrivals)
	assert.Equal(t, 50*time.Millisecond, l.Config().LatencyFixed)
}
