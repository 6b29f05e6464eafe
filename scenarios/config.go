package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// Config describes a whole world: the instances and their catalogs, the links between
// them, the broker's protocol parameters, the applications, a timeline of changes, and the
// limits of the run. Run builds the world from it and a seed.
type Config struct {
	Name      string
	Instances []model.Instance
	// Links joins pairs of instances; a pair not listed is joined by a perfect link.
	Links  []Link
	Broker model.Config
	// Workloads are the initiating applications.
	Workloads []Workload
	// Readers configure the reader of a queue; a queue not listed gets DefaultReader, unless
	// activation or an event notification serves it.
	Readers []Reader
	// Procedures are the activation procedures the queues' ACTIVATION clauses and the
	// external activators name (ACT-9, G-7).
	Procedures []Procedure
	// ExternalActivators read QUEUE_ACTIVATION notifications and start readers (ACT-11).
	ExternalActivators []ExternalActivator
	Timeline           []Change
	// Crashes draws crashes of instances at random (G-13), beside the timeline's.
	Crashes RandomCrashes
	// SampleInterval is how often every queue's state is recorded (Result.Queues);
	// zero means DefaultSampleInterval.
	SampleInterval time.Duration
	// Snapshots says how many snapshots of the views the run keeps, and how many rows of
	// each (Result.Snapshots); zero values take DefaultSnapshots and DefaultSnapshotRows.
	Snapshots Snapshots
	// MaxTime and MaxEvents bound the run; zero means DefaultMaxTime and DefaultMaxEvents.
	// A run stops earlier when no event is left, which a healthy world reaches once its
	// workloads end.
	MaxTime   time.Duration
	MaxEvents uint64
	// MaxMemory is the run's memory budget in bytes, against an estimate counted from the
	// model's objects (MemoryLimit); zero means DefaultMaxMemory.
	MaxMemory int64
	// Trace keeps every trace record in the Result (Result.Trace), and the table of
	// conversations (Result.Conversations). A long run's trace is large: a run that writes
	// it rather than keeps it gives TraceSink instead.
	Trace bool
	// Conversations counts the table of conversations (Result.Conversations) from the
	// trace records as they happen, without keeping them. Trace implies it.
	Conversations bool
	// TraceSink, when set, is handed every trace record as it happens, stamped with its
	// event number, in the order Result.Trace would hold them (TraceSink); it needs neither
	// Trace nor Conversations.
	TraceSink TraceSink
	// CheckInvariants runs the invariant checkers online and stops at the first violation.
	CheckInvariants bool
	// Liveness is the liveness phase the checkers hold the run to (INV-12).
	Liveness Liveness
	// Costs is the cost model (cost.go, docs/costs.md); nil: every statement is free and
	// nothing waits for a CPU. CPUs gives instances, by name, their number of CPUs; an
	// instance not listed has DefaultCPUs. CPUs matter only with Costs.
	Costs *Costs
	CPUs  map[string]int
	// FaultPlan, when set, decides what the links do to each packet in place of their
	// random streams (fault_plan.go); RecordFaults makes the run report what they did
	// (Result.FaultPlan, Result.Packets).
	FaultPlan    *FaultPlan
	RecordFaults bool
	// PacketSink, when set, is handed every packet a link is offered, with what the link did
	// to it, so that a caller keeps the packets it wants (a report's sequence charts) rather
	// than Result.Packets every one. It changes nothing in the run.
	PacketSink PacketSink
}

// Link configures the two directions between instances A and B.
type Link struct {
	A, B string
	faulty.PairConfig
}

// SizeDistribution is a distribution of message sizes, in bytes; it has the shapes of
// sim.Distribution. The zero value is the constant 0: an empty body.
type SizeDistribution struct {
	Kind         sim.DistributionKind
	Mean, StdDev int64
	Min, Max     int64
}

// MeanBytes is the distribution's mean size: the middle of a uniform one's range, else
// its Mean.
func (d SizeDistribution) MeanBytes() int64 {
	if d.Kind == sim.Uniform {
		return d.Min + (d.Max-d.Min)/2
	}
	return d.Mean
}

