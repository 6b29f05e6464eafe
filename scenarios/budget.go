package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// The limits of a run whose Config leaves them zero. A run always stops: when no event is
// left, or at one of them.
const (
	// DefaultMaxTime is 1,000 hours (41 days and 16 hours) of virtual time: longer than
	// any fault or workload a design question needs, and, since idle time costs next to
	// nothing (MaxSeriesRows), cheap to reach.
	DefaultMaxTime = 1000 * time.Hour
	// DefaultMaxEvents is ten million events: about a minute of work on one core.
	DefaultMaxEvents = 10_000_000
)

// budgetEvery is how many events a run fires between two estimates of its memory. The
// estimate counts the model's objects, so a run stops at the same event for the same
// budget on any machine and whatever the collector does.
const budgetEvery = 4096

// The bytes a run's estimate counts for each object it holds, measured on the heap of
// runs that hold many of them (TestMemoryEstimateFollowsTheHeap). The sizes of the
// records the world keeps itself are their types' own.
const (
	endpointBytes       = 600 // a conversation endpoint, its group, its maps and indexes
	txqRowBytes         = 200 // a transmission queue row: a fragment waiting to be sent or acknowledged
	queuedMessageBytes  = 200 // a message ready on a queue
	pendingEventBytes   = 80  // an event in the engine, with a timer's slot
	conversationBytes   = 120 // the applications' state of a dialog, kept for the whole run
	checkedConvBytes    = 500 // the invariant checkers' state of a conversation with a live endpoint (no history: Run keeps one only in a second run, of the conversations a verdict names)
	releasedConvBytes   = 40  // what the checkers keep of a conversation whose endpoints have gone, for the whole run
	checkedMessageBytes = 40  // the checkers' state of a message not yet acknowledged (per transmission queue row)
	traceRecordBytes    = int64(unsafe.Sizeof(model.TraceRecord{}))
)

// MemoryUse is one part of a run's memory estimate: what it counts, how many there are
// and their bytes.
type MemoryUse struct {
	What  string
	Count int64
	Bytes int64
}

// MemoryLimit says that a run outgrew its memory budget (Config.MaxMemory) and stopped:
// the budget, the estimate when it stopped, and the parts of the estimate, largest first.
// The first part is what grew.
type MemoryLimit struct {
	Budget, Estimate int64
	Uses             []MemoryUse
}

// String says what grew, as the report prints it: "estimate 2.1 GiB over the budget of
// 2.0 GiB: trace records 9.4M (1.9 GiB), ...".
func (m *MemoryLimit) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "estimate %s over the budget of %s", FormatBytes(m.Estimate), FormatBytes(m.Budget))
	for i, u := range m.Uses {
		if i == 3 || u.Bytes == 0 {
			break
		}
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s %s (%s)", sep, u.What, formatCount(u.Count), FormatBytes(u.Bytes))
	}
	return b.String()
}

// AtLimit reports whether the run stopped at one of its limits, of time, events or
// memory, rather than drained or stopped by a violation.
func (r *Result) AtLimit() bool {
	return r.StopReason == sim.TimeLimit || r.StopReason == sim.EventLimit || r.StopReason == sim.MemoryLimit
}

// limits returns the limits of the run: the config's, or the defaults.
func (c *Config) limits() (sim.Limits, int64) {
	l := sim.Limits{MaxTime: c.MaxTime, MaxEvents: c.MaxEvents}
	if l.MaxTime == 0 {
		l.MaxTime = DefaultMaxTime
	}
	if l.MaxEvents == 0 {
		l.MaxEvents = DefaultMaxEvents
	}
	return l, c.memoryBudget()
}

// memoryBudget is Config.MaxMemory, or DefaultMaxMemory.
func (c *Config) memoryBudget() int64 {
	if c.MaxMemory > 0 {
		return c.MaxMemory
	}
	return DefaultMaxMemory()
}

