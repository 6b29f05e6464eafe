package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// saturation runs all ten levels offering together load times what a 2 Mbit/s link
// carries, for the duration, and returns, for each level, its share of the bytes delivered
// while the link was overloaded (the run stops when the arrivals stop), and the part of
// the bytes it offered that were delivered.
func saturation(t *testing.T, seed uint64, aging bool, load float64, arrivals time.Duration) (shares, served map[int]float64) {
	t.Helper()
	levels := []model.PriorityLevel{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	cfg := floodConfig("saturation", levels, 250_000, load, arrivals)
	cfg.MaxTime = arrivals
	cfg.Liveness.Off = true // the run stops on purpose with the link overloaded
	cfg.Broker.StarvationAgingOff = !aging
	res, err := Run(cfg, seed)
	require.NoError(t, err)
	require.Nil(t, res.Violation)
	shares, served = map[int]float64{}, map[int]float64{}
	offered := map[int]int64{}
	for i, w := range res.Workloads {
		offered[int(levels[i])] = w.MessagesSent * 4096
	}
	for _, l := range res.Levels {
		shares[l.Level] = l.Share
		served[l.Level] = float64(l.Bytes) / float64(offered[l.Level])
	}
	return shares, served
}

// TestPRI16_SaturationGivesTheDocumentedShape loads a link three times beyond what it carries
// with all ten levels, each offering the same expected load, and checks the shape PRI-16
// documents ("adjacent levels give a small advantage, distant levels a large one; with many
// levels most processing goes to the top 2 or 3 levels") on the bytes delivered while the
// link is overloaded, over several seeds. Bounds: the top three levels get more than 70% of
// what is delivered; the part of its offered load a level gets through never grows going
// down a level, with 5 points of slack: the top levels get nearly all they offer, and what
// separates them is the traffic still in flight when the run stops (up to a second of a
// level's 30, about 3%, plus losses; seed 3: levels 10, 9, 8 got 95.8%, 96.6%, 99.8%);
// levels 10 and 9 differ by less than 15 points of it, levels 10 and 1 by more than 80.
//
// The first version compared the shares themselves level by level; with round-robin ties
// (G-11) the top levels all get nearly everything they offer, so their shares follow the
// Poisson noise of what each happened to offer (seed 2: level 8 offered more than level 9
// and got 28.8% against 25.7%). The part of the offered load served is the quantity
// priorities order.
func TestPRI16_SaturationGivesTheDocumentedShape(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		shares, served := saturation(t, seed, true, 3, 30*time.Second)
		shape := fmt.Sprintf("seed %d shares %v served %v", seed, shares, served)
		assert.Greater(t, shares[10]+shares[9]+shares[8], 0.70, shape)
		for l := 10; l > 1; l-- {
			assert.GreaterOrEqual(t, served[l]+0.05, served[l-1], "level %d below level %d: %s", l, l-1, shape)
		}
		assert.Less(t, served[10]-served[9], 0.15, shape)
		assert.Greater(t, served[10]-served[1], 0.80, shape)
	}
}

// TestG11_StarvationBoundUnderASustainedFlood: level 10 offers 10% more than the link carries
// for 200 s, and level 1 a trickle of 5%. G-11's bound: a level-1 message waits in the
// transmission queue about the 90 s of aging that raise it to 10; it then takes turns with
// the level-10 dialogs, so it also waits about as long as level 10 itself does, plus one
// retry back-off when its block was lost (a retransmission ages again from its retry).
// Without aging, level 1 waits for the flood to end.
func TestG11_StarvationBoundUnderASustainedFlood(t *testing.T) {
	maxWait := func(aging bool) (level1, level10 time.Duration) {
		cfg := floodConfig("sustained", []model.PriorityLevel{10, 1}, 250_000, 2.2, 200*time.Second)
		low := &cfg.Workloads[1] // level 1: a twenty-second of level 10's load
		low.Interarrival.Mean *= 22
		low.Dialogs = max(1, low.Dialogs/22)
		cfg.Broker.StarvationAgingOff = !aging
		res, err := Run(cfg, 1)
		require.NoError(t, err)
		require.Nil(t, res.Violation)
		require.Len(t, res.Levels, 2)
		return res.Levels[1].TransmissionQueueWait.Max, res.Levels[0].TransmissionQueueWait.Max
	}
	one, ten := maxWait(true)
	assert.LessOrEqual(t, one, 90*time.Second+ten+4*time.Second, "with aging (level 10 waited up to %v)", ten)
	unaged, _ := maxWait(false)
	assert.Greater(t, unaged, 150*time.Second, "without aging level 1 waits for the flood to end")
	t.Logf("longest level-1 wait: %v with aging, %v without; level 10: %v", one, unaged, ten)
}

