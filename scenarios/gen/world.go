package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// World is a generated world: counts and probabilities, and the seed that draws the
// rest (which pairs talk, sizes, windows) and runs it. gopter shrinks each field. Config
// turns it into a scenarios.Config; Worlds draws it. It is the world of the project's
// dialog property (TestDialogsAreExactlyOnceInOrderUnderEveryFaultMix) and, with more
// added, of the lock, activation, crash, cost and route properties.
type World struct {
	Seed          uint64
	Instances     int // 2 to 5
	Conversations int // 1 to 200
	Messages      int // per conversation
	MaxSizeKB     int // message sizes up to this, over 512-byte fragments
	Loss          float64
	Duplicate     float64
	Corrupt       float64
	JitterMs      int
	// PartitionMs is how long a window cuts the first pair (none when 0): up to 20 s, or
	// from 20 s to 3 h, longer than every timer of the model (the retry back-off maximum of
	// 64 s, the idle close of 90 s, the 30 min retention of closed targets, every
	// lifetime drawn); OneWay cuts one direction only.
	PartitionMs int
	OneWay      bool
	// QueueFlips is how many times a queue, drawn each time, is switched OFF and then ON
	// again: what arrives for it meanwhile waits in its database's transmission queue
	// (TXQ-4, G-18); windows on different queues, or on the same one, may overlap.
	QueueFlips    int
	Replies       bool
	EndWithError  bool
	SendWindow    int  // fragments in flight per dialog (G-11)
	ReceiveWindow int  // messages held out of order (G-21)
	LifetimeMs    int  // each dialog's LIFETIME; none when not positive (DLG-5)
	Honor         bool // HONOR_BROKER_PRIORITY in every database, each service at a random level
	AgingMs       int  // StarvationAgingStep; 0 turns aging off (G-11)
	// Bandwidth is per direction, in bytes per second: from 10 (a link whose queue can hold
	// acknowledgements for longer than the retention of closed targets) to 10 MiB; small
	// values make backlogs the scheduler orders.
	Bandwidth int
	// Routing is how dialogs find their services (section 9): 0, the implicit routes of a
	// world that declares none; 1, routes declared in every database, both ways; 2, every
	// dialog between instances through a chain of Forwarders (1 to 3) with MESSAGE_FORWARDING
	// on (RTE-5). Shared adds a service of one name on I0 and I1, which workloads may target:
	// with declared routes, two routes balance its dialogs over both (RTE-3).
	Routing    int
	Forwarders int
	Shared     bool
	// Life is the workloads' life cycles and pools of reused dialogs (Life).
	Life Life
	// Programs is the reader program of the world's queues (Program), which Config does
	// not apply: Program.Apply does (the dialog, lock and activation properties apply it,
	// the crash and route properties do not).
	Programs Program
}

// Slow reports whether the world has a link so slow (below 1 KiB/s) that an initiator may
// hear nothing for longer than the retention of closed targets (G-16): only such worlds,
// and Long ones, may have a design finding.
func (s World) Slow() bool { return s.Bandwidth < 1<<10 }

// Long reports whether the world has a partition longer than 20 s, which may outlast the
// retention of closed targets (G-16).
func (s World) Long() bool { return s.PartitionMs > 20_000 }

// String prints every field by name: with the property seed, what replays the world.
func (s World) String() string {
	type plain World // without this String method
	return fmt.Sprintf("%+v", plain(s))
}

