package scenarios

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// workloadRun is a Workload at work: it begins its dialogs and sends their messages.
type workloadRun struct {
	w                       *world
	cfg                     *Workload
	index                   int
	inst                    model.InstanceID
	from, to                model.ServiceID
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
}

// beginNext is the argument of a workload event that begins the next dialog; any other
// argument sends the next message of the dialog with that index.
const beginNext = ^uint64(0)

func (w *world) newWorkload(i int) (*workloadRun, error) {
	cfg := &w.cfg.Workloads[i]
	wl := &workloadRun{w: w, cfg: cfg, index: i}
	wl.from, _ = w.cat.Service(cfg.From)
	wl.to, _ = w.cat.Service(cfg.To)
	wl.inst = w.instanceOfService(wl.from)
	wl.contract, _ = w.cat.Contract(orDefault(cfg.Contract, model.ContractDefault))
	wl.messageType, _ = w.cat.MessageType(orDefault(cfg.MessageType, model.MessageTypeDefault))
	wl.replyType, _ = w.cat.MessageType(orDefault(cfg.ReplyType, model.MessageTypeDefault))
	prefix := "workload/" + cfg.Name + "/" + strconv.Itoa(i) + "/"
	wl.arrivals, wl.gaps, wl.sizes = w.e.Stream(prefix+"arrivals"), w.e.Stream(prefix+"gaps"), w.e.Stream(prefix+"sizes")
	if cfg.Dialogs > 0 {
		w.e.Schedule(cfg.Start, wl, beginNext)
	}
	return wl, nil
}

func (wl *workloadRun) HandleEvent(arg uint64) {
	if arg == beginNext {
		wl.begin()
		return
	}
	wl.sendNext(wl.dialogs[arg], int(arg))
}

// begin begins one dialog, sends what it sends at once, and schedules the next dialog.
func (wl *workloadRun) begin() {
	w := wl.w
	b := w.brokers[wl.inst]
	h, err := b.BeginDialog(w.now(), wl.from, wl.to, wl.contract, model.BeginDialogOptions{Lifetime: wl.cfg.Lifetime})
	if err != nil {
		wl.sendFails++
		w.statementFailed(err)
	} else {
		wl.begun++
		ep, _ := b.Endpoint(h)
		d := &dialogApp{wl: wl, initiator: h, initiatorLevel: ep.Priority, targetLevel: model.DefaultPriority}
		w.dialogs[ep.ConversationID] = d
		wl.dialogs = append(wl.dialogs, d)
		wl.sendNext(d, len(wl.dialogs)-1)
	}
	wl.attempts++
	if wl.attempts < wl.cfg.Dialogs {
		w.e.After(wl.cfg.Interarrival.Sample(wl.arrivals), wl, beginNext)
	}
}

// sendNext sends the dialog's next message, then either schedules the one after, or, after
// the last, ends the conversation unless replies are awaited.
func (wl *workloadRun) sendNext(d *dialogApp, index int) {
	w := wl.w
	b := w.brokers[wl.inst]
	for d.sent < wl.cfg.Messages && !d.ended {
		size := int64(wl.cfg.Size.distribution().Sample(wl.sizes))
		if err := b.Send(w.now(), d.initiator, wl.messageType, size); err != nil {
			// The dialog failed (an Error arrived, the lifetime expired): stop sending.
			wl.sendFails++
			d.sent = wl.cfg.Messages
			break
		}
		d.sent++
		wl.messagesSent++
		if gap := wl.cfg.MessageGap.Sample(wl.gaps); gap > 0 && d.sent < wl.cfg.Messages {
			w.apply(wl.inst)
			w.e.After(gap, wl, uint64(index))
			return
		}
	}
	if !wl.cfg.Replies || d.replies >= wl.cfg.Messages {
		wl.end(d)
	}
	w.apply(wl.inst)
}

// end ends the initiator's side of the dialog, once.
func (wl *workloadRun) end(d *dialogApp) {
	if d.ended || wl.keepOpen {
		return
	}
	d.ended = true
	opts := model.EndOptions{}
	if wl.cfg.EndWithError {
		opts = model.EndOptions{WithError: true, ErrorCode: 50000}
	}
	if err := wl.w.brokers[wl.inst].EndConversation(wl.w.now(), d.initiator, opts); err == nil {
		wl.ended++
	} else if !errors.Is(err, model.ErrHandleNotFound) {
		wl.w.statementFailed(err)
	}
}

