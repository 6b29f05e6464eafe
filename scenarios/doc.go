// Package scenarios will load scenario files (YAML) describing a Service Broker design
// (instances, links and their faults, services, priorities, applications), validate them
// with errors that name the line and column, wire a world from one (a sim.Engine,
// net/faulty links and model brokers), run it, and return its results as plain data. It
// will also hold the built-in design-validation scenarios with their expectations.
//
// Not implemented yet: the package has no code so far. It is the one place meant to import
// sim, net/faulty and model together.
package scenarios
