// Package file reads scenario files: a whole design in YAML (instances and their catalogs,
// links and their faults, the broker's parameters, workloads, reader programs, activation,
// a timeline of changes, crashes drawn at random, a fault plan that replays what the links
// did to each packet, run limits), the design question it answers and the expectations its
// results must meet. docs/scenario-files.md describes every key.
//
// Load and LoadFile decode and validate a file into a Scenario, reporting every problem
// as Errors, each with its line, column and key. Scenario.Check checks the expectations
// against a scenarios.Result; each names a metric of scenarios.Metrics. An expectation
// judged over the seeds of a check (OverSeeds: in: 95%, mean_below: 3s) is only shown by
// one run; scenarios/batch judges it over many. Scenario.With
// applies overrides (`-set key=value`) to the decoded scenario, written out by
// Scenario.Marshal, so that a key the file leaves at its default can be set too. Replay
// writes the command line that repeats a run.
//
// The library of design-validation scenarios that ships with sbsim is embedded from
// library/*.yaml (LibraryNames, LibraryText, Library); Open takes a command-line argument,
// a path or a library name.
//
// Usage:
//
//	s, err := file.Open("lossy-wan") // or a path: file.Open("my-design.yaml")
//	if err != nil { /* bad input: err lists each problem with its line and column */ }
//	s, err = s.With(file.Override{Key: "broker.retry_interval_min", Value: "1s"})
//	res, err := scenarios.Run(s.Config, seed)
//	for _, v := range s.Check(res) { /* v.OK, and what the run gave */ }
package file
