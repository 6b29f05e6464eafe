package scenarios

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// Result is what a run produced, as plain data.
type Result struct {
	Name string
	Seed uint64
	// StopReason is why the run ended: drained, a limit of time or events, or Stopped by
	// a violation (Violation) or by the memory budget (MemoryLimit). AtLimit says whether
	// it ended at a limit.
	StopReason sim.StopReason
	// MemoryLimit says what grew when the run outgrew Config.MaxMemory; nil otherwise.
	MemoryLimit *MemoryLimit
	EndTime     time.Duration
	Events      uint64
	Instances   []InstanceResult
	// ServiceNames and BrokerInstances are the catalog's, for the ServiceName and BrokerID
	// values in the rows above (model.Catalog.ServiceNames, Brokers).
	ServiceNames, BrokerInstances []string
	Links                         []LinkResult
	Workloads                     []WorkloadResult
	// Latency is from SEND commit to the message becoming receivable at the target, over
	// the messages RECEIVE returned.
	Latency LatencySummary
	// Levels breaks the user messages RECEIVE returned down by the level of the endpoint
	// that sent them, highest first, for the levels that carried any.
	Levels []LevelResult
	// Flow is the round trips, time in queue and sojourn over the whole run (figures.go).
	Flow RunFlow
	// Conversations has one row per dialog when Config.Trace or Config.Conversations is on.
	Conversations []ConversationResult
	// StatementErrors counts statements the applications issued that failed unexpectedly;
	// FirstStatementError describes the first of them.
	StatementErrors     int64
	FirstStatementError string
	// Readers has one row per reader program: the configured and default readers by queue,
	// then the activated and external ones as they first started.
	Readers []ReaderResult
	// Queues has one row per queue (the queues the sim made aside), by QueueID.
	Queues []QueueResult
	// Activators has one row per external activator.
	Activators []ActivatorResult
	// Series are the world's figures over time.
	Series Series
	// Snapshots are the views at instants of the run, the last at its end (snapshots.go).
	Snapshots []Snapshot
	// SnapshotRows is the most rows of a view a snapshot keeps per instance.
	SnapshotRows int
	// InvariantsChecked says the online checkers watched the run (Config.CheckInvariants).
	InvariantsChecked bool
	// Violation is the first invariant violated, when Config.CheckInvariants is on.
	Violation *invariant.Violation
	// FaultPlan is what the links did to packets, and Packets every packet they were
	// offered, when Config.RecordFaults is on (fault_plan.go).
	FaultPlan *FaultPlan
	Packets   []SentPacket
	// Findings are the first design findings of the checkers (invariant.Finding: what
	// Service Broker itself would do wrong with this design), FindingCount how many there
	// were in all.
	Findings     []invariant.Finding
	FindingCount int
	// Liveness says how the liveness phase went (INV-12), when Config.CheckInvariants is on.
	Liveness LivenessResult
	// Marks counts how many times the run took each marked path (model.Mark), over every
	// instance and the world.
	Marks model.MarkCounts
	// Crashes lists the crashes of instances (G-13), in the order they happened; empty in a
	// world without.
	Crashes []CrashResult
	// CPU is each instance's CPU use, in instance order, with Config.Costs; nil without.
	CPU []CPUResult
	// Trace is every trace record of the run, in order, with Config.Trace; Traced says the
	// brokers traced at all (Trace, Conversations, TraceSink or the checkers), so that the
	// figures counted from the records (InstanceResult.ConversationsDelayed) are there.
	Trace  []model.TraceRecord
	Traced bool
}

// InstanceResult is one broker at the end of the run.
type InstanceResult struct {
	Name                    string
	Counters                model.Counters
	TransmissionQueueRows   int
	TransmissionObjectBytes int64
	// EndpointStates counts the endpoints left, by state, in state order, those of event
	// notification dialogs aside: NotificationEndpoints counts them. A notification's
	// dialog stays open for as long as the notification exists (ACT-11).
	EndpointStates        []StateCount
	NotificationEndpoints int
	Connections           []model.ConnectionStats
	// Endpoints are the instance's conversation endpoints at the end, as
	// sys.conversation_endpoints shows them, by handle.
	Endpoints []model.ConversationEndpoint
	// Routes are msdb's sys.routes at the end, Databases each database's (section 9).
	Routes    []model.RouteRow
	Databases []DatabaseResult
	// TransmissionQueue is sys.transmission_queue at the end, its rows counted by
	// database, to_service_name and transmission_status, in that order.
	TransmissionQueue []TransmissionQueueGroup
	// DelayedConversations counts the endpoints still delayed at the end (no route, RTE-2
	// step 7); ConversationsDelayed counts the times a conversation of the instance was
	// delayed in the run, from the trace: when invariants are checked or the trace kept.
	DelayedConversations int
	ConversationsDelayed int64
	// DroppedWhileDown counts the packets the links could not deliver to the instance
	// while it was down (G-13).
	DroppedWhileDown int64
}

