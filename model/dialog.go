package model

import (
	"fmt"
	"time"
)

// BeginDialogOptions are BEGIN DIALOG's options.
type BeginDialogOptions struct {
	// Lifetime is the dialog's LIFETIME; zero means none (DLG-5, G-15).
	Lifetime time.Duration
	// RelatedConversation puts the new dialog in that conversation's group; it must exist
	// (DLG-2). RelatedConversationGroup puts it in the group with that id, created when it
	// does not exist. At most one is set.
	RelatedConversation      ConversationHandle
	RelatedConversationGroup ConversationGroupID
	// ToBrokerInstance is TO SERVICE's broker instance, which routes on it (RTE-2 step 1);
	// zero for none.
	ToBrokerInstance BrokerID
}

// BeginDialog is BEGIN DIALOG FROM SERVICE from TO SERVICE to ON CONTRACT contract (DLG-1)
// in a transaction of its own: it creates the initiator endpoint in state SO, in a new
// conversation group unless a related one is named, and returns its handle. Nothing is sent
// until the first SEND; the dialog is routed now (section 9). With a related group that
// another transaction holds, it waits (ErrWaiting; the handle comes with the completion).
func (b *Broker) BeginDialog(now time.Duration, from ServiceID, to ServiceName, contract ContractID, opts BeginDialogOptions) (ConversationHandle, error) {
	t := b.autocommit(now)
	h, err := t.BeginDialog(now, from, to, contract, opts)
	return h, b.endAutocommit(now, t, err)
}

// endAutocommit ends the transaction of one statement run outside BEGIN TRANSACTION: it
// commits when the statement succeeded, rolls back when it failed, and stays open while
// the statement waits (it ends when the statement completes).
func (b *Broker) endAutocommit(now time.Duration, t *Tx, err error) error {
	switch {
	case err == ErrWaiting:
		return err
	case err != nil:
		t.Rollback(now)
	default:
		t.Commit(now)
	}
	b.recycle(t)
	return err
}

// checkBeginDialog checks BEGIN DIALOG's arguments.
func (b *Broker) checkBeginDialog(from ServiceID, to ServiceName, contract ContractID, opts BeginDialogOptions) error {
	if from < 0 || int(from) >= len(b.cat.Services) || b.cat.Services[from].Instance != b.id {
		return fmt.Errorf("BEGIN DIALOG from service %d: %w", from, ErrNotLocal)
	}
	if to < 0 || int(to) >= len(b.cat.ServiceNames) {
		return fmt.Errorf("BEGIN DIALOG to service %d: no such service name", to)
	}
	if br := opts.ToBrokerInstance; br < 0 || int(br) > len(b.cat.Brokers) {
		return fmt.Errorf("BEGIN DIALOG to broker instance %d: no such broker instance", br)
	}
	if contract < 0 || int(contract) >= len(b.cat.Contracts) || !b.cat.databaseHasContract(b.cat.Services[from].Database, contract) {
		return fmt.Errorf("BEGIN DIALOG from service %q on contract %d: %w", b.cat.Services[from].Name, contract, ErrContractNotInDatabase)
	}
	if opts.Lifetime < 0 {
		return fmt.Errorf("BEGIN DIALOG: lifetime %v is negative", opts.Lifetime)
	}
	if opts.RelatedConversation != 0 && opts.RelatedConversationGroup != 0 {
		return fmt.Errorf("BEGIN DIALOG: RELATED_CONVERSATION and RELATED_CONVERSATION_GROUP are exclusive")
	}
	return nil
}

// beginDialog creates the initiator endpoint in group g, or in a new group when g is nil.
func (b *Broker) beginDialog(now time.Duration, from ServiceID, to ServiceName, contract ContractID, opts BeginDialogOptions, g *group) *endpoint {
	ep := &endpoint{
		handle: ConversationHandle(b.nextID()), conv: ConversationID(b.nextID()),
		service: from, farName: to, farBroker: opts.ToBrokerInstance, farLocal: -1, contract: contract, isInitiator: true,
		endSeq: -1, priority: b.priorityFor(from, contract, to),
	}
	if g == nil {
		g = b.newGroup(ConversationGroupID(b.nextID()), from)
	}
	b.join(ep, g)
	if opts.Lifetime > 0 {
		ep.lifetime = now + opts.Lifetime
		b.timer(ep.lifetime, TimerLifetime, uint64(ep.handle))
	}
	b.register(now, ep, StartedOutbound)
	b.ensureRouted(now, ep)
	return ep
}

