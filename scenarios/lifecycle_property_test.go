package scenarios_test

import (
	"fmt"

	"github.com/sbsim/sbsim/scenarios"
)

// lifeCycleProblems checks what the life cycles and pools of cfg promise, on res: every
// dialog ends as its life cycle says (none for never), every message reaches its target
// when nothing documented discards it (a pool loses none to its recycling), and replies
// reach initiators that wait for them, whether the readers run programs or not.
func lifeCycleProblems(cfg scenarios.Config, res *scenarios.Result, lifetime bool) []string {
	var problems []string
	for i, w := range res.Workloads {
		c := &cfg.Workloads[i]
		want := int64(c.Dialogs)
		switch {
		case c.Reuse != nil:
			if w.DialogsBegun > want || (want > 0 && w.DialogsBegun < 1) {
				problems = append(problems, fmt.Sprintf("workload %s: a pool of %d began %d dialogs for %d units", w.Name, c.Reuse.Dialogs, w.DialogsBegun, want))
			}
			if !lifetime && w.DialogsEnded != w.DialogsRecycled {
				problems = append(problems, fmt.Sprintf("workload %s: %d pooled dialogs recycled, %d ended", w.Name, w.DialogsRecycled, w.DialogsEnded))
			}
		case c.End == scenarios.EndNever:
			if !lifetime && w.DialogsEnded != 0 {
				problems = append(problems, fmt.Sprintf("workload %s: %d never-ending dialogs ended", w.Name, w.DialogsEnded))
			}
		default:
			if w.DialogsBegun != want || w.DialogsEnded != want {
				problems = append(problems, fmt.Sprintf("workload %s: %d dialogs begun, %d ended, want %d", w.Name, w.DialogsBegun, w.DialogsEnded, want))
			}
		}
		if (c.End == scenarios.EndTarget || c.End == scenarios.EndTargetAfterReply) && c.Messages > 0 && !lifetime && w.DialogsEndedByTarget != want {
			problems = append(problems, fmt.Sprintf("workload %s: the target ended %d dialogs of %d", w.Name, w.DialogsEndedByTarget, want))
		}
		discards := lifetime || c.EndWithError || c.End == scenarios.EndCleanup
		if !discards && res.FindingCount == 0 && w.MessagesReceived != w.MessagesSent {
			problems = append(problems, fmt.Sprintf("workload %s: its targets received %d of %d messages", w.Name, w.MessagesReceived, w.MessagesSent))
		}
		// A target that ends WITH ERROR drops its replies not yet acknowledged (DLG-9).
		errorDrops := c.EndWithError && c.End == scenarios.EndTargetAfterReply
		if c.Replies && !lifetime && !errorDrops && c.End != scenarios.EndFireAndForget && w.RepliesReceived != w.MessagesSent {
			problems = append(problems, fmt.Sprintf("workload %s: %d replies for %d requests", w.Name, w.RepliesReceived, w.MessagesSent))
		}
	}
	return problems
}

// leakable is how many endpoints the life cycles and pools of cfg may leave: open ones
// (SO, SI or CO), two for a never-ending dialog, one for a cleaned-up dialog's target,
// two for each dialog of a pool; and targets in DI, one for each fire-and-forget dialog.
func leakable(cfg scenarios.Config) (open, disconnected int) {
	for _, w := range cfg.Workloads {
		switch {
		case w.Reuse != nil:
			open += 2 * w.Reuse.Dialogs
		case w.End == scenarios.EndNever:
			open += 2 * w.Dialogs
		case w.End == scenarios.EndCleanup:
			open += w.Dialogs
		case w.End == scenarios.EndFireAndForget:
			disconnected += w.Dialogs
		}
	}
	return open, disconnected
}
