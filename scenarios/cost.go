package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// costKind names a statement that the cost model charges CPU time for (issue 14, item 5).
// The applications call charge as they run statements; with no cost model, charging is
// free and nothing waits for a CPU.
type costKind uint8

const (
	costBeginDialog costKind = iota
	costSend
	costReceiveCall // one RECEIVE or GET CONVERSATION GROUP statement
	costReceiveRow  // one row it returned
	costEnd         // END CONVERSATION
	costTimer       // BEGIN CONVERSATION TIMER
	costCommit      // COMMIT (and its log flush)
	costProcessing  // a reader's processing time, when it occupies a CPU
	costKinds
)

var costKindNames = [costKinds]string{"begin_dialog", "send", "receive_call", "receive_row", "end", "timer", "commit", "processing"}

func (k costKind) String() string { return costKindNames[k] }

// Costs is the cost model (docs/costs.md): the CPU time each statement costs on its
// instance's CPUs, and the log flush each COMMIT that wrote waits for. A nil Config.Costs
// makes every statement free. DefaultCosts holds the calibrated defaults.
type Costs struct {
	BeginDialog, Send, End, Timer time.Duration
	// ReceiveCall is the CPU time of one RECEIVE or GET CONVERSATION GROUP statement,
	// ReceiveRow that of each row a RECEIVE returns (the procedure's own work on it aside).
	ReceiveCall, ReceiveRow time.Duration
	// Commit is COMMIT's CPU time; LogFlush the wait for the log write of a transaction
	// that changed something. Flushes of one database's log are serial; the commits that
	// come while one is under way go together in the next (group commit).
	Commit, LogFlush time.Duration
	// ProcessingOnCPU makes a reader's processing time occupy a CPU (work in the
	// procedure); otherwise processing waits without one (a call to another system).
	ProcessingOnCPU bool
}

// DefaultCosts are the costs calibrated on Remus Rusanu's measurements of a 2006-era
// server (docs/costs.md, TestCostCalibration_...).
var DefaultCosts = Costs{
	BeginDialog: 1500 * time.Microsecond,
	Send:        150 * time.Microsecond,
	End:         750 * time.Microsecond,
	Timer:       100 * time.Microsecond,
	ReceiveCall: 2 * time.Millisecond,
	ReceiveRow:  570 * time.Microsecond,
	Commit:      100 * time.Microsecond,
	LogFlush:    500 * time.Microsecond,
}

// DefaultCPUs is the number of CPUs of an instance that Config.CPUs does not list.
const DefaultCPUs = 4

// MaxCPUs bounds an instance's CPUs.
const MaxCPUs = 1024

func (c *Costs) of(k costKind) time.Duration {
	switch k {
	case costBeginDialog:
		return c.BeginDialog
	case costSend:
		return c.Send
	case costReceiveCall:
		return c.ReceiveCall
	case costReceiveRow:
		return c.ReceiveRow
	case costEnd:
		return c.End
	case costTimer:
		return c.Timer
	case costCommit:
		return c.Commit
	}
	return 0
}

func (c *Costs) validate() error {
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"BeginDialog", c.BeginDialog}, {"Send", c.Send}, {"End", c.End}, {"Timer", c.Timer},
		{"ReceiveCall", c.ReceiveCall}, {"ReceiveRow", c.ReceiveRow}, {"Commit", c.Commit}, {"LogFlush", c.LogFlush}} {
		if f.d < 0 || f.d > time.Hour {
			return fmt.Errorf("Costs.%s %v is outside 0..1h", f.name, f.d)
		}
	}
	return nil
}

// validateCosts checks the costs and the CPUs of the instances.
func (c *Config) validateCosts() error {
	if c.Costs != nil {
		if err := c.Costs.validate(); err != nil {
			return err
		}
	}
	for _, in := range c.Instances {
		if n, ok := c.CPUs[in.Name]; ok && (n < 1 || n > MaxCPUs) {
			return fmt.Errorf("instance %q: CPUs %d is outside 1..%d", in.Name, n, MaxCPUs)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.CPUs)) {
		found := false
		for _, in := range c.Instances {
			found = found || in.Name == name
		}
		if !found {
			return fmt.Errorf("CPUs: instance %q does not exist", name)
		}
	}
	return nil
}

// cpuPool is the CPUs of one instance, served first come, first served: a request takes
// the CPU that frees first (the lowest on a tie) as soon as both it and the CPU are there.
// Assigning each request at once to the earliest free CPU is the FIFO multi-server queue
// and needs no event. The log of each database is there too.
type cpuPool struct {
	freeAt []time.Duration // by CPU: when it has done the work assigned to it
	busy   time.Duration   // CPU time served so far
	byKind [costKinds]time.Duration
	// flushStart and flushEnd are the latest log flush of each database (by DatabaseID):
	// the flush under way, or the next one that commits arriving now will join.
	flushStart, flushEnd []time.Duration
}

// run serves d of CPU time asked for at now and returns when it is done.
func (p *cpuPool) run(now, d time.Duration) time.Duration {
	if d <= 0 {
		return now
	}
	best := 0
	for i, f := range p.freeAt {
		if f < p.freeAt[best] {
			best = i
		}
	}
	end := max(now, p.freeAt[best]) + d
	p.freeAt[best] = end
	p.busy += d
	return end
}

