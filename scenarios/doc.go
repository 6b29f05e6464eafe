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
//     conversation groups, with lifetimes; their dialogs end as a life cycle says (End:
//     the initiator, the target, fire and forget, never, WITH CLEANUP), or their units of
//     work go to a pool of reused dialogs shared by senders (Reuse), docs/lifecycles.md;
//   - reader programs (Reader): sessions looping on RECEIVE, or GET CONVERSATION GROUP then
//     RECEIVE, in transactions that commit or roll back, and that may touch another
//     conversation's group so that lock waits and deadlocks happen; their programs
//     (Handler, Statement, Hook) reply, chain, fan out and gather, route, end and arm
//     timers per message type, in the reader's transaction (docs/programs.md);
//   - activation procedures (Procedure), which the queue monitors start as activated tasks
//     up to MAX_QUEUE_READERS, and external activators (ExternalActivator), which read
//     QUEUE_ACTIVATION notifications and start readers themselves;
//   - a timeline (Change) of ALTER QUEUE statements (STATUS and ACTIVATION), link changes,
//     route changes and crashes of instances (CrashChange), and crashes drawn at random
//     (RandomCrashes, from a stream of their own).
//
// A crash (G-13) crashes the instance's broker (model.Broker.Crash): the links deliver
// nothing to it while it is down, its reader sessions and activated tasks die with their
// transactions, and its workloads, ALTER QUEUE and route changes wait; at the restart its
// static readers start again and what waited goes on, a workload's statement that the
// crash rolled back while it waited for a lock included. Result.Crashes lists the crashes,
// with when delivery to each instance resumed.
//
// With Config.CheckInvariants the checkers of model/invariant observe every trace record
// and stop the run at the first violation (Result.Violation). They also hold the run to
// its liveness phase (Config.Liveness, INV-12): once every fault has healed, everything
// sent must be delivered and the transmission queues empty within a bound, and a run that a
// limit stops with messages undelivered fails unless its scenario expects it (Liveness.Off);
// Result.Liveness says how it went. A Result has figures per
// instance, link, workload, priority level, queue (with its monitor and activated tasks),
// reader program and external activator. It also has time series sampled every
// Config.SampleInterval (QueueResult.Samples, Series), thinned to at most MaxSeriesRows
// rows in a long run, latency distributions (CDFPoint), and, with Config.Trace, every
// trace record and a table per conversation.
//
// Every run is bounded: it stops when no event is left, or at MaxTime, MaxEvents or the
// memory budget MaxMemory (defaults DefaultMaxTime, DefaultMaxEvents, DefaultMaxMemory).
// The budget is checked against an estimate counted from the model's objects, so that the
// same budget stops a run at the same event on any machine; a run stopped by it has a
// Result.MemoryLimit that says what grew. Result.AtLimit says whether a run stopped at a
// limit.
//
// Each figure a run reports is declared once, in the table of metrics (Metrics): its name,
// unit, meaning, the keys that narrow it to a subject (a level, queue, workload or
// instance) and how it is computed from a Result. Expectations (scenarios/file), the
// metrics list of summary.json and the text report's figures (scenarios/results) and the
// rows of a sweep (scenarios/batch) all take them from that table: adding a metric is one
// edit there. Measures returns every metric's values on every subject of a Result.
//
// The packages below this one: scenarios/file reads scenario files (YAML) into a Config
// with the question they answer and their expectations, applies -set overrides, and
// embeds the library of design-validation scenarios; scenarios/batch runs many seeds and
// parameter grids on several workers; scenarios/results writes what a run leaves.
//
// Usage:
//
//	res, err := scenarios.Run(cfg, seed) // cfg built in Go, or file.Library("lossy-wan") and its Config
//	if err != nil { /* bad input: the Config does not validate */ }
//	if res.Violation != nil { /* an invariant broke: res.Violation.Records shows how */ }
//	m, _ := scenarios.LookupMetric("latency.p99")
//	p99, _, ok := m.Value(res, scenarios.Subject{Level: 10})
package scenarios
