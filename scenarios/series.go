package scenarios

import (
	"math"
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
)

// Series holds the world's figures sampled every Config.SampleInterval while it runs, in
// long form (one row per instant and subject), so that they plot and export directly.
// Counts are cumulative from the start; a rate is the difference of two rows. A long run
// keeps at most MaxSeriesRows rows, its queues' samples included: its series are thinned
// as it goes, and Interval says how far apart the instants kept are at the end.
type Series struct {
	// Interval is the time between two instants of the series at the end of the run:
	// Config.SampleInterval (or DefaultSampleInterval), doubled each time the series were
	// thinned. The queues' samples (QueueResult.Samples) share it.
	Interval  time.Duration
	Levels    []LevelSample
	Databases []DatabaseSample
	Links     []LinkSample
	Instances []InstanceSample
}

// LevelSample is one priority level (of the sending endpoint) at one instant: user
// messages and bytes received in committed transactions so far.
type LevelSample struct {
	At       time.Duration
	Level    int
	Messages int64
	Bytes    int64
}

// DatabaseSample is one database's transmission queue depth at one instant, and its
// conversation endpoints by state (sys.conversation_endpoints grouped by state, those of
// event notifications aside).
type DatabaseSample struct {
	At                    time.Duration
	Database              string // instance/database
	TransmissionQueueRows int
	Endpoints             model.EndpointStateCounts
}

// LinkSample is one direction of a link at one instant: its counters so far.
type LinkSample struct {
	At   time.Duration
	Link string
	faulty.Counters
}

// InstanceSample is one instance at one instant: fragments sent and retransmitted, and
// copies discarded as duplicates, so far; for an instance with MESSAGE_FORWARDING on
// (Forwarder), the fragments it forwarded so far and the bytes it holds for forwarding at
// the instant (RTE-5).
type InstanceSample struct {
	At                                          time.Duration
	Instance                                    string
	FragmentsSent, Retransmitted, DupsDiscarded int64
	Forwarder                                   bool
	Forwarded, ForwardHeldBytes                 int64
	// CPUBusy is the CPU time its CPUs served so far, with costs on (cost.go).
	CPUBusy time.Duration
}

// sampleWorld records the world-level series at the current instant.
func (w *world) sampleWorld() {
	now := w.now()
	for l := 10; l >= 1; l-- {
		s := &w.levels[l]
		if s.latency == nil {
			continue
		}
		w.series.Levels = append(w.series.Levels, LevelSample{At: now, Level: l, Messages: s.latency.h.TotalCount(), Bytes: s.bytes})
	}
	for d, db := range w.cat.Databases {
		w.series.Databases = append(w.series.Databases, DatabaseSample{At: now,
			Database:              w.cat.Instances[db.Instance].Name + "/" + db.Name,
			TransmissionQueueRows: w.brokers[db.Instance].TransmissionQueueRows(model.DatabaseID(d)),
			Endpoints:             w.brokers[db.Instance].EndpointStates(model.DatabaseID(d))})
	}
	for _, p := range w.pairs {
		w.series.Links = append(w.series.Links, LinkSample{At: now, Link: p.pair.AToB.Name(), Counters: p.pair.AToB.Counters()},
			LinkSample{At: now, Link: p.pair.BToA.Name(), Counters: p.pair.BToA.Counters()})
	}
	for i, b := range w.brokers {
		c := b.Counters()
		w.series.Instances = append(w.series.Instances, InstanceSample{At: now, Instance: w.cat.Instances[i].Name,
			FragmentsSent: c.FragmentsSent, Retransmitted: c.FragmentsRetransmitted, DupsDiscarded: c.DuplicatesDiscarded,
			Forwarder: w.cat.Instances[i].Forwarding.Enabled, Forwarded: c.FragmentsForwarded, ForwardHeldBytes: b.ForwardHeldBytes(),
			CPUBusy: w.cpuBusy(i)})
	}
}

// MaxSeriesRows is the most rows a run's series keep, counting a row for each subject (a
// priority level, a queue, a database, a direction of a link, an instance) at each
// instant. When the world has been sampled so often that its series reach it, every two
// successive instants merge into one and the interval between samples doubles
// (thinSeries). A run of any length therefore keeps between half of MaxSeriesRows and
// MaxSeriesRows rows, at the finest resolution its length allows, and a stretch of idle
// virtual time costs a number of samples that grows only with the logarithm of its length.
const MaxSeriesRows = 1 << 18

// sampling is where the sampler of the world's series is: the interval between instants
// now, how many instants and rows the series keep.
type sampling struct {
	interval       time.Duration
	instants, rows int
}

