package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// printScenario writes what the scenario is: its instances, links and workloads.
func printScenario(w io.Writer, b scenarios.Builtin) {
	cfg := b.Config
	fmt.Fprintln(w)
	fmt.Fprintf(w, "scenario: %s, %s\n", b.Name, b.Description)
	fmt.Fprintln(w, "parameters:")
	var names []string
	for _, in := range cfg.Instances {
		names = append(names, in.Name)
	}
	fmt.Fprintf(w, "  instances: %s\n", strings.Join(names, ", "))
	for _, l := range cfg.Links {
		fmt.Fprintf(w, "  %s->%s: %s\n", l.A, l.B, describeConfig(l.AToB))
		fmt.Fprintf(w, "  %s->%s: %s\n", l.B, l.A, describeConfig(l.BToA))
	}
	for _, wl := range cfg.Workloads {
		reply := "one-way"
		if wl.Replies {
			reply = "each answered by a reply"
		}
		fmt.Fprintf(w, "  workload %s: %d dialogs %s -> %s, one every %v; %d messages each, one every %v, %s; %s\n",
			wl.Name, wl.Dialogs, wl.From, wl.To, wl.Interarrival, wl.Messages, wl.MessageGap, describeSize(wl.Size), reply)
	}
	fmt.Fprintf(w, "  run limits: virtual time %v, %d events\n", cfg.MaxTime, cfg.MaxEvents)
}

func describeSize(s scenarios.SizeDistribution) string {
	if s.Max > s.Min {
		return fmt.Sprintf("sizes uniform on [%d, %d) bytes", s.Min, s.Max)
	}
	return fmt.Sprintf("%d bytes", s.Mean)
}

// printDialogResults writes the per-link, per-instance and per-conversation figures.
func printDialogResults(w io.Writer, res *scenarios.Result) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "links, one row per direction:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "link\tpackets\tdelivered\tlost\tdup\tcorrupt\tpart-drop\tbytes\t")
	for _, l := range res.Links {
		c := l.Counters
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", l.Name, c.Sent, c.Delivered, c.Lost, c.Duplicated,
			c.Corrupted, c.DroppedPartition, c.Bytes)
	}
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintln(w, "instances:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "instance\tsent\tenqueued\tfragments\tretransmitted\tdup-discarded\tcorrupt-discarded\tacks\tpiggybacked\ttxq-left\t")
	for _, in := range res.Instances {
		c := in.Counters
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", in.Name, c.MessagesSent, c.MessagesEnqueued,
			c.FragmentsSent, c.FragmentsRetransmitted, c.DuplicatesDiscarded, c.CorruptDiscarded, c.AcksSent,
			c.AcksPiggybacked, in.TransmissionQueueRows)
	}
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintln(w, "conversations (both directions; latency from SEND commit to ready at the target):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conversation\tmessages\tdelivered\tfragments\tretransmitted\tdup-discarded\tp50\tp99\tmax\t")
	for _, c := range res.Conversations {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", c.Conversation, c.MessagesSent, c.MessagesDelivered,
			c.FragmentsSent, c.Retransmissions, c.DuplicatesDiscarded, ms(c.Latency.P50), ms(c.Latency.P99), ms(c.Latency.Max))
	}
	tw.Flush()
	l := res.Latency
	fmt.Fprintf(w, "  all user messages received: %d, mean %s, p50 %s, p90 %s, p99 %s, max %s\n",
		l.Count, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max))

	fmt.Fprintln(w)
	fmt.Fprintln(w, "priority levels (of the sending endpoint; latency from SEND commit to ready at the target):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tmessages\tshare\tmean\tp50\tp90\tp99\tmax\ttxq-mean\ttxq-max\t")
	for _, lv := range res.Levels {
		fmt.Fprintf(tw, "%d\t%d\t%.1f%%\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", lv.Level, lv.Messages, 100*lv.Share,
			ms(lv.Latency.Mean), ms(lv.Latency.P50), ms(lv.Latency.P90), ms(lv.Latency.P99), ms(lv.Latency.Max),
			ms(lv.TransmissionQueueWait.Mean), ms(lv.TransmissionQueueWait.Max))
	}
	tw.Flush()
	fmt.Fprintln(w, "  share: of the bytes delivered; txq: from SEND commit to the message's first fragment leaving")
	for _, wl := range res.Workloads {
		fmt.Fprintf(w, "  workload %s: %d dialogs begun, %d ended, %d messages sent, %d replies received\n",
			wl.Name, wl.DialogsBegun, wl.DialogsEnded, wl.MessagesSent, wl.RepliesReceived)
	}
	printReaders(w, res)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "engine: %v at virtual time %v after %d events\n", res.StopReason, res.EndTime, res.Events)
}