// floodConfig is a world of two instances, Headquarters and Branch, over a lossy link of
// the given bandwidth, where one initiating service per level sends 4 KB orders to one
// target service: every level offers the same load, and together they offer load times
// what the link carries. Broker priorities give each initiating service its level, and
// Headquarters honours them (PRI-12).
func floodConfig(name string, levels []model.PriorityLevel, bandwidth int64, load float64, arrivals time.Duration) Config {
	const messageBytes, messages = 4096, 10
	contract := model.Contract{Name: "//sbsim/Order", Messages: []model.ContractMessage{
		{MessageType: "//sbsim/OrderRequest", SentBy: model.SentByInitiator}}}
	types := []model.MessageType{{Name: "//sbsim/OrderRequest"}}
	hq := model.Database{Name: "Orders", MessageTypes: types, Contracts: []model.Contract{contract},
		Queues: []model.Queue{{Name: "ReplyQueue"}}, HonorBrokerPriority: true}
	// Each level's dialogs arrive at a rate that makes its share of the offered load.
	perLevel := load * float64(bandwidth) / float64(len(levels))
	interarrival := time.Duration(float64(time.Second) * messageBytes * messages / perLevel)
	var workloads []Workload
	for _, l := range levels {
		svc := fmt.Sprintf("Level%02dService", l)
		hq.Services = append(hq.Services, model.Service{Name: svc, Queue: "ReplyQueue"})
		hq.Priorities = append(hq.Priorities, model.BrokerPriority{Name: "level" + svc, LocalService: svc, Level: l})
		workloads = append(workloads, Workload{Name: fmt.Sprintf("level %d", l), From: svc, To: "WarehouseService",
			Contract: contract.Name, MessageType: "//sbsim/OrderRequest", Dialogs: int(arrivals / interarrival),
			Interarrival: sim.ExponentialMean(interarrival), Messages: messages,
			MessageGap: sim.ExponentialMean(20 * time.Millisecond), Size: FixedSize(messageBytes)})
	}
	link := faulty.Config{LatencyFixed: 40 * time.Millisecond, LatencyJitter: sim.ExponentialMean(5 * time.Millisecond),
		Bandwidth: bandwidth, LossProbability: 0.02, DuplicateProbability: 0.01}
	return Config{
		Name: name,
		Instances: []model.Instance{
			{Name: "Headquarters", Databases: []model.Database{hq}},
			{Name: "Branch", Databases: []model.Database{{Name: "Warehouse", MessageTypes: types,
				Contracts: []model.Contract{contract}, Queues: []model.Queue{{Name: "WarehouseQueue"}},
				Services: []model.Service{{Name: "WarehouseService", Queue: "WarehouseQueue", Contracts: []string{contract.Name}}}}}},
		},
		Links:           []Link{{A: "Headquarters", B: "Branch", PairConfig: faulty.PairConfig{AToB: link, BToA: link}}},
		Workloads:       workloads,
		MaxTime:         24 * time.Hour,
		MaxEvents:       20_000_000,
		CheckInvariants: true,
	}
}

// Reference: spec PRI-11 and PRI-16 on a priority flood (levels 10, 5 and 1 overloading a
// lossy 2 Mbit/s link by a fifth for a minute, as the library's priority-flood does): latency and time in
// the transmission queue are ordered by level, and the transmission queue's wait is part of
// the latency.
func TestPriorityFloodOrdersLatencyByLevel(t *testing.T) {
	cfg := floodConfig("priority-flood", []model.PriorityLevel{10, 5, 1}, 250_000, 1.2, time.Minute)
	for seed := uint64(1); seed <= 2; seed++ {
		res, err := Run(cfg, seed)
		require.NoError(t, err)
		require.Nil(t, res.Violation)
		require.Len(t, res.Levels, 3)
		ten, five, one := res.Levels[0], res.Levels[1], res.Levels[2]
		require.Equal(t, []int{10, 5, 1}, []int{ten.Level, five.Level, one.Level})
		assert.Less(t, ten.Latency.P50, five.Latency.P50, "seed %d", seed)
		assert.Less(t, five.Latency.P50, one.Latency.P50, "seed %d", seed)
		assert.Less(t, ten.TransmissionQueueWait.Mean, five.TransmissionQueueWait.Mean, "seed %d", seed)
		assert.Less(t, five.TransmissionQueueWait.Mean, one.TransmissionQueueWait.Mean, "seed %d", seed)
		for _, l := range res.Levels {
			assert.LessOrEqual(t, l.TransmissionQueueWait.Mean, l.Latency.Mean, "level %d seed %d", l.Level, seed)
			assert.Equal(t, int64(1460), l.Messages, "every message arrives, level %d seed %d", l.Level, seed)
			// G-11's starvation bound: a message waits in the transmission queue at most the
			// aging it needs to reach level 10, plus what level 10 itself waits at most
			// (once raised, it takes its turn with level 10), plus one retry back-off for a
			// message whose block was lost and had to age again from its retry.
			bound := time.Duration(10-l.Level)*10*time.Second + ten.TransmissionQueueWait.Max + 4*time.Second
			assert.LessOrEqual(t, l.TransmissionQueueWait.Max, bound, "level %d seed %d", l.Level, seed)
		}
	}
}
