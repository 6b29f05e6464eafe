// Command simulate is sbsim's command line. For now it runs one built-in demonstration of
// the foundation, the event engine (package sim) and the faulty links (package
// net/faulty); the Service Broker model and scenario files are not implemented yet.
//
// The demonstration joins three broker instances, Lisbon, Paris and Tokyo, by pairs of
// links of different character: a clean LAN (Lisbon<->Paris); a lossy, congested WAN
// (Paris<->Tokyo) with jitter, independent loss, duplication, corruption, a bandwidth limit
// and a capacity; and a WAN with bursty Gilbert-Elliott loss, a partition that cuts both
// ways and a later one that cuts Tokyo->Lisbon only (Lisbon<->Tokyo). Each direction carries
// Poisson traffic, drawn from the random stream "traffic/<link>", for a virtual duration;
// then the links drain. Each packet carries its sequence number and send time, so that the
// receiver measures latency and counts reordered arrivals.
//
// The summary prints the seed first with the command that replays it, then every derived
// parameter, one table row per direction (sent, delivered, lost, duplicated, corrupted,
// dropped for capacity, dropped by partition, bytes, reordered arrivals, latency p50, p99
// and max), the engine's stop reason, and the verdict of the counters check: on every link
// Sent = Delivered + Lost + DroppedCapacity + DroppedPartition + InFlight, and the counters
// agree with what was sent and received. The same seed prints the same bytes; the wall
// clock is read only to choose a seed when -seed is absent.
//
// Usage:
//
//	go run ./cmd/simulate                       # a new seed, printed first
//	go run ./cmd/simulate -seed 1               # replay the run of seed 1
//	go run ./cmd/simulate -seed 1 -duration 5s  # five virtual seconds of traffic
//	go run ./cmd/simulate -h                    # every flag, explained
//
// The exit status is 0 when every check passes, 1 when a check fails and 2 on a bad flag.
package main
