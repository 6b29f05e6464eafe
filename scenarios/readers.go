package scenarios

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// MaxSessions bounds Reader.Sessions: the most sessions a reader program may run.
const MaxSessions = 1000

// readerProgram is the reader program of one queue: Reader.Sessions sessions running its
// loop, each in its own transactions.
type readerProgram struct {
	w        *world
	queue    model.QueueID
	inst     model.InstanceID
	cfg      Reader
	sessions []*session
	// kind says who starts the sessions: the world at the start (static), the queue's
	// monitor (activated), or an external activator (external); exitWhenEmpty makes a
	// session end when its RECEIVE returns nothing (G-7).
	kind          programKind
	exitWhenEmpty bool
	// running counts the sessions that have not exited, active those of them that have
	// started; activator, when set, is the external activator this program reads
	// notifications for.
	running   int
	active    int
	activator *activator
	// ext is the external activator that starts this program's sessions.
	ext *activator
	// known are conversation handles this program has received from, for the statements
	// that touch another conversation than the one received (lock waits, deadlocks).
	known []model.ConversationHandle
	stats ReaderResult
	// prog runs the handlers and the hook (program.go); nil when the reader has none.
	prog *program
}

// session is one copy of the loop. It is a small state machine driven by engine events:
// start a transaction and its first statement, wait for a statement the broker finishes
// later (Effects.Completed), process what it received, commit or roll back, start again.
type session struct {
	r       *readerProgram
	index   int
	rng     *rand.Rand
	task    model.TaskID // the activated task it runs, zero for none
	begun   bool         // it has started (an external reader waits out its start-up first)
	exited  bool
	crashed bool // a statement failed unexpectedly: the session is not restarted
	dead    bool // it died with its instance (G-13): its events do nothing
	t       *model.Tx
	phase   sessionPhase
	err     error // the outcome of the statement that completed
	batch   []model.ReceivedMessage
	acts    []appAct // what the applications did in the transaction, undone on rollback
	stopped bool     // the queue is OFF: the loop waits for ALTER QUEUE ... STATUS = ON
	// owed is the CPU time the current step's statements cost (cost.go); received counts
	// the RECEIVEs of the transaction that returned rows (CommitEvery); rollback is the
	// end chosen for a transaction that waits for its COMMIT's CPU and log flush.
	owed     bill
	received int
	rollback bool
	// The program's statements of the transaction (program_run.go): ops run in order from
	// the cursor pc, begunDialog is the dialog the last BEGIN DIALOG began, counts what they did,
	// poison that a handler chose to roll the transaction back.
	ops         []op
	pc          int
	opsRunning  bool
	begunDialog model.ConversationHandle
	counts      programCounts
	poison      bool

	receivedAt time.Duration // when the RECEIVE that returned batch did (figures.go)
}

type sessionPhase uint8

const (
	phaseIdle       sessionPhase = iota
	phaseGroup                   // GET CONVERSATION GROUP waits
	phaseReceive                 // RECEIVE waits
	phaseProcessing              // the received messages are being processed
	phaseTouch                   // a statement on another conversation waits for its lock
	phaseProgram                 // a statement of the program waits for its lock
)

// Session events.
const (
	evStart uint64 = iota
	evCompleted
	evProcessed
	evEnded // the COMMIT's CPU time and log flush (or the ROLLBACK's CPU time) are done
)

func (w *world) newReaderProgram(q model.QueueID, cfg Reader) *readerProgram {
	db := w.cat.Queues[q].Database
	r := &readerProgram{w: w, queue: q, inst: w.cat.Databases[db].Instance, cfg: cfg}
	r.stats.Queue = w.cat.Queues[q].Name
	r.stats.Mode = cfg.Mode.String()
	r.prog = w.newProgram(r.kind, q, 0, &r.cfg)
	for range max(cfg.Sessions, 1) {
		r.addSession(0, 0)
	}
	return r
}

