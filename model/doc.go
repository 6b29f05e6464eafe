// Package model is the Service Broker domain, in Service Broker's own words: instances and
// databases, services, queues, contracts and message types (Catalog, built by Compile),
// and per instance a Broker with its conversation endpoints, service queues, transmission
// queue, adjacent-broker connections and the dialog protocol: sequence numbers,
// fragmentation and reassembly, acknowledgements (piggy-backed or dedicated), retries with
// exponential back-off, duplicate detection, the integrity check, windows, lifetimes and
// END CONVERSATION in all its forms. Rules cite ../shared/spec/servicebroker.md by ID.
//
// A Broker is a pure state machine driven in the style of etcd raft's Step and Ready. Each
// input method runs at a virtual time now: the statements an application issues
// (BeginDialog, Send, EndConversation, Receive, AlterQueueStatus) and what the world
// delivers (PacketArrived, TimerFired). What the broker asks of the world accumulates in
// Effects — packets to carry to other instances, timers to arm, queues that became
// receivable, trace records — until the caller applies them and calls Advance. The model
// performs no I/O, never schedules and reads no clock; it imports only the standard
// library. Package scenarios carries its effects onto net/faulty links and sim events, and
// package model/invariant checks its trace online.
//
// Not modelled yet: conversation priorities and the scheduler by level (the transmitter is
// FIFO and replaceable), transactions, conversation group locks and GET CONVERSATION GROUP,
// activation, routing and forwarding. docs/dialog-protocol.md lists where the model departs
// from the specification, and why.
//
// Usage:
//
//	cat, err := model.Compile(instances)
//	b, err := model.NewBroker(cat, id, model.Config{})
//	h, err := b.BeginDialog(now, from, to, contract, model.BeginDialogOptions{})
//	err = b.Send(now, h, messageType, 2048)
//	for _, p := range b.Effects().Transmit { /* carry p to instance p.To */ }
//	b.Advance()
package model
