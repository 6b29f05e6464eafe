package model

import "time"

// ConversationEndpoint is one side of a dialog as sys.conversation_endpoints shows it: a
// plain value, copied out of the broker.
type ConversationEndpoint struct {
	ConversationHandle  ConversationHandle
	ConversationID      ConversationID
	IsInitiator         bool
	Contract            ContractID
	ConversationGroupID ConversationGroupID
	Service             ServiceID
	// FarService is the far side's service name (far_service); FarBrokerInstance its
	// broker instance, zero until known (far_broker_instance, PROTO-13).
	FarService        ServiceName
	FarBrokerInstance BrokerID
	// FarInstance is the instance this side's messages go to: the far side's, or the next
	// hop on the way (a forwarder); meaningless while Delayed.
	FarInstance InstanceID
	// Delayed is set while no route leads to the far service (RTE-2 step 7).
	Delayed bool
	// Lifetime is the absolute virtual time at which the dialog expires; zero for none.
	Lifetime time.Duration
	State    EndpointState
	// SendSequence is the sequence number the next message sent gets.
	SendSequence SequenceNumber
	// EndDialogSequence is the sequence number of the EndDialog or Error this side sent, -1
	// when it sent none.
	EndDialogSequence SequenceNumber
	// ReceiveSequence is the next message expected; ReceiveSequenceFrag the next fragment of
	// it expected.
	ReceiveSequence     SequenceNumber
	ReceiveSequenceFrag int32
	Priority            PriorityLevel
	// TransmissionRows counts this endpoint's rows in the transmission queue: the messages
	// it sent that are not yet acknowledged, and those that arrived for it while its queue
	// is OFF (TXQ-4, G-18).
	TransmissionRows int
	// ReadyMessages counts its messages receivable on the queue (status 1).
	ReadyMessages int
	// HeldFragments counts fragments held not yet receivable (status 2 rows).
	HeldFragments int
}

// endpoint is the broker's own record of a conversation endpoint. Its protocol state lives
// in out and in, which stay nil while the endpoint is idle, so that a million idle
// conversations fit in memory (the transmission object of TXQ-6 is about 1 KB).
type endpoint struct {
	handle  ConversationHandle
	conv    ConversationID
	group   ConversationGroupID
	service ServiceID
	// farName and farBroker are the far service and its broker instance (zero until known,
	// PROTO-13); farInstance is where this side's messages go (routing, section 9), once
	// routed; farLocal is the target service when it is on this instance.
	farName     ServiceName
	farBroker   BrokerID
	farLocal    ServiceID
	contract    ContractID
	farInstance InstanceID
	// routed is set once a route gave farInstance (or local); until then the endpoint is
	// delayed, and its messages wait in the transmission queue (RTE-2 step 7, G-28).
	routed      bool
	delayed     bool
	routeArmed  bool
	isInitiator bool
	state       EndpointState
	// priority is the endpoint's level, assigned once at creation (PRI-3, INV-7).
	priority PriorityLevel
	// txLevel is the level its messages leave at, latched when its backlog goes from empty
	// to non-empty (G-26).
	txLevel PriorityLevel
	// While scheduled, the endpoint waits in its destination's scheduler at level
	// schedLevel, holding slot schedSlot; readySince is when its oldest due fragment became
	// due, and turn its place in the round-robin.
	scheduled  bool
	schedLevel uint8
	schedSlot  uint32
	// local is true when the far service is on this instance: messages go straight to the
	// target queue (TXQ-2).
	local bool
	// hasTO is true once a transmission object exists for the endpoint (TXQ-6).
	hasTO bool
	// discardArrivals is set once an Error arrived or the lifetime expired: later arrivals are
	// discarded and acked (G-15, G-17).
	discardArrivals bool
	// deleted is set when the endpoint leaves the broker's tables; listed while it is in
	// sys.conversation_endpoints (Broker.endpoints), and counted in its state.
	deleted    bool
	listed     bool
	turn       uint64
	readySince time.Duration
	// lifetime is the absolute expiry, zero for none.
	lifetime time.Duration
	// retainUntil is when a closed target endpoint may be forgotten: ClosedTargetRetention
	// after it closed or after the last arrival for it, whichever is later.
	retainUntil time.Duration

	// sendSeq is the sequence number the next sequenced message gets.
	// Invariant: sendSeq is greater than every sequence number in out.rows.
	sendSeq SequenceNumber
	// endSeq is the sequence number of the EndDialog or Error this side sent, -1 if none.
	endSeq SequenceNumber
	// receiveSeq is the next message expected from the far side; all earlier ones are ready
	// or received. receiveFrag is the next fragment of message receiveSeq expected.
	receiveSeq  SequenceNumber
	receiveFrag int32
	// mirror is the MIRROR_ADDRESS of the route the endpoint took, farInstance when none:
	// where it goes when its principal fails over (PrincipalMoved).
	mirror InstanceID

	// out and in are the two halves of the transmission object: nil until first used, and
	// once their buffers are empty they go back to the broker's free lists (buffers.go).
	out *outbound // transmission queue rows
	in  *inbound  // out-of-order and partial messages, ack owed

	// ready holds the messages receivable on the queue (status 1), in receive order
	// (DLG-13); oldestReady is their smallest queuing_order, and readyCounted how many of
	// them the queue's count holds.
	ready        []queuedMessage
	oldestReady  int64
	readyCounted int32
	// heldRows counts the messages that arrived for the endpoint while its queue is OFF and
	// wait in the receiving transmission queue (TXQ-4, G-18): its entries in its queue's
	// arrivalsHeld.
	heldRows int32
	// grp is the endpoint's conversation group (LOCK-1); levelIdx and ageIdx are its places
	// in the group's heaps of conversations with ready messages, -1 when not there.
	grp              *group
	levelIdx, ageIdx int32
	// timerAt is when the conversation timer expires, zero for none (DLG-14).
	timerAt time.Duration
	// fwd is set on the pseudo-dialog that holds what a forwarder passes on to farInstance
	// (RTE-5); such an endpoint is nothing else.
	fwd *forwardQueue
	// notification is set on the dialog that carries an event notification (ACT-11).
	notification *notification
}