// StateCount is how many endpoints are in a state.
type StateCount struct {
	State model.EndpointState
	Count int
}

// LinkResult is one direction of a link.
type LinkResult struct {
	Name     string
	Counters faulty.Counters
}

// WorkloadResult is what a workload did.
type WorkloadResult struct {
	Name string
	// End is the workload's life cycle, Reused says it sends on a pool of dialogs.
	End             LifeCycle
	Reused          bool
	DialogsBegun    int64
	DialogsEnded    int64
	MessagesSent    int64
	RepliesReceived int64
	SendFailures    int64
	// Latency is from SEND commit to ready, over the user messages of the workload's
	// dialogs received, both directions; RoundTrip from a request's SEND commit to the
	// commit that received its reply on the initiator's side (a workload with Replies);
	// RoundTripsUntracked counts the requests left out of the round trips
	// (MaxPendingRequests).
	Latency, RoundTrip  LatencySummary
	RoundTripsUntracked int64
	// RoundTripCDF is the round trip's distribution, from its histogram's buckets.
	RoundTripCDF []CDFPoint
	// MessagesReceived counts the messages their targets received (committed), end-of-stream
	// messages aside; DialogsEndedByTarget the dialogs the target ended by the life cycle.
	MessagesReceived     int64
	DialogsEndedByTarget int64
	// DialogsRecycled counts the pooled dialogs retired (Reuse); SenderLockWaits the units
	// of work whose first SEND waited for the group's lock, SenderLockWait their waiting.
	DialogsRecycled int64
	SenderLockWaits int64
	SenderLockWait  time.Duration
}

// ConversationResult counts what happened to one dialog, from the trace.
type ConversationResult struct {
	Conversation           model.ConversationID
	MessagesSent           int64
	MessagesDelivered      int64
	FragmentsSent          int64
	Retransmissions        int64
	DuplicatesDiscarded    int64
	DiscardedOnPurpose     int64
	FirstSent, LastArrival time.Duration
	// Latency is from SEND commit to ready at the target, over the user messages of both
	// directions.
	Latency LatencySummary
}

// conversationStats is a ConversationResult being counted, with its latencies. A dialog
// has few messages, so its samples cost less than a histogram would (an HDR histogram
// takes tens of KB).
type conversationStats struct {
	ConversationResult
	latencies []time.Duration
}

// LatencySummary summarises a latency distribution.
type LatencySummary struct {
	Count                    int64
	Mean, P50, P90, P99, Max time.Duration
}

// latencyRecorder keeps latencies in an HDR histogram, in microseconds with three
// significant digits, rather than every sample. The mean comes from an exact integer sum,
// not from the histogram's floating-point one.
type latencyRecorder struct {
	h   *hdrhistogram.Histogram
	sum int64 // microseconds
}

const latencyMax = 24 * time.Hour

func newLatencyRecorder() *latencyRecorder {
	return &latencyRecorder{h: hdrhistogram.New(1, int64(latencyMax/time.Microsecond), 3)}
}

func (l *latencyRecorder) record(d time.Duration) {
	us := min(max(int64(d/time.Microsecond), 1), int64(latencyMax/time.Microsecond))
	if err := l.h.RecordValue(us); err != nil {
		panic(fmt.Sprintf("scenarios: latency %v not recordable: %v", d, err))
	}
	l.sum += us
}

func (l *latencyRecorder) summary() LatencySummary {
	if l.h.TotalCount() == 0 {
		return LatencySummary{}
	}
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	return LatencySummary{Count: l.h.TotalCount(), Mean: us(l.sum / l.h.TotalCount()),
		P50: us(l.h.ValueAtQuantile(50)), P90: us(l.h.ValueAtQuantile(90)), P99: us(l.h.ValueAtQuantile(99)),
		Max: us(l.h.Max())}
}

