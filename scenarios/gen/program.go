package gen

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/leanovate/gopter"
	gopgen "github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// Program is the reader program a generated world's queues run (issue 14, item 1):
// none (the default behaviour), a program that answers (reply), one that chains each
// request to a relay service, one that fans out to Fan relays and gathers their replies
// per conversation group (a saga), or one that routes each request to one of Fan relays
// (By: round-robin, random, hash). The relays are one more queue and service per
// instance, on a contract of their own (SubRequest, SubReply), and end their dialogs
// (WITH ERROR when EndWithError) or answer the saga. Each program answers the workload's
// requests when the workload wants replies, so that the property's checks stay those of
// a world without programs.
type Program struct {
	Kind         int // 0 none, 1 reply, 2 chain, 3 fan-out and gather, 4 route
	Fan          int // relays a fan-out or a route reaches: 1 to 3
	By           int // RouteBy
	EndWithError bool
	Messages     int // SubRequests sent on each new dialog: 1 to 3
}

// Programs draws a Program: each kind alike, 1 to 3 relays, every RouteBy, ending WITH
// ERROR half the time, 1 to 3 SubRequests per dialog.
func Programs() gopter.Gen {
	return gopgen.Struct(reflect.TypeFor[Program](), map[string]gopter.Gen{
		"Kind":         gopgen.IntRange(0, 4),
		"Fan":          gopgen.IntRange(1, 3),
		"By":           gopgen.IntRange(0, 2),
		"EndWithError": gopgen.Bool(),
		"Messages":     gopgen.IntRange(1, 3),
	})
}

var programKinds = [...]string{"none", "reply", "chain", "saga", "route"}

// String names the kind and prints the other fields.
func (p Program) String() string {
	return fmt.Sprintf("%s fan=%d by=%v end-with-error=%v messages=%d", programKinds[p.Kind], p.Fan, scenarios.RouteBy(p.By), p.EndWithError, p.Messages)
}

// relay names the relay service of instance i, and its queue.
func relay(i int) string      { return fmt.Sprintf("PI%d", i) }
func relayQueue(i int) string { return fmt.Sprintf("PQI%d", i) }

// Apply gives cfg, the config of world w (World.Config, or a config built on it), the
// relays on every instance, and every queue of the world's services its program: on its
// readers (added where the queue has none and nothing activates it), or on the activation
// procedures. A Program of kind 0 leaves cfg as it is.
func (p Program) Apply(w World, cfg scenarios.Config) scenarios.Config {
	if p.Kind == 0 {
		return cfg
	}
	if w.Shared && w.Routing != 0 && p.Kind >= 2 {
		// A dialog begun from the service both I0 and I1 have, in a world whose routes name
		// it towards the other instance, has its replies routed there (RTE-2): a design
		// error of the world, not of the program. Such worlds only reply.
		p.Kind = 1
	}
	sub := model.Contract{Name: "S", Messages: []model.ContractMessage{
		{MessageType: "SubRequest", SentBy: model.SentByInitiator}, {MessageType: "SubReply", SentBy: model.SentByTarget}}}
	var queues []string
	for i := range cfg.Instances {
		if len(cfg.Instances[i].Databases) == 0 {
			continue // a forwarder
		}
		db := &cfg.Instances[i].Databases[0]
		queues = append(queues, db.Queues[0].Name)
		db.MessageTypes = append(db.MessageTypes, model.MessageType{Name: "SubRequest"}, model.MessageType{Name: "SubReply"})
		db.Contracts = append(db.Contracts, sub)
		db.Queues = append(db.Queues, model.Queue{Name: relayQueue(i), PoisonMessageHandlingOff: true})
		db.Services = append(db.Services, model.Service{Name: relay(i), Queue: relayQueue(i), Contracts: []string{"S"}})
	}
	end := scenarios.Statement{Kind: scenarios.StatementEnd}
	if p.EndWithError {
		end.ErrorCode = 50100
	}
	relayOn := []scenarios.Handler{{MessageType: "SubRequest", Do: []scenarios.Statement{end}}}
	if p.Kind == 3 {
		relayOn = []scenarios.Handler{{MessageType: "SubRequest", Do: []scenarios.Statement{{Kind: scenarios.StatementSend, MessageType: "SubReply", Size: scenarios.FixedSize(64)}}}}
	}
	for i := range cfg.Instances {
		if len(cfg.Instances[i].Databases) > 0 {
			cfg.Readers = append(cfg.Readers, scenarios.Reader{Queue: relayQueue(i), On: relayOn})
		}
	}
	routeRelays(w, &cfg)
	for i, q := range queues {
		on := p.handlers(w, i)
		k := slices.IndexFunc(cfg.Readers, func(r scenarios.Reader) bool { return r.Queue == q })
		switch {
		case k >= 0:
			cfg.Readers[k].On = on
		case len(cfg.Procedures) > 0:
		default:
			cfg.Readers = append(cfg.Readers, scenarios.Reader{Queue: q, On: on})
		}
	}
	for i := range cfg.Procedures {
		// Every instance's queue runs the one procedure: a program that chains, fans out or
		// routes to the relays from I0's on.
		cfg.Procedures[i].On = p.handlers(w, 0)
	}
	return cfg
}

