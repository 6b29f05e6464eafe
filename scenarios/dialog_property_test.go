package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// propSeed fixes gopter's generator so that CI explores the same worlds every run. To
// explore further, set SBSIM_PROP_SEED and SBSIM_PROP_TESTS:
//
//	SBSIM_PROP_SEED=7 SBSIM_PROP_TESTS=5000 go test ./scenarios -run EveryFaultMix
const propSeed = 20261130

// propertyParameters returns gopter's parameters: the fixed seed and count (fewer under
// -short), or those the environment asks for.
func propertyParameters(t *testing.T, tests, short int) *gopter.TestParameters {
	seed := int64(propSeed)
	if s := os.Getenv("SBSIM_PROP_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("SBSIM_PROP_SEED=%q: %v", s, err)
		}
		seed = v
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = tests
	if testing.Short() {
		params.MinSuccessfulTests = short
	}
	if s := os.Getenv("SBSIM_PROP_TESTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("SBSIM_PROP_TESTS=%q: %v", s, err)
		}
		params.MinSuccessfulTests = v
	}
	return params
}

// worldSpec is a generated world: counts and probabilities, and the seed that draws the
// rest (which pairs talk, sizes, windows) and runs it. gopter shrinks each field.
type worldSpec struct {
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
	// Life is the workloads' life cycles and pools of reused dialogs (lifecycle_property_test.go).
	Life lifeSpec
	// Programs is the reader program of the world's queues (program_property_test.go),
	// which the dialog, lock and activation properties apply (the crash and route
	// properties do not).
	Programs programSpec
}

// slow and long say whether the world has a link so slow or a partition so long that an
// initiator may hear nothing for longer than the retention of closed targets (G-16): only
// such worlds may have a design finding.
func (s worldSpec) slow() bool { return s.Bandwidth < 1<<10 }
func (s worldSpec) long() bool { return s.PartitionMs > 20_000 }

func (s worldSpec) String() string {
	type plain worldSpec // without this String method
	return fmt.Sprintf("%+v", plain(s))
}

// config turns the spec into a world: one database and service per instance, workloads
// between random pairs (the same instance too, for direct delivery), the same faults on
// every link.
func (s worldSpec) config() Config {
	r := rand.New(rand.NewPCG(s.Seed, 1))
	contract := model.Contract{Name: "C", Messages: []model.ContractMessage{
		{MessageType: "Request", SentBy: model.SentByInitiator}, {MessageType: "Reply", SentBy: model.SentByTarget}}}
	cfg := Config{Name: "property", CheckInvariants: true, MaxEvents: 5_000_000, MaxTime: 24 * time.Hour,
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
			db.Services = append(db.Services, model.Service{Name: sharedService, Queue: "Q" + name, Contracts: []string{"C"}})
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
			l := Link{A: cfg.Instances[a].Name, B: cfg.Instances[b].Name, PairConfig: faulty.PairConfig{AToB: link, BToA: link}}
			if s.PartitionMs > 0 && l.A == "I0" && l.B == s.partitioned() {
				from := time.Duration(r.IntN(2000)) * time.Millisecond
				p := faulty.Partition{Window: faulty.Window{From: from, Until: from + time.Duration(s.PartitionMs)*time.Millisecond}}
				if s.OneWay {
					p.Direction = faulty.AToB
				}
				l.Partitions = []faulty.Partition{p}
			}
			cfg.Links = append(cfg.Links, l)
		}
	}
	if s.slow() {
		// The default liveness bound counts retries and round trips, not hours of backlog
		// on a link of a few bytes a second (DefaultLivenessWithin).
		cfg.Liveness.Within = 48 * time.Hour
	}
	left, maxSize := s.Conversations, int64(s.MaxSizeKB)<<10
	if s.slow() || s.long() {
		// Outages and slow links multiply the retries: keep such worlds small enough to
		// drain within the event limit. A slow link carries tens of kilobytes.
		left = min(left, 20)
		maxSize = min(maxSize, 4<<10)
		if s.slow() {
			left, maxSize = min(left, 4), min(maxSize, 1<<10)
		}
	}
	for i := 0; left > 0; i++ {
		n := min(left, 1+r.IntN(s.Conversations))
		left -= n
		from := service(r.IntN(s.Instances), r.IntN(servicesPerInstance))
		to := service(r.IntN(s.Instances), r.IntN(servicesPerInstance))
		if s.Shared && r.IntN(3) == 0 {
			to = sharedService
		}
		cfg.Workloads = append(cfg.Workloads, Workload{
			Name: fmt.Sprintf("w%d", i), From: from,
			To:       to,
			Contract: "C", MessageType: "Request", ReplyType: "Reply",
			Dialogs: n, Interarrival: sim.ExponentialMean(50 * time.Millisecond), Messages: s.Messages,
			MessageGap: sim.UniformBetween(0, 10*time.Millisecond),
			Size:       UniformSize(0, maxSize+1), Replies: s.Replies, ReplySize: UniformSize(0, 2048),
			EndWithError: s.EndWithError, Lifetime: time.Duration(max(s.LifetimeMs, 0)) * time.Millisecond,
		})
	}
	// A program's handlers replace the default reader's replies, not the workloads' life
	// cycles: a world may draw both (lifecycle_program.go).
	s.Life.apply(&cfg)
	for k := range s.QueueFlips {
		q := fmt.Sprintf("QI%d", r.IntN(s.Instances))
		off := time.Duration(r.IntN(1000+k*5000)) * time.Millisecond
		cfg.Timeline = append(cfg.Timeline, Change{At: off, Queue: q, Status: model.QueueOff},
			Change{At: off + time.Duration(1+r.IntN(10000))*time.Millisecond, Queue: q, Status: model.QueueOn})
	}
	return cfg
}