// Config turns the spec into a world: instances I0 to I(n-1), each with one database, one
// queue QI<i> and three services SI<i>-0 to SI<i>-2 at random priority levels; workloads
// between random pairs (the same instance too, for direct delivery); the same faults on
// every link, and the partition on the link of I0 and I1 (or F0); the queue flips on the
// timeline; invariants checked. The same World gives the same Config.
func (s World) Config() scenarios.Config {
	r := rand.New(rand.NewPCG(s.Seed, 1))
	contract := model.Contract{Name: "C", Messages: []model.ContractMessage{
		{MessageType: "Request", SentBy: model.SentByInitiator}, {MessageType: "Reply", SentBy: model.SentByTarget}}}
	cfg := scenarios.Config{Name: "property", CheckInvariants: true, MaxEvents: 5_000_000, MaxTime: 24 * time.Hour,
		Broker: model.Config{FragmentSize: 512, SendWindow: s.SendWindow, ReceiveWindow: s.ReceiveWindow,
			StarvationAgingOff: s.AgingMs == 0, StarvationAgingStep: time.Duration(s.AgingMs) * time.Millisecond}}
	// Each instance has three services, each at a random level, so that dialogs of several
	// levels compete for one destination.
	const servicesPerInstance = 3
	service := func(i, k int) string { return fmt.Sprintf("SI%d-%d", i, k) }
	for i := range s.Instances {
		name := fmt.Sprintf("I%d", i)
		db := model.Database{Name: "db", MessageTypes: []model.MessageType{{Name: "Request"}, {Name: "Reply"}},
			Contracts: []model.Contract{contract}, Queues: []model.Queue{{Name: "Q" + name}}, HonorBrokerPriority: s.Honor}
		for k := range servicesPerInstance {
			db.Services = append(db.Services, model.Service{Name: service(i, k), Queue: "Q" + name, Contracts: []string{"C"}})
			db.Priorities = append(db.Priorities, model.BrokerPriority{Name: "p" + service(i, k), LocalService: service(i, k),
				Level: model.PriorityLevel(1 + r.IntN(10))})
		}
		if s.Shared && i < 2 {
			db.Services = append(db.Services, model.Service{Name: SharedService, Queue: "Q" + name, Contracts: []string{"C"}})
		}
		cfg.Instances = append(cfg.Instances, model.Instance{Name: name, Databases: []model.Database{db}})
	}
	s.route(&cfg, service, servicesPerInstance)
	n := len(cfg.Instances)
	// Through forwarders a fragment crosses several links: each gets the loss, duplication
	// and corruption that make the drawn ones end to end, so that a chain is as lossy as
	// one link of the same spec (a 40 % loss on each of four hops would leave a message one
	// chance in ten an hour, and the dialog far past every timer: a world of no interest).
	hops := 1.0
	if s.Routing == 2 {
		hops += float64(s.Forwarders)
	}
	perHop := func(p float64) float64 {
		if hops == 1 {
			return p
		}
		return 1 - math.Pow(1-p, 1/hops)
	}
	link := faulty.Config{LatencyFixed: 5 * time.Millisecond, LatencyJitter: sim.ExponentialMean(time.Duration(s.JitterMs) * time.Millisecond),
		LossProbability: perHop(s.Loss), DuplicateProbability: perHop(s.Duplicate), CorruptProbability: perHop(s.Corrupt),
		Bandwidth: int64(s.Bandwidth)}
	for a := range n {
		for b := a + 1; b < n; b++ {
			l := scenarios.Link{A: cfg.Instances[a].Name, B: cfg.Instances[b].Name, PairConfig: faulty.PairConfig{AToB: link, BToA: link}}
			if s.PartitionMs > 0 && l.A == "I0" && l.B == s.partitioned() {
				l.Partitions = []faulty.Partition{partition(r, s.PartitionMs, s.OneWay)}
			}
			cfg.Links = append(cfg.Links, l)
		}
	}
	if s.Slow() {
		// The default liveness bound counts retries and round trips, not hours of backlog
		// on a link of a few bytes a second (DefaultLivenessWithin).
		cfg.Liveness.Within = 48 * time.Hour
	}
	left, maxSize := s.Conversations, int64(s.MaxSizeKB)<<10
	if s.Slow() || s.Long() {
		// Outages and slow links multiply the retries: keep such worlds small enough to
		// drain within the event limit. A slow link carries tens of kilobytes.
		left = min(left, 20)
		maxSize = min(maxSize, 4<<10)
		if s.Slow() {
			left, maxSize = min(left, 4), min(maxSize, 1<<10)
		}
	}
	for i := 0; left > 0; i++ {
		n := min(left, 1+r.IntN(s.Conversations))
		left -= n
		from := service(r.IntN(s.Instances), r.IntN(servicesPerInstance))
		to := service(r.IntN(s.Instances), r.IntN(servicesPerInstance))
		if s.Shared && r.IntN(3) == 0 {
			to = SharedService
		}
		cfg.Workloads = append(cfg.Workloads, scenarios.Workload{
			Name: fmt.Sprintf("w%d", i), From: from,
			To:       to,
			Contract: "C", MessageType: "Request", ReplyType: "Reply",
			Dialogs: n, Interarrival: sim.ExponentialMean(50 * time.Millisecond), Messages: s.Messages,
			MessageGap: sim.UniformBetween(0, 10*time.Millisecond),
			Size:       scenarios.UniformSize(0, maxSize+1), Replies: s.Replies, ReplySize: scenarios.UniformSize(0, 2048),
			EndWithError: s.EndWithError, Lifetime: time.Duration(max(s.LifetimeMs, 0)) * time.Millisecond,
		})
	}
	// A program's handlers replace the default reader's replies, not the workloads' life
	// cycles: a world may draw both (lifecycle_program.go).
	s.Life.Apply(&cfg)
	var queues []string
	for i := range s.Instances {
		queues = append(queues, fmt.Sprintf("QI%d", i))
	}
	cfg.Timeline = append(cfg.Timeline, queueFlips(r, queues, s.QueueFlips)...)
	return cfg
}

// partition is a window of ms milliseconds that begins in the first 2 s, drawn from r,
// both ways or, with oneWay, from A to B only.
func partition(r *rand.Rand, ms int, oneWay bool) faulty.Partition {
	from := time.Duration(r.IntN(2000)) * time.Millisecond
	p := faulty.Partition{Window: faulty.Window{From: from, Until: from + time.Duration(ms)*time.Millisecond}}
	if oneWay {
		p.Direction = faulty.AToB
	}
	return p
}

