package model

import "time"

// ConnectionState is an adjacent-broker connection's state (ENT-9, sys.dm_broker_connections).
// The sim keeps three of them: the handshake states in between are the connect delay.
type ConnectionState uint8

const (
	ConnectionClosed ConnectionState = iota
	ConnectionConnecting
	ConnectionLoggedIn
)

func (s ConnectionState) String() string {
	switch s {
	case ConnectionConnecting:
		return "CONNECTING"
	case ConnectionLoggedIn:
		return "LOGGED_IN"
	}
	return "CLOSED"
}

// connection is this broker's side of the adjacent-broker connection to one peer, opened on
// demand and closed when idle (TXQ-7, G-12), with what waits to go over it.
type connection struct {
	peer         InstanceID
	state        ConnectionState
	isAccept     bool
	connectDelay time.Duration
	lastActivity time.Duration
	idleArmed    bool
	// busy is set when a block leaves, until the world says when the wire will be free
	// again (WireFreeAt); freeAt is that time. One block is in flight per connection
	// direction (G-10); freeArmed is set while a TimerWireFree waits for freeAt.
	busy      bool
	freeAt    time.Duration
	freeArmed bool
	// block is the open block of fragments towards the peer (G-10), when blockOpen; listed
	// is true while the peer is in the broker's list of open blocks.
	block      Packet
	blockBytes int
	blockOpen  bool
	listed     bool
	// acksOwed lists endpoints owing the peer an acknowledgement; orphanAcks acknowledge
	// fragments for closed or unknown dialogs (G-16).
	acksOwed      []*endpoint
	orphanAcks    []Ack
	ackFlushArmed bool

	stats          ConnectionStats
	connectedSince time.Duration
}

// ConnectionStats are a connection's counters (sys.dm_broker_connections).
type ConnectionStats struct {
	Peer               InstanceID
	State              ConnectionState
	IsAccept           bool
	Opened             int64 // times the connection was opened or accepted
	PacketsSent        int64
	FragmentsSent      int64
	FragmentsReceived  int64
	BytesSent          int64
	BytesReceived      int64
	LastActivityTime   time.Duration
	TotalConnectedTime time.Duration
}

func (b *Broker) connection(peer InstanceID) *connection {
	return b.conns[peer]
}

// SetConnectDelay sets how long opening the connection to peer takes: the handshake's round
// trips (G-12: twice the link latency).
func (b *Broker) SetConnectDelay(peer InstanceID, d time.Duration) {
	b.conns[peer].connectDelay = d
}

// ready reports whether fragments can go to the peer now, and starts opening the connection
// when it is closed.
func (b *Broker) ready(now time.Duration, c *connection) bool {
	switch {
	case c.peer == b.id || c.state == ConnectionLoggedIn:
		return true
	case c.state == ConnectionConnecting:
		return false
	case c.connectDelay == 0:
		b.logIn(now, c, false)
		return true
	}
	c.state = ConnectionConnecting
	b.timer(now+c.connectDelay, TimerConnect, uint64(c.peer))
	return false
}

// logIn marks the connection usable, as the opener or as the acceptor.
func (b *Broker) logIn(now time.Duration, c *connection, accept bool) {
	c.state = ConnectionLoggedIn
	c.isAccept = accept
	c.stats.Opened++
	c.connectedSince = now
	c.lastActivity = now
	if !c.idleArmed {
		c.idleArmed = true
		b.timer(now+b.cfg.ConnectionIdleClose, TimerIdle, uint64(c.peer))
	}
}

// connected handles the connect timer: the connection logs in and what waited goes out.
func (b *Broker) connected(now time.Duration, c *connection) {
	if c.state != ConnectionConnecting {
		return
	}
	b.logIn(now, c, false)
}

// idle handles the idle timer: the connection closes after ConnectionIdleClose without
// traffic, or the timer is armed again for when it could.
func (b *Broker) idle(now time.Duration, c *connection) {
	c.idleArmed = false
	if c.state != ConnectionLoggedIn {
		return
	}
	if at := c.lastActivity + b.cfg.ConnectionIdleClose; at > now {
		c.idleArmed = true
		b.timer(at, TimerIdle, uint64(c.peer))
		return
	}
	c.state = ConnectionClosed
	c.stats.TotalConnectedTime += now - c.connectedSince
}

// activity notes traffic on the connection; a packet from a peer whose connection is closed
// opens it as an accepted connection.
func (b *Broker) activity(now time.Duration, c *connection, accept bool) {
	if accept && c.state != ConnectionLoggedIn && c.peer != b.id {
		b.logIn(now, c, true)
	}
	c.lastActivity = now
}

// Connections returns the counters of every connection to another instance, by peer.
func (b *Broker) Connections() []ConnectionStats {
	var out []ConnectionStats
	for _, c := range b.conns {
		if c.peer == b.id {
			continue
		}
		s := c.stats
		s.Peer, s.State, s.IsAccept, s.LastActivityTime = c.peer, c.state, c.isAccept, c.lastActivity
		out = append(out, s)
	}
	return out
}

