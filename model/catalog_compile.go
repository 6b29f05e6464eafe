package model

import (
	"errors"
	"fmt"
	"slices"
)

// Compile checks the definitions of every instance and returns the Catalog. An error names
// the object at fault by its path: instance "A": database "Sales": service "S": ...
//
// Besides Service Broker's own rules (a service on an existing queue, contracts and message
// types defined in the database, no duplicate names in a database, routes to instances that
// exist), the sim asks that a contract defined in several databases be defined the same way
// in each, and that broker instance GUIDs be unique.
func Compile(instances []Instance) (*Catalog, error) {
	c := &Catalog{
		instanceByName:    map[string]InstanceID{},
		serviceByName:     map[string][]ServiceID{},
		nameByName:        map[string]ServiceName{},
		brokerByGUID:      map[string]BrokerID{},
		contractByName:    map[string]ContractID{},
		messageTypeByName: map[string]MessageTypeID{},
	}
	for _, name := range []string{MessageTypeDefault, MessageTypeEndDialog, MessageTypeError, MessageTypeDialogTimer,
		MessageTypeEventNotification} {
		c.internMessageType(name)
	}
	c.Contracts = append(c.Contracts, ContractInfo{Name: ContractDefault,
		Messages: []ContractMessageInfo{{MessageType: DefaultMessageType, SentBy: SentByAny}}})
	c.contractByName[ContractDefault] = DefaultContract
	c.Contracts = append(c.Contracts, ContractInfo{Name: ContractPostEventNotification,
		Messages: []ContractMessageInfo{{MessageType: EventNotificationMessageType, SentBy: SentByInitiator}}})
	c.contractByName[ContractPostEventNotification] = PostEventNotificationContract
	// Event notifications name services anywhere in the world: they are resolved once
	// every service is known.
	var pending []pendingNotification

	if len(instances) == 0 {
		return nil, errors.New("no instance is defined")
	}
	// Where each contract was first defined, to name it when another definition disagrees.
	contractOrigin := map[string]string{}
	for _, in := range instances {
		where := fmt.Sprintf("instance %q", in.Name)
		if in.Name == "" {
			return nil, errors.New("an instance has no name")
		}
		if _, dup := c.instanceByName[in.Name]; dup {
			return nil, fmt.Errorf("%s is defined twice", where)
		}
		if len(c.Instances) > 0xfffe {
			return nil, fmt.Errorf("%s: more than 65534 instances", where)
		}
		id := InstanceID(len(c.Instances))
		c.instanceByName[in.Name] = id
		c.Instances = append(c.Instances, InstanceInfo{Name: in.Name})
		seen := map[string]bool{}
		for _, db := range in.Databases {
			dbWhere := fmt.Sprintf("%s: database %q", where, db.Name)
			if db.Name == "" {
				return nil, fmt.Errorf("%s: a database has no name", where)
			}
			if seen[db.Name] {
				return nil, fmt.Errorf("%s is defined twice", dbWhere)
			}
			seen[db.Name] = true
			if err := c.compileDatabase(id, db, dbWhere, contractOrigin); err != nil {
				return nil, err
			}
			for _, n := range db.EventNotifications {
				pending = append(pending, pendingNotification{n, DatabaseID(len(c.Databases) - 1), dbWhere})
			}
		}
	}
	if err := c.compileEventNotifications(pending); err != nil {
		return nil, err
	}
	if err := c.compileRoutes(instances); err != nil {
		return nil, err
	}
	return c, nil
}

type pendingNotification struct {
	n     EventNotification
	db    DatabaseID
	where string
}

