package gen

import (
	"reflect"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// Life is the life cycle and reuse part of a generated world (World.Life): every
// workload's life cycle, and whether every other workload sends on a pool of reused
// dialogs instead, with its size, senders, recycling and hold time.
type Life struct {
	End                  int // the life cycle; below 0 the default, initiator (half the worlds)
	Reuse                bool
	PoolDialogs          int // 1 to 4
	Senders              int // 0 (one per dialog) to 6
	RecycleAfterMessages int // 0 (never) to 20
	RecycleAfterMs       int // 0 (never) to 3 s
	EndOfStream          bool
	HoldMs               int // 0 to 30 ms
}

// Lives draws a Life: the default life cycle half the time, else one of every LifeCycle;
// a pool a world in three, of 1 to 4 dialogs and up to 6 senders, recycled after up to 20
// messages or 3 s, or at the end of the stream, holding each dialog up to 30 ms.
func Lives() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[Life](), map[string]gopter.Gen{
		"End":                  gopgen.IntRange(-int(scenarios.EndCleanup)-1, int(scenarios.EndCleanup)),
		"Reuse":                gopgen.IntRange(0, 2).Map(func(n int) bool { return n == 0 }), // a world in three
		"PoolDialogs":          gopgen.IntRange(1, 4),
		"Senders":              gopgen.IntRange(0, 6),
		"RecycleAfterMessages": gopgen.IntRange(0, 20),
		"RecycleAfterMs":       gopgen.IntRange(0, 3000),
		"EndOfStream":          gopgen.Bool(),
		"HoldMs":               gopgen.IntRange(0, 30),
	})
}

// Apply gives the workloads of cfg their life cycle, and every other one a pool, made
// legal: target takes no replies and target-after-reply needs them, never and cleanup end
// with no error, and a pool with replies recycles by end of stream.
func (l Life) Apply(cfg *scenarios.Config) {
	for i := range cfg.Workloads {
		w := &cfg.Workloads[i]
		if l.Reuse && i%2 == 0 {
			w.EndWithError, w.MessageGap = false, sim.Distribution{}
			w.Messages = max(w.Messages, 1)
			w.Reuse = &scenarios.Reuse{Dialogs: l.PoolDialogs, Senders: l.Senders, RecycleAfterMessages: l.RecycleAfterMessages,
				RecycleAfter: time.Duration(l.RecycleAfterMs) * time.Millisecond, EndOfStream: l.EndOfStream || w.Replies,
				HoldTime: sim.UniformBetween(0, time.Duration(l.HoldMs)*time.Millisecond)}
			continue
		}
		if l.End < 0 {
			continue
		}
		w.End = scenarios.LifeCycle(l.End)
		switch {
		case w.End == scenarios.EndTarget && w.Replies:
			w.End = scenarios.EndTargetAfterReply
		case w.End == scenarios.EndTargetAfterReply && !w.Replies:
			w.End = scenarios.EndTarget
		case w.End == scenarios.EndNever || w.End == scenarios.EndCleanup:
			w.EndWithError = false
		}
	}
}