// flush returns when a log flush of database db that a commit at now asks for is written:
// at once when the log is idle, with the next flush when one is under way, or with the
// next flush already waiting (group commit).
func (p *cpuPool) flush(now time.Duration, db int, d time.Duration) time.Duration {
	if d <= 0 {
		return now
	}
	switch {
	case now < p.flushStart[db]: // the next flush waits for the one under way: join it
	case now < p.flushEnd[db]:
		p.flushStart[db], p.flushEnd[db] = p.flushEnd[db], p.flushEnd[db]+d
	default:
		p.flushStart[db], p.flushEnd[db] = now, now+d
	}
	return p.flushEnd[db]
}

// bill is what an application owes for the statements of its current step.
type bill struct {
	cpu    time.Duration
	byKind [costKinds]time.Duration
	wrote  bool // a statement changed something: its commit flushes the log
}

func (b *bill) add(c *Costs, k costKind, n int) {
	d := c.of(k) * time.Duration(n)
	b.cpu += d
	b.byKind[k] += d
	if k != costReceiveCall && k != costCommit {
		b.wrote = true
	}
}

// pay serves the bill on the pool at now, and the log flush of database db when commit
// and the transaction wrote; it returns when both are done and clears the bill, but for
// whether the transaction wrote when it does not commit yet.
func (b *bill) pay(p *cpuPool, c *Costs, now time.Duration, db int, commit bool) time.Duration {
	done := p.run(now, b.cpu)
	for k, d := range b.byKind {
		p.byKind[k] += d
	}
	if commit && b.wrote {
		done = p.flush(done, db, c.LogFlush)
	}
	*b = bill{wrote: b.wrote && !commit}
	return done
}

// newCPUPools builds the CPUs of every instance, nil without costs.
func (w *world) newCPUPools() {
	if w.cfg.Costs == nil {
		return
	}
	w.cpus = make([]cpuPool, len(w.cat.Instances))
	for i, in := range w.cat.Instances {
		n, ok := w.cfg.CPUs[in.Name]
		if !ok {
			n = DefaultCPUs
		}
		w.cpus[i].freeAt = make([]time.Duration, n)
		w.cpus[i].flushStart = make([]time.Duration, len(w.cat.Databases))
		w.cpus[i].flushEnd = make([]time.Duration, len(w.cat.Databases))
	}
}

// charge notes that the session ran n statements (or rows) of kind k in its current step.
func (s *session) charge(k costKind, n int) {
	if c := s.r.w.cfg.Costs; c != nil {
		s.owed.add(c, k, n)
	}
}

// payCPU serves what the session owes on its instance's CPUs, with processing time busy
// when processing occupies a CPU, and the log flush when commit; it returns when the
// session may go on. Without costs that is now plus busy.
func (s *session) payCPU(busy time.Duration, commit bool) time.Duration {
	w := s.r.w
	c := w.cfg.Costs
	if c == nil {
		return w.now() + busy
	}
	if c.ProcessingOnCPU && busy > 0 {
		s.owed.cpu += busy
		s.owed.byKind[costProcessing] += busy
		busy = 0
	}
	return s.owed.pay(&w.cpus[s.r.inst], c, w.now(), int(w.cat.Queues[s.r.queue].Database), commit) + busy
}

// charge notes that the workload ran n statements of kind k in its current step.
func (wl *workloadRun) charge(k costKind, n int) {
	if c := wl.w.cfg.Costs; c != nil {
		wl.owed.add(c, k, n)
	}
}

// payCPU serves what the workload owes for its step, with a COMMIT of its own for the
// statements since its last: a workload is a serial sender, and its next event waits until
// busyUntil.
func (wl *workloadRun) payCPU() {
	w := wl.w
	c := w.cfg.Costs
	if c == nil || wl.owed.cpu == 0 && !wl.owed.wrote {
		return
	}
	if wl.owed.wrote {
		wl.owed.add(c, costCommit, 1) // the statements that autocommitted
	}
	wl.busyUntil = max(wl.busyUntil, wl.owed.pay(&w.cpus[wl.inst], c, w.now(), int(w.cat.Services[wl.from].Database), true))
}

// busy defers an event of the workload that comes while it is still at its last step's
// work, and reports whether it did.
func (wl *workloadRun) busy(arg uint64) bool {
	if wl.busyUntil > wl.w.now() {
		wl.w.e.Schedule(wl.busyUntil, wl, arg)
		return true
	}
	return false
}

// cpuBusy is the CPU time instance i's CPUs served so far; zero without costs.
func (w *world) cpuBusy(i int) time.Duration {
	if w.cpus == nil {
		return 0
	}
	return w.cpus[i].busy
}

// CPUResult is the CPU use of one instance with costs on.
type CPUResult struct {
	Instance string
	CPUs     int
	// Busy is the CPU time served; ByKind splits it by statement kind (CostKinds order).
	Busy   time.Duration
	ByKind []time.Duration
}

// CostKinds names the statement kinds of CPUResult.ByKind, in order.
var CostKinds = costKindNames[:]

func (w *world) cpuResults() []CPUResult {
	if w.cpus == nil {
		return nil
	}
	out := make([]CPUResult, len(w.cpus))
	for i := range w.cpus {
		p := &w.cpus[i]
		out[i] = CPUResult{Instance: w.cat.Instances[i].Name, CPUs: len(p.freeAt), Busy: p.busy, ByKind: append([]time.Duration(nil), p.byKind[:]...)}
	}
	return out
}