func (b *Broker) register(now time.Duration, ep *endpoint, state EndpointState) {
	b.list(ep)
	b.dialogs[side(ep.isInitiator)].set(uint64(ep.conv), ep)
	b.counters.EndpointsCreated++
	b.setState(now, ep, state)
}

// Send is SEND ON CONVERSATION handle MESSAGE TYPE mt (bytes) in a transaction of its own:
// the message gets the next sequence number and goes to the transmission queue (TXQ-1), or
// straight to the target queue on this instance (TXQ-2). The first SEND moves SO to CO.
// When another transaction holds the conversation's group, it waits (ErrWaiting, G-24).
func (b *Broker) Send(now time.Duration, h ConversationHandle, mt MessageTypeID, bytes int64) error {
	t := b.autocommit(now)
	return b.endAutocommit(now, t, t.Send(now, h, mt, bytes))
}

// checkSend checks a SEND on ep.
func (b *Broker) checkSend(ep *endpoint, mt MessageTypeID, bytes int64) error {
	if !ep.state.canSend() {
		return fmt.Errorf("SEND on %v in state %v: %w", ep.handle, ep.state, ErrConversationNotSending)
	}
	if !b.cat.allows(ep.contract, mt, ep.isInitiator) {
		return fmt.Errorf("SEND on %v of message type %d: %w", ep.handle, mt, ErrMessageTypeNotAllowed)
	}
	if bytes < 0 || bytes > MaxMessageBytes {
		return fmt.Errorf("SEND on %v of %d bytes: %w", ep.handle, bytes, ErrMessageTooLarge)
	}
	return nil
}

// EndOptions are END CONVERSATION's options.
type EndOptions struct {
	// WithError sends an Error with ErrorCode (> 0) instead of an EndDialog (DLG-9).
	WithError bool
	ErrorCode int32
	// WithCleanup drops the endpoint without telling the far side (DLG-10).
	WithCleanup bool
}

// EndConversation is END CONVERSATION (DLG-7..DLG-10): the conversation's messages leave the
// queue and the handle becomes invalid. From CO an EndDialog (or Error) follows the
// earlier messages and the endpoint waits in DO for its acknowledgement; from SO, DI or ER
// nothing is sent and the endpoint closes at once (G-16).
func (b *Broker) EndConversation(now time.Duration, h ConversationHandle, opts EndOptions) error {
	t := b.autocommit(now)
	return b.endAutocommit(now, t, t.EndConversation(now, h, opts))
}

// endConversation carries out END CONVERSATION on ep at commit.
func (b *Broker) endConversation(now time.Duration, ep *endpoint, opts EndOptions) {
	b.leave(ep) // its messages leave the queue, and the conversation its group (DLG-15)
	if ep.in != nil {
		b.buf.pending.put(ep.in.pending)
		ep.in.pending = nil
	}
	switch {
	case opts.WithCleanup:
		// The far side is not told (DLG-10). A target keeps a closed tombstone like any
		// closed target, so that what the initiator still sends is discarded and acked
		// rather than creating a second target endpoint that would wait for ever.
		b.marks[MarkEndWithCleanup]++
		b.dropRows(now, ep, ReasonCleanup)
		b.closeEndpoint(now, ep)
		b.unlist(ep) // no row left in sys.conversation_endpoints
	case ep.state == Conversing || ep.state == StartedInbound:
		if opts.WithError {
			b.dropRows(now, ep, ReasonEndWithError)
			ep.endSeq = b.queueRow(now, ep, ErrorMessageType, 0, opts.ErrorCode)
		} else {
			ep.endSeq = b.queueRow(now, ep, EndDialogMessageType, 0, 0)
		}
		ep.discardArrivals = true
		b.setState(now, ep, DisconnectedOutbound)
	default: // SO, DI, ER
		b.closeEndpoint(now, ep)
	}
}

// liveEndpoint finds the endpoint an application statement names: it must exist and not be
// ended (DLG-11). END CONVERSATION WITH CLEANUP is also the way out for an endpoint stuck in
// DO, waiting for an acknowledgement that will never come (DLG-10).
func (b *Broker) liveEndpoint(h ConversationHandle, statement string, cleanup bool) (*endpoint, error) {
	ep := b.endpoints.get(uint64(h))
	if ep == nil || ep.state == Closed || (ep.state == DisconnectedOutbound && !cleanup) {
		return nil, fmt.Errorf("%s on %v: %w", statement, h, ErrHandleNotFound)
	}
	return ep, nil
}