// compileEventNotifications checks each QUEUE_ACTIVATION event notification (ACT-11): its
// queue is in its database, its service exists and accepts PostEventNotification, and its
// name is unique in the database. A database with notifications gets a hidden service and
// queue that send them (G-30).
func (c *Catalog) compileEventNotifications(pending []pendingNotification) error {
	senders := map[DatabaseID]ServiceID{}
	names := map[DatabaseID]map[string]bool{}
	for _, p := range pending {
		where := fmt.Sprintf("%s: event notification %q", p.where, p.n.Name)
		if p.n.Name == "" {
			return fmt.Errorf("%s: an event notification has no name", p.where)
		}
		if names[p.db] == nil {
			names[p.db] = map[string]bool{}
		}
		if names[p.db][p.n.Name] {
			return fmt.Errorf("%s is defined twice", where)
		}
		names[p.db][p.n.Name] = true
		q := QueueID(-1)
		for _, id := range c.Databases[p.db].Queues {
			if c.Queues[id].Name == p.n.Queue {
				q = id
			}
		}
		if q < 0 {
			return fmt.Errorf("%s: queue %q does not exist in the database", where, p.n.Queue)
		}
		to, ok := c.Service(p.n.Service)
		if !ok {
			if len(c.serviceByName[p.n.Service]) > 1 {
				return fmt.Errorf("%s: service %q exists in several databases: the sim needs the one a notification names to be unique", where, p.n.Service)
			}
			return fmt.Errorf("%s: service %q does not exist", where, p.n.Service)
		}
		if !c.accepts(to, PostEventNotificationContract) {
			return fmt.Errorf("%s: service %q does not accept the contract %s", where, p.n.Service, ContractPostEventNotification)
		}
		from, ok := senders[p.db]
		if !ok {
			db := &c.Databases[p.db]
			name := fmt.Sprintf("[sbsim] event notifications of %s/%s", c.Instances[db.Instance].Name, db.Name)
			qid := QueueID(len(c.Queues))
			c.Queues = append(c.Queues, QueueInfo{Name: name, Database: p.db})
			db.Queues = append(db.Queues, qid)
			from = ServiceID(len(c.Services))
			c.Services = append(c.Services, ServiceInfo{Name: name, NameID: c.internServiceName(name), Instance: db.Instance, Database: p.db, Queue: qid, Hidden: true})
			c.serviceByName[name] = append(c.serviceByName[name], from)
			db.Services = append(db.Services, from)
			senders[p.db] = from
		}
		c.EventNotifications = append(c.EventNotifications, EventNotificationInfo{Name: p.n.Name, Queue: q, To: to, From: from})
	}
	return nil
}

func (c *Catalog) internMessageType(name string) MessageTypeID {
	return intern(&c.MessageTypes, c.messageTypeByName, name)
}

// intern returns the identifier of name among names, adding it if new.
func intern[ID ~int32](names *[]string, ids map[string]ID, name string) ID {
	if id, ok := ids[name]; ok {
		return id
	}
	id := ID(len(*names))
	*names = append(*names, name)
	ids[name] = id
	return id
}

