package scenarios

import (
	"time"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
)

// Series holds the world's figures sampled every Config.SampleInterval while it runs, in
// long form (one row per instant and subject), so that they plot and export directly.
// Counts are cumulative from the start; a rate is the difference of two rows.
type Series struct {
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

// DatabaseSample is one database's transmission queue depth at one instant.
type DatabaseSample struct {
	At                    time.Duration
	Database              string // instance/database
	TransmissionQueueRows int
}

// LinkSample is one direction of a link at one instant: its counters so far.
type LinkSample struct {
	At   time.Duration
	Link string
	faulty.Counters
}

// InstanceSample is one instance at one instant: fragments sent and retransmitted, and
// copies discarded as duplicates, so far.
type InstanceSample struct {
	At                                          time.Duration
	Instance                                    string
	FragmentsSent, Retransmitted, DupsDiscarded int64
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
			TransmissionQueueRows: w.brokers[db.Instance].TransmissionQueueRows(model.DatabaseID(d))})
	}
	for _, p := range w.pairs {
		w.series.Links = append(w.series.Links, LinkSample{At: now, Link: p.pair.AToB.Name(), Counters: p.pair.AToB.Counters()},
			LinkSample{At: now, Link: p.pair.BToA.Name(), Counters: p.pair.BToA.Counters()})
	}
	for i, b := range w.brokers {
		c := b.Counters()
		w.series.Instances = append(w.series.Instances, InstanceSample{At: now, Instance: w.cat.Instances[i].Name,
			FragmentsSent: c.FragmentsSent, Retransmitted: c.FragmentsRetransmitted, DupsDiscarded: c.DuplicatesDiscarded})
	}
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