// closeEndpoint moves an endpoint to CD. A closed initiator endpoint is deleted at once; a
// closed target endpoint is kept for ClosedTargetRetention, so that late copies of the
// first message are recognised and discarded (G-16).
func (b *Broker) closeEndpoint(now time.Duration, ep *endpoint) {
	if ep.out != nil && !ep.out.empty() {
		panic(fmt.Sprintf("model: endpoint %v closing in state %v with %d transmission queue rows at t=%v",
			ep.handle, ep.state, ep.out.liveRows(), now))
	}
	b.setState(now, ep, Closed)
	b.leave(ep)
	ep.discardArrivals = true
	b.stopTransmitting(ep)
	if ep.isInitiator {
		b.delete(ep)
		return
	}
	b.releaseBuffers(ep)
	ep.retainUntil = now + b.cfg.ClosedTargetRetention
	b.retained[ep.handle] = ep
	b.timer(ep.retainUntil, TimerRetention, uint64(ep.handle))
}

// stopTransmitting takes a closing endpoint out of its scheduler and releases its
// transmission object (TXQ-6).
func (b *Broker) stopTransmitting(ep *endpoint) {
	if ep.scheduled {
		b.sched[ep.farInstance].remove(ep)
	}
	if ep.hasTO {
		ep.hasTO = false
		b.transmissionObjects--
	}
}

// forgetClosed deletes a retained closed endpoint when its retention ends. Arrivals for it
// extend the retention: a far side that keeps retrying because our acknowledgements get
// lost must never find the dialog forgotten, or its next copy would create a second target
// endpoint and deliver a message twice (INV-1). G-16's fixed 30 min from closing is not
// enough under heavy loss.
func (b *Broker) forgetClosed(now time.Duration, h ConversationHandle) {
	ep := b.retained[h]
	if ep == nil {
		return
	}
	if ep.retainUntil > now {
		b.timer(ep.retainUntil, TimerRetention, uint64(ep.handle))
		return
	}
	b.marks[MarkClosedTargetForgotten]++
	b.trace(TraceRecord{At: now, Kind: TraceEndpointForgotten, Conversation: ep.conv})
	b.delete(ep)
}

func (b *Broker) delete(ep *endpoint) {
	if ep.deleted {
		return
	}
	ep.deleted = true
	b.leave(ep)
	b.stopTransmitting(ep)
	b.unlist(ep)
	delete(b.retained, ep.handle)
	b.dialogs[side(ep.isInitiator)].remove(uint64(ep.conv))
	b.releaseBuffers(ep)
	b.counters.EndpointsDeleted++
}

// lifetimeExpired handles the end of a dialog's lifetime on this side: an Error goes on the
// local queue, the endpoint moves to ER, its transmission queue rows are dropped, and later
// arrivals are discarded and acked (DLG-5, G-15). An endpoint already ended just closes.
func (b *Broker) lifetimeExpired(now time.Duration, ep *endpoint) {
	switch ep.state {
	case Closed, Error:
		return
	case DisconnectedOutbound:
		b.marks[MarkLifetimeExpired]++
		b.dropRows(now, ep, ReasonLifetime)
		b.closeEndpoint(now, ep)
		return
	}
	b.marks[MarkLifetimeExpired]++
	b.dropRows(now, ep, ReasonLifetime)
	b.enqueue(now, ep, queuedMessage{seq: Unsequenced, msgType: ErrorMessageType, errorCode: ErrorCodeLifetimeExpired}, !ep.isInitiator)
	b.errorArrived(now, ep)
}

// PacketArrived is the input for a packet from another instance. A corrupt packet fails
// the integrity check: it is discarded, unacknowledged, and counted (PROTO-11).
func (b *Broker) PacketArrived(now time.Duration, p *Packet, corrupt bool) {
	b.checkUp("PacketArrived", now)
	b.now = now
	if p.To != b.id {
		panic(fmt.Sprintf("model: instance %d got a packet for instance %d at t=%v", b.id, p.To, now))
	}
	if corrupt {
		b.counters.CorruptDiscarded += int64(len(p.Fragments))
		b.marks[MarkPacketCorrupt]++
		b.trace(TraceRecord{At: now, Kind: TracePacketCorrupt, Peer: p.From})
		return
	}
	b.receivePacket(now, p)
	b.pump(now)
}