// routeRelays declares the routes to the relays in a world that declares routes, as
// World.route does for its services: to the relay's instance, or through the chain
// of forwarders.
func routeRelays(w World, cfg *scenarios.Config) {
	if w.Routing == 0 {
		return
	}
	for i := range cfg.Instances {
		in := &cfg.Instances[i]
		for k := range w.Instances {
			name := relay(k)
			address := fmt.Sprintf("I%d", k)
			switch {
			case len(in.Databases) == 0: // forwarder F<f>: on to the next one, the last to the instance
				var f int
				fmt.Sscanf(in.Name, "F%d", &f)
				if f+1 < w.Forwarders {
					address = fmt.Sprintf("F%d", f+1)
				}
				in.Routes = append(in.Routes, model.Route{Name: "relay-" + name, ServiceName: name, Address: address})
			case address == in.Name:
			default:
				if w.Routing == 2 {
					address = "F0"
				}
				db := &in.Databases[0]
				db.Routes = append(db.Routes, model.Route{Name: "relay-" + name, ServiceName: name, Address: address})
			}
		}
	}
}

// handlers is the program of the queue of instance i: what it does with a Request, and
// with the relays' replies for a saga.
func (p Program) handlers(w World, i int) []scenarios.Handler {
	var do []scenarios.Statement
	if w.Replies {
		do = append(do, scenarios.Statement{Kind: scenarios.StatementSend, MessageType: "Reply", Size: scenarios.FixedSize(100)})
	}
	to := p.relays(w, i)
	dialog := scenarios.Statement{Contract: "S", MessageType: "SubRequest", Size: scenarios.FixedSize(200), Messages: p.Messages}
	switch p.Kind {
	case 2:
		dialog.Kind, dialog.ToServices = scenarios.StatementBeginDialog, to[:1]
	case 3:
		dialog.Kind, dialog.ToServices, dialog.Messages = scenarios.StatementFanOut, to, 1 // a saga waits for one reply per dialog
	case 4:
		dialog.Kind, dialog.ToServices, dialog.By, dialog.Messages = scenarios.StatementRoute, to, scenarios.RouteBy(p.By), 0
	}
	if p.Kind >= 2 {
		do = append(do, dialog)
	}
	on := []scenarios.Handler{{MessageType: "Request", Do: do}}
	if p.Kind == 3 {
		on = append(on, scenarios.Handler{MessageType: "SubReply", Do: []scenarios.Statement{{Kind: scenarios.StatementGather}}})
	}
	return on
}

// relays are the services instance i's program reaches: the relays of the next instances.
func (p Program) relays(w World, i int) []string {
	var to []string
	for k := range p.Fan {
		to = append(to, relay((i+k)%w.Instances))
	}
	return to
}
