package model

import "fmt"

// InstanceID is the index of an instance in the Catalog.
type InstanceID uint16

// DatabaseID, QueueID, ServiceID, ContractID and MessageTypeID index the objects of the
// Catalog. Message types and contracts are interned world-wide by name.
type (
	DatabaseID    int32
	QueueID       int32
	ServiceID     int32
	ContractID    int32
	MessageTypeID int32
)

// ConversationHandle identifies one conversation endpoint (one side), as
// sys.conversation_endpoints.conversation_handle does.
type ConversationHandle uint64

// ConversationID identifies a dialog; both of its endpoints share it
// (sys.conversation_endpoints.conversation_id).
type ConversationID uint64

// ConversationGroupID identifies a conversation group, on one side.
type ConversationGroupID uint64

// SequenceNumber numbers the sequenced messages of one direction of a dialog, from 0
// (message_sequence_number).
type SequenceNumber int64

// worldUnique composes an identifier unique in the world from the instance that issued it
// and that instance's counter, so that brokers never need to agree on identifiers.
func worldUnique(instance InstanceID, counter uint64) uint64 {
	return uint64(instance+1)<<48 | counter
}

func (h ConversationHandle) String() string  { return fmt.Sprintf("h%x", uint64(h)) }
func (c ConversationID) String() string      { return fmt.Sprintf("c%x", uint64(c)) }
func (g ConversationGroupID) String() string { return fmt.Sprintf("g%x", uint64(g)) }

// EndpointState is the state of a conversation endpoint (sys.conversation_endpoints.state).
type EndpointState uint8

const (
	// StartedOutbound (SO): BEGIN DIALOG done, nothing sent yet.
	StartedOutbound EndpointState = iota + 1
	// StartedInbound (SI): the first message is arriving but not yet complete.
	StartedInbound
	// Conversing (CO): the dialog is established.
	Conversing
	// DisconnectedInbound (DI): the remote side ended; this side may still receive.
	DisconnectedInbound
	// DisconnectedOutbound (DO): this side ended; waiting for the remote to acknowledge.
	DisconnectedOutbound
	// Error (ER): an error message was put on this side's queue.
	Error
	// Closed (CD): the endpoint is closed.
	Closed
)

var stateCodes = [...]string{"", "SO", "SI", "CO", "DI", "DO", "ER", "CD"}

// String returns the two-letter code that sys.conversation_endpoints shows.
func (s EndpointState) String() string {
	if int(s) < len(stateCodes) && s != 0 {
		return stateCodes[s]
	}
	return fmt.Sprintf("EndpointState(%d)", int(s))
}

// canSend reports whether SEND is allowed in the state (G-16: only SO and CO).
func (s EndpointState) canSend() bool { return s == StartedOutbound || s == Conversing }

// PriorityLevel is a conversation priority, 1 to 10. Its zero value means DEFAULT, which is 5.
type PriorityLevel uint8

// DefaultPriority is the level of an endpoint that no broker priority matches (PRI-5).
const DefaultPriority PriorityLevel = 5

// Level returns the level, with DEFAULT resolved to 5.
func (p PriorityLevel) Level() int {
	if p == 0 {
		return int(DefaultPriority)
	}
	return int(p)
}
