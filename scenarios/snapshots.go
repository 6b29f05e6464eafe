package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/sbsim/sbsim/model"
)

// Snapshots of the dynamic management views at instants of the run (issue 14, item 6):
// sys.conversation_endpoints, sys.transmission_queue, sys.dm_broker_queue_monitors and
// sys.dm_broker_activated_tasks, as a DBA polling them would see them, not only at the end.
//
// The instants are the series' samples at which the views changed since the sample
// before (viewsChanged, on an outline of them: counts, and the instance's counters): a
// DBA polling an idle world learns nothing new, and a run that drains goes on idle until
// its closed target endpoints are deleted, 30 minutes later by default (G-16), sampled
// all along. Those deletions alone are no change: otherwise most snapshots of such a run
// would show its idle tail, not its activity. The first sample is one. Of those samples a
// run keeps at most Snapshots.Count, evenly spaced among them: one every stride, and when
// the list is full every other snapshot is dropped and the stride doubles; a last
// snapshot is taken when the run stops. Memory stays bounded however many conversations
// the world holds: endpoints are kept as counts by state, and the rows of each view are
// capped at Snapshots.Rows per instance and snapshot (the first by handle, the oldest in
// the transmission queue), with the total beside them.

// DefaultSnapshots and DefaultSnapshotRows are Snapshots' defaults: how many snapshots a
// run keeps at most (the last one, at the end of the run, aside), and how many rows of each
// view a snapshot keeps per instance.
const (
	DefaultSnapshots    = 20
	DefaultSnapshotRows = 100
	// MaxSnapshots and MaxSnapshotRows bound them.
	MaxSnapshots    = 1000
	MaxSnapshotRows = 10_000
)

// Snapshots configures the snapshots of the views: Count snapshots at most, Rows rows of
// each view per instance; zero takes the default.
type Snapshots struct {
	Count, Rows int
}

func (s Snapshots) validate() error {
	switch {
	case s.Count < 0 || s.Count > MaxSnapshots:
		return fmt.Errorf("Snapshots.Count %d outside 0 to %d", s.Count, MaxSnapshots)
	case s.Rows < 0 || s.Rows > MaxSnapshotRows:
		return fmt.Errorf("Snapshots.Rows %d outside 0 to %d", s.Rows, MaxSnapshotRows)
	}
	return nil
}

func (s Snapshots) count() int { return cmpOr(s.Count, DefaultSnapshots) }
func (s Snapshots) rows() int  { return cmpOr(s.Rows, DefaultSnapshotRows) }

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// Snapshot is the views of every instance at one instant.
type Snapshot struct {
	At        time.Duration
	Instances []InstanceSnapshot
}

// InstanceSnapshot is one instance's views at one instant.
type InstanceSnapshot struct {
	Name string
	// EndpointStates counts every endpoint by state, those of event notifications aside
	// (as InstanceResult's); Endpoints are the first rows of sys.conversation_endpoints by
	// handle, EndpointsTotal how many rows it had.
	EndpointStates []StateCount
	Endpoints      []model.ConversationEndpoint
	EndpointsTotal int
	// TransmissionQueue counts every row of sys.transmission_queue by database,
	// to_service_name and transmission_status; TransmissionQueueRows are its oldest rows,
	// TransmissionQueueTotal how many it had.
	TransmissionQueue      []TransmissionQueueGroup
	TransmissionQueueRows  []model.TransmissionQueueRow
	TransmissionQueueTotal int
	// QueueMonitors and ActivatedTasks are sys.dm_broker_queue_monitors and
	// sys.dm_broker_activated_tasks, whole: a monitor per queue, a task per running reader.
	QueueMonitors  []model.QueueMonitor
	ActivatedTasks []model.ActivatedTask
}

// snapshotting is where the snapshots are: the samples at which the views changed, the
// stride between two kept, and the views' outline at the last sample.
type snapshotting struct {
	taken          []Snapshot
	changes, every int
	last           []viewsOutline // nil before the first sample
}

// snapshotSample is told of every sample of the series: of the samples at which the views
// changed, it takes a snapshot every stride, and thins the snapshots when they are full.
func (w *world) snapshotSample() {
	s := &w.snapshots
	if s.every == 0 {
		s.every = 1
	}
	now := w.viewsOutlines()
	changed := s.last == nil || viewsChanged(s.last, now)
	s.last = now
	if !changed {
		return
	}
	s.changes++
	if (s.changes-1)%s.every != 0 {
		return
	}
	if len(s.taken) == w.cfg.Snapshots.count() {
		kept := s.taken[:0]
		for i := 0; i < len(s.taken); i += 2 {
			kept = append(kept, s.taken[i])
		}
		clear(s.taken[len(kept):])
		s.taken = kept
		s.every *= 2
		if (s.changes-1)%s.every != 0 {
			return
		}
	}
	s.taken = append(s.taken, w.snapshot())
}

