package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// SeriesHeader is the header line of series.csv.
var SeriesHeader = []string{"time_s", "subject_kind", "subject", "metric", "value"}

// Subject kinds of series.csv, in the order its rows give them at each instant.
const (
	KindLevel    = "level"
	KindQueue    = "queue"
	KindDatabase = "database"
	KindLink     = "link"
	KindInstance = "instance"
)

// SeriesRow is one row of series.csv: the value of one metric of one subject at one
// instant of virtual time. Every value is a whole number: a count (cumulative from the
// start for levels, links and instances, an instant's count for queues and databases) or
// a queue monitor's state code.
type SeriesRow struct {
	TimeS   float64
	Kind    string
	Subject string
	Metric  string
	Value   int64
}

// seriesRows returns the rows of res's series: by time; at one instant, by subject kind in
// the order of the Kind constants; then by subject in the Result's order; then by metric
// in a fixed order per kind.
func seriesRows(res *scenarios.Result) []SeriesRow {
	var rows []SeriesRow
	add := func(d float64, kind, subject, metric string, v int64) {
		rows = append(rows, SeriesRow{TimeS: d, Kind: kind, Subject: subject, Metric: metric, Value: v})
	}
	for _, s := range res.Series.Levels {
		t, l := seconds(s.At), strconv.Itoa(s.Level)
		add(t, KindLevel, l, "messages", s.Messages)
		add(t, KindLevel, l, "bytes", s.Bytes)
	}
	for _, q := range res.Queues {
		name := q.Instance + "/" + q.Queue
		for _, s := range q.Samples {
			t := seconds(s.At)
			add(t, KindQueue, name, "ready", int64(s.Ready))
			add(t, KindQueue, name, "readers", int64(s.Readers))
			add(t, KindQueue, name, "waiting", int64(s.Waiting))
			if q.Monitor != nil {
				add(t, KindQueue, name, "activated", int64(s.Activated))
				add(t, KindQueue, name, "monitor_state", int64(s.State))
			}
		}
		for _, c := range q.StatusChanges { // only a queue whose STATUS was OFF has these rows
			off := int64(0)
			if c.Status == model.QueueOff {
				off = 1
			}
			add(seconds(c.At), KindQueue, name, "off", off)
		}
	}
	states := endpointStatesSeen(res.Series.Databases)
	for _, s := range res.Series.Databases {
		t := seconds(s.At)
		add(t, KindDatabase, s.Database, "transmission_queue_rows", int64(s.TransmissionQueueRows))
		for _, st := range states[s.Database] { // the states the database ever had an endpoint in
			add(t, KindDatabase, s.Database, EndpointsMetricPrefix+st.String(), int64(s.Endpoints[st]))
		}
	}
	for _, s := range res.Series.Links {
		t, c := seconds(s.At), s.Counters
		for _, m := range []struct {
			name string
			v    int64
		}{{"sent", c.Sent}, {"delivered", c.Delivered}, {"lost", c.Lost}, {"dropped_capacity", c.DroppedCapacity},
			{"dropped_partition", c.DroppedPartition}, {"in_flight", c.InFlight}, {"duplicated", c.Duplicated},
			{"corrupted", c.Corrupted}, {"bytes", c.Bytes}, {"bytes_delivered", c.BytesDelivered}} {
			add(t, KindLink, s.Link, m.name, m.v)
		}
	}
	for _, s := range res.Series.Instances {
		t := seconds(s.At)
		add(t, KindInstance, s.Instance, "fragments_sent", s.FragmentsSent)
		add(t, KindInstance, s.Instance, "fragments_retransmitted", s.Retransmitted)
		add(t, KindInstance, s.Instance, "duplicates_discarded", s.DupsDiscarded)
		if s.Forwarder { // only an instance with MESSAGE_FORWARDING on has these rows (RTE-5)
			add(t, KindInstance, s.Instance, "fragments_forwarded", s.Forwarded)
			add(t, KindInstance, s.Instance, "forward_held_bytes", s.ForwardHeldBytes)
		}
		if res.CPU != nil { // only a world with costs has these rows (docs/costs.md)
			add(t, KindInstance, s.Instance, "cpu_busy", s.CPUBusy.Microseconds())
		}
	}
	for _, c := range res.Crashes { // only a world with crashes has these rows (G-13)
		add(seconds(c.CrashedAt), KindInstance, c.Instance, "down", 1)
		if c.Restarted {
			add(seconds(c.RestartsAt), KindInstance, c.Instance, "down", 0)
		}
	}
	// Each kind's rows are in time order already, and the kinds were added in order: a
	// stable sort by time alone keeps kind, subject and metric order at each instant.
	slices.SortStableFunc(rows, func(a, b SeriesRow) int {
		switch {
		case a.TimeS < b.TimeS:
			return -1
		case a.TimeS > b.TimeS:
			return 1
		}
		return 0
	})
	return rows
}

// EndpointsMetricPrefix begins the metrics of a database's conversation endpoints by
// state in series.csv: endpoints_CO, endpoints_DI, ... (the two-letter codes of
// sys.conversation_endpoints' state column).
const EndpointsMetricPrefix = "endpoints_"

