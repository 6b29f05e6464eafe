package scenarios

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sbsim/sbsim/model"
)

// workloadRun is a Workload at work: it begins its dialogs and sends their messages.
type workloadRun struct {
	w                       *world
	cfg                     *Workload
	index                   int
	inst                    model.InstanceID
	from                    model.ServiceID
	to                      model.ServiceName
	toBroker                model.BrokerID
	contract                model.ContractID
	messageType, replyType  model.MessageTypeID
	arrivals, gaps, sizes   *rand.Rand
	dialogs                 []*dialogApp
	begun, ended, sendFails int64
	messagesSent, replies   int64
	// keepOpen leaves dialogs open after their last message (memory measurements).
	keepOpen bool
	// attempts counts BEGIN DIALOG statements issued.
	attempts int
	// group is the conversation group of the current group's first dialog (GroupSize).
	group model.ConversationGroupID
	// received counts the user messages the targets received, targetEnded the dialogs
	// whose target ended by the life cycle (lifecycle.go).
	received, targetEnded int64
	// pool is the pool of reused dialogs (Reuse), nil for a dialog per unit of work;
	// recycled counts the dialogs it retired, lockWaits the units whose first SEND waited
	// for the group's lock, and lockWait their time waiting.
	pool      *pool
	recycled  int64
	lockWaits int64
	lockWait  time.Duration
	// owed is the CPU time its current step's statements cost; busyUntil is when the CPU
	// work and log flush of its last step are done: its next event waits for it (cost.go).
	owed      bill
	busyUntil time.Duration
}

// dialogApp is the application state of one dialog of a workload, both sides.
type dialogApp struct {
	wl        *workloadRun
	initiator model.ConversationHandle
	// The two endpoints' levels, for metrics by level: the initiator's from BEGIN DIALOG,
	// the target's from the first message it received.
	initiatorLevel, targetLevel model.PriorityLevel
	sent                        int
	replies                     int
	ended                       bool
	// received counts the user messages the target received, targetEnded says the target
	// ended its side by the life cycle (lifecycle.go).
	received    int
	targetEnded bool
	// reused marks a pooled dialog (Reuse); endOfStream, when positive, is the number of
	// messages up to and including its end-of-stream message.
	reused      bool
	endOfStream int
}

// isEndOfStream reports whether the next message the target receives on d is its
// end-of-stream message (Reuse.EndOfStream).
func (d *dialogApp) isEndOfStream() bool {
	return d.reused && d.endOfStream > 0 && d.received+1 >= d.endOfStream
}

// beginNext is the argument of a workload event that begins the next dialog; any other
// argument sends the next message of the dialog with that index.
const beginNext = ^uint64(0)

// beginAgain is the argument of a workload event that begins again a dialog whose BEGIN
// DIALOG a crash rolled back while it waited, without scheduling the next.
const beginAgain = ^uint64(0) - 1

func (w *world) newWorkload(i int) (*workloadRun, error) {
	cfg := &w.cfg.Workloads[i]
	wl := &workloadRun{w: w, cfg: cfg, index: i}
	wl.from, _ = FindService(w.cat, cfg.From)
	wl.to, _ = w.cat.ServiceName(cfg.To)
	wl.toBroker, _ = FindBrokerInstance(w.cat, cfg.ToBrokerInstance)
	wl.inst = w.instanceOfService(wl.from)
	wl.contract, _ = w.cat.Contract(orDefault(cfg.Contract, model.ContractDefault))
	wl.messageType, _ = w.cat.MessageType(orDefault(cfg.MessageType, model.MessageTypeDefault))
	wl.replyType, _ = w.cat.MessageType(orDefault(cfg.ReplyType, model.MessageTypeDefault))
	prefix := "workload/" + cfg.Name + "/" + strconv.Itoa(i) + "/"
	wl.arrivals, wl.gaps, wl.sizes = w.e.Stream(prefix+"arrivals"), w.e.Stream(prefix+"gaps"), w.e.Stream(prefix+"sizes")
	if cfg.Reuse != nil {
		wl.pool = newPool(wl)
	} else if cfg.Dialogs > 0 {
		w.e.Schedule(cfg.Start, wl, beginNext)
	}
	return wl, nil
}

func (wl *workloadRun) HandleEvent(arg uint64) {
	if wl.w.whileDown(wl.inst, wl, arg) {
		return // the instance is down: the workload goes on at its restart
	}
	if wl.busy(arg) {
		return // a serial sender: it goes on once its last step's CPU work is done
	}
	switch arg {
	case beginNext:
		wl.begin()
	case beginAgain:
		wl.beginDialog(wl.cfg.GroupSize > 1 && wl.group != 0)
	default:
		wl.sendNext(wl.dialogs[arg], int(arg))
	}
	wl.payCPU()
}

// begin begins one dialog, sends what it sends at once, and schedules the next dialog.
// With GroupSize, the dialogs after a group's first join its group (RELATED_CONVERSATION_
// GROUP, DLG-2); BEGIN DIALOG then waits while the initiator's reader holds the group.
func (wl *workloadRun) begin() {
	w := wl.w
	wl.beginDialog(wl.cfg.GroupSize > 1 && wl.attempts%wl.cfg.GroupSize != 0)
	wl.attempts++
	if wl.attempts < wl.cfg.Dialogs {
		w.e.After(wl.cfg.Interarrival.Sample(wl.arrivals), wl, beginNext)
	}
}

