package scenarios

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// programKind says who starts a reader program's sessions.
type programKind uint8

const (
	staticProgram    programKind = iota // the world, at the start (Config.Readers)
	activatedProgram                    // the queue's monitor (internal activation, ACT-6)
	externalProgram                     // an external activator (ACT-11)
)

var programKindNames = [...]string{"reader", "activated", "external"}

func (k programKind) String() string { return programKindNames[k] }

// Procedure is an activation procedure (ACT-9, G-7): the program one activated task runs.
// It loops like a Reader, and exits when its RECEIVE (WAITFOR, TIMEOUT WaitFor) returns
// nothing, rolling back, and on a RECEIVE error.
type Procedure struct {
	Name string
	Mode ReaderMode
	Top  int
	// WaitFor is the WAITFOR TIMEOUT after which an empty RECEIVE ends the procedure;
	// zero means DefaultProcedureWaitFor.
	WaitFor        time.Duration
	ProcessingTime sim.Distribution
	RollbackRate   float64
	RollbackUntil  time.Duration // Reader.RollbackUntil
	// CommitEvery is Reader.CommitEvery.
	CommitEvery int
	// On and Hook are the procedure's program, as in Reader.
	On   []Handler
	Hook Hook
}

// DefaultProcedureWaitFor is G-7's reference procedure's time-out.
const DefaultProcedureWaitFor = 5 * time.Second

func (p *Procedure) reader(queue string) Reader {
	wait := p.WaitFor
	if wait == 0 {
		wait = DefaultProcedureWaitFor
	}
	return Reader{Queue: queue, Mode: p.Mode, Top: p.Top, WaitFor: wait, ProcessingTime: p.ProcessingTime,
		RollbackRate: p.RollbackRate, RollbackUntil: p.RollbackUntil, CommitEvery: p.CommitEvery, On: p.On, Hook: p.Hook}
}

// ExternalActivator is an external activation application (ACT-11, ACT-12): it reads the
// QUEUE_ACTIVATION notifications that arrive on Queue (the queue of the service an event
// notification names) and, for each, starts a reader of Target running Procedure after
// StartupDelay, keeping at most MaxReaders of them.
type ExternalActivator struct {
	Queue        string
	Target       string
	Procedure    string
	StartupDelay sim.Distribution
	MaxReaders   int
}

// activator is an ExternalActivator at work.
type activator struct {
	cfg     *ExternalActivator
	readers *readerProgram // the readers it starts on the target queue
	rng     *rand.Rand     // start-up delays
	stats   ActivatorResult
}

// ActivatorResult is what an external activator did.
type ActivatorResult struct {
	Queue, Target string
	// Notifications counts the QUEUE_ACTIVATION messages it received (and committed);
	// Started the readers it started; Ignored the notifications that came while
	// MaxReaders were running or starting.
	Notifications, Started, Ignored int64
}

// notified is one QUEUE_ACTIVATION received: start a reader unless MaxReaders run (or are
// starting).
func (a *activator) notified() {
	a.stats.Notifications++
	if a.readers.running >= a.cfg.MaxReaders {
		a.stats.Ignored++
		return
	}
	a.stats.Started++
	a.readers.addSession(0, a.cfg.StartupDelay.Sample(a.rng))
}

// startActivated runs the queue's procedure as a newly activated task (ACT-6). It gives
// the broker no input: it runs while step carries out the effects that asked for it.
func (w *world) startActivated(inst model.InstanceID, a model.ActivationStart) {
	r := w.activated[a.Queue]
	if r == nil {
		p := w.procedure(a.Procedure)
		if p == nil { // Validate checked every ACTIVATION clause, the timeline's too
			panic(fmt.Sprintf("scenarios: instance %d activates task %d on queue %q with procedure %q, which is not in Procedures, at t=%v",
				inst, a.Task, w.cat.Queues[a.Queue].Name, a.Procedure, w.now()))
		}
		r = &readerProgram{w: w, queue: a.Queue, inst: inst, cfg: p.reader(w.cat.Queues[a.Queue].Name), kind: activatedProgram,
			exitWhenEmpty: true}
		r.stats.Queue, r.stats.Mode = w.cat.Queues[a.Queue].Name, "activated:"+p.Name
		r.prog = w.newProgram(r.kind, a.Queue, 0, &r.cfg)
		w.activated[a.Queue] = r
		w.programs = append(w.programs, r)
	}
	r.addSession(a.Task, 0)
}

func (w *world) procedure(name string) *Procedure {
	for i := range w.cfg.Procedures {
		if w.cfg.Procedures[i].Name == name {
			return &w.cfg.Procedures[i]
		}
	}
	return nil
}

// newActivator wires an external activator: a reader of its notification queue, and the
// program of the readers it starts on the target queue.
func (w *world) newActivator(i int) *activator {
	cfg := &w.cfg.ExternalActivators[i]
	own, _ := FindQueue(w.cat, cfg.Queue)
	target, _ := FindQueue(w.cat, cfg.Target)
	a := &activator{cfg: cfg, rng: w.e.Stream(fmt.Sprintf("activator/%d", i)),
		stats: ActivatorResult{Queue: cfg.Queue, Target: cfg.Target}}
	inbox := w.newReaderProgram(own, Reader{Queue: cfg.Queue})
	inbox.activator = a
	w.readers[own] = inbox
	w.programs = append(w.programs, inbox)
	p := w.procedure(cfg.Procedure)
	a.readers = &readerProgram{w: w, queue: target, inst: w.queueInstance(target), cfg: p.reader(cfg.Target),
		kind: externalProgram, exitWhenEmpty: true, ext: a}
	a.readers.stats.Queue, a.readers.stats.Mode = cfg.Target, "external:"+p.Name
	a.readers.prog = w.newProgram(a.readers.kind, target, i, &a.readers.cfg)
	w.programs = append(w.programs, a.readers)
	return a
}

func (w *world) queueInstance(q model.QueueID) model.InstanceID {
	return w.cat.Databases[w.cat.Queues[q].Database].Instance
}
