// Package model is the Service Broker domain, in Service Broker's own words. Comments cite
// the rules of the Service Broker specification by ID (PRI-9, LOCK-7); docs/rules.md lists
// the rules with the tests that check each.
//
// What it models:
//
//   - The catalog (Catalog, built by Compile): instances and databases, services, queues
//     (STATUS, RETENTION, ACTIVATION with MAX_QUEUE_READERS, POISON_MESSAGE_HANDLING),
//     contracts, message types, broker priorities and event notifications.
//
//   - Per instance, a Broker: conversation endpoints and conversation groups, service
//     queues, transmission queues and adjacent-broker connections.
//
//   - The dialog protocol: sequence numbers, fragmentation and reassembly,
//     acknowledgements (piggy-backed or dedicated), retries with exponential back-off,
//     duplicate detection, the integrity check, send and receive windows, lifetimes, END
//     CONVERSATION in all its forms, and conversation timers (BEGIN CONVERSATION TIMER and
//     the DialogTimer message).
//
//   - Conversation priorities: CREATE, ALTER and DROP BROKER PRIORITY and
//     HONOR_BROKER_PRIORITY; a transmission scheduler per destination instance that fills
//     fragment blocks by level, with starvation prevention; direct delivery, first in first
//     out, for dialogs within the instance; RECEIVE and GET CONVERSATION GROUP by priority.
//
//   - Transactions (Tx): BEGIN, COMMIT, ROLLBACK and savepoints; SEND, END CONVERSATION and
//     BEGIN CONVERSATION TIMER take effect at commit, a rollback puts received rows back;
//     conversation group locks held to the end of the transaction, lock waits with SET
//     LOCK_TIMEOUT, deadlock detection, WAITFOR, GET CONVERSATION GROUP, MOVE CONVERSATION,
//     and poison message detection.
//
//   - Queue monitors and activation: internal activation of tasks up to MAX_QUEUE_READERS,
//     and QUEUE_ACTIVATION event notifications for external activators.
//
//   - The crash and restart of an instance (Crash, Restart; G-13): what is durable
//     survives, what is volatile is lost, and the open transactions roll back.
//
//   - Routing: sys.routes per database and in msdb, broker instance ids, delayed
//     conversations (section 9 of the specification).
//
// What it leaves out: dialog security, the transport between instances (package
// net/faulty stands in for it), the bodies of messages (only their types and sizes), and
// the code of activated procedures (the caller runs a program for each task it is asked to
// start). docs/dialog-protocol.md lists where the model departs from the specification,
// and why.
//
// How it is driven: a Broker is a pure state machine, in the style of etcd raft's Step and
// Ready. Each input method runs at a virtual time now: the statements of an application,
// in a transaction (Begin, then the Tx methods) or each in its own (BeginDialog, Send,
// EndConversation, Receive); ALTER QUEUE and the broker priority statements; and what the
// world reports (PacketArrived, TimerFired, WireFreeAt for a block that holds its
// connection, TaskExited). What the broker asks of the world accumulates in Effects:
// packets to carry to other instances, timers to arm, queues that became receivable,
// statements that waited and have finished, queues disabled, lock waits ended, tasks to
// activate and trace records, until the caller applies them and calls Advance. The model
// performs no I/O, never schedules and reads no clock; it imports only the standard
// library. Package scenarios gives every input together with its effects, carrying them
// onto net/faulty links and sim events, and package model/invariant checks the trace
// online.
//
// Usage:
//
//	cat, err := model.Compile(instances)
//	b, err := model.NewBroker(cat, id, model.Config{})
//	t := b.Begin(now)
//	h, err := t.BeginDialog(now, from, to, contract, model.BeginDialogOptions{})
//	err = t.Send(now, h, messageType, 2048)
//	err = t.Commit(now)
//	eff := b.Effects()
//	for _, p := range eff.Transmit { /* carry p to instance p.To */ }
//	for _, tm := range eff.Timers { /* at tm.At, call b.TimerFired(tm.At, tm) */ }
//	b.Advance()
package model