// beginDialog begins one dialog, in the current group when related, and sends what it
// sends at once.
func (wl *workloadRun) beginDialog(related bool) {
	w := wl.w
	opts := model.BeginDialogOptions{Lifetime: wl.cfg.Lifetime, ToBrokerInstance: wl.toBroker}
	if related {
		opts.RelatedConversationGroup = wl.group
	}
	index, gap := -1, time.Duration(0)
	w.step(wl.inst, func(b *model.Broker) {
		t := b.Begin(w.now())
		wl.charge(costBeginDialog, 1)
		h, err := t.BeginDialog(w.now(), wl.from, wl.to, wl.contract, opts)
		if err == model.ErrWaiting {
			w.waiterOf[wl.inst][t.ID()] = &pendingBegin{wl: wl, t: t, epoch: w.epoch(wl.inst)}
			return
		}
		index, gap = wl.started(b, t, h, err)
	})
	wl.sendAfter(index, gap)
}

// started carries on once BEGIN DIALOG has finished in t: it commits, and the dialog
// sends its first messages. It returns the dialog's index and the gap before its next
// message (send), or -1 when BEGIN DIALOG failed.
func (wl *workloadRun) started(b *model.Broker, t *model.Tx, h model.ConversationHandle, err error) (int, time.Duration) {
	w := wl.w
	if err != nil {
		if !t.Done() {
			t.Rollback(w.now())
		}
		wl.sendFails++
		w.statementFailed(err)
		return -1, 0
	}
	t.Commit(w.now())
	wl.begun++
	ep, _ := b.Endpoint(h)
	if wl.cfg.GroupSize > 1 && wl.group != ep.ConversationGroupID {
		wl.group = ep.ConversationGroupID // the group's first dialog
	}
	d := &dialogApp{wl: wl, initiator: h, initiatorLevel: ep.Priority, targetLevel: model.DefaultPriority}
	w.dialogs[ep.ConversationID] = d
	wl.dialogs = append(wl.dialogs, d)
	return len(wl.dialogs) - 1, wl.send(b, d)
}

// pendingBegin is a BEGIN DIALOG waiting for its group's lock.
type pendingBegin struct {
	wl  *workloadRun
	t   *model.Tx
	err error
	// epoch is its instance's epoch when it began: a crash since rolled it back.
	epoch uint32
}

func (p *pendingBegin) statementCompleted(err error) {
	p.err = err
	p.wl.w.e.After(0, p, 0)
}

func (p *pendingBegin) HandleEvent(uint64) {
	if w := p.wl.w; p.epoch != w.epoch(p.wl.inst) {
		// It completed, then its instance crashed before it went on: the crash rolled it
		// back, and the dialog begins again once the instance is up.
		if !w.whileDown(p.wl.inst, p.wl, beginAgain) {
			w.e.After(0, p.wl, beginAgain)
		}
		return
	}
	index, gap := -1, time.Duration(0)
	p.wl.w.step(p.wl.inst, func(b *model.Broker) {
		_, _, h := p.t.Result(nil)
		index, gap = p.wl.started(b, p.t, h, p.err)
	})
	p.wl.sendAfter(index, gap)
	p.wl.payCPU()
}

// sendNext sends the dialog's next messages as one input of the broker, and schedules the
// one after.
func (wl *workloadRun) sendNext(d *dialogApp, index int) {
	var gap time.Duration
	wl.w.step(wl.inst, func(b *model.Broker) { gap = wl.send(b, d) })
	wl.sendAfter(index, gap)
}

// sendAfter schedules the next message of the dialog with that index after gap, once the
// effects of the last are carried out; a zero gap means the dialog has sent its last.
func (wl *workloadRun) sendAfter(index int, gap time.Duration) {
	if gap > 0 {
		wl.w.e.After(gap, wl, uint64(index))
	}
}

// send sends the dialog's messages up to the next gap, and returns the gap; after the last
// message it ends the conversation unless replies are awaited, and returns zero.
func (wl *workloadRun) send(b *model.Broker, d *dialogApp) time.Duration {
	w := wl.w
	for d.sent < wl.cfg.Messages && !d.ended {
		size := int64(wl.cfg.Size.distribution().Sample(wl.sizes))
		// A SEND that waits for the group's lock (the initiator's reader holds it) is sent
		// when it gets it; its completion reports a failure then.
		wl.charge(costSend, 1)
		err := b.Send(w.now(), d.initiator, wl.messageType, size)
		if err == model.ErrWaiting {
			w.waitingStatement(wl.inst, b, &pendingStatement{wl: wl, d: d, epoch: w.epoch(wl.inst)})
		} else if err != nil {
			// The dialog failed (an Error arrived, the lifetime expired): stop sending.
			wl.sendFails++
			d.sent = wl.cfg.Messages
			break
		}
		d.sent++
		wl.messagesSent++
		if gap := wl.cfg.MessageGap.Sample(wl.gaps); gap > 0 && d.sent < wl.cfg.Messages {
			return gap
		}
	}
	if wl.initiatorEndsAfterSend(d) {
		wl.end(b, d)
	}
	return 0
}

// end ends the initiator's side of the dialog, once.
func (wl *workloadRun) end(b *model.Broker, d *dialogApp) {
	if d.ended || wl.keepOpen {
		return
	}
	d.ended = true
	wl.charge(costEnd, 1)
	err := b.EndConversation(wl.w.now(), d.initiator, wl.endOptions())
	if err == model.ErrWaiting {
		wl.w.waitingStatement(wl.inst, b, &pendingStatement{wl: wl, d: d, end: true, epoch: wl.w.epoch(wl.inst)})
	}
	if err == nil || err == model.ErrWaiting {
		wl.ended++
	} else if !errors.Is(err, model.ErrHandleNotFound) {
		wl.w.statementFailed(err)
	}
}
