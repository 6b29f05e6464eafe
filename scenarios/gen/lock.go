package gen

import (
	"fmt"
	"reflect"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// LockWorld is a generated world with many readers: a World for the dialogs and their
// faults, and the reader programs and conversation group layout that make transactions
// contend for group locks.
type LockWorld struct {
	World        World
	Sessions     int     // reader sessions per queue, 1 to 20
	GroupLoop    bool    // GET CONVERSATION GROUP then RECEIVE WHERE group, else RECEIVE
	Top          int     // RECEIVE TOP(n); 0 for none
	RollbackRate float64 // chance a receiving transaction rolls back
	TouchRate    float64 // chance a transaction touches another conversation's group
	GroupSize    int     // dialogs per conversation group on the initiator's side
	ProcessingMs int     // mean processing time per message
}

// String prints every field by name: with the property seed, what replays the world.
func (s LockWorld) String() string {
	type plain LockWorld
	return fmt.Sprintf("%+v", plain(s))
}

// Config adds to the world's config a reader program on every queue and the group layout.
// Poison detection is off: with rollbacks at random, five in a row would turn queues OFF
// and leave dialogs unfinished, which the poison test covers on its own.
func (s LockWorld) Config() scenarios.Config {
	cfg := s.World.Config()
	mode := scenarios.ReceiveLoop
	if s.GroupLoop {
		mode = scenarios.GroupLoop
	}
	for i := range cfg.Instances {
		for d := range cfg.Instances[i].Databases {
			db := &cfg.Instances[i].Databases[d]
			for q := range db.Queues {
				db.Queues[q].PoisonMessageHandlingOff = true
				cfg.Readers = append(cfg.Readers, scenarios.Reader{Queue: db.Queues[q].Name, Mode: mode, Top: s.Top, Sessions: s.Sessions,
					ProcessingTime: expMs(s.ProcessingMs), RollbackRate: s.RollbackRate, TouchRate: s.TouchRate,
					TouchTimer: 200 * time.Millisecond})
			}
		}
	}
	groupWorkloads(&cfg, s.GroupSize)
	return cfg
}

// LockWorlds draws a LockWorld: a World (Worlds), 1 to 20 sessions per queue, a receive
// or a group loop, RECEIVE TOP 0 to 5, rollbacks and touches of other groups up to 30 %,
// groups of 1 to 10 dialogs, up to 30 ms of processing per message.
func LockWorlds() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[LockWorld](), map[string]gopter.Gen{
		"World":        Worlds(),
		"Sessions":     gopgen.IntRange(1, 20),
		"GroupLoop":    gopgen.Bool(),
		"Top":          gopgen.IntRange(0, 5),
		"RollbackRate": gopgen.Float64Range(0, 0.3),
		"TouchRate":    gopgen.Float64Range(0, 0.3),
		"GroupSize":    gopgen.IntRange(1, 10),
		"ProcessingMs": gopgen.IntRange(0, 30),
	})
}

// expMs is an exponential distribution with a mean of ms milliseconds; zero is no time.
func expMs(ms int) sim.Distribution {
	if ms == 0 {
		return sim.Fixed(0)
	}
	return sim.ExponentialMean(time.Duration(ms) * time.Millisecond)
}

// groupWorkloads puts the dialogs of cfg's workloads in groups of size, but those of
// pools of reused dialogs, each of which has a group of its own.
func groupWorkloads(cfg *scenarios.Config, size int) {
	for i := range cfg.Workloads {
		if cfg.Workloads[i].Reuse == nil {
			cfg.Workloads[i].GroupSize = size
		}
	}
}
