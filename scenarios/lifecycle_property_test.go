package scenarios

import (
	"fmt"
	"reflect"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/sim"
)

// lifeSpec is the life cycle and reuse part of a generated world (worldSpec.Life): every
// workload's life cycle, and whether every other workload sends on a pool of reused
// dialogs instead, with its size, senders, recycling and hold time.
type lifeSpec struct {
	End                  int // the life cycle; below 0 the default, initiator (half the worlds)
	Reuse                bool
	PoolDialogs          int // 1 to 4
	Senders              int // 0 (one per dialog) to 6
	RecycleAfterMessages int // 0 (never) to 20
	RecycleAfterMs       int // 0 (never) to 3 s
	EndOfStream          bool
	HoldMs               int // 0 to 30 ms
}

func genLifeSpec() gopter.Gen {
	return gen.Struct(reflect.TypeFor[lifeSpec](), map[string]gopter.Gen{
		"End":                  gen.IntRange(-int(EndCleanup)-1, int(EndCleanup)),
		"Reuse":                gen.IntRange(0, 2).Map(func(n int) bool { return n == 0 }), // a world in three
		"PoolDialogs":          gen.IntRange(1, 4),
		"Senders":              gen.IntRange(0, 6),
		"RecycleAfterMessages": gen.IntRange(0, 20),
		"RecycleAfterMs":       gen.IntRange(0, 3000),
		"EndOfStream":          gen.Bool(),
		"HoldMs":               gen.IntRange(0, 30),
	})
}

// apply gives the workloads of cfg their life cycle, and every other one a pool, made
// legal: target takes no replies and target-after-reply needs them, never and cleanup end
// with no error, and a pool with replies recycles by end of stream.
func (l lifeSpec) apply(cfg *Config) {
	for i := range cfg.Workloads {
		w := &cfg.Workloads[i]
		if l.Reuse && i%2 == 0 {
			w.EndWithError, w.MessageGap = false, sim.Distribution{}
			w.Messages = max(w.Messages, 1)
			w.Reuse = &Reuse{Dialogs: l.PoolDialogs, Senders: l.Senders, RecycleAfterMessages: l.RecycleAfterMessages,
				RecycleAfter: time.Duration(l.RecycleAfterMs) * time.Millisecond, EndOfStream: l.EndOfStream || w.Replies,
				HoldTime: sim.UniformBetween(0, time.Duration(l.HoldMs)*time.Millisecond)}
			continue
		}
		if l.End < 0 {
			continue
		}
		w.End = LifeCycle(l.End)
		switch {
		case w.End == EndTarget && w.Replies:
			w.End = EndTargetAfterReply
		case w.End == EndTargetAfterReply && !w.Replies:
			w.End = EndTarget
		case w.End == EndNever || w.End == EndCleanup:
			w.EndWithError = false
		}
	}
}

// lifeCycleProblems checks what the life cycles and pools of cfg promise, on res: every
// dialog ends as its life cycle says (none for never), every message reaches its target
// when nothing documented discards it (a pool loses none to its recycling), and replies
// reach initiators that wait for them, whether the readers run programs or not.
func lifeCycleProblems(cfg Config, res *Result, lifetime bool) []string {
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
		case c.End == EndNever:
			if !lifetime && w.DialogsEnded != 0 {
				problems = append(problems, fmt.Sprintf("workload %s: %d never-ending dialogs ended", w.Name, w.DialogsEnded))
			}
		default:
			if w.DialogsBegun != want || w.DialogsEnded != want {
				problems = append(problems, fmt.Sprintf("workload %s: %d dialogs begun, %d ended, want %d", w.Name, w.DialogsBegun, w.DialogsEnded, want))
			}
		}
		if (c.End == EndTarget || c.End == EndTargetAfterReply) && c.Messages > 0 && !lifetime && w.DialogsEndedByTarget != want {
			problems = append(problems, fmt.Sprintf("workload %s: the target ended %d dialogs of %d", w.Name, w.DialogsEndedByTarget, want))
		}
		discards := lifetime || c.EndWithError || c.End == EndCleanup
		if !discards && res.FindingCount == 0 && w.MessagesReceived != w.MessagesSent {
			problems = append(problems, fmt.Sprintf("workload %s: its targets received %d of %d messages", w.Name, w.MessagesReceived, w.MessagesSent))
		}
		// A target that ends WITH ERROR drops its replies not yet acknowledged (DLG-9).
		errorDrops := c.EndWithError && c.End == EndTargetAfterReply
		if c.Replies && !lifetime && !errorDrops && c.End != EndFireAndForget && w.RepliesReceived != w.MessagesSent {
			problems = append(problems, fmt.Sprintf("workload %s: %d replies for %d requests", w.Name, w.RepliesReceived, w.MessagesSent))
		}
	}
	return problems
}

// leakable is how many endpoints the life cycles and pools of cfg may leave: open ones
// (SO, SI or CO), two for a never-ending dialog, one for a cleaned-up dialog's target,
// two for each dialog of a pool; and targets in DI, one for each fire-and-forget dialog.
func leakable(cfg Config) (open, disconnected int) {
	for _, w := range cfg.Workloads {
		switch {
		case w.Reuse != nil:
			open += 2 * w.Reuse.Dialogs
		case w.End == EndNever:
			open += 2 * w.Dialogs
		case w.End == EndCleanup:
			open += w.Dialogs
		case w.End == EndFireAndForget:
			disconnected += w.Dialogs
		}
	}
	return open, disconnected
}
