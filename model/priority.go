package model

import (
	"errors"
	"fmt"
	"slices"
)

// BrokerPriority is CREATE BROKER PRIORITY name FOR CONVERSATION SET (CONTRACT_NAME,
// LOCAL_SERVICE_NAME, REMOTE_SERVICE_NAME, PRIORITY_LEVEL) (PRI-1). An empty criterion
// means ANY; a Level of zero means DEFAULT, which is 5.
type BrokerPriority struct {
	Name          string
	Contract      string
	LocalService  string
	RemoteService string // a literal, compared byte by byte: it may name a service elsewhere
	Level         PriorityLevel
}

// Any is how a criterion is written when it matches every contract or service.
const Any = ""

// ErrPriorityNotFound is returned by ALTER and DROP BROKER PRIORITY for an unknown name.
var ErrPriorityNotFound = errors.New("the broker priority does not exist")

// criteria returns the (contract, local, remote) tuple that G-36 keeps unique.
func (p BrokerPriority) criteria() [3]string {
	return [3]string{p.Contract, p.LocalService, p.RemoteService}
}

// validatePriority checks one priority against the database's contracts and services.
func (c *Catalog) validatePriority(db DatabaseID, p BrokerPriority) error {
	where := fmt.Sprintf("broker priority %q", p.Name)
	if p.Name == "" {
		return errors.New("a broker priority has no name")
	}
	if p.Level > 10 {
		return fmt.Errorf("%s: PRIORITY_LEVEL %d is outside 1..10", where, p.Level)
	}
	if p.Contract != Any {
		id, ok := c.contractByName[p.Contract]
		if !ok || !slices.Contains(c.Databases[db].Contracts, id) {
			return fmt.Errorf("%s: CONTRACT_NAME %q does not exist in the database", where, p.Contract)
		}
	}
	if p.LocalService != Any {
		if !slices.ContainsFunc(c.serviceByName[p.LocalService], func(id ServiceID) bool { return c.Services[id].Database == db }) {
			return fmt.Errorf("%s: LOCAL_SERVICE_NAME %q is not a service of the database", where, p.LocalService)
		}
	}
	return nil
}

// priorities is one database's set of broker priorities.
type priorities struct {
	list []BrokerPriority
}

// create adds p, refusing a duplicate name or duplicate criteria (G-36).
func (ps *priorities) create(p BrokerPriority) error {
	if err := ps.conflict(p, -1); err != nil {
		return err
	}
	ps.list = append(ps.list, p)
	return nil
}

// conflict returns the error for p's name or criteria clashing with a priority other than
// the one at index skip.
func (ps *priorities) conflict(p BrokerPriority, skip int) error {
	for i, q := range ps.list {
		switch {
		case i == skip:
		case q.Name == p.Name:
			return fmt.Errorf("broker priority %q already exists", p.Name)
		case q.criteria() == p.criteria():
			return fmt.Errorf("broker priority %q has the criteria of %q: (contract %s, local %s, remote %s)",
				p.Name, q.Name, anyName(p.Contract), anyName(p.LocalService), anyName(p.RemoteService))
		}
	}
	return nil
}

// alter replaces the priority called p.Name, in its place.
func (ps *priorities) alter(p BrokerPriority) error {
	i := slices.IndexFunc(ps.list, func(q BrokerPriority) bool { return q.Name == p.Name })
	if i < 0 {
		return fmt.Errorf("ALTER BROKER PRIORITY %q: %w", p.Name, ErrPriorityNotFound)
	}
	if err := ps.conflict(p, i); err != nil {
		return err
	}
	ps.list[i] = p
	return nil
}

// drop removes the priority called name.
func (ps *priorities) drop(name string) error {
	i := slices.IndexFunc(ps.list, func(q BrokerPriority) bool { return q.Name == name })
	if i < 0 {
		return fmt.Errorf("DROP BROKER PRIORITY %q: %w", name, ErrPriorityNotFound)
	}
	ps.list = slices.Delete(ps.list, i, i+1)
	return nil
}

// level returns the level for an endpoint of the database with the given contract, local
// service and remote service (PRI-2): the priority of the first of the eight precedence
// rows of PRI-4 that matches, or 5 when none does (PRI-5). Contract specificity dominates,
// then the local service, then the remote service.
func (ps *priorities) level(contract, local, remote string) PriorityLevel {
	best, bestRow := PriorityLevel(0), 9
	for _, p := range ps.list {
		if !matches(p.Contract, contract) || !matches(p.LocalService, local) || !matches(p.RemoteService, remote) {
			continue
		}
		if row := precedenceRow(p); row < bestRow {
			best, bestRow = p.Level, row
		}
	}
	if best == 0 {
		return DefaultPriority
	}
	return best
}

// precedenceRow is the row of PRI-4's table that a priority's criteria fill: 1 for
// (contract, local, remote) down to 8 for (ANY, ANY, ANY).
func precedenceRow(p BrokerPriority) int {
	row := 1
	if p.Contract == Any {
		row += 4
	}
	if p.LocalService == Any {
		row += 2
	}
	if p.RemoteService == Any {
		row++
	}
	return row
}

func matches(criterion, name string) bool { return criterion == Any || criterion == name }

func anyName(s string) string {
	if s == Any {
		return "ANY"
	}
	return fmt.Sprintf("%q", s)
}