// addSession starts one more session of the program after delay; task is the activated
// task it runs, zero for none.
func (r *readerProgram) addSession(task model.TaskID, delay time.Duration) *session {
	w := r.w
	i := len(r.sessions)
	s := &session{r: r, index: i, task: task,
		rng: w.e.Stream(r.kind.String() + "/" + strconv.Itoa(int(r.queue)) + "/" + strconv.Itoa(i))}
	r.sessions = append(r.sessions, s)
	r.running++
	r.stats.Sessions++
	r.stats.PeakRunning = max(r.stats.PeakRunning, r.running)
	w.e.After(delay, s, evStart)
	return s
}

// wake starts again the sessions that stopped on an OFF queue.
func (r *readerProgram) wake() {
	for _, s := range r.sessions {
		if s.stopped && !s.exited && !s.crashed {
			s.stopped = false
			r.w.e.After(0, s, evStart)
		}
	}
}

// statementWaiter is an application whose statement waits in a transaction of its own.
type statementWaiter interface {
	// statementCompleted is told the statement's outcome; it goes on in an event of its own.
	statementCompleted(err error)
}

func (s *session) statementCompleted(err error) {
	if s.dead {
		return
	}
	s.err = err
	s.r.w.e.After(0, s, evCompleted)
}

// HandleEvent runs the session's next step as one input of its broker: the statements it
// issues take effect together when it returns.
func (s *session) HandleEvent(ev uint64) {
	if !s.dead && s.broker().Down() {
		s.kill() // started for an instance that is down: it never runs
	}
	if s.dead {
		return
	}
	s.r.w.step(s.r.inst, func(*model.Broker) {
		switch ev {
		case evStart:
			s.start()
		case evCompleted:
			s.completed()
		case evProcessed:
			s.processed()
		case evEnded:
			s.endTransaction(s.rollback)
			s.start()
		}
	})
}

func (s *session) broker() *model.Broker { return s.r.w.brokers[s.r.inst] }

// waitFor is the WAITFOR TIMEOUT to use: negative waits for ever.
func (s *session) waitFor() time.Duration {
	if s.r.cfg.WaitFor == 0 {
		return -1
	}
	return s.r.cfg.WaitFor
}

// start begins a transaction and its first statement.
func (s *session) start() {
	if s.stopped {
		return
	}
	if !s.begun {
		s.begun = true
		s.r.active++
	}
	w := s.r.w
	if s.t != nil && s.t.Done() {
		s.broker().Recycle(s.t) // nothing refers to it any more: its completion has come
	}
	if s.task != 0 {
		s.t = s.broker().BeginTask(w.now(), s.task)
	} else {
		s.t = s.broker().Begin(w.now())
	}
	s.r.stats.Transactions++
	s.received = 0
	s.receive(true)
}

// receive runs the loop's first statement, waiting for messages when wait (WAITFOR), or
// returning at once when the queue has none (the later RECEIVEs of a CommitEvery batch).
func (s *session) receive(wait bool) {
	w := s.r.w
	timeout := s.waitFor()
	if !wait {
		timeout = 0
	}
	s.charge(costReceiveCall, 1)
	if s.r.cfg.Mode == GroupLoop {
		s.phase = phaseGroup
		g, err := s.t.GetConversationGroup(w.now(), s.r.queue, wait, timeout)
		s.gotGroup(g, err)
		return
	}
	s.phase = phaseReceive
	rows, err := s.t.Receive(w.now(), s.r.queue, model.ReceiveOptions{Top: s.r.cfg.Top, WaitFor: wait, Timeout: timeout}, s.batch[:0])
	s.gotRows(rows, err)
}

// completed goes on with the statement the broker has finished.
func (s *session) completed() {
	switch s.phase {
	case phaseGroup:
		_, g, _ := s.t.Result(nil)
		s.gotGroup(g, s.err)
	case phaseReceive:
		rows, _, _ := s.t.Result(s.batch[:0])
		s.gotRows(rows, s.err)
	case phaseTouch:
		// The conversation may have ended while the statement waited for its group.
		if !errors.Is(s.err, model.ErrHandleNotFound) && s.failed(s.err) {
			return
		}
		s.finish()
	case phaseProgram:
		s.resumeOps()
	default:
		panic(fmt.Sprintf("scenarios: session %d of queue %d: a statement completed in phase %d at t=%v",
			s.index, s.r.queue, s.phase, s.r.w.now()))
	}
}

