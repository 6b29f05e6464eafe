package model

import (
	"fmt"
	"slices"
	"time"
)

// databaseState is what a broker keeps of one of its databases at run time: the options and
// the broker priorities, which statements change while the world runs.
type databaseState struct {
	honor bool
	prios priorities
	// txqRows counts the rows of the database's transmission queue: the rows its endpoints
	// sent, and the messages held for its queues that are OFF (G-18); not the partial
	// messages of those queues, which TransmissionQueueRows counts apart.
	txqRows int
	// routes is its sys.routes (RTE-1).
	routes routeTable
}

// TransmissionQueueRows counts the rows of a local database's transmission queue
// (sys.transmission_queue), zero for another instance's database: the rows TransmissionQueue
// lists for the database.
func (b *Broker) TransmissionQueueRows(db DatabaseID) int {
	d, err := b.localDatabase(db)
	if err != nil {
		return 0
	}
	return d.txqRows + b.partialRowsOfOffQueues(db)
}

func (b *Broker) localDatabase(db DatabaseID) (*databaseState, error) {
	if db < 0 || int(db) >= len(b.dbs) || b.dbs[db] == nil {
		return nil, fmt.Errorf("database %d: %w", db, ErrNotLocal)
	}
	return b.dbs[db], nil
}

// CreateBrokerPriority is CREATE BROKER PRIORITY in database db (PRI-1). It changes the
// level of endpoints created from now on, never of existing ones (PRI-3).
func (b *Broker) CreateBrokerPriority(now time.Duration, db DatabaseID, p BrokerPriority) error {
	b.checkUp("CREATE BROKER PRIORITY", now)
	d, err := b.localDatabase(db)
	if err != nil {
		return err
	}
	if err := b.cat.validatePriority(db, p); err != nil {
		return fmt.Errorf("CREATE BROKER PRIORITY: %w", err)
	}
	if err := d.prios.create(p); err != nil {
		return fmt.Errorf("CREATE BROKER PRIORITY: %w", err)
	}
	return nil
}

// BrokerPriorityChange is the SET clause of ALTER BROKER PRIORITY: a nil field is a clause
// left out, which keeps its current value; a non-nil one sets it (Any for ANY, level 0 for
// DEFAULT).
type BrokerPriorityChange struct {
	Contract, LocalService, RemoteService *string
	Level                                 *PriorityLevel
}

// AlterBrokerPriority is ALTER BROKER PRIORITY name FOR CONVERSATION SET (...): the clauses
// given replace the priority's, the others stay. Existing endpoints keep their level (PRI-3).
func (b *Broker) AlterBrokerPriority(now time.Duration, db DatabaseID, name string, change BrokerPriorityChange) error {
	b.checkUp("ALTER BROKER PRIORITY", now)
	d, err := b.localDatabase(db)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(d.prios.list, func(q BrokerPriority) bool { return q.Name == name })
	if i < 0 {
		return fmt.Errorf("ALTER BROKER PRIORITY %q: %w", name, ErrPriorityNotFound)
	}
	p := d.prios.list[i]
	for _, c := range []struct {
		to   *string
		from *string
	}{{&p.Contract, change.Contract}, {&p.LocalService, change.LocalService}, {&p.RemoteService, change.RemoteService}} {
		if c.from != nil {
			*c.to = *c.from
		}
	}
	if change.Level != nil {
		p.Level = *change.Level
	}
	if err := b.cat.validatePriority(db, p); err != nil {
		return fmt.Errorf("ALTER BROKER PRIORITY: %w", err)
	}
	if err := d.prios.alter(p); err != nil {
		return fmt.Errorf("ALTER BROKER PRIORITY: %w", err)
	}
	return nil
}

// DropBrokerPriority is DROP BROKER PRIORITY name.
func (b *Broker) DropBrokerPriority(now time.Duration, db DatabaseID, name string) error {
	b.checkUp("DROP BROKER PRIORITY", now)
	d, err := b.localDatabase(db)
	if err != nil {
		return err
	}
	return d.prios.drop(name)
}

// BrokerPriorities returns the database's priorities, in creation order
// (sys.conversation_priorities).
func (b *Broker) BrokerPriorities(db DatabaseID) []BrokerPriority {
	d, err := b.localDatabase(db)
	if err != nil {
		return nil
	}
	return slices.Clone(d.prios.list)
}

// SetHonorBrokerPriority is ALTER DATABASE SET HONOR_BROKER_PRIORITY ON|OFF. A dialog with
// messages waiting keeps the transmit level it latched until its backlog empties (PRI-12,
// G-26).
func (b *Broker) SetHonorBrokerPriority(now time.Duration, db DatabaseID, on bool) error {
	b.checkUp("ALTER DATABASE", now)
	d, err := b.localDatabase(db)
	if err != nil {
		return err
	}
	d.honor = on
	return nil
}

// priorityFor assigns the level of a new endpoint of local service on contract, talking to
// remote service (PRI-2, PRI-4): from the priorities of the local service's database.
func (b *Broker) priorityFor(local ServiceID, contract ContractID, remote ServiceName) PriorityLevel {
	d := b.dbs[b.cat.Services[local].Database]
	return d.prios.level(b.cat.Contracts[contract].Name, b.cat.Services[local].Name, b.cat.ServiceNames[remote])
}

// brokerOf returns the broker instance of a local service's database.
func (b *Broker) brokerOf(s ServiceID) BrokerID {
	return b.cat.Databases[b.cat.Services[s].Database].Broker
}

// transmitLevel is the level an endpoint's messages leave at, latched when its backlog
// goes from empty to non-empty (G-26): its own level when its database honours broker
// priorities, 5 otherwise (PRI-12).
func (b *Broker) transmitLevel(ep *endpoint) PriorityLevel {
	if b.dbs[b.cat.Services[ep.service].Database].honor {
		return ep.priority
	}
	return DefaultPriority
}
