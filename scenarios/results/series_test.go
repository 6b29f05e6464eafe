package results

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
)

// kindRank is the order of the subject kinds at one instant.
var kindRank = map[string]int{KindLevel: 0, KindQueue: 1, KindDatabase: 2, KindLink: 3, KindInstance: 4}

func TestSeriesCSVHasTheHeaderAndConsistentRows(t *testing.T) {
	out := sharedOutput(t)
	recs, err := csv.NewReader(bytes.NewReader(readFileT(t, filepath.Join(out.dir, SeriesFile)))).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)

	assert.Equal(t, []string{"time_s", "subject_kind", "subject", "metric", "value"}, recs[0])
	last := map[string]int64{} // kind/subject/metric → value at the previous sample
	prevTime, prevRank := -1.0, -1
	for i, rec := range recs[1:] {
		line := i + 2
		ts, err := strconv.ParseFloat(rec[0], 64)
		require.NoError(t, err, "line %d", line)
		v, err := strconv.ParseInt(rec[4], 10, 64)
		require.NoError(t, err, "line %d", line)
		rank, ok := kindRank[rec[1]]
		require.True(t, ok, "line %d: kind %q", line, rec[1])
		require.GreaterOrEqual(t, ts, prevTime, "line %d: time goes forward", line)
		if ts == prevTime {
			require.GreaterOrEqual(t, rank, prevRank, "line %d: kinds in order at one instant", line)
		}
		prevTime, prevRank = ts, rank
		require.LessOrEqual(t, ts, out.res.EndTime.Seconds(), "line %d", line)
		require.GreaterOrEqual(t, v, int64(0), "line %d", line)
		key := rec[1] + "/" + rec[2] + "/" + rec[3]
		if rec[1] == KindLevel || rec[1] == KindLink || rec[1] == KindInstance {
			if rec[3] != "in_flight" {
				require.GreaterOrEqual(t, v, last[key], "line %d: %s is cumulative", line, key)
			}
		}
		if rec[1] == KindQueue && rec[3] == "activated" {
			require.LessOrEqual(t, v, int64(2), "line %d: MAX_QUEUE_READERS", line)
		}
		last[key] = v
	}
	// The last samples agree with the end-of-run figures where nothing happens after them.
	assert.Equal(t, out.res.Links[0].Counters.Sent, last[KindLink+"/A->B/sent"])
	assert.Equal(t, out.res.Instances[0].Counters.FragmentsRetransmitted, last[KindInstance+"/A/fragments_retransmitted"])
	assert.Equal(t, out.res.Levels[0].Messages, last[KindLevel+"/10/messages"])
	assert.Equal(t, int64(0), last[KindDatabase+"/A/Orders/transmission_queue_rows"], "empty once drained")
}

func TestReadSeriesReadsWhatWriteSeriesWrote(t *testing.T) {
	out := sharedOutput(t)
	var buf bytes.Buffer
	require.NoError(t, WriteSeries(&buf, out.res))

	rows, err := ReadSeries(&buf)

	require.NoError(t, err)
	assert.Equal(t, seriesRows(out.res), rows)
}

func TestReadLatencyCDFReadsWhatWriteLatencyCDFWrote(t *testing.T) {
	out := sharedOutput(t)
	var buf bytes.Buffer
	require.NoError(t, WriteLatencyCDF(&buf, out.res))

	rows, err := ReadLatencyCDF(&buf)

	require.NoError(t, err)
	require.NotEmpty(t, rows)
	assert.Equal(t, cdfRows(out.res), rows)
	assert.Equal(t, 10, rows[0].Level, "highest level first")
	assert.Equal(t, 1.0, rows[len(rows)-1].Fraction, "each level's distribution ends at 1")
}

func TestSeriesRowsOrder(t *testing.T) {
	s := time.Second
	res := &scenarios.Result{
		Series: scenarios.Series{
			Levels:    []scenarios.LevelSample{{At: s, Level: 10, Messages: 1, Bytes: 100}, {At: 2 * s, Level: 10, Messages: 3, Bytes: 300}},
			Databases: []scenarios.DatabaseSample{{At: s, Database: "A/D", TransmissionQueueRows: 4}, {At: 2 * s, Database: "A/D"}},
			Instances: []scenarios.InstanceSample{{At: 2 * s, Instance: "A", FragmentsSent: 9}},
		},
		Queues: []scenarios.QueueResult{
			{Instance: "B", Queue: "Q2", Samples: []scenarios.QueueSample{{At: s, Ready: 5, Readers: 1}, {At: 2 * s}}},
			{Instance: "A", Queue: "Q1", Monitor: &model.QueueMonitor{},
				Samples: []scenarios.QueueSample{{At: s, Ready: 2, Activated: 1, Readers: 1, State: model.MonitorNotified}}},
		},
	}
	var buf bytes.Buffer

	require.NoError(t, WriteSeries(&buf, res))

	want := `time_s,subject_kind,subject,metric,value
1,level,10,messages,1
1,level,10,bytes,100
1,queue,B/Q2,ready,5
1,queue,B/Q2,readers,1
1,queue,B/Q2,waiting,0
1,queue,A/Q1,ready,2
1,queue,A/Q1,readers,1
1,queue,A/Q1,waiting,0
1,queue,A/Q1,activated,1
1,queue,A/Q1,monitor_state,1
1,database,A/D,transmission_queue_rows,4
2,level,10,messages,3
2,level,10,bytes,300
2,queue,B/Q2,ready,0
2,queue,B/Q2,readers,0
2,queue,B/Q2,waiting,0
2,database,A/D,transmission_queue_rows,0
2,instance,A,fragments_sent,9
2,instance,A,fragments_retransmitted,0
2,instance,A,duplicates_discarded,0
`
	assert.Equal(t, want, buf.String())
	assert.Equal(t, "NOTIFIED", MonitorStateCodes[1])
}

func TestSeriesCSVQuotesNamesThatNeedIt(t *testing.T) {
	res := &scenarios.Result{Series: scenarios.Series{Links: []scenarios.LinkSample{
		{At: 1500 * time.Millisecond, Link: `New York, "east"->B`, Counters: faulty.Counters{Sent: 2}}}}}
	var buf bytes.Buffer

	require.NoError(t, WriteSeries(&buf, res))

	assert.Contains(t, buf.String(), "1.5,link,\"New York, \"\"east\"\"->B\",sent,2\n")
	rows, err := ReadSeries(&buf)
	require.NoError(t, err)
	assert.Equal(t, `New York, "east"->B`, rows[0].Subject)
}

func TestReadSeriesRejectsBadInput(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "header"},
		{"another header", "a,b,c,d,e\n", "header"},
		{"a short row", "time_s,subject_kind,subject,metric,value\n1,level,10,messages\n", "wrong number of fields"},
		{"a bad time", "time_s,subject_kind,subject,metric,value\nx,level,10,messages,1\n", "line 2"},
		{"a bad value", "time_s,subject_kind,subject,metric,value\n1,level,10,messages,1.5\n", "line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadSeries(strings.NewReader(tt.in))

			assert.ErrorContains(t, err, tt.want)
		})
	}
}
