package gen

import (
	"fmt"
	"reflect"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/scenarios"
)

// CostWorld is a LockWorld with the cost model on: the readers' transactions hold
// their group locks while they wait for CPUs and log flushes, and batch up to CommitEvery
// RECEIVEs before they commit.
type CostWorld struct {
	Lock        LockWorld
	CPUs        int  // of every instance, 1 to 4
	CommitEvery int  // 0 to 5
	OnCPU       bool // processing occupies a CPU
	ScalePct    int  // the default costs times ScalePct/100, 10 to 400
}

// String prints every field by name: with the property seed, what replays the world.
func (s CostWorld) String() string {
	type plain CostWorld
	return fmt.Sprintf("%+v", plain(s))
}

// Config is the LockWorld's config with the default costs (scenarios.DefaultCosts) scaled,
// the CPUs given to every instance and every reader committing every CommitEvery RECEIVEs.
func (s CostWorld) Config() scenarios.Config {
	cfg := s.Lock.Config()
	c := scenarios.DefaultCosts
	for _, d := range []*time.Duration{&c.BeginDialog, &c.Send, &c.End, &c.Timer, &c.ReceiveCall, &c.ReceiveRow, &c.Commit, &c.LogFlush} {
		*d = *d * time.Duration(s.ScalePct) / 100
	}
	c.ProcessingOnCPU = s.OnCPU
	cfg.Costs = &c
	cfg.CPUs = map[string]int{}
	for _, in := range cfg.Instances {
		cfg.CPUs[in.Name] = s.CPUs
	}
	for i := range cfg.Readers {
		cfg.Readers[i].CommitEvery = s.CommitEvery
	}
	return cfg
}

// CostWorlds draws a CostWorld: a LockWorld (LockWorlds), 1 to 4 CPUs, commits every 0 to
// 5 RECEIVEs, processing on a CPU or not, the default costs scaled by 10 % to 400 %.
func CostWorlds() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[CostWorld](), map[string]gopter.Gen{
		"Lock":        LockWorlds(),
		"CPUs":        gopgen.IntRange(1, 4),
		"CommitEvery": gopgen.IntRange(0, 5),
		"OnCPU":       gopgen.Bool(),
		"ScalePct":    gopgen.IntRange(10, 400),
	})
}
