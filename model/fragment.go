package model

import "time"

// Fragment is the unit the dialog protocol transmits: one piece of one message (PROTO-6).
// A small message is one fragment. Message bodies are sizes, not bytes.
type Fragment struct {
	Conversation ConversationID
	// Sequence is the message's sequence number in its direction (PROTO-2); Unsequenced for a
	// broker-generated error (PROTO-3).
	Sequence SequenceNumber
	Index    int32 // fragment number in the message, from 0
	Count    int32 // fragments in the message
	Bytes    int32 // payload bytes of this fragment
	// MessageType is the message's type; ErrorCode is set on Error messages: positive from END
	// WITH ERROR, negative from the broker.
	MessageType MessageTypeID
	ErrorCode   int32
	Contract    ContractID
	// MessageBytes is the size of the whole message body.
	MessageBytes int64
	// SentAt is when the SEND committed, and TransmittedAt when the message's first fragment
	// first left the transmission queue: measurements the receiver reports, like a
	// timestamp in a header; no broker decision depends on them.
	SentAt, TransmittedAt time.Duration
	// The dialog header: the initiator's and the target's services and broker instances
	// (ToBroker zero until the initiator knows it, PROTO-13), the contract above, and the
	// absolute expiry of the dialog's lifetime (zero for none). The target creates its
	// endpoint from them (DLG-3); routing reads them (section 9).
	FromService, ToService ServiceName
	FromBroker, ToBroker   BrokerID
	Lifetime               time.Duration
	// FromInitiator is the direction: true when the initiator endpoint sent the message.
	FromInitiator bool
	// Hops counts the forwarders the fragment went through (RTE-6): hops_remaining is
	// HopBudget less it.
	Hops uint8
	// Ack is an acknowledgement for the opposite direction of the same dialog, carried in
	// this fragment's header (PROTO-8).
	Ack Ack
}

// Unsequenced marks a broker-generated message, which has no sequence number (PROTO-3).
const Unsequenced SequenceNumber = -1

// Ack acknowledges fragments of one direction of a dialog (PROTO-8, G-20): every fragment
// before (Sequence, Fragment) in (message, fragment) order, and the out-of-order fragments
// listed in Selective, in that order too (the sender walks them beside its own).
type Ack struct {
	Conversation ConversationID
	Sequence     SequenceNumber
	Selective    []FragmentRange
	Fragment     int32
	// Broker is the broker instance of the endpoint that acknowledges: the initiator learns
	// the target's from its first acknowledgement (PROTO-13). ToService and ToBroker are
	// where a dedicated acknowledgement goes, for the forwarders on the way; Hops as for a
	// fragment.
	Broker    BrokerID
	ToService ServiceName
	ToBroker  BrokerID
	Valid     bool
	// FromInitiator is the direction of the data acknowledged.
	FromInitiator bool
	Hops          uint8
}

// HopBudget is how many forwarders a message may go through (G-27: 32).
const HopBudget = 32

// destination returns the service and broker instance a fragment goes to: the target's
// when the initiator sent it, the initiator's otherwise.
func (f *Fragment) destination() (ServiceName, BrokerID) {
	if f.FromInitiator {
		return f.ToService, f.ToBroker
	}
	return f.FromService, f.FromBroker
}

// FragmentRange is the fragments [From, To) of message Sequence.
type FragmentRange struct {
	Sequence SequenceNumber
	From, To int32
}

// Packet is what a broker hands to the link towards another instance: a block of fragments
// (G-10) and dedicated acknowledgements.
type Packet struct {
	From, To  InstanceID
	Fragments []Fragment
	Acks      []Ack
	// HoldsConnection marks a block: the connection carries nothing else until the world
	// reports, with WireFreeAt, when the wire will have carried it (G-10).
	HoldsConnection bool
	// wireBytes caches Size once the broker hands the packet over; it travels with it.
	wireBytes int
}

// Sizes on the wire of the headers, in bytes: they make acks and small messages cost
// bandwidth as they would.
const (
	packetHeaderBytes   = 32
	fragmentHeaderBytes = 96
	ackBytes            = 32
	rangeBytes          = 12
)

// Size returns the packet's size on the wire.
func (p *Packet) Size() int {
	if p.wireBytes > 0 {
		return p.wireBytes
	}
	n := packetHeaderBytes
	for i := range p.Fragments {
		f := &p.Fragments[i]
		n += fragmentHeaderBytes + int(f.Bytes)
		if f.Ack.Valid {
			n += ackSize(&f.Ack)
		}
	}
	for i := range p.Acks {
		n += ackSize(&p.Acks[i])
	}
	return n
}

// fragmentCount returns how many fragments a message of the given size needs (at least one).
func fragmentCount(bytes int64, fragmentSize int) int32 {
	if bytes <= int64(fragmentSize) {
		return 1
	}
	return int32((bytes + int64(fragmentSize) - 1) / int64(fragmentSize))
}

// fragmentBytes returns the payload of fragment i of a message.
func fragmentBytes(bytes int64, fragmentSize int, i int32) int32 {
	rest := bytes - int64(i)*int64(fragmentSize)
	return int32(min(rest, int64(fragmentSize)))
}