// FixedSize returns the distribution that always gives n bytes.
func FixedSize(n int64) SizeDistribution { return SizeDistribution{Kind: sim.Constant, Mean: n} }

// UniformSize returns the uniform distribution on [min, max) bytes.
func UniformSize(min, max int64) SizeDistribution {
	return SizeDistribution{Kind: sim.Uniform, Min: min, Max: max}
}

func (s SizeDistribution) distribution() sim.Distribution {
	return sim.Distribution{Kind: s.Kind, Mean: time.Duration(s.Mean), StdDev: time.Duration(s.StdDev),
		Min: time.Duration(s.Min), Max: time.Duration(s.Max)}
}

// Workload is an initiating application: it begins Dialogs dialogs from service From (a
// service's name, or instance/database/name when several databases have one of that name)
// to service To (TO SERVICE: a name, which routes find, section 9, with ToBrokerInstance
// when set), one every Interarrival (Poisson when exponential), starting at Start; on each
// it sends Messages messages of Size bytes, one every MessageGap. Without replies it ends
// the conversation after its last message; with Replies, the target's reader answers every
// message with a ReplyType message of ReplySize bytes, and the initiator ends the
// conversation once every reply has arrived.
type Workload struct {
	Name     string
	From, To string
	// ToBrokerInstance is TO SERVICE's broker instance: a database's GUID, or
	// instance/database for the GUID of that database; empty for none.
	ToBrokerInstance string
	Contract         string // default DEFAULT
	MessageType      string // default DEFAULT
	Dialogs          int
	Start            time.Duration
	Interarrival     sim.Distribution
	Messages         int
	MessageGap       sim.Distribution
	Size             SizeDistribution
	Replies          bool
	ReplyType        string // default DEFAULT
	ReplySize        SizeDistribution
	// Lifetime is each dialog's LIFETIME; zero for none.
	Lifetime time.Duration
	// EndWithError makes the initiator end with END CONVERSATION WITH ERROR instead.
	EndWithError bool
	// GroupSize puts this many consecutive dialogs in one conversation group on the
	// initiator's side (RELATED_CONVERSATION_GROUP, DLG-2); zero or one: a group each.
	GroupSize int
	// End is the dialogs' life cycle: who ends them, and when (lifecycle.go).
	End LifeCycle
	// Reuse, when set, sends the workload's units of work on a pool of long-lived dialogs
	// (lifecycle.go): each of Dialogs is then a unit of work, not a dialog.
	Reuse *Reuse
}

// Reader configures the reader program of one queue (issue 5): Sessions copies of one loop,
// each in its own session and transactions (TXN-4):
//
//	BEGIN TRANSACTION
//	RECEIVE TOP(Top) ... WAITFOR (, TIMEOUT WaitFor)           -- ReceiveLoop
//	or GET CONVERSATION GROUP ... WAITFOR, then RECEIVE TOP(Top) WHERE conversation_group_id
//	                                                            -- GroupLoop
//	ProcessingTime per message received; replies and END CONVERSATION as the workload asks
//	COMMIT, or ROLLBACK with probability RollbackRate
//
// An empty result (WAITFOR ran out) commits and loops. A deadlock victim starts again. A
// RECEIVE error (the queue is OFF) ends the loop until ALTER QUEUE sets the queue ON.
type Reader struct {
	Queue string
	Mode  ReaderMode
	Top   int
	// Sessions is how many copies of the loop run at once; zero means one.
	Sessions int
	// WaitFor is the WAITFOR TIMEOUT; zero waits for ever. A run whose readers poll with a
	// time-out never runs out of events: give it MaxTime.
	WaitFor        time.Duration
	ProcessingTime sim.Distribution
	// RollbackRate is the chance that a transaction that received messages rolls back
	// instead of committing (its messages return to the queue, QUE-8 counts it); when
	// RollbackUntil is set, only before that time (a fault that heals, as explore draws).
	RollbackRate  float64
	RollbackUntil time.Duration
	// TouchRate is the chance that a transaction also runs BEGIN CONVERSATION TIMER
	// (TouchTimer) on another conversation this program has received from: a statement on
	// a group another session may hold, so that lock waits and deadlocks happen (G-24).
	TouchRate  float64
	TouchTimer time.Duration
	// CommitEvery makes the loop RECEIVE up to this many times in one transaction before
	// it COMMITs, ending the batch earlier when a RECEIVE (which then does not wait)
	// returns nothing; zero or one commits after each RECEIVE.
	CommitEvery int
	// On is the program: what the reader does with each received message type (Handler,
	// docs/programs.md); Hook, a Go function, handles the types On does not name.
	On   []Handler
	Hook Hook
}

