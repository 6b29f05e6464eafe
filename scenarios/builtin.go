package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// ErrUnknownScenario is returned by Builtin for a name it does not know.
var ErrUnknownScenario = errors.New("unknown scenario")

// Builtin is a design-validation scenario that ships with sbsim.
type Builtin struct {
	Name        string
	Description string
	Config      Config
}

// DefaultScenario is the scenario `simulate` runs when none is named.
const DefaultScenario = "lossy-wan"

// builtins returns every built-in scenario, in a fixed order.
func builtins() []Builtin {
	return []Builtin{lossyWAN(), priorityFlood()}
}

// BuiltinNames returns the names of the built-in scenarios.
func BuiltinNames() []string {
	var names []string
	for _, b := range builtins() {
		names = append(names, b.Name)
	}
	return names
}

// LookupBuiltin returns the built-in scenario called name.
func LookupBuiltin(name string) (Builtin, error) {
	all := builtins()
	i := slices.IndexFunc(all, func(b Builtin) bool { return b.Name == name })
	if i < 0 {
		return Builtin{}, fmt.Errorf("scenario %q: %w (known: %v)", name, ErrUnknownScenario, BuiltinNames())
	}
	return all[i], nil
}

// lossyWAN is two instances, Lisbon and Tokyo, over a WAN that loses, duplicates, reorders
// and corrupts: an order service in Lisbon sends orders of up to 40 KB (several fragments)
// to a stock service in Tokyo, whose queue is read by activated procedures (up to four at
// once), which confirm each order; a few dialogs also go to a service on Lisbon itself,
// delivered straight into its queue.
func lossyWAN() Builtin {
	contract := model.Contract{Name: "//sbsim/Order", Messages: []model.ContractMessage{
		{MessageType: "//sbsim/OrderRequest", SentBy: model.SentByInitiator},
		{MessageType: "//sbsim/OrderConfirmation", SentBy: model.SentByTarget}}}
	types := []model.MessageType{{Name: "//sbsim/OrderRequest"}, {Name: "//sbsim/OrderConfirmation"}}
	wan := faulty.Config{
		LatencyFixed:         80 * time.Millisecond,
		LatencyJitter:        sim.LogNormalMean(15*time.Millisecond, 15*time.Millisecond),
		Bandwidth:            2_000_000,
		LossProbability:      0.05,
		DuplicateProbability: 0.03,
		CorruptProbability:   0.01,
	}
	order := func(name, to string, dialogs int) Workload {
		return Workload{Name: name, From: "OrderService", To: to, Contract: contract.Name,
			MessageType: "//sbsim/OrderRequest", ReplyType: "//sbsim/OrderConfirmation",
			Dialogs: dialogs, Interarrival: sim.ExponentialMean(2 * time.Second), Messages: 20,
			MessageGap: sim.ExponentialMean(200 * time.Millisecond), Size: UniformSize(200, 40_000),
			Replies: true, ReplySize: FixedSize(1000)}
	}
	return Builtin{
		Name: "lossy-wan",
		Description: "two instances over a WAN with 5% loss, 3% duplication, 1% corruption and " +
			"jitter that reorders; request/reply dialogs with messages of up to 40 KB, read in Tokyo by " +
			"activated procedures (MAX_QUEUE_READERS 4), and a few same-instance dialogs",
		Config: Config{
			Name: "lossy-wan",
			Instances: []model.Instance{
				{Name: "Lisbon", Databases: []model.Database{{Name: "Sales", MessageTypes: types,
					Contracts: []model.Contract{contract},
					Queues:    []model.Queue{{Name: "OrderQueue"}, {Name: "AuditQueue"}},
					Services: []model.Service{{Name: "OrderService", Queue: "OrderQueue"},
						{Name: "AuditService", Queue: "AuditQueue", Contracts: []string{contract.Name}}}}}},
				{Name: "Tokyo", Databases: []model.Database{{Name: "Warehouse", MessageTypes: types,
					Contracts: []model.Contract{contract},
					Queues: []model.Queue{{Name: "StockQueue",
						Activation: model.Activation{Status: true, Procedure: "ProcessStock", MaxQueueReaders: 4}}},
					Services: []model.Service{{Name: "StockService", Queue: "StockQueue", Contracts: []string{contract.Name}}}}}},
			},
			Links:           []Link{{A: "Lisbon", B: "Tokyo", PairConfig: faulty.PairConfig{AToB: wan, BToA: wan}}},
			Workloads:       []Workload{order("orders", "StockService", 8), order("audit", "AuditService", 2)},
			Readers:         []Reader{{Queue: "OrderQueue", Top: 5, ProcessingTime: sim.ExponentialMean(5 * time.Millisecond)}},
			Procedures:      []Procedure{{Name: "ProcessStock", Top: 5, ProcessingTime: sim.ExponentialMean(150 * time.Millisecond)}},
			MaxTime:         24 * time.Hour,
			MaxEvents:       10_000_000,
			Trace:           true,
			CheckInvariants: true,
		},
	}
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

// priorityFlood is levels 10, 5 and 1 sharing a lossy 2 Mbit/s link they overload by a
// fifth for a minute, then the backlog drains.
func priorityFlood() Builtin {
	return Builtin{
		Name: "priority-flood",
		Description: "levels 10, 5 and 1 share a lossy 2 Mbit/s link (2% loss, 1% duplication) and " +
			"overload it by 20% for a minute; HONOR_BROKER_PRIORITY is ON, aging on",
		Config: floodConfig("priority-flood", []model.PriorityLevel{10, 5, 1}, 250_000, 1.2, time.Minute),
	}
}