// nextSample counts the instant just sampled, thins the series when they reach
// MaxSeriesRows, and returns the instant of the next sample. Instants are whole multiples
// of the interval from time 0, before and after thinning, so that the instants kept stay
// evenly spaced; ok is false when the next instant does not fit in a time.Duration.
func (w *world) nextSample() (next time.Duration, ok bool) {
	s := &w.sampling
	if s.interval == 0 {
		s.interval = w.sampleInterval()
		w.series.Interval = s.interval
	}
	s.instants++
	s.rows = w.series.rows()
	for q := range w.queues {
		s.rows += len(w.queues[q].res.Samples)
	}
	if s.rows >= MaxSeriesRows && s.instants >= 2 {
		w.thinSeries()
	}
	if s.interval > math.MaxInt64/time.Duration(s.instants) {
		return 0, false
	}
	return time.Duration(s.instants) * s.interval, true
}

// rows counts the world-level rows of the series.
func (s *Series) rows() int {
	return len(s.Levels) + len(s.Databases) + len(s.Links) + len(s.Instances)
}

// thinSeries merges the rows of every two successive instants, 2i and 2i+1, into one at
// the time of instant 2i, and doubles the interval. A count so far (levels, links,
// instances) is that of instant 2i, true at the row's time; a figure at the instant (a
// queue's ready messages, sessions and activated tasks, a transmission queue's rows, a
// database's endpoints in each state) is the larger of the two, so that a peak survives
// thinning; a monitor's state is that of instant 2i.
func (w *world) thinSeries() {
	s := &w.sampling
	ser := &w.series
	ser.Levels = thin(ser.Levels, func(r *LevelSample) time.Duration { return r.At }, s.interval, nil)
	ser.Databases = thin(ser.Databases, func(r *DatabaseSample) time.Duration { return r.At }, s.interval,
		func(into, from *DatabaseSample) {
			into.TransmissionQueueRows = max(into.TransmissionQueueRows, from.TransmissionQueueRows)
			for st := range into.Endpoints {
				into.Endpoints[st] = max(into.Endpoints[st], from.Endpoints[st])
			}
		})
	ser.Links = thin(ser.Links, func(r *LinkSample) time.Duration { return r.At }, s.interval, nil)
	ser.Instances = thin(ser.Instances, func(r *InstanceSample) time.Duration { return r.At }, s.interval, nil)
	s.rows = ser.rows()
	for q := range w.queues {
		st := &w.queues[q]
		st.res.Samples = thin(st.res.Samples, func(r *QueueSample) time.Duration { return r.At }, s.interval,
			func(into, from *QueueSample) {
				into.Ready, into.Activated = max(into.Ready, from.Ready), max(into.Activated, from.Activated)
				into.Readers, into.Waiting = max(into.Readers, from.Readers), max(into.Waiting, from.Waiting)
			})
		s.rows += len(st.res.Samples)
	}
	s.interval *= 2
	s.instants = (s.instants + 1) / 2
	ser.Interval = s.interval
}

// thin keeps, in place, the rows of rows sampled at even multiples of interval, and folds
// each row of an odd multiple into the row of the instant before that holds the same place
// among its instant's rows, with merge when it is not nil. The place names the subject:
// every instant lists its subjects in the same order (a level, once it has rows, has them
// at every later instant).
func thin[T any](rows []T, at func(*T) time.Duration, interval time.Duration, merge func(into, from *T)) []T {
	out := rows[:0]
	even, place := 0, 0 // where in out the last even instant's rows begin; a row's place in its instant
	current := time.Duration(-1)
	for i := range rows {
		r := rows[i] // out is never ahead of i: read the row before it may be overwritten
		t := at(&r)
		odd := (t/interval)%2 == 1
		if t != current {
			current, place = t, 0
			if !odd {
				even = len(out)
			}
		}
		switch {
		case !odd:
			out = append(out, r)
		case merge != nil && even+place < len(out) && at(&out[even+place]) == t-interval:
			merge(&out[even+place], &r)
		}
		place++
	}
	clear(rows[len(out):]) // let go of the names the dropped rows held
	return out
}

// CDFPoint is one step of a latency distribution: Fraction of the messages took at most
// Latency.
type CDFPoint struct {
	Latency  time.Duration
	Fraction float64
}

// cdf returns the recorder's distribution at every bucket where it changes.
func (l *latencyRecorder) cdf() []CDFPoint {
	total := l.h.TotalCount()
	if total == 0 {
		return nil
	}
	var out []CDFPoint
	var seen int64
	for _, b := range l.h.Distribution() {
		if b.Count == 0 {
			continue
		}
		seen += b.Count
		out = append(out, CDFPoint{Latency: time.Duration(b.To) * time.Microsecond, Fraction: float64(seen) / float64(total)})
	}
	return out
}
