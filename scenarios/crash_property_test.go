package scenarios

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// crashSpec adds crashes to a generated world (G-13): Count crashes at instants drawn to
// the nanosecond in the first WindowMs of the run, where transactions are open, blocks are
// in flight and retries pending, each of a random instance, down for up to MaxDownMs; or,
// with Random, the same drawn at run time by Config.Crashes. With Gateway, every dialog
// between two instances of a world without routes of its own goes through a forwarding
// gateway (RTE-5), which may crash too, while it holds fragments. With Failover, the first
// crash of the timeline is a mirrored instance failing over to a standby host, which every
// route to it names as MIRROR_ADDRESS (RTE-3); the world then declares routes (through the
// gateway when it had none).
type crashSpec struct {
	Count     int // 1 to 4
	WindowMs  int
	MaxDownMs int
	Random    bool
	Gateway   bool
	Failover  bool
}

func (s crashSpec) String() string {
	type plain crashSpec
	return fmt.Sprintf("%+v", plain(s))
}

// apply adds the crashes to cfg; seed draws the timeline's instants and instances.
func (s crashSpec) apply(cfg Config, seed uint64) Config {
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
		cfg.Crashes = RandomCrashes{Instances: names, Until: window, Interval: sim.ExponentialMean(window / time.Duration(s.Count)),
			Downtime: sim.UniformBetween(minDowntime, down)}
		return cfg
	}
	r := rand.New(rand.NewPCG(seed, 2))
	cfg.Timeline = append([]Change(nil), cfg.Timeline...)
	first := len(cfg.Timeline)
	for range s.Count {
		cfg.Timeline = append(cfg.Timeline, Change{At: time.Duration(r.Int64N(int64(window))),
			Crash: &CrashChange{Instance: cfg.Instances[r.IntN(len(cfg.Instances))].Name,
				RestartAfter: minDowntime + time.Duration(r.Int64N(int64(down)))}})
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
func mirrored(cfg Config, i int) Config {
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
// A world that declares routes of its own (the routing worlds genWorldSpec draws, with
// their chains of forwarders, which crashes hit as they hit any instance) is left as it is.
func viaGateway(cfg Config) Config {
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
func declaresRoutes(cfg Config) bool {
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

func genCrashSpec() gopter.Gen {
	return gen.Struct(reflect.TypeFor[crashSpec](), map[string]gopter.Gen{
		"Count":     gen.IntRange(1, 4),
		"WindowMs":  gen.IntRange(1, 15_000),
		"MaxDownMs": gen.IntRange(1, 120_000),
		"Random":    gen.Bool(),
		"Gateway":   gen.Bool(),
		"Failover":  gen.Bool(),
	})
}

// crashed is a generated world of any spec, with crashes added.
type crashed[S any] struct {
	Spec  S
	Crash crashSpec
}

// crashProperty checks a property over worlds drawn by genSpec with crashes added: world
// gives a spec's world (its config and the seed it runs with), and the run must pass
// checkWorldConfig.
func crashProperty[S any](t *testing.T, tests, short int, name string, genSpec gopter.Gen, world func(S) (worldSpec, Config)) {
	properties := gopter.NewProperties(propertyParameters(t, tests, short))
	properties.Property(name, prop.ForAll(func(c crashed[S]) string {
		w, cfg := world(c.Spec)
		for i := range cfg.Workloads {
			cfg.Workloads[i].Reuse = nil // a pool is not modelled through crashes (validateReuseCrashes)
		}
		return checkWorldConfig(w, c.Crash.apply(cfg, w.Seed))
	}, gen.Struct(reflect.TypeFor[crashed[S]](), map[string]gopter.Gen{"Spec": genSpec, "Crash": genCrashSpec()})))
	properties.TestingRun(t)
}

// TestG13_DialogsAreExactlyOnceThroughCrashes is the dialog property with instances that
// crash and restart at random instants (G-13): over the same random worlds and fault mixes,
// every dialog still delivers exactly once and in order counting committed receives
// (INV-1), nothing is enqueued twice (INV-2), rows leave the transmission queue only when
// stored (INV-3), everything sent arrives once the faults heal and the last instance is
// back (INV-12), every dialog finishes, and nothing volatile survives a crash (G-13); half
// the worlds send every dialog between instances through a forwarding gateway, which may
// crash while it holds fragments (RTE-5).
func TestG13_DialogsAreExactlyOnceThroughCrashes(t *testing.T) {
	crashProperty(t, 150, 25, "EOIO and liveness through crashes", genWorldSpec(),
		func(s worldSpec) (worldSpec, Config) { return s, s.config() })
}

// TestG13_LockRulesHoldThroughCrashes is the lock property with crashes (G-13): a crash
// rolls back the transactions of its instance, which release their locks and return what
// they received (INV-4, INV-10), their sessions die and start again after the restart,
// and EOIO on committed receives holds across it.
func TestG13_LockRulesHoldThroughCrashes(t *testing.T) {
	crashProperty(t, 100, 20, "lock rules and EOIO through crashes", genLockSpec(),
		func(s lockSpec) (worldSpec, Config) { return s.World, s.config() })
}

// TestG13_ActivationRulesHoldThroughCrashes is the activation property with crashes
// (G-13): a crash ends the activated tasks of its instance (G-32 counts them out), the
// monitor starts again INACTIVE after the restart and activates again for what is left
// (INV-8, ACT-4, G-4), and every dialog finishes.
func TestG13_ActivationRulesHoldThroughCrashes(t *testing.T) {
	crashProperty(t, 100, 20, "activation rules and EOIO through crashes", genActivationSpec(),
		func(s activationSpec) (worldSpec, Config) { return s.World, s.config() })
}
