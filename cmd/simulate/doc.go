// Command simulate is sbsim's command line. It runs a built-in scenario and prints, seed
// first, what happened.
//
// By default it runs "lossy-wan" (package scenarios): two Service Broker instances, Lisbon
// and Tokyo, over a WAN that loses, duplicates, reorders and corrupts, with request/reply
// dialogs whose messages span several fragments and a few same-instance dialogs. The
// summary gives the scenario's parameters, then per link (packets, losses, duplicates,
// corruption), per instance (messages, fragments, retransmissions, duplicates and corrupt
// fragments discarded, acknowledgements) and per conversation (messages, fragments,
// retransmissions, latency p50, p99 and max) figures, and the verdict of every invariant
// checked while the run went on (INV-1, INV-2, INV-3, INV-12). A violation prints the
// records that led to it and the command that replays it.
//
// -scenario links runs the foundation's demonstration instead: three instances joined by
// links of different character carrying plain traffic for -duration, and the verdict of
// the link counters (Sent = Delivered + Lost + DroppedCapacity + DroppedPartition +
// InFlight).
//
// Usage:
//
//	go run ./cmd/simulate                                       # a new seed, printed first
//	go run ./cmd/simulate -seed 1                               # replay the run of seed 1
//	go run ./cmd/simulate -scenario links -seed 1 -duration 5s  # the link demonstration
//	go run ./cmd/simulate -h                                    # every flag, explained
//
// The same seed prints the same bytes; the wall clock is read only to choose a seed when
// -seed is absent. The exit status is 0 when every check and invariant holds, 1 when one
// fails and 2 on a bad flag.
package main