// sharedService is the name of the service Shared puts on two instances.
const sharedService = "Shared"

// partitioned is the instance whose link with I0 the partition cuts: I1, or the first
// forwarder when every dialog goes through the forwarders.
func (s worldSpec) partitioned() string {
	if s.Routing == 2 {
		return "F0"
	}
	return "I1"
}

// route declares the routes of Routing 1 and 2: in each database, one per service of the
// other instances (two for the shared one), to its instance or to the first forwarder; the
// forwarders, F0 to F(n-1), each pass everything on to the next one, and the last to the
// service's instance.
func (s worldSpec) route(cfg *Config, service func(i, k int) string, perInstance int) {
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
			services = append(services, at{sharedService, fmt.Sprintf("I%d", i)})
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

func genWorldSpec() gopter.Gen {
	return gen.Struct(reflect.TypeFor[worldSpec](), map[string]gopter.Gen{
		"Seed":          gen.UInt64(),
		"Instances":     gen.IntRange(2, 5),
		"Conversations": gen.IntRange(1, 200),
		"Messages":      gen.IntRange(0, 12),
		"MaxSizeKB":     gen.IntRange(0, 40),
		"Loss":          gen.Float64Range(0, 0.5),
		"Duplicate":     gen.Float64Range(0, 0.5),
		"Corrupt":       gen.Float64Range(0, 0.2),
		"JitterMs":      gen.IntRange(0, 50),
		"PartitionMs":   gen.OneGenOf(gen.Const(0), gen.IntRange(1, 20_000), gen.IntRange(20_001, 3*3600_000)),
		"OneWay":        gen.Bool(),
		"QueueFlips":    gen.IntRange(0, 3),
		"Replies":       gen.Bool(),
		"EndWithError":  gen.Bool(),
		"SendWindow":    gen.IntRange(1, 64),
		"ReceiveWindow": gen.IntRange(1, 64),
		"LifetimeMs":    gen.IntRange(-90000, 30000), // none three times in four
		"Honor":         gen.Bool(),
		"AgingMs":       gen.IntRange(0, 2000),
		"Bandwidth":     gen.OneGenOf(gen.IntRange(10, 1<<10-1), gen.IntRange(16<<10, 10<<20), gen.IntRange(16<<10, 10<<20)),
		"Routing":       gen.IntRange(0, 2),
		"Forwarders":    gen.IntRange(1, 3),
		"Shared":        gen.Bool(),
		"Life":          genLifeSpec(),
		"Programs":      genProgramSpec(),
	})
}

// checkWorld runs a spec and describes what is wrong with the outcome, or returns "".
func checkWorld(s worldSpec) string { return checkWorldConfig(s, s.Programs.apply(s, s.config())) }

// checkWorldConfig runs the spec's world as cfg describes it.
func checkWorldConfig(s worldSpec, cfg Config) string {
	res, err := Run(cfg, s.Seed)
	if err != nil {
		return "run: " + err.Error()
	}
	var problems []string
	if res.Violation != nil {
		problems = append(problems, res.Violation.Error())
	}
	// A design finding may leave its initiator retrying for ever (when the receive window,
	// G-21, refuses what reaches the re-created target): such a run ends at its time limit.
	if res.StopReason != sim.Drained && !(res.FindingCount > 0 && res.StopReason == sim.TimeLimit) {
		problems = append(problems, fmt.Sprintf("run stopped: %v at t=%v after %d events", res.StopReason, res.EndTime, res.Events))
	}
	if res.StatementErrors != 0 {
		problems = append(problems, fmt.Sprintf("%d statements failed, first %s", res.StatementErrors, res.FirstStatementError))
	}
	problems = append(problems, lifeCycleProblems(cfg, res, s.LifetimeMs > 0)...)
	problems = append(problems, checkPrograms(s.Programs, s, res)...)
	// The figures of figures.go (figures_property_test.go).
	problems = append(problems, flowProblems(res, cfg, s)...)
	for _, l := range res.Links { // FND-8: every packet of every link is accounted for, none left in flight
		if err := l.Counters.Check(); err != nil {
			problems = append(problems, fmt.Sprintf("link %s: %v", l.Name, err))
		}
		if l.Counters.InFlight != 0 {
			problems = append(problems, fmt.Sprintf("link %s: %d packets in flight after the run drained", l.Name, l.Counters.InFlight))
		}
	}
	// A design finding (G-16: a late retry re-created a forgotten target endpoint) needs an
	// initiator cut off for longer than the retention; it may leave its new target waiting
	// for ever, in SI for messages acknowledged long ago or in CO for an EndDialog
	// acknowledged long ago, and its initiator retrying what that target refuses.
	if res.FindingCount > 0 && !s.slow() && !s.long() {
		problems = append(problems, fmt.Sprintf("%d design findings without a long partition or a slow link, first: %v",
			res.FindingCount, &res.Findings[0]))
	}
	// What a finding may leave, per re-created dialog: its new target waiting in SI or CO, and
	// its initiator in DO with the rows the target never acknowledges.
	targets, initiators, rows := res.FindingCount, res.FindingCount, res.FindingCount*(s.Messages+1)
	open, disconnected := leakable(cfg) // what the life cycles and pools leave (lifecycles.md)
	// The allowances hold for the whole world, not per instance: a finding's target and a
	// pool's open dialog are both SI or CO, so the endpoints are counted by state over every
	// instance and compared with the allowances together (one instance's pooled dialogs
	// must not use up the findings' allowance that another instance's re-created targets
	// need).
	var left [model.Closed + 1]int
	for _, in := range res.Instances {
		if in.TransmissionQueueRows > rows {
			problems = append(problems, fmt.Sprintf("instance %s: %d rows left in the transmission queue", in.Name, in.TransmissionQueueRows))
		}
		rows -= min(rows, in.TransmissionQueueRows)
		for _, sc := range in.EndpointStates {
			left[sc.State] += sc.Count
		}
	}
	startedOut, live := left[model.StartedOutbound], left[model.StartedInbound]+left[model.Conversing]
	if startedOut > open || startedOut+live > open+targets || left[model.DisconnectedOutbound] > initiators ||
		left[model.DisconnectedInbound] > disconnected || left[model.Error] > 0 || left[model.Closed] > 0 {
		var states []string
		for _, in := range res.Instances {
			states = append(states, fmt.Sprintf("%s %v", in.Name, in.EndpointStates))
		}
		problems = append(problems, fmt.Sprintf("endpoints left at the end: %s; allowed: %d open (life cycles and pools), %d re-created targets and %d initiators (design findings), %d disconnected (fire and forget)",
			strings.Join(states, ", "), open, targets, initiators, disconnected))
	}
	if len(problems) > 0 {
		return fmt.Sprintf("seed %d: %s", s.Seed, strings.Join(problems, "; "))
	}
	return ""
}

// TestDialogsAreExactlyOnceInOrderUnderEveryFaultMix is the protocol's main property: over
// random worlds and fault mixes, every dialog delivers exactly once and in order (INV-1),
// no message is enqueued twice or received incomplete (INV-2), rows leave the
// transmission queue only when stored (INV-3), everything sent arrives once the faults heal
// (INV-12), and every endpoint ends closed and forgotten (G-16). Outages run from none to
// three hours, one way or both, and links from 10 bytes a second: a dialog that Service
// Broker itself would run twice, because its initiator heard nothing for longer than the
// retention of closed targets, must be reported as a design finding, and only in such a
// world (TestG16_FireAndForgetPastTheRetentionIsADesignFinding).
func TestDialogsAreExactlyOnceInOrderUnderEveryFaultMix(t *testing.T) {
	properties := gopter.NewProperties(propertyParameters(t, 400, 60))
	properties.Property("EOIO, no duplicates, nothing lost after healing, endpoints closed", prop.ForAll(checkWorld, genWorldSpec()))
	properties.TestingRun(t)
}
