// Package faulty models the network between broker instances: directed links that carry
// opaque packets with a size, and lose, duplicate, reorder, corrupt, queue and cut them. It
// stands in for Service Broker's adjacent broker protocol (the TCP connection between two
// instances) so that the dialog protocol above it can be tested against every fault.
//
// A Link carries packets one way. Its Config sets, for that direction: latency (a fixed part
// plus a random jitter, which reorders packets when it varies), bandwidth (serialisation
// delay and FIFO queueing on the wire), loss (independent, or bursty with a two-state
// Gilbert–Elliott model), duplication, corruption (the packet arrives marked corrupt, so the
// receiver's integrity check can reject it), a capacity (packets beyond it are dropped) and
// scheduled down windows. The zero Config is a perfect link: no delay, no fault. A Pair
// joins two links into the two directions between two instances and adds partitions that
// cut one direction or both.
//
// Links are driven by a sim.Engine and draw from named streams of it ("link/A->B/loss",
// ".../jitter", ...), one per kind of fault, so turning one fault on never changes what
// another does. Every packet is accounted for in Counters:
//
//	Sent = Delivered + Lost + DroppedCapacity + DroppedPartition + InFlight
//
// with duplicate copies counted apart, in Duplicated. A Link never looks inside a packet and
// allocates nothing per packet once its pool of packets in flight has grown.
//
// Usage:
//
//	ab, err := faulty.New(e, "A->B", faulty.Config{LatencyFixed: 20 * time.Millisecond,
//		LossProbability: 0.01}, func(d faulty.Delivery[Fragment]) { /* hand to B */ })
//	ab.Send(fragment, 8192)
//
// What it leaves out: connection set-up and teardown, TCP's own retransmission and flow
// control (the dialog protocol above does its own), and routing through forwarders.
package faulty
