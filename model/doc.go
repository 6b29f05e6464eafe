// Package model will hold the Service Broker domain, in Service Broker's own words:
// instances and databases, services, queues, contracts and message types, conversation
// endpoints and conversation groups with their locks, the dialog protocol (sequence numbers,
// fragmentation and reassembly, acknowledgements, retries, duplicate detection), the
// transmission scheduler with conversation priorities, and queue activation.
//
// Not implemented yet: the package has no code so far.
//
// It is to be written as pure state machines driven in the style of etcd raft's Step and
// Ready: an input at virtual time now goes in (an application SEND, an arriving fragment, a
// timer), and the effects it asks of the world come out (fragments to transmit, timers to
// arm, readers to start, messages that became visible). The model performs no I/O, never
// schedules and never reads a clock; it imports only the standard library, not sim nor
// net/faulty. The scenarios package carries its effects onto links and engine events.
package model
