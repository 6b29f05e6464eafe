package gen

import (
	"fmt"
	"reflect"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// ActivatedWorld is a generated world whose queues are read only by activation: internal
// (a procedure, MAX_QUEUE_READERS) or external (an event notification and an external
// activator), over a World's dialogs, group layouts and faults.
type ActivatedWorld struct {
	World        World
	External     bool // event notifications and external activators instead of internal activation
	MaxReaders   int  // MAX_QUEUE_READERS, or the activator's MaxReaders: 1 to 10
	Top          int
	GroupLoop    bool
	ProcessingMs int // mean processing time per message
	WaitForMs    int // the procedure's WAITFOR TIMEOUT before it exits
	RollbackRate float64
	GroupSize    int
	StartupMs    int // the external activator's start-up delay
}

// String prints every field by name: with the property seed, what replays the world.
func (s ActivatedWorld) String() string {
	type plain ActivatedWorld
	return fmt.Sprintf("%+v", plain(s))
}

// Config makes every instance's queue activated, with poison detection off (rollbacks at
// random would otherwise turn queues OFF and leave dialogs unfinished).
func (s ActivatedWorld) Config() scenarios.Config {
	cfg := s.World.Config()
	mode := scenarios.ReceiveLoop
	if s.GroupLoop {
		mode = scenarios.GroupLoop
	}
	cfg.Procedures = []scenarios.Procedure{{Name: "Process", Mode: mode, Top: s.Top, ProcessingTime: expMs(s.ProcessingMs),
		WaitFor: time.Duration(s.WaitForMs) * time.Millisecond, RollbackRate: s.RollbackRate}}
	for i := range cfg.Instances {
		if len(cfg.Instances[i].Databases) == 0 {
			continue // a forwarder (Routing 2)
		}
		db := &cfg.Instances[i].Databases[0]
		q := &db.Queues[0]
		q.PoisonMessageHandlingOff = true
		if !s.External {
			q.Activation = model.Activation{Status: true, Procedure: "Process", MaxQueueReaders: s.MaxReaders}
			continue
		}
		inbox, svc := "Activator"+q.Name, "ActivatorService"+q.Name
		db.Queues = append(db.Queues, model.Queue{Name: inbox})
		db.Services = append(db.Services, model.Service{Name: svc, Queue: inbox, Contracts: []string{model.ContractPostEventNotification}})
		db.EventNotifications = append(db.EventNotifications, model.EventNotification{Name: "Activate" + q.Name, Queue: q.Name, Service: svc})
		cfg.ExternalActivators = append(cfg.ExternalActivators, scenarios.ExternalActivator{Queue: inbox, Target: q.Name, Procedure: "Process",
			StartupDelay: expMs(s.StartupMs), MaxReaders: s.MaxReaders})
	}
	groupWorkloads(&cfg, s.GroupSize)
	return cfg
}

// ActivatedWorlds draws an ActivatedWorld: a World (Worlds), internal or external
// activation, 1 to 10 readers, RECEIVE TOP 0 to 5, a receive or a group loop, up to 50 ms
// of processing per message, a WAITFOR of 1 ms to 6 s, rollbacks up to 30 %, groups of 1
// to 10 dialogs, an external activator's start-up up to 3 s.
func ActivatedWorlds() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[ActivatedWorld](), map[string]gopter.Gen{
		"World":        Worlds(),
		"External":     gopgen.Bool(),
		"MaxReaders":   gopgen.IntRange(1, 10),
		"Top":          gopgen.IntRange(0, 5),
		"GroupLoop":    gopgen.Bool(),
		"ProcessingMs": gopgen.IntRange(0, 50),
		"WaitForMs":    gopgen.IntRange(1, 6000),
		"RollbackRate": gopgen.Float64Range(0, 0.3),
		"GroupSize":    gopgen.IntRange(1, 10),
		"StartupMs":    gopgen.IntRange(0, 3000),
	})
}