// run runs the world to its end: no event left, a limit of time or events, a violation,
// or the memory budget, which it checks every budgetEvery events.
func (w *world) run() sim.StopReason {
	limits, budget := w.cfg.limits()
	for {
		chunk := limits
		chunk.MaxEvents = min(limits.MaxEvents, w.e.Fired()+budgetEvery)
		reason := w.e.Run(chunk)
		if l := w.liveness; reason == sim.Drained && l.forced && !l.healed && l.healAt <= limits.MaxTime {
			// Nothing is left to happen before the faults heal (a queue left OFF, say): they
			// heal at their time all the same, and what that lets go runs.
			w.e.Schedule(l.healAt, healEvent{w}, 0)
			continue
		}
		if reason != sim.EventLimit || w.e.Fired() >= limits.MaxEvents {
			return reason
		}
		if uses, total := w.memoryEstimate(); total > budget {
			w.memoryLimit = &MemoryLimit{Budget: budget, Estimate: total, Uses: uses}
			return sim.MemoryLimit
		}
	}
}

// memoryEstimate returns the parts of the world's memory that grow while it runs, largest
// first, and their sum. It counts the model's objects; what does not grow (the catalog,
// the histograms, the buffers) is left out.
func (w *world) memoryEstimate() ([]MemoryUse, int64) {
	var endpoints, rows, queued int64
	for i, b := range w.brokers {
		endpoints += int64(b.EndpointCount())
		for d, db := range w.cat.Databases {
			if db.Instance == model.InstanceID(i) {
				rows += int64(b.TransmissionQueueRows(model.DatabaseID(d)))
			}
		}
	}
	for q := range w.cat.Queues {
		queued += int64(w.brokers[w.queueInstance(model.QueueID(q))].ReadyMessages(model.QueueID(q)))
	}
	series, seriesBytes := w.seriesSize()
	conversations := int64(len(w.dialogs))
	uses := []MemoryUse{
		{"conversation endpoints", endpoints, endpoints * endpointBytes},
		{"transmission queue rows", rows, rows * txqRowBytes},
		{"ready messages", queued, queued * queuedMessageBytes},
		{"pending events", int64(w.timers.pendingEvents()), int64(w.timers.pendingEvents()) * pendingEventBytes},
		{"series samples", series, seriesBytes},
		{"trace records", int64(len(w.trace)), int64(len(w.trace)) * traceRecordBytes},
		{"conversations the applications remember", conversations, conversations * conversationCost(w.cfg)},
	}
	if w.checker != nil {
		// The checkers follow every dialog with a live endpoint, whoever began it (a
		// workload, a reader program, an event notification), and keep a little of each
		// dialog whose endpoints have gone.
		live, released := int64(w.checker.Conversations()), int64(w.checker.Released())
		uses = append(uses, MemoryUse{"conversations the checkers follow", live, live * checkedConvBytes},
			MemoryUse{"conversations the checkers released", released, released * releasedConvBytes},
			MemoryUse{"messages the checkers follow", rows, rows * checkedMessageBytes})
	}
	slices.SortStableFunc(uses, func(a, b MemoryUse) int { return cmp.Compare(b.Bytes, a.Bytes) })
	var total int64
	for _, u := range uses {
		total += u.Bytes
	}
	return uses, total
}

// seriesSize returns the rows of the world's series and their bytes.
func (w *world) seriesSize() (rows, bytes int64) {
	s := &w.series
	for _, k := range []struct{ n, size int }{
		{len(s.Levels), int(unsafe.Sizeof(LevelSample{}))}, {len(s.Databases), int(unsafe.Sizeof(DatabaseSample{}))},
		{len(s.Links), int(unsafe.Sizeof(LinkSample{}))}, {len(s.Instances), int(unsafe.Sizeof(InstanceSample{}))},
	} {
		rows, bytes = rows+int64(k.n), bytes+int64(k.n*k.size)
	}
	for q := range w.queues {
		n := int64(len(w.queues[q].res.Samples))
		rows, bytes = rows+n, bytes+n*int64(unsafe.Sizeof(QueueSample{}))
	}
	return rows, bytes
}

// conversationCost is what a world of config c keeps of each dialog for the whole run:
// the applications' state, and the per-conversation table when tracing. What the checkers
// keep is counted apart: while an endpoint lives, and after (releasedConvBytes).
func conversationCost(c *Config) int64 {
	n := int64(conversationBytes)
	if c.Trace || c.Conversations {
		n += int64(unsafe.Sizeof(conversationStats{})) + 64
	}
	return n
}

