// Package gen holds gopter generators of sbsim worlds: the worlds, fault mixes, workloads,
// life cycles, reader programs, routes and forwarders, crashes and timelines that the
// project's own property tests draw, exported so that a user's tests can draw them too.
//
// Each generated value is plain data, counts and probabilities with a seed (World,
// LockWorld, ActivatedWorld, CostWorld, LateRoute), or a part that adds to a world
// (Life, Program, Crash); its Config method, or Apply, turns it into a
// scenarios.Config, deterministically: the same value gives the same config, and the
// config run with the same seed gives the same result, byte for byte. gopter shrinks a
// failing value field by field, so that the world a property reports is a small one.
// Parameters gives a property the project's fixed gopter seed, which the environment
// overrides (SBSIM_PROP_SEED, SBSIM_PROP_TESTS).
//
// For a user's own design, whose instances, services and workloads are given, Swarm puts
// on it the fault mix simulate explore -swarm draws for a seed (scenarios.DrawFaultMix),
// so that a seed names both the mix and the run. The package scenarios/check runs such
// seeds from go test.
//
// What it leaves out: the generators draw worlds of the simulator's own catalog (I0 to
// I4, services SI<i>-<k>, queues QI<i>); they know nothing of a user's catalog but what
// Swarm reads from it (instances, links, queues, workloads).
//
// Usage, a property over generated worlds:
//
//	properties := gopter.NewProperties(gen.Parameters(t, 400, 60))
//	properties.Property("no violation", prop.ForAll(func(w gen.World) string {
//		res, err := scenarios.Run(w.Programs.Apply(w, w.Config()), w.Seed)
//		if err != nil {
//			return err.Error()
//		}
//		if res.Violation != nil {
//			return res.Violation.Error()
//		}
//		return ""
//	}, gen.Worlds()))
//	properties.TestingRun(t)
package gen
