// Package plots will render the plain result data of a run (latency per priority level,
// throughput, queue depths, readers over time, link counters) as PNG and SVG images with
// gonum/plot. It will hold no simulation logic: it never runs a simulation and never
// imports model.
//
// Not implemented yet: the package has no code so far.
package plots