// row returns the endpoint as sys.conversation_endpoints shows it.
func (ep *endpoint) row() ConversationEndpoint {
	r := ConversationEndpoint{
		ConversationHandle:  ep.handle,
		ConversationID:      ep.conv,
		IsInitiator:         ep.isInitiator,
		Contract:            ep.contract,
		ConversationGroupID: ep.group,
		Service:             ep.service,
		FarService:          ep.farName,
		FarBrokerInstance:   ep.farBroker,
		FarInstance:         ep.farInstance,
		Delayed:             ep.delayed,
		Lifetime:            ep.lifetime,
		State:               ep.state,
		SendSequence:        ep.sendSeq,
		EndDialogSequence:   ep.endSeq,
		ReceiveSequence:     ep.receiveSeq,
		ReceiveSequenceFrag: ep.receiveFrag,
		Priority:            ep.priority,
		ReadyMessages:       len(ep.ready),
	}
	if ep.out != nil {
		r.TransmissionRows = ep.out.liveRows()
	}
	r.TransmissionRows += ep.heldTransmissionRows()
	if ep.in != nil {
		r.HeldFragments = ep.in.heldFragments()
	}
	return r
}

// side indexes Broker.dialogs: an endpoint is found from an arriving fragment by its
// dialog and its side.
func side(initiator bool) int {
	if initiator {
		return 1
	}
	return 0
}

// allDialogs yields every endpoint of Broker.dialogs, targets first, each side in the
// order of conversation ids.
func (b *Broker) allDialogs(yield func(*endpoint) bool) {
	for i := range b.dialogs {
		for ep := range b.dialogs[i].all {
			if !yield(ep) {
				return
			}
		}
	}
}

// setState moves the endpoint to a new state and traces it.
func (b *Broker) setState(now time.Duration, ep *endpoint, to EndpointState) {
	if ep.state == to {
		return
	}
	b.trace(TraceRecord{At: now, Kind: TraceStateChanged, Conversation: ep.conv, FromInitiator: ep.isInitiator,
		From: ep.state, To: to, Priority: ep.priority})
	b.countState(ep, ep.state, to)
	ep.state = to
}