// countConversation adds a trace record to its dialog's row.
func (w *world) countConversation(r *model.TraceRecord) {
	if r.Conversation == 0 {
		return
	}
	c := w.convStats[r.Conversation]
	if c == nil {
		c = &conversationStats{ConversationResult: ConversationResult{Conversation: r.Conversation, FirstSent: -1}}
		w.convStats[r.Conversation] = c
	}
	switch r.Kind {
	case model.TraceMessageSent:
		c.MessagesSent++
		if c.FirstSent < 0 {
			c.FirstSent = r.At
		}
	case model.TraceMessageReady:
		c.MessagesDelivered++
		c.LastArrival = r.At
		if r.MessageType.IsUser() {
			c.latencies = append(c.latencies, r.At-r.SentAt)
		}
	case model.TraceFragmentSent:
		c.FragmentsSent++
		if r.Retry {
			c.Retransmissions++
		}
	case model.TraceFragmentDuplicate:
		c.DuplicatesDiscarded++
	case model.TraceFragmentDiscarded:
		c.DiscardedOnPurpose++
	}
}

// result collects the plain data of the world after its run.
func (w *world) result(reason sim.StopReason, seed uint64) *Result {
	res := &Result{Name: w.cfg.Name, Seed: seed, StopReason: reason, EndTime: w.e.Now(), Events: w.e.Fired(),
		Latency: w.latency.summary(), Levels: w.levelResults(), StatementErrors: w.statementErrors,
		FirstStatementError: w.firstStatementError, Readers: w.readerResults(), Queues: w.queueResults(),
		Activators: w.activatorResults(), Series: w.series, InvariantsChecked: w.checker != nil, Violation: w.violation,
		Trace: w.trace, Traced: w.tracing || w.checker != nil, MemoryLimit: w.memoryLimit, ServiceNames: w.cat.ServiceNames, BrokerInstances: w.cat.Brokers,
		Crashes: slices.Clone(w.crashes), CPU: w.cpuResults()}
	if w.checker != nil {
		res.Findings, res.FindingCount = w.checker.Findings(), w.checker.FindingCount()
		res.Liveness = w.liveness.cfg
	}
	res.Marks = w.marks
	if w.plan != nil && w.plan.record {
		plan := w.plan.recorded
		res.FaultPlan, res.Packets = &plan, w.plan.packets
	}
	for i, b := range w.brokers {
		bm := b.Marks()
		res.Marks.Add(&bm)
		ir := InstanceResult{Name: w.cat.Instances[i].Name, Counters: b.Counters(),
			TransmissionQueueRows: len(b.TransmissionQueue()), TransmissionObjectBytes: b.TransmissionObjectBytes(),
			Connections: b.Connections()}
		if w.droppedWhileDown != nil {
			ir.DroppedWhileDown = w.droppedWhileDown[i]
		}
		counts := map[model.EndpointState]int{}
		ir.Endpoints = b.Endpoints()
		for _, ep := range ir.Endpoints {
			if ep.Contract == model.PostEventNotificationContract {
				ir.NotificationEndpoints++
				continue
			}
			counts[ep.State]++
		}
		for s := model.StartedOutbound; s <= model.Closed; s++ {
			if counts[s] > 0 {
				ir.EndpointStates = append(ir.EndpointStates, StateCount{s, counts[s]})
			}
		}
		w.routeResults(model.InstanceID(i), &ir)
		res.Instances = append(res.Instances, ir)
	}
	for _, p := range w.pairs {
		res.Links = append(res.Links, LinkResult{p.pair.AToB.Name(), p.pair.AToB.Counters()},
			LinkResult{p.pair.BToA.Name(), p.pair.BToA.Counters()})
	}
	for _, wl := range w.workloads {
		res.Workloads = append(res.Workloads, WorkloadResult{Name: wl.cfg.Name, End: wl.cfg.End, Reused: wl.pool != nil, DialogsBegun: wl.begun,
			DialogsEnded: wl.ended, MessagesSent: wl.messagesSent, RepliesReceived: wl.replies, SendFailures: wl.sendFails,
			MessagesReceived: wl.received, DialogsEndedByTarget: wl.targetEnded, DialogsRecycled: wl.recycled,
			SenderLockWaits: wl.lockWaits, SenderLockWait: wl.lockWait})
	}
	w.flowResults(res)
	res.Snapshots, res.SnapshotRows = w.snapshotResults(), w.cfg.Snapshots.rows()
	for _, c := range w.convStats {
		c.Latency = summarize(c.latencies)
		res.Conversations = append(res.Conversations, c.ConversationResult)
	}
	slices.SortFunc(res.Conversations, func(a, b ConversationResult) int { return cmp.Compare(a.Conversation, b.Conversation) })
	return res
}