// endpointStatesSeen returns, for each database of the samples, the endpoint states it had
// an endpoint in at one instant or more, in state order: series.csv gives each of them a
// row at every instant, and leaves out the states never seen.
func endpointStatesSeen(samples []scenarios.DatabaseSample) map[string][]model.EndpointState {
	seen := map[string]*model.EndpointStateCounts{}
	for i := range samples {
		s := &samples[i]
		c := seen[s.Database]
		if c == nil {
			c = &model.EndpointStateCounts{}
			seen[s.Database] = c
		}
		for st, n := range s.Endpoints {
			c[st] = max(c[st], n)
		}
	}
	out := map[string][]model.EndpointState{}
	for db, c := range seen {
		for st := model.StartedOutbound; st <= model.Closed; st++ {
			if c[st] > 0 {
				out[db] = append(out[db], st)
			}
		}
	}
	return out
}

// MonitorStateCodes names the values of a queue's monitor_state metric in series.csv.
var MonitorStateCodes = []string{
	int(model.MonitorInactive):          model.MonitorInactive.String(),
	int(model.MonitorNotified):          model.MonitorNotified.String(),
	int(model.MonitorReceivesOccurring): model.MonitorReceivesOccurring.String(),
}

// WriteSeries writes res's series as series.csv: SeriesHeader, then one row per instant,
// subject and metric, in the order seriesRows gives.
func WriteSeries(w io.Writer, res *scenarios.Result) error {
	return writeSeriesRows(w, seriesRows(res))
}

func writeSeriesRows(w io.Writer, rows []SeriesRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SeriesHeader); err != nil {
		return fmt.Errorf("series: %w", err)
	}
	for _, r := range rows {
		rec := []string{formatFloat(r.TimeS), r.Kind, r.Subject, r.Metric, strconv.FormatInt(r.Value, 10)}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("series: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("series: %w", err)
	}
	return nil
}

// ReadSeries reads a series.csv that WriteSeries wrote.
func ReadSeries(r io.Reader) ([]SeriesRow, error) {
	recs, err := readCSV(r, SeriesHeader)
	if err != nil {
		return nil, fmt.Errorf("series: %w", err)
	}
	rows := make([]SeriesRow, 0, len(recs))
	for i, rec := range recs {
		t, err1 := strconv.ParseFloat(rec[0], 64)
		v, err2 := strconv.ParseInt(rec[4], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("series: line %d: %w", i+2, err)
		}
		rows = append(rows, SeriesRow{TimeS: t, Kind: rec[1], Subject: rec[2], Metric: rec[3], Value: v})
	}
	return rows, nil
}

// LatencyCDFHeader is the header line of latency_cdf.csv.
var LatencyCDFHeader = []string{"level", "latency_s", "fraction"}

// CDFRow is one row of latency_cdf.csv: Fraction of the messages sent at Level took at most
// LatencyS seconds.
type CDFRow struct {
	Level    int
	LatencyS float64
	Fraction float64
}

// cdfRows returns the latency distribution of every level of res, highest level first,
// each by latency.
func cdfRows(res *scenarios.Result) []CDFRow {
	var rows []CDFRow
	for _, l := range res.Levels {
		for _, p := range l.LatencyCDF {
			rows = append(rows, CDFRow{Level: l.Level, LatencyS: seconds(p.Latency), Fraction: p.Fraction})
		}
	}
	return rows
}

// WriteLatencyCDF writes the latency distribution of every level of res as
// latency_cdf.csv: LatencyCDFHeader, then the distribution's steps, highest level first,
// each level by latency.
func WriteLatencyCDF(w io.Writer, res *scenarios.Result) error {
	return writeCDFRows(w, cdfRows(res))
}

func writeCDFRows(w io.Writer, rows []CDFRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(LatencyCDFHeader); err != nil {
		return fmt.Errorf("latency CDF: %w", err)
	}
	for _, r := range rows {
		if err := cw.Write([]string{strconv.Itoa(r.Level), formatFloat(r.LatencyS), formatFloat(r.Fraction)}); err != nil {
			return fmt.Errorf("latency CDF: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("latency CDF: %w", err)
	}
	return nil
}

// ReadLatencyCDF reads a latency_cdf.csv that WriteLatencyCDF wrote.
func ReadLatencyCDF(r io.Reader) ([]CDFRow, error) {
	recs, err := readCSV(r, LatencyCDFHeader)
	if err != nil {
		return nil, fmt.Errorf("latency CDF: %w", err)
	}
	rows := make([]CDFRow, 0, len(recs))
	for i, rec := range recs {
		l, err1 := strconv.Atoi(rec[0])
		x, err2 := strconv.ParseFloat(rec[1], 64)
		y, err3 := strconv.ParseFloat(rec[2], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, fmt.Errorf("latency CDF: line %d: %w", i+2, err)
		}
		rows = append(rows, CDFRow{Level: l, LatencyS: x, Fraction: y})
	}
	return rows, nil
}

// readCSV reads a CSV file whose first line must be header, and returns the lines after it.
func readCSV(r io.Reader, header []string) ([][]string, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(header)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || !slices.Equal(recs[0], header) {
		return nil, fmt.Errorf("the first line is not the header %v", header)
	}
	return recs[1:], nil
}

// formatFloat writes v with the fewest digits that read back as v.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