// ReaderMode is the loop of a reader program.
type ReaderMode uint8

const (
	// ReceiveLoop: RECEIVE TOP(n) WAITFOR from the queue.
	ReceiveLoop ReaderMode = iota
	// GroupLoop: GET CONVERSATION GROUP WAITFOR, then RECEIVE TOP(n) WHERE
	// conversation_group_id = that group.
	GroupLoop
)

func (m ReaderMode) String() string {
	if m == GroupLoop {
		return "get-conversation-group"
	}
	return "receive"
}

// DefaultReader is the reader of a queue that Config.Readers does not list.
var DefaultReader = Reader{Top: 0}

// Change is one entry of the timeline: at At, ALTER QUEUE Queue WITH STATUS = Status, or,
// when Activation is set, ALTER QUEUE Queue WITH ACTIVATION (...) with the fields it sets
// (ACT-7), the status left as it is.
type Change struct {
	At         time.Duration
	Queue      string // "instance/database/queue" or a queue name unique in the world
	Status     model.QueueStatus
	Activation *model.ActivationChange
	// Link, when set, makes the change a new configuration of the link between two
	// instances instead: Queue, Status and Activation are not used.
	Link *LinkChange
	// Route, when set, makes the change CREATE, ALTER or DROP ROUTE instead: Queue,
	// Status, Activation and Link are not used.
	Route *RouteChange
	// Crash, when set, makes the change a crash of an instance, restarted after a delay
	// (G-13): Queue, Status, Activation, Link and Route are not used.
	Crash *CrashChange
}

// LinkChange replaces the configuration of one or both directions of the link between
// instances A and B (nil: that direction is left as it is). Packets on their way arrive as
// they were sent.
type LinkChange struct {
	A, B       string
	AToB, BToA *faulty.Config
}