// summarize returns the summary of a few latencies, exactly: nearest-rank quantiles.
func summarize(samples []time.Duration) LatencySummary {
	if len(samples) == 0 {
		return LatencySummary{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, d := range samples {
		sum += d
	}
	rank := func(q float64) time.Duration {
		i := int(math.Ceil(q*float64(len(samples)))) - 1
		return samples[min(max(i, 0), len(samples)-1)]
	}
	return LatencySummary{Count: int64(len(samples)), Mean: sum / time.Duration(len(samples)),
		P50: rank(0.5), P90: rank(0.9), P99: rank(0.99), Max: samples[len(samples)-1]}
}

// LevelResult is what the messages sent at one priority level went through.
type LevelResult struct {
	Level    int
	Messages int64
	Bytes    int64
	// Share is this level's part of all the bytes delivered.
	Share float64
	// Latency is from SEND commit to ready at the target; its Max is the longest wait of
	// any message of the level.
	Latency LatencySummary
	// TransmissionQueueWait is from SEND commit to the message's first fragment leaving the
	// sender: the part of the latency the transmission scheduler decides.
	TransmissionQueueWait LatencySummary
	// LatencyCDF is the latency's distribution, from the histogram's buckets (three
	// significant digits).
	LatencyCDF []CDFPoint
}

// levelStats collects one level's messages.
type levelStats struct {
	latency, waiting *latencyRecorder
	bytes            int64
}

func (s *levelStats) add(m model.ReceivedMessage) {
	if s.latency == nil {
		s.latency, s.waiting = newLatencyRecorder(), newLatencyRecorder()
	}
	s.latency.record(m.EnqueuedAt - m.SentAt)
	s.waiting.record(m.TransmittedAt - m.SentAt)
	s.bytes += m.Bytes
}

// levelResults returns the levels that carried messages, highest first.
func (w *world) levelResults() []LevelResult {
	var total int64
	for _, s := range w.levels {
		total += s.bytes
	}
	var out []LevelResult
	for l := 10; l >= 1; l-- {
		s := w.levels[l]
		if s.latency == nil {
			continue
		}
		r := LevelResult{Level: l, Messages: s.latency.h.TotalCount(), Bytes: s.bytes, Latency: s.latency.summary(),
			TransmissionQueueWait: s.waiting.summary(), LatencyCDF: s.latency.cdf()}
		if total > 0 {
			r.Share = float64(s.bytes) / float64(total)
		}
		out = append(out, r)
	}
	return out
}

// ReaderResult is what one queue's reader program did.
type ReaderResult struct {
	Queue    string
	Mode     string
	Sessions int
	// Transactions begun, committed and rolled back on purpose (RollbackRate); Deadlocks
	// counts transactions chosen as deadlock victims (G-24).
	Transactions, Commits, Rollbacks, Deadlocks int64
	// Messages counts the user messages received in committed transactions.
	Messages int64
	// Busy is the processing time of all sessions together.
	Busy time.Duration
	// PeakRunning is the most sessions that ran at once, those still in their start-up
	// (external readers) counted.
	PeakRunning int
	// The program's statements (Reader.On, Reader.Hook) in committed transactions: SEND,
	// BEGIN DIALOG, END CONVERSATION, BEGIN CONVERSATION TIMER, and the sagas whose
	// replies were all gathered; StatementFailures counts the statements that failed (the
	// dialog had failed or ended, the contract refused the type on that side), which do
	// not stop the run; StatementWaits the statements that waited for a group's lock.
	Sends, BeginDialogs, Ends, Timers, Gathered int64
	StatementFailures, StatementWaits           int64
	// Program is set when the reader runs a program (handlers or a hook).
	Program bool
}

func (w *world) readerResults() []ReaderResult {
	rows := make([]ReaderResult, len(w.programs))
	for i, r := range w.programs {
		rows[i] = r.stats
		rows[i].Program = r.prog != nil
	}
	return rows
}

func (w *world) activatorResults() []ActivatorResult {
	var rows []ActivatorResult
	for _, a := range w.activators {
		rows = append(rows, a.stats)
	}
	return rows
}