// validateMemory refuses a config whose workloads cannot fit in its memory budget: what
// the world keeps of every dialog and message for the whole run (conversationCost, what
// the checkers keep of a dialog after its endpoints have gone, and with Trace the trace records of every message's
// fragments) is counted from the declared counts, and the workload that needs the most is
// named with the estimate.
func (c *Config) validateMemory() error {
	budget := c.memoryBudget()
	var total int64
	worst, worstBytes := -1, int64(0)
	for i := range c.Workloads {
		n := c.workloadBytes(&c.Workloads[i])
		total = saturatingAdd(total, n)
		if n > worstBytes {
			worst, worstBytes = i, n
		}
	}
	if total <= budget || worst < 0 {
		return nil
	}
	wl := &c.Workloads[worst]
	return fmt.Errorf("workload %d (%s): Dialogs %d with %d messages each need about %s (%d dialogs begun within the limits of time and events), and the workloads together %s, more than the memory budget of %s (%s): a run keeps what it needs to check and report every dialog and message until it ends",
		worst, wl.Name, wl.Dialogs, wl.Messages, FormatBytes(worstBytes), c.dialogsBegun(wl), FormatBytes(total), FormatBytes(budget), c.budgetSource())
}

// budgetSource says where the memory budget comes from, for messages.
func (c *Config) budgetSource() string {
	if c.MaxMemory > 0 {
		return "MaxMemory"
	}
	return "MaxMemory's default: " + defaultMaxMemorySource()
}

// workloadBytes estimates what a workload's declared dialogs and messages leave in the
// world until the end of the run.
func (c *Config) workloadBytes(wl *Workload) int64 {
	dialogs := c.dialogsBegun(wl)
	messages := int64(max(wl.Messages, 0))
	if wl.Replies {
		messages *= 2
	}
	perDialog := conversationCost(c)
	if c.CheckInvariants {
		perDialog = saturatingAdd(perDialog, releasedConvBytes)
	}
	if c.Trace {
		// A message leaves at least a record of its SEND, and one of each fragment sent
		// and arrived; a dialog a handful of records of its endpoints' states.
		fragments := max(1, (expectedSize(wl.Size)+int64(c.fragmentSize())-1)/int64(c.fragmentSize()))
		records := saturatingAdd(8, saturatingMul(messages, saturatingAdd(1, saturatingMul(2, fragments))))
		perDialog = saturatingAdd(perDialog, saturatingMul(records, traceRecordBytes))
	}
	return saturatingMul(dialogs, perDialog)
}

// dialogsBegun is how many dialogs a workload can begin before the run's limits: each
// begins in an event of its own, one every Interarrival (on average) from Start.
func (c *Config) dialogsBegun(wl *Workload) int64 {
	limits, _ := c.limits()
	n := min(int64(max(wl.Dialogs, 0)), int64(min(limits.MaxEvents, 1<<62)))
	if mean := wl.Interarrival.MeanValue(); mean > 0 {
		n = min(n, int64(max(limits.MaxTime-wl.Start, 0)/mean)+1)
	}
	return n
}

// fragmentSize is the broker's fragment size, with its default.
func (c *Config) fragmentSize() int {
	return max(c.Broker.WithDefaults().FragmentSize, 1)
}

// expectedSize is a size distribution's mean, in bytes.
func expectedSize(s SizeDistribution) int64 {
	if s.Kind == sim.Uniform {
		return s.Min/2 + s.Max/2
	}
	return max(s.Mean, s.Min, 0)
}

func saturatingAdd(a, b int64) int64 {
	if a > 1<<62 || b > 1<<62 {
		return 1 << 62
	}
	return min(a+b, 1<<62)
}

func saturatingMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > (1<<62)/b {
		return 1 << 62
	}
	return a * b
}

// FormatBytes writes a number of bytes in binary units: 512 B, 1.5 KiB, 3.9 GiB.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}

// formatCount writes a count shortly: 950, 41K, 41M.
func formatCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 10_000:
		return fmt.Sprintf("%dK", n/1_000)
	}
	return fmt.Sprint(n)
}

// validateLimits checks the limits of the run and that the declared workloads fit in the
// memory budget.
func (c *Config) validateLimits() error {
	if c.MaxMemory < 0 {
		return fmt.Errorf("MaxMemory %d is negative", c.MaxMemory)
	}
	return c.validateMemory()
}
