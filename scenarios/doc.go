// Package scenarios builds a world from a Config and a seed, runs it and returns its
// results as plain data. It is the one place that wires the model (a model.Broker per
// instance), the links (net/faulty, one pair per pair of instances) and the engine (sim):
// broker effects become packets on links and timer events, arrivals become broker inputs.
// Applications run on top: initiating workloads (Poisson or fixed arrivals of dialogs,
// messages with a size distribution, one-way or request/reply) and queue readers (RECEIVE
// TOP(n), processing time per message, END CONVERSATION on EndDialog and Error). A
// timeline applies ALTER QUEUE changes. With Config.CheckInvariants the checkers of
// model/invariant observe every trace record and stop the run at the first violation.
//
// The built-in design-validation scenarios (LookupBuiltin, BuiltinNames) are what
// cmd/simulate runs. Scenario files (YAML), plots and the reader programs of the lock and
// activation issues are still to come.
//
// Usage:
//
//	res, err := scenarios.Run(cfg, seed)
//	if res.Violation != nil { /* an invariant broke: res.Violation.Records shows how */ }
package scenarios