func (s *session) gotGroup(g model.ConversationGroupID, err error) {
	switch {
	case err == model.ErrWaiting:
		s.r.w.waiterOf[s.r.inst][s.t.ID()] = s
		return
	case s.failed(err):
		return
	case g == 0: // WAITFOR ran out
		s.nothingReceived()
		return
	}
	s.phase = phaseReceive
	s.charge(costReceiveCall, 1)
	rows, err := s.t.Receive(s.r.w.now(), s.r.queue, model.ReceiveOptions{Top: s.r.cfg.Top, Group: g}, s.batch[:0])
	s.gotRows(rows, err)
}

func (s *session) gotRows(rows []model.ReceivedMessage, err error) {
	switch {
	case err == model.ErrWaiting:
		s.r.w.waiterOf[s.r.inst][s.t.ID()] = s
		return
	case s.failed(err):
		return
	case len(rows) == 0: // WAITFOR ran out
		s.nothingReceived()
		return
	}
	s.batch, s.receivedAt = rows, s.r.w.now()
	s.received++
	s.charge(costReceiveRow, len(rows))
	busy := time.Duration(0)
	for _, m := range rows {
		// Each draw is at most sim.MaxDelay; so is their sum, so that a batch of long ones
		// cannot overflow the clock.
		d, poison, handled := s.handlerBusy(m)
		if !handled {
			d = s.r.cfg.ProcessingTime.Sample(s.rng)
		}
		s.poison = s.poison || poison
		busy = min(busy+d, sim.MaxDelay)
	}
	s.r.stats.Busy += busy
	s.phase = phaseProcessing
	s.r.w.e.Schedule(s.payCPU(busy, false), s, evProcessed) // at now+busy without costs
}

// nothingReceived ends a transaction whose RECEIVE (or GET CONVERSATION GROUP) returned
// nothing: a reader that runs while it has work exits, rolling back (G-7); the others
// commit and loop.
func (s *session) nothingReceived() {
	if s.received > 0 { // a later RECEIVE of a CommitEvery batch: the batch ends
		s.endBatch()
		return
	}
	if s.r.exitWhenEmpty {
		s.t.Rollback(s.r.w.now())
		s.batch, s.phase, s.owed = s.batch[:0], phaseIdle, bill{}
		s.exit()
		return
	}
	s.charge(costCommit, 1)
	done := s.payCPU(0, true) // now without costs
	s.endTransaction(false)
	s.r.w.e.Schedule(done, s, evStart)
}

// exit ends the session for good; an activated task tells its broker (ACT-8).
func (s *session) exit() {
	if s.exited {
		return
	}
	s.exited = true
	s.stopped = true
	s.r.running--
	if s.begun {
		s.r.active--
	}
	w := s.r.w
	if s.task != 0 {
		if err := s.broker().TaskExited(w.now(), s.task); err != nil {
			w.statementFailed(err)
		}
	}
}

// processed acts on the batch inside the transaction, then, now and then, touches another
// conversation (BEGIN CONVERSATION TIMER on a handle seen before: a statement on a group
// that another session may hold, so lock waits and deadlocks happen), then ends.
func (s *session) processed() {
	for _, m := range s.batch {
		s.act(m)
		s.r.remember(m.ConversationHandle)
	}
	s.pc = 0
	s.afterOps()
}

// afterOps runs the program's statements, unless one waits, then goes on with the end of
// the transaction.
func (s *session) afterOps() {
	if len(s.ops) > 0 && s.runOps() {
		return
	}
	if p := s.r.cfg.TouchRate; p > 0 && s.rng.Float64() < p && len(s.r.known) > 0 {
		h := s.r.known[s.rng.IntN(len(s.r.known))]
		s.phase = phaseTouch
		s.charge(costTimer, 1)
		err := s.t.BeginConversationTimer(s.r.w.now(), h, s.r.cfg.TouchTimer)
		if err == model.ErrWaiting {
			s.r.w.waiterOf[s.r.inst][s.t.ID()] = s
			return
		}
		if !errors.Is(err, model.ErrHandleNotFound) && s.failed(err) {
			return
		}
	}
	s.finish()
}