// Validate checks what the catalog does not: links, workloads, readers and the timeline
// name things that exist and hold usable values. Errors name the entry and the field.
func (c *Config) Validate(cat *model.Catalog) error {
	if err := c.Broker.WithDefaults().Validate(); err != nil {
		return err
	}
	seenLinks := map[[2]string]bool{}
	for i, l := range c.Links {
		where := fmt.Sprintf("link %d (%s<->%s)", i, l.A, l.B)
		_, okA := cat.Instance(l.A)
		_, okB := cat.Instance(l.B)
		switch {
		case !okA || !okB:
			return fmt.Errorf("%s: an instance does not exist", where)
		case l.A == l.B:
			return fmt.Errorf("%s: joins an instance to itself", where)
		case seenLinks[[2]string{l.A, l.B}] || seenLinks[[2]string{l.B, l.A}]:
			return fmt.Errorf("%s: the pair is linked twice", where)
		}
		seenLinks[[2]string{l.A, l.B}] = true
	}
	workloadOf := map[string]int{}
	for i, w := range c.Workloads {
		if w.Name == "" {
			return fmt.Errorf("workload %d: Name is empty: results and expectations name workloads", i)
		}
		if first, dup := workloadOf[w.Name]; dup {
			return fmt.Errorf("workload %d (%s): Name is also workload %d's", i, w.Name, first)
		}
		workloadOf[w.Name] = i
		if err := c.Workloads[i].validate(cat); err != nil {
			return fmt.Errorf("workload %d (%s): %w", i, w.Name, err)
		}
	}
	readerOf := map[model.QueueID]int{}
	for i, r := range c.Readers {
		q, err := FindQueue(cat, r.Queue)
		if err != nil {
			return fmt.Errorf("reader %d: %w", i, err)
		}
		if first, dup := readerOf[q]; dup {
			return fmt.Errorf("reader %d: queue %q already has reader %d", i, r.Queue, first)
		}
		readerOf[q] = i
		if r.Top < 0 {
			return fmt.Errorf("reader %d (%s): Top %d is negative", i, r.Queue, r.Top)
		}
		if err := r.ProcessingTime.Validate(); err != nil {
			return fmt.Errorf("reader %d (%s): ProcessingTime: %w", i, r.Queue, err)
		}
		if err := validateHandlers(cat, []model.QueueID{q}, r.On); err != nil {
			return fmt.Errorf("reader %d (%s): %w", i, r.Queue, err)
		}
		switch {
		case r.Mode > GroupLoop:
			return fmt.Errorf("reader %d (%s): Mode %d is neither ReceiveLoop nor GroupLoop", i, r.Queue, r.Mode)
		case r.Sessions < 0 || r.Sessions > MaxSessions:
			return fmt.Errorf("reader %d (%s): Sessions %d is outside 0..%d", i, r.Queue, r.Sessions, MaxSessions)
		case r.WaitFor < 0:
			return fmt.Errorf("reader %d (%s): WaitFor %v is negative", i, r.Queue, r.WaitFor)
		case !(r.RollbackRate >= 0 && r.RollbackRate <= 1):
			return fmt.Errorf("reader %d (%s): RollbackRate %v is outside [0, 1]", i, r.Queue, r.RollbackRate)
		case !(r.TouchRate >= 0 && r.TouchRate <= 1):
			return fmt.Errorf("reader %d (%s): TouchRate %v is outside [0, 1]", i, r.Queue, r.TouchRate)
		case r.CommitEvery < 0:
			return fmt.Errorf("reader %d (%s): CommitEvery %d is negative", i, r.Queue, r.CommitEvery)
		case r.TouchTimer < 0:
			return fmt.Errorf("reader %d (%s): TouchTimer %v is negative", i, r.Queue, r.TouchTimer)
		case r.WaitFor > 0 && c.MaxTime == 0 && c.MaxEvents == 0:
			return fmt.Errorf("reader %d (%s): WaitFor %v polls for ever: the run needs MaxTime or MaxEvents", i, r.Queue, r.WaitFor)
		}
	}
	if err := c.validateActivation(cat); err != nil {
		return err
	}
	if err := c.validateCosts(); err != nil {
		return err
	}
	if err := c.validateDelays(); err != nil {
		return err
	}
	if err := c.Liveness.validate(); err != nil {
		return err
	}
	if c.SampleInterval < 0 {
		return fmt.Errorf("SampleInterval %v is negative", c.SampleInterval)
	}
	if err := c.Snapshots.validate(); err != nil {
		return err
	}
	if err := c.validateLimits(); err != nil {
		return err
	}
	if err := c.Crashes.validate(cat); err != nil {
		return err
	}
	if err := c.validateReuseCrashes(); err != nil {
		return err
	}
	if err := c.validateStandbys(); err != nil {
		return err
	}
	for i, ch := range c.Timeline {
		if ch.Crash != nil {
			if err := ch.Crash.validate(cat); err != nil {
				return fmt.Errorf("timeline %d: %w", i, err)
			}
			if ch.At < 0 {
				return fmt.Errorf("timeline %d: At %v is negative", i, ch.At)
			}
			continue
		}
		if ch.Route != nil {
			if ch.Link != nil {
				return fmt.Errorf("timeline %d: a change alters a route or a link, not both", i)
			}
			continue // validateRoutes checks them in the order the run makes them
		}
		if l := ch.Link; l != nil {
			_, okA := cat.Instance(l.A)
			_, okB := cat.Instance(l.B)
			switch {
			case !okA || !okB:
				return fmt.Errorf("timeline %d: link %s<->%s: an instance does not exist", i, l.A, l.B)
			case l.A == l.B:
				return fmt.Errorf("timeline %d: link %s<->%s joins an instance to itself", i, l.A, l.B)
			case l.AToB == nil && l.BToA == nil:
				return fmt.Errorf("timeline %d: link %s<->%s: no direction to change", i, l.A, l.B)
			}
			for _, d := range []*faulty.Config{l.AToB, l.BToA} {
				if d != nil {
					if err := d.Validate(); err != nil {
						return fmt.Errorf("timeline %d: link %s<->%s: %w", i, l.A, l.B, err)
					}
				}
			}
			if ch.At < 0 {
				return fmt.Errorf("timeline %d: At %v is negative", i, ch.At)
			}
			continue
		}
		if _, err := FindQueue(cat, ch.Queue); err != nil {
			return fmt.Errorf("timeline %d: %w", i, err)
		}
		if ch.At < 0 {
			return fmt.Errorf("timeline %d: At %v is negative", i, ch.At)
		}
		if a := ch.Activation; a != nil {
			if a.Procedure != nil && !slices.ContainsFunc(c.Procedures, func(p Procedure) bool { return p.Name == *a.Procedure }) {
				return fmt.Errorf("timeline %d: activation procedure %q is not in Procedures", i, *a.Procedure)
			}
			if a.MaxQueueReaders != nil && (*a.MaxQueueReaders < 0 || *a.MaxQueueReaders > model.MaxQueueReadersLimit) {
				return fmt.Errorf("timeline %d: MAX_QUEUE_READERS %d is outside 0..%d", i, *a.MaxQueueReaders, model.MaxQueueReadersLimit)
			}
		}
	}
	return c.validateRoutes(cat, nil)
}