// printReaders writes one row per reader program that ran a transaction, one row per queue
// with lock waits, poison or a monitor, and the readers over time of every queue that has a
// monitor.
func printReaders(w io.Writer, res *scenarios.Result) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "reader programs (configured, activated by a queue monitor, or started by an external activator):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "queue\tprogram\tsessions\tpeak\ttransactions\tcommits\trollbacks\tdeadlocks\tmessages\tbusy\t")
	for _, r := range res.Readers {
		if r.Transactions == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", r.Queue, r.Mode, r.Sessions, r.PeakRunning,
			r.Transactions, r.Commits, r.Rollbacks, r.Deadlocks, r.Messages, ms(r.Busy))
	}
	tw.Flush()

	fmt.Fprintln(w)
	fmt.Fprintln(w, "queues (lock waits for the queue's conversation groups, by any statement; the monitor at the end):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "queue\tlock-waits\tp50\tp99\tmax\tabandoned\tpoison-off\tmonitor\ttasks-started\tpeak-tasks\tnotifications\t")
	for _, q := range res.Queues {
		lw := q.LockWaits
		state, started, notified := "-", "-", "-"
		if m := q.Monitor; m != nil {
			state, started, notified = m.State.String(), fmt.Sprint(m.Started), fmt.Sprint(m.NotifiesSent)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%d\t%s\t\n", q.Queue, lw.Count, ms(lw.P50), ms(lw.P99),
			ms(lw.Max), q.LockWaitsAbandoned, q.PoisonDisables, state, started, q.PeakActivated, notified)
	}
	tw.Flush()
	for _, q := range res.Queues {
		if q.Monitor != nil {
			printQueueSeries(w, q)
		}
	}
	for _, a := range res.Activators {
		fmt.Fprintf(w, "  external activator on %s for %s: %d notifications, %d readers started, %d ignored\n",
			a.Queue, a.Target, a.Notifications, a.Started, a.Ignored)
	}
}

// printQueueSeries writes a queue's readers over time: the samples where the number of
// activated tasks, readers or the monitor's state changed, at most seriesRows of them.
func printQueueSeries(w io.Writer, q scenarios.QueueResult) {
	const seriesRows = 24
	var rows []scenarios.QueueSample
	for i, s := range q.Samples {
		if i == 0 || i == len(q.Samples)-1 {
			rows = append(rows, s)
			continue
		}
		p := q.Samples[i-1]
		if s.Activated != p.Activated || s.Readers != p.Readers || s.State != p.State {
			rows = append(rows, s)
		}
	}
	skipped := 0
	if len(rows) > seriesRows {
		skipped = len(rows) - seriesRows
		rows = append(rows[:seriesRows/2], rows[len(rows)-seriesRows/2:]...)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "queue %s over time (when its activated tasks, readers or monitor state changed):\n", q.Queue)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "time\tready\tactivated\treaders\twaiting\tmonitor\t")
	for i, s := range rows {
		if skipped > 0 && i == seriesRows/2 {
			fmt.Fprintf(tw, "(%d rows left out)\t\t\t\t\t\t\n", skipped)
		}
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%s\t\n", s.At, s.Ready, s.Activated, s.Readers, s.Waiting, s.State)
	}
	tw.Flush()
}

// ms rounds a latency for the tables.
func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(100 * time.Microsecond).String()
}

// printInvariantVerdicts writes the verdict of every invariant checked online, and the
// violation with the records that led to it; it reports whether all held.
func printInvariantVerdicts(w io.Writer, res *scenarios.Result, replay string) bool {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "invariants:")
	rules := []struct{ id, what string }{
		{"INV-1", "exactly once, in order, per dialog direction"},
		{"INV-2", "no message enqueued twice, none received incomplete"},
		{"INV-3", "a transmission queue row leaves only once stored by the receiver, or by a documented discard"},
		{"INV-4", "at most one holder per conversation group lock, none after its transaction ends"},
		{"INV-5", "a RECEIVE returns one group, locked by its transaction; no two live transactions receive from one group"},
		{"INV-6", "inside a RECEIVE result: conversations by level, each contiguous and in order"},
		{"INV-10", "a rollback returns every row it received"},
		{"INV-7", "an endpoint keeps the priority level it was created with"},
		{"PRI-15", "no fragment leaves below the best effective level waiting for its destination"},
		{"INV-12", "once the faults healed, everything sent was delivered and the transmission queues are empty"},
	}
	v := res.Violation
	if !res.InvariantsChecked {
		fmt.Fprintln(w, "  not checked: the scenario turns check_invariants off")
		fmt.Fprintln(w, "verdict: no invariant was checked")
		return true
	}
	for _, r := range rules {
		verdict := "ok"
		switch {
		case v != nil && v.Rule == r.id:
			verdict = "VIOLATED"
		case r.id == "INV-12" && res.StopReason != sim.Drained:
			verdict = "unchecked (the run did not drain)"
		}
		fmt.Fprintf(w, "  %-7s%-9s%s\n", r.id, verdict, r.what)
	}
	if v != nil {
		fmt.Fprintf(w, "\n%v\n\nreplay: %s\n", v, replay)
		fmt.Fprintln(w, "verdict: FAILED")
		return false
	}
	fmt.Fprintln(w, "verdict: ok, every invariant held")
	return true
}
