package results

import (
	"strconv"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// Level is what the user messages sent at one priority level went through (the level of
// the sending endpoint), over the messages received in committed transactions.
type Level struct {
	Level    int   `json:"level"`
	Messages int64 `json:"messages"`
	Bytes    int64 `json:"bytes"`
	// Share is this level's part of all the bytes received, from 0 to 1.
	Share   float64 `json:"share"`
	Latency Latency `json:"latency"`
	// TransmissionQueueWait is from SEND commit to the message's first fragment leaving.
	TransmissionQueueWait Latency `json:"transmission_queue_wait"`
}

// Queue is one queue: poison detection, lock waits, its monitor and activated tasks at the
// end (sys.dm_broker_queue_monitors, sys.dm_broker_activated_tasks), and peaks over its
// samples.
type Queue struct {
	Instance           string          `json:"instance"`
	Queue              string          `json:"queue"`
	PoisonDisables     int64           `json:"poison_disables"`
	LockWaits          Latency         `json:"lock_waits"`
	LockWaitsAbandoned int64           `json:"lock_waits_abandoned"`
	PeakActivated      int             `json:"peak_activated"`
	PeakReady          int             `json:"peak_ready"`
	PeakReaders        int             `json:"peak_readers"`
	PeakWaiting        int             `json:"peak_waiting"`
	Samples            int             `json:"samples"`
	Monitor            *Monitor        `json:"monitor"`
	ActivatedTasks     []ActivatedTask `json:"activated_tasks"`
	// MessagesReceived, TimeInQueue, Sojourn and BacklogPeak are the queue's flow
	// (scenarios.QueueFlow): user messages received, ready to RECEIVE, SEND commit to the
	// receiving commit, the most messages ready at once.
	MessagesReceived int64   `json:"messages_received"`
	TimeInQueue      Latency `json:"time_in_queue"`
	Sojourn          Latency `json:"sojourn"`
	BacklogPeak      int     `json:"backlog_peak"`
}

// Monitor is a queue monitor at the end of the run, as sys.dm_broker_queue_monitors shows
// it.
type Monitor struct {
	QueueID              int      `json:"queue_id"`
	State                string   `json:"state"`
	LastEmptyRowsetTimeS *float64 `json:"last_empty_rowset_time_s"`
	LastActivatedTimeS   *float64 `json:"last_activated_time_s"`
	TasksWaiting         int      `json:"tasks_waiting"`
	Running              int      `json:"running"`
	Failed               bool     `json:"failed"`
	Started              int64    `json:"started"`
	NotificationsSent    int64    `json:"notifications_sent"`
}

// ActivatedTask is an activated task still running at the end, as
// sys.dm_broker_activated_tasks shows it.
type ActivatedTask struct {
	Task      int     `json:"task"`
	Procedure string  `json:"procedure"`
	StartedS  float64 `json:"started_s"`
}

// Reader is what one reader program did.
type Reader struct {
	Queue        string  `json:"queue"`
	Mode         string  `json:"mode"`
	Sessions     int     `json:"sessions"`
	Transactions int64   `json:"transactions"`
	Commits      int64   `json:"commits"`
	Rollbacks    int64   `json:"rollbacks"`
	Deadlocks    int64   `json:"deadlocks"`
	Messages     int64   `json:"messages"`
	BusyS        float64 `json:"busy_s"`
	PeakRunning  int     `json:"peak_running"`
}

// Activator is what one external activator did.
type Activator struct {
	Queue         string `json:"queue"`
	Target        string `json:"target"`
	Notifications int64  `json:"notifications"`
	Started       int64  `json:"started"`
	Ignored       int64  `json:"ignored"`
}

// Link is one direction of a link, with its counters at the end (net/faulty.Counters).
type Link struct {
	Link             string `json:"link"`
	Sent             int64  `json:"sent"`
	Delivered        int64  `json:"delivered"`
	Lost             int64  `json:"lost"`
	DroppedCapacity  int64  `json:"dropped_capacity"`
	DroppedPartition int64  `json:"dropped_partition"`
	InFlight         int64  `json:"in_flight"`
	Duplicated       int64  `json:"duplicated"`
	Corrupted        int64  `json:"corrupted"`
	Bytes            int64  `json:"bytes"`
	BytesDelivered   int64  `json:"bytes_delivered"`
}

// Instance is one broker at the end of the run.
type Instance struct {
	Instance                string `json:"instance"`
	TransmissionQueueRows   int    `json:"transmission_queue_rows"`
	TransmissionObjectBytes int64  `json:"transmission_object_bytes"`
	// EndpointStates counts the conversation endpoints left, by state, in state order;
	// NotificationEndpoints counts those of event notification dialogs, apart.
	EndpointStates        []StateCount     `json:"endpoint_states"`
	NotificationEndpoints int              `json:"notification_endpoints"`
	Counters              InstanceCounters `json:"counters"`
	Connections           []Connection     `json:"connections"`
	// ConversationEndpoints is sys.conversation_endpoints at the end of the run.
	ConversationEndpoints []Endpoint `json:"conversation_endpoints"`
	// Routes is msdb's sys.routes at the end, Databases each database's broker instance
	// and sys.routes.
	Routes    []Route    `json:"routes"`
	Databases []Database `json:"databases"`
	// TransmissionQueue is sys.transmission_queue at the end, grouped.
	TransmissionQueue []TransmissionQueueGroup `json:"transmission_queue"`
	// DelayedConversations counts the endpoints delayed at the end, ConversationsDelayed
	// the delays in the run (scenarios.InstanceResult).
	DelayedConversations int   `json:"delayed_conversations"`
	ConversationsDelayed int64 `json:"conversations_delayed"`
	// DroppedWhileDown counts the packets the links could not deliver to the instance
	// while it was down after a crash (G-13); left out when zero.
	DroppedWhileDown int64 `json:"dropped_while_down,omitempty"`
}

// Crash is one crash of an instance (G-13): when it crashed and restarted, and how long
// after the restart delivery to it resumed (null when none did).
type Crash struct {
	Instance   string   `json:"instance"`
	CrashedAtS float64  `json:"crashed_at_s"`
	RestartAtS float64  `json:"restart_at_s"`
	Restarted  bool     `json:"restarted"`
	ResumeS    *float64 `json:"resume_after_restart_s"`
}

func crashes(in []scenarios.CrashResult) []Crash {
	var out []Crash
	for _, c := range in {
		row := Crash{Instance: c.Instance, CrashedAtS: seconds(c.CrashedAt), RestartAtS: seconds(c.RestartsAt), Restarted: c.Restarted}
		if d, ok := c.Resumed(); ok {
			s := seconds(d)
			row.ResumeS = &s
		}
		out = append(out, row)
	}
	return out
}

// Endpoint is a row of sys.conversation_endpoints (model.ConversationEndpoint); ids are
// strings, as they may exceed 2^53.
type Endpoint struct {
	ConversationHandle  string   `json:"conversation_handle"`
	ConversationID      string   `json:"conversation_id"`
	IsInitiator         bool     `json:"is_initiator"`
	ConversationGroupID string   `json:"conversation_group_id"`
	Service             int32    `json:"service_id"`
	FarService          string   `json:"far_service"`
	FarBrokerInstance   string   `json:"far_broker_instance"`
	Contract            int32    `json:"service_contract_id"`
	State               string   `json:"state"`
	LifetimeS           *float64 `json:"lifetime_s"`
	SendSequence        int64    `json:"send_sequence"`
	EndDialogSequence   int64    `json:"end_dialog_sequence"`
	ReceiveSequence     int64    `json:"receive_sequence"`
	ReceiveSequenceFrag int32    `json:"receive_sequence_frag"`
	Priority            int      `json:"priority"`
	TransmissionRows    int      `json:"transmission_rows"`
	ReadyMessages       int      `json:"ready_messages"`
	HeldFragments       int      `json:"held_fragments"`
}

func endpoints(res *scenarios.Result, in []model.ConversationEndpoint) []Endpoint {
	out := make([]Endpoint, 0, len(in))
	for _, e := range in {
		row := Endpoint{ConversationHandle: e.ConversationHandle.String(), ConversationID: e.ConversationID.String(),
			IsInitiator: e.IsInitiator, ConversationGroupID: e.ConversationGroupID.String(), Service: int32(e.Service),
			FarService: res.ServiceNames[e.FarService], Contract: int32(e.Contract), State: e.State.String(),
			SendSequence: int64(e.SendSequence), EndDialogSequence: int64(e.EndDialogSequence),
			ReceiveSequence: int64(e.ReceiveSequence), ReceiveSequenceFrag: e.ReceiveSequenceFrag,
			Priority: e.Priority.Level(), TransmissionRows: e.TransmissionRows, ReadyMessages: e.ReadyMessages,
			HeldFragments: e.HeldFragments}
		if e.Lifetime > 0 {
			row.LifetimeS = optionalSeconds(e.Lifetime)
		}
		if b := e.FarBrokerInstance; b > 0 {
			row.FarBrokerInstance = res.BrokerInstances[b-1]
		}
		out = append(out, row)
	}
	return out
}

// StateCount is how many endpoints are in a state, by its two-letter code (CO, DI, ...).
type StateCount struct {
	State string `json:"state"`
	Count int    `json:"count"`
}

// InstanceCounters are a broker's counters (model.Counters).
type InstanceCounters struct {
	MessagesSent           int64 `json:"messages_sent"`
	MessagesEnqueued       int64 `json:"messages_enqueued"`
	MessagesReceived       int64 `json:"messages_received"`
	FragmentsSent          int64 `json:"fragments_sent"`
	FragmentsRetransmitted int64 `json:"fragments_retransmitted"`
	FragmentsReceived      int64 `json:"fragments_received"`
	DuplicatesDiscarded    int64 `json:"duplicates_discarded"`
	CorruptDiscarded       int64 `json:"corrupt_discarded"`
	FragmentsDiscarded     int64 `json:"fragments_discarded"`
	AcksSent               int64 `json:"acks_sent"`
	AcksPiggybacked        int64 `json:"acks_piggybacked"`
	EndpointsCreated       int64 `json:"endpoints_created"`
	EndpointsDeleted       int64 `json:"endpoints_deleted"`
	Commits                int64 `json:"commits"`
	Rollbacks              int64 `json:"rollbacks"`
	Deadlocks              int64 `json:"deadlocks"`
	PoisonDisables         int64 `json:"poison_disables"`
	SendsDropped           int64 `json:"sends_dropped"`
	// FragmentsForwarded and AcksForwarded are left out when zero: an instance that
	// forwards nothing (RTE-5).
	FragmentsForwarded int64 `json:"fragments_forwarded,omitempty"`
	AcksForwarded      int64 `json:"acks_forwarded,omitempty"`
	// Crashes and Restarts are left out when zero: a world without crashes (G-13).
	Crashes  int64 `json:"crashes,omitempty"`
	Restarts int64 `json:"restarts,omitempty"`
}

// Connection is a broker's adjacent-broker connection to one peer
// (sys.dm_broker_connections).
type Connection struct {
	Peer                string  `json:"peer"`
	State               string  `json:"state"`
	IsAccept            bool    `json:"is_accept"`
	Opened              int64   `json:"opened"`
	PacketsSent         int64   `json:"packets_sent"`
	FragmentsSent       int64   `json:"fragments_sent"`
	FragmentsReceived   int64   `json:"fragments_received"`
	BytesSent           int64   `json:"bytes_sent"`
	BytesReceived       int64   `json:"bytes_received"`
	LastActivityTimeS   float64 `json:"last_activity_time_s"`
	TotalConnectedTimeS float64 `json:"total_connected_time_s"`
}

// Workload is what one initiating application did.
type Workload struct {
	Workload        string `json:"workload"`
	DialogsBegun    int64  `json:"dialogs_begun"`
	DialogsEnded    int64  `json:"dialogs_ended"`
	MessagesSent    int64  `json:"messages_sent"`
	RepliesReceived int64  `json:"replies_received"`
	SendFailures    int64  `json:"send_failures"`
	// Latency is over the user messages of the workload's dialogs, both directions;
	// RoundTrip from a request's SEND commit to the commit that received its reply;
	// RoundTripsUntracked, left out when zero, counts requests the round trips left out.
	Latency             Latency `json:"latency"`
	RoundTrip           Latency `json:"round_trip"`
	RoundTripsUntracked int64   `json:"round_trips_untracked,omitempty"`
	// The life cycle and reuse figures, for a workload that has them (docs/lifecycles.md).
	LifeCycle            string   `json:"life_cycle,omitempty"`
	MessagesReceived     *int64   `json:"messages_received_by_target,omitempty"`
	DialogsEndedByTarget int64    `json:"dialogs_ended_by_target,omitempty"`
	DialogsRecycled      int64    `json:"dialogs_recycled,omitempty"`
	SenderLockWaits      int64    `json:"sender_lock_waits,omitempty"`
	SenderLockWaitS      *float64 `json:"sender_lock_wait_s,omitempty"`
}

// Conversation is one dialog's figures, counted from the trace records as the run goes (so
// only for a run with Config.Conversations or Config.Trace), both directions together.
type Conversation struct {
	Conversation        string   `json:"conversation"`
	MessagesSent        int64    `json:"messages_sent"`
	MessagesDelivered   int64    `json:"messages_delivered"`
	FragmentsSent       int64    `json:"fragments_sent"`
	Retransmissions     int64    `json:"retransmissions"`
	DuplicatesDiscarded int64    `json:"duplicates_discarded"`
	DiscardedOnPurpose  int64    `json:"discarded_on_purpose"`
	FirstSentS          *float64 `json:"first_sent_s"`
	LastArrivalS        *float64 `json:"last_arrival_s"`
	Latency             Latency  `json:"latency"`
}

func levels(in []scenarios.LevelResult) []Level {
	out := make([]Level, 0, len(in))
	for _, l := range in {
		out = append(out, Level{Level: l.Level, Messages: l.Messages, Bytes: l.Bytes, Share: l.Share,
			Latency: latency(l.Latency), TransmissionQueueWait: latency(l.TransmissionQueueWait)})
	}
	return out
}

func queues(in []scenarios.QueueResult) []Queue {
	out := make([]Queue, 0, len(in))
	for _, q := range in {
		row := Queue{Instance: q.Instance, Queue: q.Queue, PoisonDisables: q.PoisonDisables,
			LockWaits: latency(q.LockWaits), LockWaitsAbandoned: q.LockWaitsAbandoned, PeakActivated: q.PeakActivated,
			Samples: len(q.Samples), ActivatedTasks: []ActivatedTask{}, MessagesReceived: q.Flow.Received,
			TimeInQueue: latency(q.Flow.TimeInQueue), Sojourn: latency(q.Flow.Sojourn), BacklogPeak: q.Flow.BacklogPeak}
		for _, smp := range q.Samples {
			row.PeakReady, row.PeakReaders = max(row.PeakReady, smp.Ready), max(row.PeakReaders, smp.Readers)
			row.PeakWaiting = max(row.PeakWaiting, smp.Waiting)
		}
		if m := q.Monitor; m != nil {
			mon := monitor(*m)
			row.Monitor = &mon
		}
		for _, t := range q.ActivatedTasks {
			row.ActivatedTasks = append(row.ActivatedTasks, ActivatedTask{Task: int(t.Task), Procedure: t.Procedure, StartedS: seconds(t.Started)})
		}
		out = append(out, row)
	}
	return out
}

func readers(in []scenarios.ReaderResult) []Reader {
	out := make([]Reader, 0, len(in))
	for _, r := range in {
		out = append(out, Reader{Queue: r.Queue, Mode: r.Mode, Sessions: r.Sessions, Transactions: r.Transactions,
			Commits: r.Commits, Rollbacks: r.Rollbacks, Deadlocks: r.Deadlocks, Messages: r.Messages, BusyS: seconds(r.Busy),
			PeakRunning: r.PeakRunning})
	}
	return out
}

func activators(in []scenarios.ActivatorResult) []Activator {
	out := make([]Activator, 0, len(in))
	for _, a := range in {
		out = append(out, Activator{Queue: a.Queue, Target: a.Target, Notifications: a.Notifications, Started: a.Started, Ignored: a.Ignored})
	}
	return out
}

func links(in []scenarios.LinkResult) []Link {
	out := make([]Link, 0, len(in))
	for _, l := range in {
		c := l.Counters
		out = append(out, Link{Link: l.Name, Sent: c.Sent, Delivered: c.Delivered, Lost: c.Lost, DroppedCapacity: c.DroppedCapacity,
			DroppedPartition: c.DroppedPartition, InFlight: c.InFlight, Duplicated: c.Duplicated, Corrupted: c.Corrupted,
			Bytes: c.Bytes, BytesDelivered: c.BytesDelivered})
	}
	return out
}

func instances(res *scenarios.Result) []Instance {
	in := res.Instances
	out := make([]Instance, 0, len(in))
	for _, r := range in {
		row := Instance{Instance: r.Name, TransmissionQueueRows: r.TransmissionQueueRows,
			TransmissionObjectBytes: r.TransmissionObjectBytes, EndpointStates: []StateCount{},
			NotificationEndpoints: r.NotificationEndpoints, Counters: instanceCounters(r.Counters), Connections: []Connection{},
			ConversationEndpoints: endpoints(res, r.Endpoints), DroppedWhileDown: r.DroppedWhileDown}
		routeRows(&row, &r)
		for _, sc := range r.EndpointStates {
			row.EndpointStates = append(row.EndpointStates, StateCount{State: sc.State.String(), Count: sc.Count})
		}
		for _, c := range r.Connections {
			row.Connections = append(row.Connections, Connection{Peer: instanceName(in, c.Peer), State: c.State.String(),
				IsAccept: c.IsAccept, Opened: c.Opened, PacketsSent: c.PacketsSent, FragmentsSent: c.FragmentsSent,
				FragmentsReceived: c.FragmentsReceived, BytesSent: c.BytesSent, BytesReceived: c.BytesReceived,
				LastActivityTimeS: seconds(c.LastActivityTime), TotalConnectedTimeS: seconds(c.TotalConnectedTime)})
		}
		out = append(out, row)
	}
	return out
}

// instanceName names instance id: Result.Instances is in instance order.
func instanceName(in []scenarios.InstanceResult, id model.InstanceID) string {
	if int(id) >= 0 && int(id) < len(in) {
		return in[id].Name
	}
	return "i" + strconv.Itoa(int(id))
}

func instanceCounters(c model.Counters) InstanceCounters {
	return InstanceCounters{MessagesSent: c.MessagesSent, MessagesEnqueued: c.MessagesEnqueued,
		MessagesReceived: c.MessagesReceived, FragmentsSent: c.FragmentsSent, FragmentsRetransmitted: c.FragmentsRetransmitted,
		FragmentsReceived: c.FragmentsReceived, DuplicatesDiscarded: c.DuplicatesDiscarded, CorruptDiscarded: c.CorruptDiscarded,
		FragmentsDiscarded: c.FragmentsDiscarded, AcksSent: c.AcksSent, AcksPiggybacked: c.AcksPiggybacked,
		EndpointsCreated: c.EndpointsCreated, EndpointsDeleted: c.EndpointsDeleted, Commits: c.Commits,
		Rollbacks: c.Rollbacks, Deadlocks: c.Deadlocks, PoisonDisables: c.PoisonDisables, SendsDropped: c.SendsDropped,
		FragmentsForwarded: c.FragmentsForwarded, AcksForwarded: c.AcksForwarded, Crashes: c.Crashes, Restarts: c.Restarts}
}

func workloads(in []scenarios.WorkloadResult) []Workload {
	out := make([]Workload, 0, len(in))
	for _, w := range in {
		row := Workload{Workload: w.Name, DialogsBegun: w.DialogsBegun, DialogsEnded: w.DialogsEnded,
			MessagesSent: w.MessagesSent, RepliesReceived: w.RepliesReceived, SendFailures: w.SendFailures,
			Latency: latency(w.Latency), RoundTrip: latency(w.RoundTrip), RoundTripsUntracked: w.RoundTripsUntracked,
			DialogsEndedByTarget: w.DialogsEndedByTarget, DialogsRecycled: w.DialogsRecycled, SenderLockWaits: w.SenderLockWaits}
		if w.End != scenarios.EndInitiator || w.Reused {
			row.LifeCycle, row.MessagesReceived = w.End.String(), &w.MessagesReceived
			if w.Reused {
				row.LifeCycle = "reuse"
				row.SenderLockWaitS = optionalSeconds(w.SenderLockWait)
			}
		}
		out = append(out, row)
	}
	return out
}

func conversations(in []scenarios.ConversationResult) []Conversation {
	out := make([]Conversation, 0, len(in))
	for _, c := range in {
		row := Conversation{Conversation: c.Conversation.String(), MessagesSent: c.MessagesSent,
			MessagesDelivered: c.MessagesDelivered, FragmentsSent: c.FragmentsSent, Retransmissions: c.Retransmissions,
			DuplicatesDiscarded: c.DuplicatesDiscarded, DiscardedOnPurpose: c.DiscardedOnPurpose,
			FirstSentS: optionalSeconds(c.FirstSent), Latency: latency(c.Latency)}
		if c.MessagesDelivered > 0 {
			row.LastArrivalS = optionalSeconds(c.LastArrival)
		}
		out = append(out, row)
	}
	return out
}
