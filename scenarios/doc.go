// Package scenarios builds a world from a Config and a seed, runs it and returns its
// results as plain data. It is the one place that wires the model (a model.Broker per
// instance), the links (net/faulty, one pair per pair of instances) and the engine (sim):
// broker effects become packets on links and timer events, arrivals become broker inputs.
// The same Config and seed give the same Result, byte for byte.
//
// A Config holds the instances with their catalogs (model.Instance), the links, the
// broker's protocol parameters, and the applications that run on top:
//
//   - workloads (Workload): initiating applications that begin dialogs at fixed or Poisson
//     arrivals, send messages of a size distribution, one-way or request/reply, in
//     conversation groups, with lifetimes;
//   - reader programs (Reader): sessions looping on RECEIVE, or GET CONVERSATION GROUP then
//     RECEIVE, in transactions that commit or roll back, and that may touch another
//     conversation's group so that lock waits and deadlocks happen;
//   - activation procedures (Procedure), which the queue monitors start as activated tasks
//     up to MAX_QUEUE_READERS, and external activators (ExternalActivator), which read
//     QUEUE_ACTIVATION notifications and start readers themselves;
//   - a timeline (Change) of ALTER QUEUE statements: STATUS and ACTIVATION.
//
// With Config.CheckInvariants the checkers of model/invariant observe every trace record
// and stop the run at the first violation (Result.Violation). A Result has figures per
// instance, link, workload, priority level, queue (with its monitor and activated tasks),
// reader program and external activator. It also has time series sampled every
// Config.SampleInterval (QueueResult.Samples, Series), latency distributions (CDFPoint),
// and, with Config.Trace, every trace record and a table per conversation.
//
// Scenario files describe a Config in YAML, with the design question they answer and
// expectations on the results; docs/scenario-files.md describes every key. LoadFile and
// Load read a file into a File and report every problem as FileErrors, with line and
// column. File.Check checks the expectations against a Result (Metrics lists what they
// may name), and File.Marshal writes the file back. The library of design-validation
// scenarios is embedded from library/*.yaml (LibraryNames, LibraryFile, LoadLibrary). The
// older built-in scenarios written in Go (BuiltinNames, LookupBuiltin) remain for the
// command's flag form. cmd/simulate runs all of these, writes the results and draws the
// plots (package plots).
//
// Not modelled: routing (a dialog reaches its service by name, and service names are
// unique in the world) and instance crashes.
//
// Usage:
//
//	f, err := scenarios.LoadLibrary("lossy-wan") // or scenarios.LoadFile("my-design.yaml")
//	if err != nil { /* bad input: err lists each problem with its line and column */ }
//	res, err := scenarios.Run(f.Config, seed)
//	if res.Violation != nil { /* an invariant broke: res.Violation.Records shows how */ }
//	for _, v := range f.Check(res) { /* v.OK, and what the run gave */ }
package scenarios