// receivePacket applies a packet's acknowledgements, then its fragments.
func (b *Broker) receivePacket(now time.Duration, p *Packet) {
	c := b.conns[p.From]
	b.activity(now, c, true)
	c.stats.FragmentsReceived += int64(len(p.Fragments))
	if p.From != b.id {
		c.stats.BytesReceived += int64(p.Size())
	}
	for i := range p.Acks {
		if !b.ackArrived(now, &p.Acks[i]) && p.From != b.id {
			b.passOnAck(now, &p.Acks[i])
		}
	}
	for i := range p.Fragments {
		f := &p.Fragments[i]
		if f.Ack.Valid {
			b.ackArrived(now, &f.Ack) // without an endpoint here, it travels on with its fragment
		}
		b.fragmentArrived(now, p.From, f)
	}
}

// ackArrived applies an acknowledgement to the endpoint that sent the data it covers, and
// reports whether this instance has that endpoint.
func (b *Broker) ackArrived(now time.Duration, a *Ack) bool {
	ep := b.dialogs[side(a.FromInitiator)].get(uint64(a.Conversation))
	if ep == nil {
		return false
	}
	if !ep.deleted {
		if ep.farBroker == 0 {
			ep.farBroker = a.Broker // PROTO-13: the target's broker instance, from its first ack
		}
		b.applyAck(now, ep, a)
	}
	return true
}

// fragmentArrived routes an arriving fragment to its endpoint, creating the target endpoint
// when a dialog's first fragment arrives (DLG-3) and discarding what G-16 says to discard.
func (b *Broker) fragmentArrived(now time.Duration, from InstanceID, f *Fragment) {
	b.counters.FragmentsReceived++
	ep := b.dialogs[side(!f.FromInitiator)].get(uint64(f.Conversation))
	if ep == nil && from != b.id && b.passOn(now, f) {
		return // not for this instance: forwarded or dropped (RTE-4, RTE-5)
	}
	if f.Sequence == Unsequenced {
		if ep != nil && ep.state == DisconnectedOutbound {
			// The far side refused the dialog after this side ended it: nothing it waits
			// for will ever be acknowledged, so it closes rather than retry for ever.
			b.dropRows(now, ep, ReasonErrorReceived)
			b.closeEndpoint(now, ep)
			return
		}
		switch {
		case ep == nil:
			b.discard(now, f, ReasonUnknownDialog)
		case ep.discardArrivals:
			b.discard(now, f, ReasonClosedEndpoint)
		default:
			b.marks[MarkBrokerErrorDelivered]++
			b.arrive(now, ep, queuedMessage{seq: Unsequenced, msgType: ErrorMessageType, errorCode: f.ErrorCode, sentAt: f.SentAt}, f.FromInitiator, 1)
			b.errorArrived(now, ep)
		}
		return
	}
	if ep == nil {
		if !f.FromInitiator {
			// The initiator endpoint is gone: closed initiators are deleted at once (G-16).
			b.discard(now, f, ReasonUnknownDialog)
			b.orphanAck(now, from, f)
			return
		}
		if f.Lifetime > 0 && now >= f.Lifetime {
			// The dialog's lifetime is over: its initiator has dropped it (DLG-5), and a
			// target created now would only deliver it late and then fail it.
			b.discard(now, f, ReasonLifetime)
			return
		}
		// Any fragment from an initiator for an unknown dialog creates the target, in SI
		// when it is not the whole first message (DLG-4: "fragmented or out of order"). G-16
		// and G-23 create it only from the first message and discard-and-ack the others,
		// which loses a later message that overtakes a lost first one.
		if ep = b.createTarget(now, from, f); ep == nil {
			return
		}
	}
	if ep.farBroker == 0 && !f.FromInitiator {
		ep.farBroker = f.ToBroker // PROTO-13, from a message of the target
	}
	if ep.discardArrivals || ep.state == Closed || ep.state == DisconnectedOutbound {
		if ep.state == Closed {
			ep.retainUntil = now + b.cfg.ClosedTargetRetention
			b.marks[MarkClosedTargetRetained]++
		}
		b.discard(now, f, ReasonClosedEndpoint)
		b.orphanAck(now, from, f)
		return
	}
	b.receiveFragment(now, ep, f)
}

