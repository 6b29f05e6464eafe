package gen

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// Crash adds crashes to a generated world (G-13): Count crashes at instants drawn to
// the nanosecond in the first WindowMs of the run, where transactions are open, blocks are
// in flight and retries pending, each of a random instance, down for up to MaxDownMs; or,
// with Random, the same drawn at run time by Config.Crashes. With Gateway, every dialog
// between two instances of a world without routes of its own goes through a forwarding
// gateway (RTE-5), which may crash too, while it holds fragments. With Failover, the first
// crash of the timeline is a mirrored instance failing over to a standby host, which every
// route to it names as MIRROR_ADDRESS (RTE-3); the world then declares routes (through the
// gateway when it had none).
type Crash struct {
	Count     int // 1 to 4
	WindowMs  int
	MaxDownMs int
	Random    bool
	Gateway   bool
	Failover  bool
}

// String prints every field by name: with the property seed, what replays the crashes.
func (s Crash) String() string {
	type plain Crash
	return fmt.Sprintf("%+v", plain(s))
}

// Apply adds the crashes to cfg; seed draws the timeline's instants and instances (from a
// stream of its own, so that they shift none of the world's draws). A pool of reused
// dialogs is not modelled through crashes: cfg's workloads must have no Reuse.
func (s Crash) Apply(cfg scenarios.Config, seed uint64) scenarios.Config {
	if s.Gateway {
		cfg = viaGateway(cfg)
	}
	window := time.Duration(s.WindowMs) * time.Millisecond
	down := time.Duration(s.MaxDownMs) * time.Millisecond
	if s.Random {
		var names []string
		for _, in := range cfg.Instances {
			names = append(names, in.Name)
		}
		cfg.Crashes = scenarios.RandomCrashes{Instances: names, Until: window, Interval: sim.ExponentialMean(window / time.Duration(s.Count)),
			Downtime: sim.UniformBetween(scenarios.MinDowntime, down)}
		return cfg
	}
	r := rand.New(rand.NewPCG(seed, 2))
	cfg.Timeline = append([]scenarios.Change(nil), cfg.Timeline...)
	first := len(cfg.Timeline)
	for range s.Count {
		cfg.Timeline = append(cfg.Timeline, scenarios.Change{At: time.Duration(r.Int64N(int64(window))),
			Crash: &scenarios.CrashChange{Instance: cfg.Instances[r.IntN(len(cfg.Instances))].Name,
				RestartAfter: scenarios.MinDowntime + time.Duration(r.Int64N(int64(down)))}})
	}
	if s.Failover {
		cfg = mirrored(cfg, first)
	}
	return cfg
}

// mirrored makes the crash at timeline index i a failover of its instance to a new standby
// host, and names the standby as MIRROR_ADDRESS in every route to the instance. A world
// without routes of its own goes through the gateway first, so that its routes can name a
// mirror; a forwarder, which has no database to mirror, does not fail over.
func mirrored(cfg scenarios.Config, i int) scenarios.Config {
	if !declaresRoutes(cfg) {
		cfg = viaGateway(cfg)
	}
	c := *cfg.Timeline[i].Crash
	in := slices.IndexFunc(cfg.Instances, func(in model.Instance) bool { return in.Name == c.Instance })
	if len(cfg.Instances[in].Databases) == 0 {
		return cfg
	}
	standby := c.Instance + "-mirror"
	c.FailoverTo = standby
	cfg.Timeline[i].Crash = &c
	cfg.Instances = slices.Clone(cfg.Instances)
	name := func(routes []model.Route) []model.Route {
		routes = slices.Clone(routes)
		for k := range routes {
			if routes[k].Address == c.Instance {
				routes[k].MirrorAddress = standby
			}
		}
		return routes
	}
	for k := range cfg.Instances {
		x := &cfg.Instances[k]
		x.Routes = name(x.Routes)
		x.Databases = slices.Clone(x.Databases)
		for d := range x.Databases {
			x.Databases[d].Routes = name(x.Databases[d].Routes)
		}
	}
	cfg.Instances = append(cfg.Instances, model.Instance{Name: standby})
	return cfg
}

// viaGateway routes every dialog between two instances of cfg through a gateway instance
// GW with MESSAGE_FORWARDING on: each database routes the other instances' services to GW,
// and GW's msdb routes each service to its instance (RTE-1, RTE-5).
// A world that declares routes of its own (the routing worlds Worlds draws, with
// their chains of forwarders, which crashes hit as they hit any instance) is left as it is.
func viaGateway(cfg scenarios.Config) scenarios.Config {
	if declaresRoutes(cfg) {
		return cfg
	}
	cfg.Instances = slices.Clone(cfg.Instances)
	gw := model.Instance{Name: "GW", Forwarding: model.Forwarding{Enabled: true}}
	for i := range cfg.Instances {
		in := &cfg.Instances[i]
		in.Databases = slices.Clone(in.Databases)
		for _, db := range in.Databases {
			for _, svc := range db.Services {
				gw.Routes = append(gw.Routes, model.Route{Name: "to " + svc.Name + " at " + in.Name, ServiceName: svc.Name, Address: in.Name})
			}
		}
	}
	for i := range cfg.Instances {
		for d := range cfg.Instances[i].Databases {
			db := &cfg.Instances[i].Databases[d]
			db.Routes = slices.Clone(db.Routes)
			for j, other := range cfg.Instances {
				if j == i {
					continue
				}
				for _, odb := range other.Databases {
					for _, svc := range odb.Services {
						name := "via GW to " + svc.Name // one route per service name (a name may be on several instances)
						if !slices.ContainsFunc(db.Routes, func(r model.Route) bool { return r.Name == name }) {
							db.Routes = append(db.Routes, model.Route{Name: name, ServiceName: svc.Name, Address: "GW"})
						}
					}
				}
			}
		}
	}
	cfg.Instances = append(cfg.Instances, gw)
	return cfg
}

// declaresRoutes reports whether some instance forwards or has msdb routes, or some
// database has routes.
func declaresRoutes(cfg scenarios.Config) bool {
	for _, in := range cfg.Instances {
		if in.Forwarding.Enabled || len(in.Routes) > 0 {
			return true
		}
		for _, db := range in.Databases {
			if len(db.Routes) > 0 {
				return true
			}
		}
	}
	return false
}

// Crashes draws a Crash: 1 to 4 crashes in the first 1 ms to 15 s, down for up to 2 min,
// on the timeline or at random, through a gateway or not, the first a failover or not.
func Crashes() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[Crash](), map[string]gopter.Gen{
		"Count":     gopgen.IntRange(1, 4),
		"WindowMs":  gopgen.IntRange(1, 15_000),
		"MaxDownMs": gopgen.IntRange(1, 120_000),
		"Random":    gopgen.Bool(),
		"Gateway":   gopgen.Bool(),
		"Failover":  gopgen.Bool(),
	})
}
