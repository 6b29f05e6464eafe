package model

import (
	"fmt"
	"slices"
)

// The definitions below are what a designer writes (CREATE MESSAGE TYPE, CREATE CONTRACT,
// CREATE QUEUE, CREATE SERVICE, per database, per instance). Compile checks them and turns
// them into a Catalog of indexed objects that the brokers share read-only.

// SentBy says which side of a dialog may send a message type on a contract.
type SentBy uint8

const (
	SentByAny SentBy = iota
	SentByInitiator
	SentByTarget
)

func (s SentBy) String() string {
	switch s {
	case SentByAny:
		return "ANY"
	case SentByInitiator:
		return "INITIATOR"
	case SentByTarget:
		return "TARGET"
	}
	return fmt.Sprintf("SentBy(%d)", int(s))
}

// allows reports whether a side may send under s (DLG-16).
func (s SentBy) allows(initiator bool) bool {
	return s == SentByAny || (s == SentByInitiator) == initiator
}

// The system message types every database has (ENT-11), and the DEFAULT message type and
// contract.
const (
	MessageTypeDefault     = "DEFAULT"
	MessageTypeEndDialog   = "http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog"
	MessageTypeError       = "http://schemas.microsoft.com/SQL/ServiceBroker/Error"
	MessageTypeDialogTimer = "http://schemas.microsoft.com/SQL/ServiceBroker/DialogTimer"
	ContractDefault        = "DEFAULT"
	// QUEUE_ACTIVATION event notifications travel on this contract, as this message type
	// (ACT-11); both exist in every database.
	MessageTypeEventNotification  = "http://schemas.microsoft.com/SQL/Notifications/EventNotification"
	ContractPostEventNotification = "http://schemas.microsoft.com/SQL/Notifications/PostEventNotification"
)

// The interned identifiers of the system message types and of the DEFAULT contract.
const (
	DefaultMessageType MessageTypeID = iota
	EndDialogMessageType
	ErrorMessageType
	DialogTimerMessageType
	EventNotificationMessageType
)

// IsUser reports whether t is a user's message type, DEFAULT or one a catalog creates,
// rather than END DIALOG, Error, a dialog timer or an event notification.
func (t MessageTypeID) IsUser() bool {
	return t == DefaultMessageType || t > EventNotificationMessageType
}

// DefaultContract and PostEventNotificationContract are the interned identifiers of the
// system contracts.
const (
	DefaultContract ContractID = iota
	PostEventNotificationContract
)

// MessageType is CREATE MESSAGE TYPE.
type MessageType struct {
	Name string
}

// ContractMessage is one line of CREATE CONTRACT: a message type and who may send it.
type ContractMessage struct {
	MessageType string
	SentBy      SentBy
}

// Contract is CREATE CONTRACT.
type Contract struct {
	Name     string
	Messages []ContractMessage
}

// QueueStatus is a queue's STATUS; the zero value is ON.
type QueueStatus uint8

const (
	QueueOn QueueStatus = iota
	QueueOff
)

func (s QueueStatus) String() string {
	if s == QueueOff {
		return "OFF"
	}
	return "ON"
}

// Queue is CREATE QUEUE.
type Queue struct {
	Name      string
	Status    QueueStatus
	Retention bool
	// PoisonMessageHandlingOff is POISON_MESSAGE_HANDLING (STATUS = OFF): five consecutive
	// rollbacks no longer turn the queue OFF (QUE-8). The default is ON.
	PoisonMessageHandlingOff bool
	// Activation is the queue's ACTIVATION clause; the zero value is none (STATUS = OFF).
	Activation Activation
}

// Service is CREATE SERVICE name ON QUEUE queue (contracts): the contracts listed are the
// ones the service accepts as a target.
type Service struct {
	Name      string
	Queue     string
	Contracts []string
}

// Database holds the objects of one database.
type Database struct {
	Name         string
	MessageTypes []MessageType
	Contracts    []Contract
	Queues       []Queue
	Services     []Service
	// HonorBrokerPriority is ALTER DATABASE SET HONOR_BROKER_PRIORITY; OFF by default
	// (G-26): the database's messages then leave at level 5 (PRI-12).
	HonorBrokerPriority bool
	// Priorities are the database's CREATE BROKER PRIORITY statements (PRI-1).
	Priorities []BrokerPriority
	// EventNotifications are its CREATE EVENT NOTIFICATION ... FOR QUEUE_ACTIVATION
	// statements (ACT-11).
	EventNotifications []EventNotification
	// BrokerInstance is the database's service_broker_guid, which routes name in
	// BROKER_INSTANCE; empty gives a GUID made from the instance and database names.
	BrokerInstance string
	// Routes are the database's CREATE ROUTE statements (sys.routes, RTE-1), beside the
	// AutoCreatedLocal route every database has unless NoAutoCreatedLocal is set.
	Routes             []Route
	NoAutoCreatedLocal bool
}

// Instance is one SQL Server instance and its broker.
type Instance struct {
	Name      string
	Databases []Database
	// Routes are msdb's routes, which serve the messages that arrive from other instances
	// (RTE-1), beside msdb's AutoCreatedLocal unless NoAutoCreatedLocal is set.
	Routes             []Route
	NoAutoCreatedLocal bool
	// Forwarding is the Service Broker endpoint's MESSAGE_FORWARDING and
	// MESSAGE_FORWARD_SIZE (RTE-4, RTE-5).
	Forwarding Forwarding
}

