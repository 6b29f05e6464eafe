package scenarios

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
)

// activationSpec is a generated world whose queues are read only by activation: internal
// (a procedure, MAX_QUEUE_READERS) or external (an event notification and an external
// activator), over a worldSpec's dialogs, group layouts and faults.
type activationSpec struct {
	World        worldSpec
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

func (s activationSpec) String() string {
	type plain activationSpec
	return fmt.Sprintf("%+v", plain(s))
}

// config makes every instance's queue activated, with poison detection off (rollbacks at
// random would otherwise turn queues OFF and leave dialogs unfinished).
func (s activationSpec) config() Config {
	cfg := s.World.config()
	mode := ReceiveLoop
	if s.GroupLoop {
		mode = GroupLoop
	}
	cfg.Procedures = []Procedure{{Name: "Process", Mode: mode, Top: s.Top, ProcessingTime: expMs(s.ProcessingMs),
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
		cfg.ExternalActivators = append(cfg.ExternalActivators, ExternalActivator{Queue: inbox, Target: q.Name, Procedure: "Process",
			StartupDelay: expMs(s.StartupMs), MaxReaders: s.MaxReaders})
	}
	for i := range cfg.Workloads {
		if cfg.Workloads[i].Reuse == nil { // a pooled dialog has a group of its own
			cfg.Workloads[i].GroupSize = s.GroupSize
		}
	}
	return cfg
}

func genActivationSpec() gopter.Gen {
	return gen.Struct(reflect.TypeFor[activationSpec](), map[string]gopter.Gen{
		"World":        genWorldSpec(),
		"External":     gen.Bool(),
		"MaxReaders":   gen.IntRange(1, 10),
		"Top":          gen.IntRange(0, 5),
		"GroupLoop":    gen.Bool(),
		"ProcessingMs": gen.IntRange(0, 50),
		"WaitForMs":    gen.IntRange(1, 6000),
		"RollbackRate": gen.Float64Range(0, 0.3),
		"GroupSize":    gen.IntRange(1, 10),
		"StartupMs":    gen.IntRange(0, 3000),
	})
}

// TestActivationRulesHold is the activation property (each task runs its procedure in a
// session and transactions of its own, TXN-4): over random arrival patterns, group
// layouts, reader speeds, rollback rates, MAX_QUEUE_READERS and link faults, with queues
// read only by activated (or externally activated) readers, the online checkers find no
// violation of INV-8 (never more than MAX_QUEUE_READERS tasks), INV-9 (one notification
// per time-out window), ACT-4 (a reader starts only when activation is needed), nor of
// EOIO and the lock rules; and every run ends with every dialog finished: activation
// always comes back for messages that arrive after the readers left (ACT-4a).
func TestActivationRulesHold(t *testing.T) {
	properties := gopter.NewProperties(propertyParameters(t, 150, 25))
	properties.Property("INV-8, INV-9, ACT-4, EOIO and locks; every dialog finishes", prop.ForAll(func(s activationSpec) string {
		return checkWorldConfig(s.World, s.World.Programs.apply(s.World, s.config()))
	}, genActivationSpec()))
	properties.TestingRun(t)
}