func (c *Catalog) compileDatabase(instance InstanceID, db Database, where string, contractOrigin map[string]string) error {
	dbID := DatabaseID(len(c.Databases))
	info := DatabaseInfo{Name: db.Name, Instance: instance, Contracts: []ContractID{DefaultContract, PostEventNotificationContract}}

	types := map[string]bool{MessageTypeDefault: true}
	for _, mt := range db.MessageTypes {
		if mt.Name == "" {
			return fmt.Errorf("%s: a message type has no name", where)
		}
		if types[mt.Name] || isSystemMessageType(mt.Name) {
			return fmt.Errorf("%s: message type %q is defined twice (or is a system type)", where, mt.Name)
		}
		types[mt.Name] = true
		c.internMessageType(mt.Name)
	}

	for _, ct := range db.Contracts {
		id, err := c.compileContract(ct, types, fmt.Sprintf("%s: contract %q", where, ct.Name), contractOrigin)
		if err != nil {
			return err
		}
		if slices.Contains(info.Contracts, id) {
			return fmt.Errorf("%s: contract %q is defined twice", where, ct.Name)
		}
		info.Contracts = append(info.Contracts, id)
	}

	queues := map[string]QueueID{}
	for _, q := range db.Queues {
		if q.Name == "" {
			return fmt.Errorf("%s: a queue has no name", where)
		}
		if _, dup := queues[q.Name]; dup {
			return fmt.Errorf("%s: queue %q is defined twice", where, q.Name)
		}
		if q.Status > QueueOff {
			return fmt.Errorf("%s: queue %q: status %d is neither ON nor OFF", where, q.Name, q.Status)
		}
		if a := q.Activation; a.MaxQueueReaders < 0 || a.MaxQueueReaders > MaxQueueReadersLimit {
			return fmt.Errorf("%s: queue %q: MAX_QUEUE_READERS %d is outside 0..%d", where, q.Name, a.MaxQueueReaders, MaxQueueReadersLimit)
		}
		if q.Activation.Status && q.Activation.Procedure == "" {
			return fmt.Errorf("%s: queue %q: ACTIVATION (STATUS = ON) needs a PROCEDURE_NAME", where, q.Name)
		}
		id := QueueID(len(c.Queues))
		queues[q.Name] = id
		c.Queues = append(c.Queues, QueueInfo{Name: q.Name, Database: dbID, Status: q.Status, Retention: q.Retention,
			PoisonMessageHandlingOff: q.PoisonMessageHandlingOff, Activation: q.Activation})
		info.Queues = append(info.Queues, id)
	}

	services := map[string]bool{}
	for _, s := range db.Services {
		if s.Name == "" {
			return fmt.Errorf("%s: a service has no name", where)
		}
		if services[s.Name] {
			return fmt.Errorf("%s: service %q is defined twice", where, s.Name)
		}
		services[s.Name] = true
		svc, err := c.compileService(s, instance, dbID, queues, info.Contracts, fmt.Sprintf("%s: service %q", where, s.Name))
		if err != nil {
			return err
		}
		id := ServiceID(len(c.Services))
		c.serviceByName[s.Name] = append(c.serviceByName[s.Name], id)
		svc.NameID = c.internServiceName(s.Name)
		c.Services = append(c.Services, svc)
		info.Services = append(info.Services, id)
	}
	info.HonorBrokerPriority = db.HonorBrokerPriority
	c.Databases = append(c.Databases, info)
	c.Instances[instance].Databases = append(c.Instances[instance].Databases, dbID)
	var ps priorities
	for _, p := range db.Priorities {
		if err := c.validatePriority(dbID, p); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := ps.create(p); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	c.Databases[dbID].Priorities = ps.list
	return nil
}

// compileService checks one service's queue and contracts against its database.
func (c *Catalog) compileService(s Service, instance InstanceID, db DatabaseID, queues map[string]QueueID,
	contracts []ContractID, where string) (ServiceInfo, error) {
	q, ok := queues[s.Queue]
	if !ok {
		return ServiceInfo{}, fmt.Errorf("%s: queue %q does not exist in the database", where, s.Queue)
	}
	svc := ServiceInfo{Name: s.Name, Instance: instance, Database: db, Queue: q}
	for _, name := range s.Contracts {
		id, ok := c.contractByName[name]
		if !ok || !slices.Contains(contracts, id) {
			return ServiceInfo{}, fmt.Errorf("%s: contract %q does not exist in the database", where, name)
		}
		if slices.Contains(svc.Contracts, id) {
			return ServiceInfo{}, fmt.Errorf("%s: contract %q is listed twice", where, name)
		}
		svc.Contracts = append(svc.Contracts, id)
	}
	return svc, nil
}

// compileContract checks one contract against the database's message types and against
// other databases' definitions of the same name, and returns its interned identifier.
func (c *Catalog) compileContract(ct Contract, types map[string]bool, where string, origin map[string]string) (ContractID, error) {
	if ct.Name == "" {
		return 0, fmt.Errorf("%s: a contract has no name", where)
	}
	if ct.Name == ContractDefault || ct.Name == ContractPostEventNotification {
		return 0, fmt.Errorf("%s: %s is a system contract", where, ct.Name)
	}
	if len(ct.Messages) == 0 {
		return 0, fmt.Errorf("%s: a contract needs at least one message type", where)
	}
	info := ContractInfo{Name: ct.Name}
	for _, m := range ct.Messages {
		if !types[m.MessageType] {
			return 0, fmt.Errorf("%s: message type %q does not exist in the database", where, m.MessageType)
		}
		if m.SentBy > SentByTarget {
			return 0, fmt.Errorf("%s: message type %q: SENT BY %d is unknown", where, m.MessageType, m.SentBy)
		}
		mt := c.messageTypeByName[m.MessageType]
		for _, prev := range info.Messages {
			if prev.MessageType == mt {
				return 0, fmt.Errorf("%s: message type %q is listed twice", where, m.MessageType)
			}
		}
		info.Messages = append(info.Messages, ContractMessageInfo{MessageType: mt, SentBy: m.SentBy})
	}
	if id, ok := c.contractByName[ct.Name]; ok {
		if !slices.Equal(c.Contracts[id].Messages, info.Messages) {
			return 0, fmt.Errorf("%s differs from its definition in %s: the sim needs one definition per contract name", where, origin[ct.Name])
		}
		return id, nil
	}
	id := ContractID(len(c.Contracts))
	c.Contracts = append(c.Contracts, info)
	c.contractByName[ct.Name] = id
	origin[ct.Name] = where
	return id, nil
}

func isSystemMessageType(name string) bool {
	return name == MessageTypeEndDialog || name == MessageTypeError || name == MessageTypeDialogTimer ||
		name == MessageTypeEventNotification
}