// finish RECEIVEs again in the transaction while a CommitEvery batch has room, or ends it.
func (s *session) finish() {
	if s.received < s.r.cfg.CommitEvery {
		s.receive(false)
		return
	}
	s.endBatch()
}

// endBatch commits or rolls back, then loops; with costs, once the COMMIT's CPU time and
// log flush are done.
func (s *session) endBatch() {
	c := &s.r.cfg
	rollback := s.poison || c.RollbackRate > 0 && (c.RollbackUntil == 0 || s.r.w.now() < c.RollbackUntil) &&
		s.rng.Float64() < c.RollbackRate
	if s.r.w.cfg.Costs != nil {
		if !rollback {
			s.charge(costCommit, 1)
		}
		s.rollback = rollback
		s.phase = phaseIdle
		done := s.payCPU(0, !rollback)
		s.owed = bill{} // a rollback writes nothing to flush
		s.r.w.e.Schedule(done, s, evEnded)
		return
	}
	s.endTransaction(rollback)
	s.start()
}

// endTransaction commits (and keeps what the applications did) or rolls back (and undoes it).
func (s *session) endTransaction(rollback bool) {
	w := s.r.w
	if rollback {
		s.t.Rollback(w.now())
		s.undoActs()
		s.r.stats.Rollbacks++
	} else {
		s.t.Commit(w.now())
		s.commitActs()
		s.commitCounts()
		s.r.stats.Commits++
	}
	s.resetProgram()
	s.batch = s.batch[:0]
	s.phase = phaseIdle
}

// resetProgram forgets the program's statements of a transaction that has ended; what a
// rolled-back one counted is dropped.
func (s *session) resetProgram() {
	s.ops, s.pc, s.begunDialog, s.poison = s.ops[:0], 0, 0, false
	s.counts = programCounts{}
}

// failed handles a statement's error and reports whether there was one. A deadlock victim
// (already rolled back) starts again; an OFF queue stops the loop until the queue is ON.
func (s *session) failed(err error) bool {
	if err == nil {
		return false
	}
	w := s.r.w
	switch {
	case errors.Is(err, model.ErrDeadlockVictim):
		s.undoActs()
		s.r.stats.Deadlocks++
		w.e.After(0, s, evStart)
	case errors.Is(err, model.ErrQueueDisabled):
		if !s.t.Done() {
			s.t.Rollback(w.now())
		}
		s.undoActs()
		s.stopped = true
		if s.r.exitWhenEmpty {
			s.exit() // an activated reader exits on the error (G-18)
		}
	default:
		w.statementFailed(err)
		if !s.t.Done() {
			s.t.Rollback(w.now())
		}
		s.undoActs()
		s.stopped, s.crashed = true, true // counted as a statement error; never restarted
		if s.r.exitWhenEmpty {
			s.exit() // an activated task ends: its MAX_QUEUE_READERS slot frees (ACT-8)
		}
	}
	s.resetProgram()
	s.batch = s.batch[:0]
	s.phase = phaseIdle
	s.owed = bill{}
	return true
}

// remember notes a conversation handle the program has received from.
func (r *readerProgram) remember(h model.ConversationHandle) {
	if r.cfg.TouchRate > 0 && len(r.known) < 1024 {
		for _, k := range r.known {
			if k == h {
				return
			}
		}
		r.known = append(r.known, h)
	}
}

// appAct is something the applications did in a transaction, kept if it commits.
type appAct struct {
	kind actKind
	d    *dialogApp
	msg  model.ReceivedMessage
	undo func()        // actProgram: restores the program's state
	at   time.Duration // when RECEIVE returned msg
}

type actKind uint8

const (
	actReceived           actKind = iota + 1 // a user message, for the latency figures at commit
	actReply                                 // a reply counted
	actEnded                                 // the initiator's side ended
	actNotified                              // an external activator got QUEUE_ACTIVATION
	actProgram                               // a program changed its state per group or conversation
	actCounted                               // a message the target received, for its life cycle
	actCountedEndOfStream                    // the end-of-stream message of a pooled dialog
	actTargetEnded                           // the target's side ended by its life cycle
)