// queueReader is the reader of one queue: the replaceable part that the conversation group
// and activation issues turn into configurable reader programs. It RECEIVEs while
// messages are ready, takes ProcessingTime per message, and acts on what it got.
type queueReader struct {
	w         *world
	queue     model.QueueID
	inst      model.InstanceID
	cfg       Reader
	rng       *rand.Rand
	scheduled bool // an event is pending: a RECEIVE, or the end of processing
	batch     []model.ReceivedMessage
}

func (w *world) newReader(q model.QueueID, cfg Reader) *queueReader {
	db := w.cat.Queues[q].Database
	return &queueReader{w: w, queue: q, inst: w.cat.Databases[db].Instance, cfg: cfg,
		rng: w.e.Stream("reader/" + strconv.Itoa(int(q)))}
}

// wake makes the reader RECEIVE soon, unless it is already busy or about to.
func (r *queueReader) wake() {
	if !r.scheduled {
		r.scheduled = true
		r.w.e.After(0, r, 0)
	}
}

// HandleEvent acts on the batch whose processing ended, if any, then RECEIVEs again.
func (r *queueReader) HandleEvent(uint64) {
	r.scheduled = false
	w := r.w
	for _, m := range r.batch {
		r.act(m)
	}
	r.batch = r.batch[:0]
	b := w.brokers[r.inst]
	batch, err := b.Receive(w.now(), r.queue, r.cfg.Top, r.batch)
	if err != nil || len(batch) == 0 {
		w.apply(r.inst)
		return // the queue is OFF or empty: wait for the next Ready
	}
	r.batch = batch
	busy := time.Duration(0)
	for range batch {
		busy += r.cfg.ProcessingTime.Sample(r.rng)
	}
	for _, m := range batch {
		if m.MessageType > model.DialogTimerMessageType { // user messages only
			w.latency.record(m.EnqueuedAt - m.SentAt)
			w.levels[r.senderLevel(m)].add(m)
		}
	}
	w.apply(r.inst)
	r.scheduled = true
	w.e.After(busy, r, 0)
}

// senderLevel is the level of the endpoint that sent m, which the receiving broker does not
// know (levels are never transmitted, PRI-5): the applications remember both endpoints'.
func (r *queueReader) senderLevel(m model.ReceivedMessage) int {
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

// act is what the application does with one received message: end the conversation on an
// EndDialog or an Error (DLG-6), answer a request when the workload wants replies, and end
// the initiator's side once every reply has arrived.
func (r *queueReader) act(m model.ReceivedMessage) {
	w := r.w
	b := w.brokers[r.inst]
	switch m.MessageType {
	case model.EndDialogMessageType, model.ErrorMessageType:
		d := w.dialogs[m.ConversationID]
		if d != nil && m.ConversationHandle == d.initiator {
			if d.ended {
				return
			}
			d.ended = true
			d.wl.ended++
		}
		if err := b.EndConversation(w.now(), m.ConversationHandle, model.EndOptions{}); err != nil && !errors.Is(err, model.ErrHandleNotFound) {
			w.statementFailed(err)
		}
		return
	}
	d := w.dialogs[m.ConversationID]
	if d == nil {
		return
	}
	if m.ConversationHandle != d.initiator {
		if d.wl.cfg.Replies {
			size := int64(d.wl.cfg.ReplySize.distribution().Sample(d.wl.sizes))
			if err := b.Send(w.now(), m.ConversationHandle, d.wl.replyType, size); errors.Is(err, model.ErrConversationNotSending) || errors.Is(err, model.ErrHandleNotFound) {
				// The dialog failed or ended meanwhile: its lifetime expired, an Error arrived
				// and this reader ended the conversation on it earlier in the batch.
				d.wl.sendFails++
			} else if err != nil {
				w.statementFailed(err)
			}
		}
		return
	}
	d.replies++
	d.wl.replies++
	if d.replies >= d.wl.cfg.Messages && d.sent >= d.wl.cfg.Messages {
		d.wl.end(d)
	}
}

var _ sim.Handler = (*queueReader)(nil)