// viewsOutline is what tells whether an instance's views changed between two samples,
// cheap enough to take at every one: its endpoints counted by state, its transmission
// queue rows, its queue monitors and activated tasks whole, and its counters, which move
// when a row changes without changing a count (a sequence number, a dialog timer armed
// again, a transmission status), but for the endpoints deleted. It holds no row of an
// endpoint or of the transmission queue, however many there are.
type viewsOutline struct {
	endpoints         model.EndpointStateCounts
	transmissionQueue int
	monitors          []model.QueueMonitor
	tasks             []model.ActivatedTask
	counters          model.Counters
}

// viewsOutlines outlines every instance's views now.
func (w *world) viewsOutlines() []viewsOutline {
	out := make([]viewsOutline, len(w.brokers))
	for i, b := range w.brokers {
		o := &out[i]
		for d, db := range w.cat.Databases {
			if db.Instance == model.InstanceID(i) {
				c := b.EndpointStates(model.DatabaseID(d))
				for st := range o.endpoints {
					o.endpoints[st] += c[st]
				}
				o.transmissionQueue += b.TransmissionQueueRows(model.DatabaseID(d))
			}
		}
		o.monitors, o.tasks, o.counters = b.QueueMonitors(), b.ActivatedTasks(), b.Counters()
		o.counters.EndpointsDeleted = 0 // closed targets deleted at the end of their retention (G-16)
	}
	return out
}

// viewsChanged says whether the views outlined in now differ from those in before, other
// than by fewer closed endpoints: closed target endpoints are deleted when their retention
// ends (G-16), long after the dialog's activity, and a world that has drained does
// nothing else until the last of them goes.
func viewsChanged(before, now []viewsOutline) bool {
	for i := range now {
		b, n := before[i], now[i]
		if n.endpoints[model.Closed] > b.endpoints[model.Closed] {
			return true
		}
		b.endpoints[model.Closed] = n.endpoints[model.Closed]
		if b.endpoints != n.endpoints || b.transmissionQueue != n.transmissionQueue || b.counters != n.counters ||
			!slices.Equal(b.monitors, n.monitors) || !slices.Equal(b.tasks, n.tasks) {
			return true
		}
	}
	return false
}

// snapshot takes the views of every instance now.
func (w *world) snapshot() Snapshot {
	n := w.cfg.Snapshots.rows()
	snap := Snapshot{At: w.now()}
	for i, b := range w.brokers {
		is := InstanceSnapshot{Name: w.cat.Instances[i].Name, QueueMonitors: b.QueueMonitors(), ActivatedTasks: b.ActivatedTasks()}
		var counts model.EndpointStateCounts
		for d, db := range w.cat.Databases {
			if db.Instance == model.InstanceID(i) {
				c := b.EndpointStates(model.DatabaseID(d))
				for st := range counts {
					counts[st] += c[st]
				}
			}
		}
		for st := model.StartedOutbound; st <= model.Closed; st++ {
			if counts[st] > 0 {
				is.EndpointStates = append(is.EndpointStates, StateCount{st, counts[st]})
			}
		}
		is.Endpoints, is.EndpointsTotal = b.EndpointsUpTo(n)
		var groups txqGrouper
		oldest := make([]model.TransmissionQueueRow, 0, n)
		b.EachTransmissionQueueRow(func(r model.TransmissionQueueRow) {
			groups.add(w, b, r)
			is.TransmissionQueueTotal++
			oldest = keepOldest(oldest, n, r)
		})
		is.TransmissionQueue, is.TransmissionQueueRows = groups.groups(), oldest
		snap.Instances = append(snap.Instances, is)
	}
	return snap
}

// snapshotResults returns the snapshots, and one of the end of the run after them.
func (w *world) snapshotResults() []Snapshot {
	out := slices.Clone(w.snapshots.taken)
	if len(out) == 0 || out[len(out)-1].At != w.now() {
		out = append(out, w.snapshot())
	}
	return out
}

// keepOldest inserts r into rows, the oldest rows of sys.transmission_queue seen so far in
// TransmissionQueue's order (enqueue time, conversation, sequence number), keeping at most
// n of them. A row that ties goes after those it ties with: the visiting order breaks ties,
// as TransmissionQueue's stable sort does.
func keepOldest(rows []model.TransmissionQueueRow, n int, r model.TransmissionQueueRow) []model.TransmissionQueueRow {
	after := func(x model.TransmissionQueueRow) bool { // r sorts after x, or ties with it
		return cmp.Or(cmp.Compare(x.EnqueueTime, r.EnqueueTime), cmp.Compare(x.ConversationHandle, r.ConversationHandle),
			cmp.Compare(x.MessageSequenceNumber, r.MessageSequenceNumber)) <= 0
	}
	if len(rows) == n && (n == 0 || after(rows[n-1])) {
		return rows
	}
	i := len(rows)
	for i > 0 && !after(rows[i-1]) {
		i--
	}
	if len(rows) < n {
		rows = append(rows, model.TransmissionQueueRow{})
	}
	copy(rows[i+1:], rows[i:len(rows)-1])
	rows[i] = r
	return rows
}