func (w *Workload) validate(cat *model.Catalog) error {
	if _, err := FindService(cat, w.From); err != nil {
		return fmt.Errorf("From: %w", err)
	}
	if len(cat.ServicesNamed(w.To)) == 0 {
		return fmt.Errorf("To: service %q does not exist", w.To)
	}
	if _, err := FindBrokerInstance(cat, w.ToBrokerInstance); err != nil {
		return fmt.Errorf("ToBrokerInstance: %w", err)
	}
	if w.GroupSize < 0 {
		return fmt.Errorf("GroupSize: %d is negative", w.GroupSize)
	}
	for _, n := range []struct{ field, name string }{{"MessageType", w.MessageType}, {"ReplyType", w.ReplyType}} {
		if _, ok := cat.MessageType(orDefault(n.name, model.MessageTypeDefault)); !ok {
			return fmt.Errorf("%s: message type %q does not exist", n.field, n.name)
		}
	}
	if _, ok := cat.Contract(orDefault(w.Contract, model.ContractDefault)); !ok {
		return fmt.Errorf("Contract: contract %q does not exist", w.Contract)
	}
	if err := w.canDeliver(cat); err != nil {
		return err
	}
	if err := w.validateLifeCycle(); err != nil {
		return err
	}
	switch {
	case w.Dialogs < 0:
		return fmt.Errorf("Dialogs %d is negative", w.Dialogs)
	case w.Messages < 0:
		return fmt.Errorf("Messages %d is negative", w.Messages)
	case w.Start < 0:
		return fmt.Errorf("Start %v is negative", w.Start)
	case w.Lifetime < 0:
		return fmt.Errorf("Lifetime %v is negative", w.Lifetime)
	}
	for _, d := range []struct {
		field string
		d     sim.Distribution
	}{{"Interarrival", w.Interarrival}, {"MessageGap", w.MessageGap}, {"Size", w.Size.distribution()}, {"ReplySize", w.ReplySize.distribution()}} {
		if err := d.d.Validate(); err != nil {
			return fmt.Errorf("%s: %w", d.field, err)
		}
	}
	if w.Size.Max > model.MaxMessageBytes || w.Size.Mean > model.MaxMessageBytes {
		return fmt.Errorf("Size: above the %d-byte cap", model.MaxMessageBytes)
	}
	return nil
}