// addToBlock appends a fragment to the open block towards peer, and sends the block when it
// is full (G-10).
func (b *Broker) addToBlock(peer InstanceID, f Fragment) {
	c := b.conns[peer]
	size := fragmentHeaderBytes + int(f.Bytes)
	if c.blockOpen && c.blockBytes+size > b.cfg.BlockBytesMax {
		b.sendBlock(c) // the fragment would overflow the block: it starts the next one
	}
	if !c.blockOpen {
		c.block = Packet{From: b.id, To: peer}
		c.blockOpen = true
		if !c.listed {
			c.listed = true
			b.openBlocks = append(b.openBlocks, peer)
		}
	}
	c.block.Fragments = b.buf.fragments.push(c.block.Fragments, f)
	c.blockBytes += size
	if len(c.block.Fragments) >= b.cfg.BlockFragmentsMax || c.blockBytes >= b.cfg.BlockBytesMax {
		b.sendBlock(c)
	}
}

// flushBlocks sends every open block.
func (b *Broker) flushBlocks() {
	for _, peer := range b.openBlocks {
		c := b.conns[peer]
		c.listed = false
		b.sendBlock(c)
	}
	b.openBlocks = b.openBlocks[:0]
}

func (b *Broker) sendBlock(c *connection) {
	if !c.blockOpen {
		return
	}
	p := c.block
	c.block, c.blockBytes, c.blockOpen = Packet{}, 0, false
	if c.peer != b.id {
		c.busy = true
		p.HoldsConnection = true
	}
	b.transmit(c, &p)
}

// transmit hands a packet to the world, or, for this instance itself, to the queue of
// packets processed before the current input returns (same-instance delivery, TXQ-2).
func (b *Broker) transmit(c *connection, p *Packet) {
	c.stats.PacketsSent++
	c.stats.FragmentsSent += int64(len(p.Fragments))
	if c.peer == b.id {
		b.selfPackets = append(b.selfPackets, *p)
		return
	}
	p.wireBytes = p.Size()
	c.stats.BytesSent += int64(p.wireBytes)
	c.lastActivity = b.now
	b.effects.Transmit = append(b.effects.Transmit, *p)
}

// armAckFlush makes sure a dedicated-ack timer is pending for the connection (G-20).
func (b *Broker) armAckFlush(now time.Duration, c *connection) {
	if c.ackFlushArmed || c.peer == b.id { // acks to this instance go before the input returns
		return
	}
	c.ackFlushArmed = true
	b.timer(now+b.cfg.AckDelay, TimerAckFlush, uint64(c.peer))
}

// flushAcks sends, in one packet, every acknowledgement still owed to the peer: those that
// found no fragment to ride on, and the orphan ones.
func (b *Broker) flushAcks(now time.Duration, c *connection) {
	c.ackFlushArmed = false
	acks := b.ackScratch[:0]
	for _, ep := range c.acksOwed {
		if ep.in == nil {
			continue
		}
		ep.in.ackListed = false
		if ep.in.ackOwed { // deleted endpoints too: the far side waits for it to close
			ep.in.ackOwed = false
			a := ep.ackFor(&b.buf.ranges)
			a.Broker, a.ToService, a.ToBroker = b.brokerOf(ep.service), ep.farName, ep.farBroker
			acks = append(acks, a)
		}
	}
	clear(c.acksOwed)
	c.acksOwed = c.acksOwed[:0]
	acks = append(acks, c.orphanAcks...)
	clear(c.orphanAcks)
	c.orphanAcks = c.orphanAcks[:0]
	b.ackScratch = acks
	defer clear(acks) // the packets own their acknowledgements' ranges now
	if len(acks) == 0 {
		return
	}
	b.counters.AcksSent += int64(len(acks))
	b.trace(TraceRecord{At: now, Kind: TraceAckSent, Peer: c.peer})
	b.activity(now, c, true)
	// Acks travel in packets no larger than a block, so that one lost packet does not take
	// hundreds of acknowledgements with it.
	for len(acks) > 0 {
		n, bytes := 0, packetHeaderBytes
		for n < len(acks) && (n == 0 || bytes+ackSize(&acks[n]) <= b.cfg.BlockBytesMax) {
			bytes += ackSize(&acks[n])
			n++
		}
		b.transmit(c, &Packet{From: b.id, To: c.peer, Acks: append(b.buf.acks.get(n), acks[:n]...)})
		acks = acks[n:]
	}
}

// ackSize is an acknowledgement's size on the wire.
func ackSize(a *Ack) int { return ackBytes + rangeBytes*len(a.Selective) }

// orphanAck acknowledges one fragment of a dialog this side no longer tracks (G-16), so
// that a far side waiting for it can close.
func (b *Broker) orphanAck(now time.Duration, from InstanceID, f *Fragment) {
	c := b.conns[from]
	a := Ack{Valid: true, Conversation: f.Conversation, FromInitiator: f.FromInitiator, Sequence: f.Sequence, Fragment: f.Index + 1}
	if f.FromInitiator { // back to whoever sent f
		a.ToService, a.ToBroker = f.FromService, f.FromBroker
	} else {
		a.ToService, a.ToBroker = f.ToService, f.ToBroker
	}
	c.orphanAcks = append(c.orphanAcks, a)
	b.armAckFlush(now, c)
}
