// Package shrink turns a failing run into a small counterexample and explains it: Shrink
// records what the links did to every packet (scenarios.FaultPlan), replays that plan
// without the links' random streams, and removes workloads, dialogs, messages, packet
// faults, timeline changes, down windows, rollbacks and more, one candidate at a time,
// keeping each smaller case that still fails the same rule; Card prints the result: the
// rule and what broke, the case, a ledger of the failing conversation or transactions, a
// sequence chart of the packets between the instances (text and SVG), and the command
// that replays it (docs/counterexamples.md).
package shrink