// canDeliver checks that the catalog lets the workload's dialogs deliver: the contract is
// defined where BEGIN DIALOG runs, the target service accepts it (ENT-3), and it lets the
// initiator SEND the message type and the target the reply type (DLG-16). A workload the
// catalog refuses would fail every statement and deliver nothing; one of no dialogs tries
// nothing.
func (w *Workload) canDeliver(cat *model.Catalog) error {
	if w.Dialogs == 0 {
		return nil
	}
	from, _ := FindService(cat, w.From)
	contractName := orDefault(w.Contract, model.ContractDefault)
	contract, _ := cat.Contract(contractName)
	db := cat.Services[from].Database
	if !slices.Contains(cat.Databases[db].Contracts, contract) {
		return fmt.Errorf("Contract: contract %q is not defined in database %q of service %q: every BEGIN DIALOG would fail",
			contractName, cat.Databases[db].Name, w.From)
	}
	for _, to := range cat.ServicesNamed(w.To) {
		if !slices.Contains(cat.Services[to].Contracts, contract) {
			db := cat.Databases[cat.Services[to].Database]
			return fmt.Errorf("To: service %q of %s/%s does not accept contract %q (ENT-3): every dialog it gets would be refused with an error",
				w.To, cat.Instances[db.Instance].Name, db.Name, contractName)
		}
	}
	if w.Messages == 0 {
		return nil
	}
	if err := mayContractSend(cat, contract, w.MessageType, model.SentByInitiator); err != nil {
		return fmt.Errorf("MessageType: %w", err)
	}
	if w.Replies {
		if err := mayContractSend(cat, contract, w.ReplyType, model.SentByTarget); err != nil {
			return fmt.Errorf("ReplyType: %w", err)
		}
	}
	return nil
}

