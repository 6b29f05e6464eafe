package tsql

import (
	"strings"
	"time"

	"github.com/sbsim/sbsim/model"
)

// place is where an object was created, and where each of its fields was last set, by
// the scenario file's key (activation.max_queue_readers).
type place struct {
	at     Pos
	fields map[string]Pos
}

func (p *place) set(key string, at Pos) {
	if p.fields == nil {
		p.fields = map[string]Pos{}
	}
	p.fields[key] = at
}

// list is a database's or instance's objects of one kind, in the order they were created,
// with their places.
type list[T any] struct {
	items  []T
	places []place
	name   func(*T) string
}

// find returns the index of the object called name: the same name first, then the same
// name in another case (queue names follow the database's collation, which is most often
// case-insensitive); -1 when there is none.
func (l *list[T]) find(name string) int {
	for i := range l.items {
		if l.name(&l.items[i]) == name {
			return i
		}
	}
	for i := range l.items {
		if strings.EqualFold(l.name(&l.items[i]), name) {
			return i
		}
	}
	return -1
}

func (l *list[T]) add(v T, at Pos) *T {
	l.items = append(l.items, v)
	l.places = append(l.places, place{at: at})
	return &l.items[len(l.items)-1]
}

func (l *list[T]) drop(i int) {
	l.items = append(l.items[:i], l.items[i+1:]...)
	l.places = append(l.places[:i], l.places[i+1:]...)
}

// database is one database the scripts create or use.
type database struct {
	name         string
	at           Pos
	honorAt      Pos
	honor        bool
	messageTypes list[model.MessageType]
	contracts    list[model.Contract]
	queues       list[model.Queue]
	services     list[model.Service]
	priorities   list[model.BrokerPriority]
	notes        list[model.EventNotification]
	routes       list[rawRoute]
	procedures   map[string]*procSource // by lower-case name without schema
	procOrder    []string
	// broker is the database's broker instance (GUID) when a route elsewhere names it.
	broker string
	// named: a USE or CREATE DATABASE names it, so an instance with no other database
	// keeps it (a forwarder's master).
	named bool
	// noAutoLocal: DROP ROUTE AutoCreatedLocal.
	noAutoLocal   bool
	noAutoLocalAt Pos
}

// rawRoute is a route as written: its address is resolved to an instance once every
// script is read.
type rawRoute struct {
	model.Route
	address, mirror string // as written: LOCAL, TRANSPORT, TCP://host:port
}

func newDatabase(name string, at Pos) *database {
	return &database{name: name, at: at,
		messageTypes: list[model.MessageType]{name: func(m *model.MessageType) string { return m.Name }},
		contracts:    list[model.Contract]{name: func(c *model.Contract) string { return c.Name }},
		queues:       list[model.Queue]{name: func(q *model.Queue) string { return q.Name }},
		services:     list[model.Service]{name: func(s *model.Service) string { return s.Name }},
		priorities:   list[model.BrokerPriority]{name: func(p *model.BrokerPriority) string { return p.Name }},
		notes:        list[model.EventNotification]{name: func(n *model.EventNotification) string { return n.Name }},
		routes:       list[rawRoute]{name: func(r *rawRoute) string { return r.Name }},
		procedures:   map[string]*procSource{},
	}
}

// instance is one server: from :CONNECT, -map, or the one default instance.
type instance struct {
	name      string
	databases []*database
	msdb      *database // msdb's routes
	endpoint  *endpoint
}

// endpoint is the instance's CREATE ENDPOINT ... FOR SERVICE_BROKER.
type endpoint struct {
	name           string
	at             Pos
	port           int64
	forwarding     bool
	forwardingAt   Pos
	forwardSizeMB  int64
	forwardSizeAt  Pos
	forwardSizeSet bool
}

func (in *instance) database(name string, at Pos) *database {
	if strings.EqualFold(name, "msdb") {
		if in.msdb == nil {
			in.msdb = newDatabase("msdb", at)
		}
		return in.msdb
	}
	for _, db := range in.databases {
		if strings.EqualFold(db.name, name) {
			return db
		}
	}
	db := newDatabase(name, at)
	in.databases = append(in.databases, db)
	return db
}

// procSource is a CREATE or ALTER PROCEDURE: its name and its body's statement.
type procSource struct {
	name string
	stmt Statement
}

// seconds turns a LIFETIME in seconds into a duration.
func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }
