package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/sbsim/sbsim/scenarios"
)

// PerfettoFile is the trace in the Chrome trace event format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: what -trace writes beside trace.jsonl.
const PerfettoFile = "trace.perfetto.json"

// Perfetto's tracks: each instance is a process; in it, thread 1 is the broker (the
// dialog protocol, transactions and locks), 2+P the link to instance P (fragments,
// packets, acknowledgements, scheduling decisions), queueTrack+Q queue Q's monitor and
// activation, readerTrack+T the activated task T, as a slice from its start to its exit.
const (
	brokerTrack = 1
	linkTrack   = 2
	queueTrack  = 10_000
	readerTrack = 1_000_000
)

// perfettoLine is what the conversion reads of a trace.jsonl line; the line itself is
// the event's args.
type perfettoLine struct {
	Time     float64 `json:"time_s"`
	Kind     string  `json:"kind"`
	Instance int     `json:"instance"`
	Peer     int     `json:"peer"`
	Queue    int     `json:"queue"`
	Task     uint64  `json:"task"`
}

// TrackOf returns the Perfetto track (thread id) a trace record of this kind goes on, and
// the kind of track: "link", "queue", "reader" or "broker".
func TrackOf(kind string, peer, queue int, task uint64) (tid int, track string) {
	switch {
	case strings.HasPrefix(kind, "task-"):
		return readerTrack + int(task), "reader"
	case strings.HasPrefix(kind, "fragment-") || strings.HasPrefix(kind, "packet-") || strings.HasPrefix(kind, "ack-") || kind == "scheduled":
		return linkTrack + peer, "link"
	case strings.HasPrefix(kind, "monitor-") || strings.HasPrefix(kind, "queue-") || strings.HasPrefix(kind, "notification"):
		return queueTrack + queue, "queue"
	}
	return brokerTrack, "broker"
}

// WritePerfetto converts trace.jsonl, read from r, into the Chrome trace event format:
// one event per record (an instant, or the start or end of a task's slice), at its time
// in microseconds, on its instance's process and its track, with the record's JSON as its
// args; then the names of the processes and tracks, from res. It holds no record in
// memory, only the tracks seen.
func WritePerfetto(w io.Writer, r io.Reader, res *scenarios.Result) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")
	type track struct{ pid, tid int }
	tracks := map[track]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	first := true
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var l perfettoLine
		if err := json.Unmarshal(line, &l); err != nil {
			return fmt.Errorf("trace line %d: %w", n, err)
		}
		pid := l.Instance + 1
		tid, kind := TrackOf(l.Kind, l.Peer, l.Queue, l.Task)
		tracks[track{pid, tid}] = trackName(kind, l, res)
		ph, name := "i", l.Kind
		switch l.Kind {
		case "task-started":
			ph, name = "B", fmt.Sprintf("task %d", l.Task)
		case "task-exited":
			ph, name = "E", fmt.Sprintf("task %d", l.Task)
		}
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		fmt.Fprintf(bw, `{"name":%q,"cat":%q,"ph":%q,`, name, kind, ph)
		if ph == "i" {
			bw.WriteString(`"s":"t",`)
		}
		fmt.Fprintf(bw, `"ts":%s,"pid":%d,"tid":%d,"args":%s}`, strconv.FormatFloat(l.Time*1e6, 'f', 3, 64), pid, tid, line)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	keys := make([]track, 0, len(tracks))
	for k := range tracks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].tid < keys[j].tid
	})
	named := map[int]bool{}
	for _, k := range keys {
		if !named[k.pid] {
			named[k.pid] = true
			if !first {
				bw.WriteString(",\n")
			}
			first = false
			fmt.Fprintf(bw, `{"name":"process_name","ph":"M","pid":%d,"args":{"name":%q}}`, k.pid, perfettoInstance(res, k.pid-1))
		}
		fmt.Fprintf(bw, ",\n"+`{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":%q}}`, k.pid, k.tid, tracks[k])
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

func perfettoInstance(res *scenarios.Result, i int) string {
	if i >= 0 && i < len(res.Instances) {
		return res.Instances[i].Name
	}
	return fmt.Sprintf("instance %d", i)
}

// trackName names a track for the viewer.
func trackName(kind string, l perfettoLine, res *scenarios.Result) string {
	switch kind {
	case "link":
		return "link to " + perfettoInstance(res, l.Peer)
	case "queue", "reader":
		q := fmt.Sprintf("queue %d", l.Queue)
		if l.Queue >= 0 && l.Queue < len(res.Queues) {
			q = res.Queues[l.Queue].Database + "/" + res.Queues[l.Queue].Queue
		}
		if kind == "reader" {
			return fmt.Sprintf("reader task %d (%s)", l.Task, q)
		}
		return "queue " + q
	}
	return "broker"
}