// queueFlips is n ALTER QUEUE pairs, each of a queue drawn from queues: OFF at an instant
// drawn in the first 1 s (6 s, 11 s, ... for the later flips), ON again 1 ms to 10 s
// later. What arrives for a queue while it is OFF waits in its database's transmission
// queue (TXQ-4, G-18); windows on different queues, or on the same one, may overlap.
func queueFlips(r *rand.Rand, queues []string, n int) []scenarios.Change {
	var changes []scenarios.Change
	for k := range n {
		q := queues[r.IntN(len(queues))]
		off := time.Duration(r.IntN(1000+k*5000)) * time.Millisecond
		changes = append(changes, scenarios.Change{At: off, Queue: q, Status: model.QueueOff},
			scenarios.Change{At: off + time.Duration(1+r.IntN(10000))*time.Millisecond, Queue: q, Status: model.QueueOn})
	}
	return changes
}

// SharedService is the name of the service Shared puts on two instances.
const SharedService = "Shared"

// partitioned is the instance whose link with I0 the partition cuts: I1, or the first
// forwarder when every dialog goes through the forwarders.
func (s World) partitioned() string {
	if s.Routing == 2 {
		return "F0"
	}
	return "I1"
}

// route declares the routes of Routing 1 and 2: in each database, one per service of the
// other instances (two for the shared one), to its instance or to the first forwarder; the
// forwarders, F0 to F(n-1), each pass everything on to the next one, and the last to the
// service's instance.
func (s World) route(cfg *scenarios.Config, service func(i, k int) string, perInstance int) {
	if s.Routing == 0 {
		return
	}
	type at struct{ name, instance string }
	var services []at
	for i := range s.Instances {
		for k := range perInstance {
			services = append(services, at{service(i, k), fmt.Sprintf("I%d", i)})
		}
		if s.Shared && i < 2 {
			services = append(services, at{SharedService, fmt.Sprintf("I%d", i)})
		}
	}
	for i := range cfg.Instances {
		db := &cfg.Instances[i].Databases[0]
		for j, svc := range services {
			if svc.instance == cfg.Instances[i].Name {
				continue
			}
			address := svc.instance
			if s.Routing == 2 {
				address = "F0"
			}
			db.Routes = append(db.Routes, model.Route{Name: fmt.Sprintf("r%d", j), ServiceName: svc.name, Address: address})
		}
	}
	if s.Routing != 2 {
		return
	}
	for f := range s.Forwarders {
		fw := model.Instance{Name: fmt.Sprintf("F%d", f), Forwarding: model.Forwarding{Enabled: true}}
		for j, svc := range services {
			address := svc.instance
			if f+1 < s.Forwarders {
				address = fmt.Sprintf("F%d", f+1)
			}
			fw.Routes = append(fw.Routes, model.Route{Name: fmt.Sprintf("r%d", j), ServiceName: svc.name, Address: address})
		}
		cfg.Instances = append(cfg.Instances, fw)
	}
}

// Worlds draws a World: 2 to 5 instances, 1 to 200 dialogs of up to 12 messages of up to
// 40 KiB; loss and duplication up to 50 %, corruption up to 20 %, jitter up to 50 ms; no
// partition, one up to 20 s, or one of 20 s to 3 h, one way or both; up to 3 queue flips;
// send and receive windows of 1 to 64; lifetimes a time in four; priorities honoured or
// not; links from 10 B/s to 10 MiB/s (slow a time in three); implicit routes, declared
// routes or chains of 1 to 3 forwarders; life cycles and pools (Lives); reader programs
// (Programs).
func Worlds() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[World](), map[string]gopter.Gen{
		"Seed":          gopgen.UInt64(),
		"Instances":     gopgen.IntRange(2, 5),
		"Conversations": gopgen.IntRange(1, 200),
		"Messages":      gopgen.IntRange(0, 12),
		"MaxSizeKB":     gopgen.IntRange(0, 40),
		"Loss":          gopgen.Float64Range(0, 0.5),
		"Duplicate":     gopgen.Float64Range(0, 0.5),
		"Corrupt":       gopgen.Float64Range(0, 0.2),
		"JitterMs":      gopgen.IntRange(0, 50),
		"PartitionMs":   gopgen.OneGenOf(gopgen.Const(0), gopgen.IntRange(1, 20_000), gopgen.IntRange(20_001, 3*3600_000)),
		"OneWay":        gopgen.Bool(),
		"QueueFlips":    gopgen.IntRange(0, 3),
		"Replies":       gopgen.Bool(),
		"EndWithError":  gopgen.Bool(),
		"SendWindow":    gopgen.IntRange(1, 64),
		"ReceiveWindow": gopgen.IntRange(1, 64),
		"LifetimeMs":    gopgen.IntRange(-90000, 30000), // none three times in four
		"Honor":         gopgen.Bool(),
		"AgingMs":       gopgen.IntRange(0, 2000),
		"Bandwidth":     gopgen.OneGenOf(gopgen.IntRange(10, 1<<10-1), gopgen.IntRange(16<<10, 10<<20), gopgen.IntRange(16<<10, 10<<20)),
		"Routing":       gopgen.IntRange(0, 2),
		"Forwarders":    gopgen.IntRange(1, 3),
		"Shared":        gopgen.Bool(),
		"Life":          Lives(),
		"Programs":      Programs(),
	})
}