// mayContractSend reports why the contract does not let side (SentByInitiator or
// SentByTarget) SEND the message type called name (default DEFAULT), nil when it does.
func mayContractSend(cat *model.Catalog, contract model.ContractID, name string, side model.SentBy) error {
	name = orDefault(name, model.MessageTypeDefault)
	mt, _ := cat.MessageType(name)
	c := cat.Contracts[contract]
	i := slices.IndexFunc(c.Messages, func(m model.ContractMessageInfo) bool { return m.MessageType == mt })
	switch {
	case i < 0:
		return fmt.Errorf("contract %q does not name message type %q (DLG-16): every SEND would fail", c.Name, name)
	case c.Messages[i].SentBy != model.SentByAny && c.Messages[i].SentBy != side:
		return fmt.Errorf("contract %q lets only the %s send %q, not the %s (DLG-16): every SEND would fail",
			c.Name, strings.ToLower(c.Messages[i].SentBy.String()), name, strings.ToLower(side.String()))
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ErrUnknownQueue is returned for a queue name that names no queue, or several.
var ErrUnknownQueue = errors.New("unknown queue")

// FindService resolves a service selector, "instance/database/service" or a service name
// unique in the world, in the catalog.
func FindService(cat *model.Catalog, name string) (model.ServiceID, error) {
	found := model.ServiceID(-1)
	for i, s := range cat.Services {
		db := cat.Databases[s.Database]
		if s.Hidden {
			continue
		}
		if cat.Instances[db.Instance].Name+"/"+db.Name+"/"+s.Name == name {
			return model.ServiceID(i), nil
		}
		if s.Name == name {
			if found >= 0 {
				return 0, fmt.Errorf("service %q: several databases have a service of that name, write instance/database/service", name)
			}
			found = model.ServiceID(i)
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("service %q does not exist", name)
	}
	return found, nil
}

// FindBrokerInstance returns the broker instance a workload or route names: a GUID, or
// instance/database for that database's; zero for an empty name. A GUID no database has is
// refused: a dialog to it could never be delivered.
func FindBrokerInstance(cat *model.Catalog, name string) (model.BrokerID, error) {
	if name == "" {
		return 0, nil
	}
	for i, db := range cat.Databases {
		if name == cat.BrokerInstance(db.Broker) || name == cat.Instances[db.Instance].Name+"/"+db.Name {
			return cat.Databases[i].Broker, nil
		}
	}
	return 0, fmt.Errorf("broker instance %q is no database's (write a GUID or instance/database)", name)
}

// FindQueue resolves a queue selector, "instance/database/queue" or a queue name unique in
// the world, in the catalog.
func FindQueue(cat *model.Catalog, name string) (model.QueueID, error) {
	found := model.QueueID(-1)
	for i, q := range cat.Queues {
		db := cat.Databases[q.Database]
		full := cat.Instances[db.Instance].Name + "/" + db.Name + "/" + q.Name
		if full == name {
			return model.QueueID(i), nil
		}
		if q.Name == name {
			if found >= 0 {
				return 0, fmt.Errorf("queue %q: %w: several queues have that name, write instance/database/queue", name, ErrUnknownQueue)
			}
			found = model.QueueID(i)
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("queue %q: %w", name, ErrUnknownQueue)
	}
	return found, nil
}

// validateActivation checks the procedures, that every activated queue names a defined
// one, and the external activators.
func (c *Config) validateActivation(cat *model.Catalog) error {
	names := map[string]bool{}
	for i, p := range c.Procedures {
		where := fmt.Sprintf("procedure %d (%s)", i, p.Name)
		switch {
		case p.Name == "":
			return fmt.Errorf("procedure %d: no name", i)
		case names[p.Name]:
			return fmt.Errorf("%s: defined twice", where)
		case p.Mode > GroupLoop:
			return fmt.Errorf("%s: Mode %d is neither ReceiveLoop nor GroupLoop", where, p.Mode)
		case p.Top < 0:
			return fmt.Errorf("%s: Top %d is negative", where, p.Top)
		case p.WaitFor < 0:
			return fmt.Errorf("%s: WaitFor %v is negative", where, p.WaitFor)
		case p.CommitEvery < 0:
			return fmt.Errorf("%s: CommitEvery %d is negative", where, p.CommitEvery)
		case !(p.RollbackRate >= 0 && p.RollbackRate <= 1):
			return fmt.Errorf("%s: RollbackRate %v is outside [0, 1]", where, p.RollbackRate)
		}
		if err := p.ProcessingTime.Validate(); err != nil {
			return fmt.Errorf("%s: ProcessingTime: %w", where, err)
		}
		if err := validateHandlers(cat, c.ProcedureQueues(cat, p.Name), p.On); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		names[p.Name] = true
	}
	for _, q := range cat.Queues {
		if a := q.Activation; (a.Status || a.Procedure != "") && !names[a.Procedure] {
			return fmt.Errorf("queue %q: activation procedure %q is not in Procedures", q.Name, a.Procedure)
		}
	}
	for i, a := range c.ExternalActivators {
		where := fmt.Sprintf("external activator %d", i)
		if _, err := FindQueue(cat, a.Queue); err != nil {
			return fmt.Errorf("%s: Queue: %w", where, err)
		}
		if _, err := FindQueue(cat, a.Target); err != nil {
			return fmt.Errorf("%s: Target: %w", where, err)
		}
		switch {
		case !names[a.Procedure]:
			return fmt.Errorf("%s: procedure %q is not in Procedures", where, a.Procedure)
		case a.MaxReaders < 1:
			return fmt.Errorf("%s: MaxReaders %d is below 1", where, a.MaxReaders)
		}
		if err := a.StartupDelay.Validate(); err != nil {
			return fmt.Errorf("%s: StartupDelay: %w", where, err)
		}
	}
	return nil
}