// createTarget creates the target endpoint when a dialog's first fragment arrives (whichever
// message it belongs to), in a new conversation group (DLG-3): in CO when the fragment is
// the whole first message, otherwise in SI. A target service that is not here, or that does
// not accept the contract, answers with a broker Error instead, unacknowledged, so that it
// is generated again if the original is retried (PROTO-3).
func (b *Broker) createTarget(now time.Duration, from InstanceID, f *Fragment) *endpoint {
	code := int32(0)
	fromDB := Msdb // RTE-7: the conversation's database first, when it is here
	if from == b.id && f.FromBroker > 0 {
		fromDB = DatabaseID(f.FromBroker - 1)
	}
	service, found := b.localService(b.cat.ServiceNames[f.ToService], f.ToBroker, fromDB)
	switch {
	case !found:
		code = ErrorCodeServiceNotFound
	case !b.cat.accepts(service, f.Contract):
		code = ErrorCodeContractNotAccepted
	}
	if code != 0 {
		b.discard(now, f, ReasonTargetRefused)
		// It goes on its own, like an acknowledgement, outside the blocks and their turn.
		b.transmit(b.conns[from], &Packet{From: b.id, To: from, Fragments: []Fragment{{Conversation: f.Conversation,
			FromInitiator: false, Sequence: Unsequenced, Count: 1, MessageType: ErrorMessageType, ErrorCode: code, SentAt: now,
			FromService: f.FromService, ToService: f.ToService, FromBroker: f.FromBroker, Contract: f.Contract}}})
		return nil
	}
	ep := &endpoint{
		handle: ConversationHandle(b.nextID()), conv: f.Conversation,
		service: service, farName: f.FromService, farBroker: f.FromBroker, farLocal: -1, contract: f.Contract,
		endSeq: -1, lifetime: f.Lifetime, priority: b.priorityFor(service, f.Contract, f.FromService),
	}
	b.join(ep, b.newGroup(ConversationGroupID(b.nextID()), service)) // DLG-3: a new group on its queue
	if ep.lifetime > 0 {
		b.timer(max(ep.lifetime, now), TimerLifetime, uint64(ep.handle))
	}
	// A first transmission that holds the whole first message creates the endpoint directly
	// in CO; otherwise it starts in SI until the first message is complete (DLG-4).
	state := StartedInbound
	if f.Sequence == 0 && f.Count == 1 {
		state = Conversing
	}
	b.register(now, ep, state)
	b.ensureRouted(now, ep) // the way back, for acknowledgements and replies
	return ep
}

// ensureRouted routes an endpoint that has no route yet (section 9): the initiator at BEGIN
// DIALOG (or, delayed, at each later try), the target when it is created, for the way back. Once routed, a dialog
// keeps its hop. Without a route it is delayed: its messages (and a target's
// acknowledgements) wait, and it tries again every RouteRetryInterval (RTE-2 step 7, G-28).
func (b *Broker) ensureRouted(now time.Duration, ep *endpoint) {
	if ep.routed || ep.deleted {
		return
	}
	h, ok := b.routeTo(now, b.cat.Services[ep.service].Database, ep.farName, ep.farBroker)
	if !ok {
		if !ep.delayed {
			ep.delayed = true
			b.marks[MarkRouteDelayed]++
			b.trace(TraceRecord{At: now, Kind: TraceDelayed, Conversation: ep.conv, FromInitiator: ep.isInitiator})
		}
		if !ep.routeArmed {
			ep.routeArmed = true
			b.timer(now+b.cfg.RouteRetryInterval, TimerRoute, uint64(ep.handle))
		}
		return
	}
	ep.routed, ep.local, ep.farInstance, ep.mirror = true, h.local, h.instance, h.mirror
	if h.local {
		ep.farLocal = h.service
	}
	if ep.delayed {
		ep.delayed = false
		b.marks[MarkRouteFoundLater]++
		b.trace(TraceRecord{At: now, Kind: TraceRouted, Peer: ep.farInstance, Conversation: ep.conv, FromInitiator: ep.isInitiator})
	}
	if ep.in != nil && ep.in.ackOwed && !ep.in.ackListed {
		b.owe(now, ep)
	}
	b.makeReady(ep)
}