func (s *session) commitActs() {
	w := s.r.w
	for _, a := range s.acts {
		switch a.kind {
		case actReceived:
			m := a.msg
			w.latency.record(m.EnqueuedAt - m.SentAt)
			w.levels[s.r.senderLevel(m)].add(m)
			s.r.stats.Messages++
			w.noteReceived(s.r.queue, m, a.at)
		case actNotified:
			s.r.activator.notified()
		}
	}
	clear(s.acts)
	s.acts = s.acts[:0]
}

func (s *session) undoActs() {
	for i := len(s.acts) - 1; i >= 0; i-- {
		a := s.acts[i]
		switch a.kind {
		case actReply:
			a.d.replies--
			a.d.wl.replies--
		case actEnded:
			a.d.ended = false
			a.d.wl.ended--
		case actProgram:
			a.undo()
		default:
			undoLifeCycle(a)
		}
	}
	clear(s.acts)
	s.acts = s.acts[:0]
}

// senderLevel is the level of the endpoint that sent m, which the receiving broker does not
// know (levels are never transmitted, PRI-5): the applications remember both endpoints'.
func (r *readerProgram) senderLevel(m model.ReceivedMessage) int {
	d := r.w.dialogs[m.ConversationID]
	if d == nil {
		return model.DefaultPriority.Level()
	}
	if m.ConversationHandle == d.initiator {
		return d.targetLevel.Level() // a reply, received by the initiator
	}
	d.targetLevel = m.Priority // the target endpoint's own level, as RECEIVE reports it
	return d.initiatorLevel.Level()
}

// act is what the application does with one received message, in the session's
// transaction: end the conversation on an EndDialog or an Error (DLG-6), answer a request
// when the workload wants replies, and end the initiator's side once every reply has
// arrived.
func (s *session) act(m model.ReceivedMessage) {
	w := s.r.w
	now := w.now()
	if s.r.prog != nil && !s.endOfStream(m) && s.programAct(m) {
		if !isSystemType(m.MessageType) {
			s.workloadReceived(m, true) // the handler replaced the reply, not the life cycle
		}
		return
	}
	switch m.MessageType {
	case model.DialogTimerMessageType:
		return
	case model.EventNotificationMessageType:
		if a := s.r.activator; a != nil {
			s.acts = append(s.acts, appAct{kind: actNotified})
		}
		return
	case model.EndDialogMessageType, model.ErrorMessageType:
		d := w.dialogs[m.ConversationID]
		if d != nil && m.ConversationHandle != d.initiator && m.MessageType == model.EndDialogMessageType && !d.wl.targetEndsOnEndDialog() {
			return // the life cycle's target program does not end on the EndDialog: it leaks
		}
		if d != nil && m.ConversationHandle == d.initiator {
			if d.ended {
				return
			}
			d.ended = true
			d.wl.ended++
			s.acts = append(s.acts, appAct{kind: actEnded, d: d})
		}
		s.charge(costEnd, 1)
		if err := s.t.EndConversation(now, m.ConversationHandle, model.EndOptions{}); err != nil && !errors.Is(err, model.ErrHandleNotFound) {
			w.statementFailed(err)
		}
		return
	}
	s.acts = append(s.acts, appAct{kind: actReceived, msg: m, at: s.receivedAt})
	s.workloadReceived(m, false)
}

// completedStatement routes a completion to the session whose transaction it is. A
// completion of another transaction is an application statement run on its own
// (autocommit) that waited for a lock: its failure counts unless the dialog failed
// meanwhile.
func (w *world) completedStatement(inst model.InstanceID, c model.Completion) {
	if s := w.waiterOf[inst][c.Tx]; s != nil {
		delete(w.waiterOf[inst], c.Tx)
		s.statementCompleted(c.Err)
		return
	}
	if c.Err != nil && !errors.Is(c.Err, model.ErrConversationNotSending) && !errors.Is(c.Err, model.ErrHandleNotFound) {
		w.statementFailed(c.Err)
	}
}

var _ sim.Handler = (*session)(nil)
