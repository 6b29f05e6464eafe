package scenarios

import (
	"fmt"
	"time"

	"github.com/sbsim/sbsim/model"
)

// The figures of a message's way through a queue and of a request's round trip (issue 14,
// item 6). Two hooks feed them: noteReady, where the world carries out a broker's Ready
// effects (the backlog of a queue), and noteReceived, where a reader's committed
// transaction keeps what it received (everything else).

// QueueFlow is what went through one queue: how long its user messages waited on it, how
// many its readers took and how fast, and its backlog.
type QueueFlow struct {
	// TimeInQueue is from a message becoming ready on the queue to the RECEIVE that returned
	// it; Sojourn from its SEND commit to the commit of the transaction that received it.
	// Both over the user messages received in committed transactions.
	TimeInQueue, Sojourn LatencySummary
	// Received counts those messages. FirstArrival and LastArrival are the earliest and the
	// latest time one of them became ready, LastReceived the commit that received the last.
	Received                                int64
	FirstArrival, LastArrival, LastReceived time.Duration
	// BacklogPeak is the most messages (of any type) ready on the queue after a step of the
	// world that made one ready: exact, not sampled. ReadyAtEnd counts those left at the end.
	BacklogPeak, ReadyAtEnd int
}

// RunFlow is the run's figures over every queue and workload: the round trips of every
// workload's requests, and the time in queue and sojourn of every user message received.
type RunFlow struct {
	RoundTrip, TimeInQueue, Sojourn LatencySummary
}

// queueFlow collects a queue's QueueFlow; its recorders are made at its first message.
type queueFlow struct {
	res                  QueueFlow
	timeInQueue, sojourn *latencyRecorder
}

// workloadFlow collects one workload's latency (both directions of its dialogs) and the
// round trips of its requests.
type workloadFlow struct {
	latency, roundTrip *latencyRecorder
	untracked          int64
}

// MaxPendingRequests bounds the requests the world remembers, over all dialogs, for the
// round trips (requests received by the target and not yet answered by a reply received
// by the initiator): 8 bytes each. Past it, a request is not remembered, and its dialog's
// round trips are measured no more (RoundTripsUntracked counts the requests left out).
const MaxPendingRequests = 1 << 20

// flows is the world's figures of queues and round trips.
type flows struct {
	workloads []workloadFlow // by workload index
	// pending holds, per dialog, the SEND commit times of the requests its target has
	// received and its initiator has had no reply to yet, oldest first: reply k on a
	// dialog answers request k (EOIO, reply in the receiving transaction). untracked
	// marks the dialogs whose requests overflowed MaxPendingRequests.
	pending    map[model.ConversationID][]time.Duration
	untracked  map[model.ConversationID]bool
	pendingLen int
	run        struct{ roundTrip, timeInQueue, sojourn *latencyRecorder }
}

// record records d in *r, making the recorder first.
func record(r **latencyRecorder, d time.Duration) {
	if *r == nil {
		*r = newLatencyRecorder()
	}
	(*r).record(d)
}

func summaryOf(r *latencyRecorder) LatencySummary {
	if r == nil {
		return LatencySummary{}
	}
	return r.summary()
}

// noteReady notes that messages became ready on queue q of instance inst: its backlog.
func (w *world) noteReady(inst model.InstanceID, q model.QueueID) {
	f := &w.queues[q].flow.res
	f.BacklogPeak = max(f.BacklogPeak, w.brokers[inst].ReadyMessages(q))
}

// noteReceived notes a user message that a reader of queue q received by a RECEIVE at
// receivedAt, in a transaction that commits now.
func (w *world) noteReceived(q model.QueueID, m model.ReceivedMessage, receivedAt time.Duration) {
	now := w.now()
	if receivedAt < m.EnqueuedAt {
		panic(fmt.Sprintf("scenarios: a message ready at %v counted as received at %v, on queue %d", m.EnqueuedAt, receivedAt, q))
	}
	qf := &w.queues[q].flow
	f := &qf.res
	if f.Received == 0 || m.EnqueuedAt < f.FirstArrival {
		f.FirstArrival = m.EnqueuedAt
	}
	f.Received++
	f.LastArrival, f.LastReceived = max(f.LastArrival, m.EnqueuedAt), now
	fl := &w.flows
	record(&qf.timeInQueue, receivedAt-m.EnqueuedAt)
	record(&qf.sojourn, now-m.SentAt)
	record(&fl.run.timeInQueue, receivedAt-m.EnqueuedAt)
	record(&fl.run.sojourn, now-m.SentAt)
	d := w.dialogs[m.ConversationID]
	if d == nil {
		return // not a workload's dialog
	}
	if fl.workloads == nil {
		fl.workloads = make([]workloadFlow, len(w.workloads))
	}
	wf := &fl.workloads[d.wl.index]
	record(&wf.latency, m.EnqueuedAt-m.SentAt)
	if m.ConversationHandle != d.initiator {
		if !d.wl.awaitsReplies() {
			return
		}
		if !w.initiatorCanReceive(d) {
			fl.forget(m.ConversationID) // the initiator's side has ended: no reply can reach it
			return
		}
		if !fl.requestReceived(m.ConversationID, m.SentAt) {
			wf.untracked++
		}
		return
	}
	if sent, ok := fl.replyReceived(m.ConversationID); ok {
		record(&wf.roundTrip, now-sent)
		record(&fl.run.roundTrip, now-sent)
	}
}

