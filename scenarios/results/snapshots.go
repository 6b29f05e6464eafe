package results

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// SnapshotsFile holds the views of every instance at instants of the run.
const SnapshotsFile = "snapshots.json"

// Snapshots is the content of snapshots.json: sys.conversation_endpoints,
// sys.transmission_queue, sys.dm_broker_queue_monitors and sys.dm_broker_activated_tasks
// at a bounded number of instants (scenarios.Snapshot), the last at the end of the run.
// docs/outputs.md documents every field. It follows summary.json's conventions: times in
// seconds, ids as strings, every table an array.
type Snapshots struct {
	SchemaVersion int `json:"schema_version"`
	// RowsPerView is the most rows of a view a snapshot lists per instance.
	RowsPerView int        `json:"rows_per_view"`
	Snapshots   []Snapshot `json:"snapshots"`
}

// Snapshot is the views of every instance at one instant.
type Snapshot struct {
	TimeS     float64            `json:"time_s"`
	Instances []InstanceSnapshot `json:"instances"`
}

// InstanceSnapshot is one instance's views at one instant.
type InstanceSnapshot struct {
	Instance              string               `json:"instance"`
	ConversationEndpoints EndpointsSnapshot    `json:"conversation_endpoints"`
	TransmissionQueue     TransmissionSnapshot `json:"transmission_queue"`
	QueueMonitors         []Monitor            `json:"queue_monitors"`
	ActivatedTasks        []ActivatedTask      `json:"activated_tasks"`
}

// EndpointsSnapshot is sys.conversation_endpoints at an instant: every row counted by
// state, the first rows by handle, and how many were left out.
type EndpointsSnapshot struct {
	Total       int          `json:"total"`
	ByState     []StateCount `json:"by_state"`
	Rows        []Endpoint   `json:"rows"`
	RowsLeftOut int          `json:"rows_left_out"`
}

// TransmissionSnapshot is sys.transmission_queue at an instant: every row counted by
// database, to_service_name and transmission_status, the oldest rows, and how many were
// left out.
type TransmissionSnapshot struct {
	Total       int                      `json:"total"`
	Groups      []TransmissionQueueGroup `json:"groups"`
	Rows        []TransmissionQueueRow   `json:"rows"`
	RowsLeftOut int                      `json:"rows_left_out"`
}

// TransmissionQueueRow is a row of sys.transmission_queue (model.TransmissionQueueRow).
type TransmissionQueueRow struct {
	ConversationHandle    string  `json:"conversation_handle"`
	ToServiceName         string  `json:"to_service_name"`
	ToBrokerInstance      string  `json:"to_broker_instance"`
	EnqueueTimeS          float64 `json:"enqueue_time_s"`
	MessageSequenceNumber int64   `json:"message_sequence_number"`
	MessageTypeID         int32   `json:"message_type_id"`
	IsConversationError   bool    `json:"is_conversation_error"`
	IsEndOfDialog         bool    `json:"is_end_of_dialog"`
	MessageBodyBytes      int64   `json:"message_body_bytes"`
	TransmissionStatus    string  `json:"transmission_status"`
	Priority              int     `json:"priority"`
	FragmentsAcked        int32   `json:"fragments_acked"`
	Fragments             int32   `json:"fragments"`
}

// NewSnapshots converts res's snapshots.
func NewSnapshots(res *scenarios.Result) Snapshots {
	out := Snapshots{SchemaVersion: SchemaVersion, RowsPerView: res.SnapshotRows, Snapshots: []Snapshot{}}
	for _, s := range res.Snapshots {
		snap := Snapshot{TimeS: seconds(s.At), Instances: []InstanceSnapshot{}}
		for _, in := range s.Instances {
			is := InstanceSnapshot{Instance: in.Name, QueueMonitors: []Monitor{}, ActivatedTasks: []ActivatedTask{},
				ConversationEndpoints: EndpointsSnapshot{Total: in.EndpointsTotal, ByState: []StateCount{},
					Rows: endpoints(res, in.Endpoints), RowsLeftOut: in.EndpointsTotal - len(in.Endpoints)},
				TransmissionQueue: TransmissionSnapshot{Total: in.TransmissionQueueTotal, Groups: []TransmissionQueueGroup{},
					Rows: []TransmissionQueueRow{}, RowsLeftOut: in.TransmissionQueueTotal - len(in.TransmissionQueueRows)}}
			for _, sc := range in.EndpointStates {
				is.ConversationEndpoints.ByState = append(is.ConversationEndpoints.ByState, StateCount{State: sc.State.String(), Count: sc.Count})
			}
			for _, g := range in.TransmissionQueue {
				is.TransmissionQueue.Groups = append(is.TransmissionQueue.Groups, TransmissionQueueGroup{Database: g.Database,
					ToServiceName: g.ToService, TransmissionStatus: g.TransmissionStatus, Rows: g.Rows})
			}
			for _, r := range in.TransmissionQueueRows {
				is.TransmissionQueue.Rows = append(is.TransmissionQueue.Rows, transmissionQueueRow(res, r))
			}
			for _, m := range in.QueueMonitors {
				is.QueueMonitors = append(is.QueueMonitors, monitor(m))
			}
			for _, t := range in.ActivatedTasks {
				is.ActivatedTasks = append(is.ActivatedTasks, ActivatedTask{Task: int(t.Task), Procedure: t.Procedure, StartedS: seconds(t.Started)})
			}
			snap.Instances = append(snap.Instances, is)
		}
		out.Snapshots = append(out.Snapshots, snap)
	}
	return out
}

func transmissionQueueRow(res *scenarios.Result, r model.TransmissionQueueRow) TransmissionQueueRow {
	row := TransmissionQueueRow{ConversationHandle: r.ConversationHandle.String(), ToServiceName: res.ServiceNames[r.ToService],
		EnqueueTimeS: seconds(r.EnqueueTime), MessageSequenceNumber: int64(r.MessageSequenceNumber), MessageTypeID: int32(r.MessageType),
		IsConversationError: r.IsConversationError, IsEndOfDialog: r.IsEndOfDialog, MessageBodyBytes: r.Bytes,
		TransmissionStatus: r.TransmissionStatus, Priority: r.Priority.Level(), FragmentsAcked: r.FragmentsAcked, Fragments: r.Fragments}
	if b := r.ToBrokerInstance; b > 0 {
		row.ToBrokerInstance = res.BrokerInstances[b-1]
	}
	return row
}

// monitor is a queue monitor's row of sys.dm_broker_queue_monitors.
func monitor(m model.QueueMonitor) Monitor {
	return Monitor{QueueID: int(m.Queue), State: m.State.String(),
		LastEmptyRowsetTimeS: optionalSeconds(m.LastEmptyRowsetTime), LastActivatedTimeS: optionalSeconds(m.LastActivatedTime),
		TasksWaiting: m.TasksWaiting, Running: m.Running, Failed: m.Failed, Started: m.Started, NotificationsSent: m.NotifiesSent}
}

// WriteSnapshots writes s as snapshots.json, indented as summary.json is.
func WriteSnapshots(w io.Writer, s Snapshots) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("snapshots: %w", err)
	}
	return nil
}

// ReadSnapshots reads a snapshots.json WriteSnapshots wrote.
func ReadSnapshots(r io.Reader) (Snapshots, error) {
	var s Snapshots
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return s, fmt.Errorf("snapshots: %w", err)
	}
	if s.SchemaVersion != SchemaVersion {
		return s, fmt.Errorf("snapshots: schema version %d, this reader knows %d", s.SchemaVersion, SchemaVersion)
	}
	return s, nil
}