// Catalog is the compiled, read-only description of every instance. Service names are
// unique in a database; messages find their service by the routes (section 9 of the
// specification): when no route is declared anywhere, every database gets the routes a
// designer would write, one to each service of the other instances (ImplicitRoutes).
type Catalog struct {
	Instances    []InstanceInfo
	Databases    []DatabaseInfo
	Queues       []QueueInfo
	Services     []ServiceInfo
	Contracts    []ContractInfo
	MessageTypes []string
	// EventNotifications are every database's QUEUE_ACTIVATION event notifications.
	EventNotifications []EventNotificationInfo

	// ServiceNames interns every service name the world knows: its services' and the ones
	// routes and broker priorities name (a route may name a service that does not exist).
	ServiceNames []string
	// Brokers lists the broker instance GUIDs, indexed by BrokerID-1: each database's first,
	// in DatabaseID order, then those routes name that no database has.
	Brokers []string
	// ImplicitRoutes is set when no route was declared: routes were made (see Catalog).
	ImplicitRoutes bool

	instanceByName    map[string]InstanceID
	serviceByName     map[string][]ServiceID
	nameByName        map[string]ServiceName
	brokerByGUID      map[string]BrokerID
	contractByName    map[string]ContractID
	messageTypeByName map[string]MessageTypeID
}

// InstanceInfo is a compiled instance.
type InstanceInfo struct {
	Name      string
	Databases []DatabaseID
	// Routes are msdb's initial routes, checked, AutoCreatedLocal first.
	Routes     []Route
	Forwarding Forwarding
}

// DatabaseInfo is a compiled database.
type DatabaseInfo struct {
	Name                string
	Instance            InstanceID
	Contracts           []ContractID // the contracts defined in this database
	Queues              []QueueID
	Services            []ServiceID
	HonorBrokerPriority bool
	Priorities          []BrokerPriority // checked: known names, no duplicate criteria (G-36)
	// Broker is the database's broker instance; Routes its initial sys.routes, checked,
	// AutoCreatedLocal first.
	Broker BrokerID
	Routes []Route
}

// QueueInfo is a compiled queue, with its initial status.
type QueueInfo struct {
	Name                     string
	Database                 DatabaseID
	Status                   QueueStatus
	Retention                bool
	PoisonMessageHandlingOff bool
	Activation               Activation
}

// ServiceInfo is a compiled service.
type ServiceInfo struct {
	Name      string
	NameID    ServiceName
	Instance  InstanceID
	Database  DatabaseID
	Queue     QueueID
	Contracts []ContractID // accepted as target
	// Hidden marks a service the sim made: the sender of a database's event notifications.
	Hidden bool
}

// ContractInfo is a compiled contract: for each message type it allows, who may send it.
type ContractInfo struct {
	Name     string
	Messages []ContractMessageInfo
}

// ContractMessageInfo is one message type of a compiled contract.
type ContractMessageInfo struct {
	MessageType MessageTypeID
	SentBy      SentBy
}

// Instance returns the instance called name.
func (c *Catalog) Instance(name string) (InstanceID, bool) {
	id, ok := c.instanceByName[name]
	return id, ok
}

// Service returns the service called name, when exactly one database has a service of
// that name; ServicesNamed lists them all.
func (c *Catalog) Service(name string) (ServiceID, bool) {
	ids := c.serviceByName[name]
	if len(ids) != 1 {
		return -1, false
	}
	return ids[0], true
}

// ServicesNamed returns the services called name, in ServiceID order.
func (c *Catalog) ServicesNamed(name string) []ServiceID { return slices.Clone(c.serviceByName[name]) }

// ServiceName returns the interned name, as BEGIN DIALOG's TO SERVICE takes it.
func (c *Catalog) ServiceName(name string) (ServiceName, bool) {
	id, ok := c.nameByName[name]
	return id, ok
}

// NameOf returns the interned name of a service.
func (c *Catalog) NameOf(s ServiceID) ServiceName { return c.Services[s].NameID }

// internServiceName returns the interned identifier of name, adding it if new.
func (c *Catalog) internServiceName(name string) ServiceName {
	return intern(&c.ServiceNames, c.nameByName, name)
}

// Contract returns the contract called name.
func (c *Catalog) Contract(name string) (ContractID, bool) {
	id, ok := c.contractByName[name]
	return id, ok
}

// MessageType returns the message type called name.
func (c *Catalog) MessageType(name string) (MessageTypeID, bool) {
	id, ok := c.messageTypeByName[name]
	return id, ok
}

// Allows reports whether contract lets the initiator (or the target) send message type mt
// (DLG-16), for applications that check their statements before they run.
func (c *Catalog) Allows(contract ContractID, mt MessageTypeID, initiator bool) bool {
	return c.allows(contract, mt, initiator)
}

// allows reports whether contract lets the given side send message type mt (DLG-16). The
// system types EndDialog and Error are never sent with SEND, so they are not allowed here.
func (c *Catalog) allows(contract ContractID, mt MessageTypeID, initiator bool) bool {
	for _, m := range c.Contracts[contract].Messages {
		if m.MessageType == mt {
			return m.SentBy.allows(initiator)
		}
	}
	return false
}

// databaseHasContract reports whether the contract is defined in the database.
func (c *Catalog) databaseHasContract(db DatabaseID, contract ContractID) bool {
	return slices.Contains(c.Databases[db].Contracts, contract)
}

// accepts reports whether the service accepts dialogs on the contract as a target.
func (c *Catalog) accepts(s ServiceID, contract ContractID) bool {
	return slices.Contains(c.Services[s].Contracts, contract)
}

// EventNotificationInfo is a compiled event notification: the monitored queue, the service
// it notifies, and the hidden service of the queue's database that sends it (G-30).
type EventNotificationInfo struct {
	Name  string
	Queue QueueID
	To    ServiceID
	From  ServiceID
}