// initiatorCanReceive says whether a reply may still reach the initiator of d: its
// endpoint exists and its side has not ended (DO, CD). d.ended is not enough: it is set
// when the END is issued, and an END that waits for the group's lock (held by the
// initiator's reader, which is receiving a reply) has not ended anything yet.
func (w *world) initiatorCanReceive(d *dialogApp) bool {
	st, ok := w.brokers[d.wl.inst].EndpointStateOf(d.initiator)
	return ok && st != model.DisconnectedOutbound && st != model.Closed
}

// awaitsReplies says whether the workload's dialogs are answered, so that the round trips
// remember their requests: with Workload.Replies. A reader program that replies to a
// workload's requests (issue 14, item 1) makes it true here too.
func (wl *workloadRun) awaitsReplies() bool { return wl.cfg.Replies }

// forget drops what the round trips remember of a dialog.
func (f *flows) forget(c model.ConversationID) {
	if p, ok := f.pending[c]; ok {
		f.pendingLen -= len(p)
		delete(f.pending, c)
	}
}

// requestReceived remembers the SEND commit time of a request the target received; it
// reports false when the request is left out (MaxPendingRequests).
func (f *flows) requestReceived(c model.ConversationID, sentAt time.Duration) bool {
	if f.untracked[c] {
		return false
	}
	if f.pendingLen >= MaxPendingRequests {
		if f.untracked == nil {
			f.untracked = map[model.ConversationID]bool{}
		}
		f.untracked[c] = true
		f.pendingLen -= len(f.pending[c])
		delete(f.pending, c)
		return false
	}
	if f.pending == nil {
		f.pending = map[model.ConversationID][]time.Duration{}
	}
	f.pending[c] = append(f.pending[c], sentAt)
	f.pendingLen++
	return true
}

// replyReceived returns the SEND commit time of the oldest request of the dialog not yet
// answered, and forgets it; ok is false for a reply to no remembered request.
func (f *flows) replyReceived(c model.ConversationID) (time.Duration, bool) {
	p := f.pending[c]
	if len(p) == 0 {
		return 0, false
	}
	sent := p[0]
	f.pendingLen--
	if len(p) == 1 {
		delete(f.pending, c)
	} else {
		f.pending[c] = p[1:]
	}
	return sent, true
}

// flowResults fills the figures of flows into res: per queue, per workload, and the run's.
func (w *world) flowResults(res *Result) {
	qi := 0 // res.Queues lists the visible queues in QueueID order
	for q := range w.queues {
		st := &w.queues[q]
		if !st.visible {
			continue
		}
		f := st.flow.res
		f.TimeInQueue, f.Sojourn = summaryOf(st.flow.timeInQueue), summaryOf(st.flow.sojourn)
		f.ReadyAtEnd = w.brokers[w.queueInstance(model.QueueID(q))].ReadyMessages(model.QueueID(q))
		res.Queues[qi].Flow = f
		qi++
	}
	for i := range w.flows.workloads {
		wf, row := w.flows.workloads[i], &res.Workloads[i]
		row.Latency, row.RoundTrip, row.RoundTripsUntracked = summaryOf(wf.latency), summaryOf(wf.roundTrip), wf.untracked
		if wf.roundTrip != nil {
			row.RoundTripCDF = wf.roundTrip.cdf()
		}
	}
	r := &w.flows.run
	res.Flow = RunFlow{RoundTrip: summaryOf(r.roundTrip), TimeInQueue: summaryOf(r.timeInQueue), Sojourn: summaryOf(r.sojourn)}
}
