package scenarios

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"

	"github.com/sbsim/sbsim/model"
)

// programSpec is the reader program a generated world's queues run (issue 14, item 1):
// none (the default behaviour), a program that answers (reply), one that chains each
// request to a relay service, one that fans out to Fan relays and gathers their replies
// per conversation group (a saga), or one that routes each request to one of Fan relays
// (By: round-robin, random, hash). The relays are one more queue and service per
// instance, on a contract of their own (SubRequest, SubReply), and end their dialogs
// (WITH ERROR when EndWithError) or answer the saga. Each program answers the workload's
// requests when the workload wants replies, so that the property's checks stay those of
// a world without programs.
type programSpec struct {
	Kind         int // 0 none, 1 reply, 2 chain, 3 fan-out and gather, 4 route
	Fan          int // relays a fan-out or a route reaches: 1 to 3
	By           int // RouteBy
	EndWithError bool
	Messages     int // SubRequests sent on each new dialog: 1 to 3
}

func genProgramSpec() gopter.Gen {
	return gen.Struct(reflect.TypeFor[programSpec](), map[string]gopter.Gen{
		"Kind":         gen.IntRange(0, 4),
		"Fan":          gen.IntRange(1, 3),
		"By":           gen.IntRange(0, 2),
		"EndWithError": gen.Bool(),
		"Messages":     gen.IntRange(1, 3),
	})
}

var programSpecKinds = [...]string{"none", "reply", "chain", "saga", "route"}

func (p programSpec) String() string {
	return fmt.Sprintf("%s fan=%d by=%v end-with-error=%v messages=%d", programSpecKinds[p.Kind], p.Fan, RouteBy(p.By), p.EndWithError, p.Messages)
}

// relay names the relay service of instance i, and its queue.
func relay(i int) string      { return fmt.Sprintf("PI%d", i) }
func relayQueue(i int) string { return fmt.Sprintf("PQI%d", i) }

// apply gives cfg's instances their relays and every queue of the world's services its
// program: on its readers (added where the queue has none and nothing activates it), or
// on the activation procedures.
func (p programSpec) apply(w worldSpec, cfg Config) Config {
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
	end := Statement{Kind: StatementEnd}
	if p.EndWithError {
		end.ErrorCode = 50100
	}
	relayOn := []Handler{{MessageType: "SubRequest", Do: []Statement{end}}}
	if p.Kind == 3 {
		relayOn = []Handler{{MessageType: "SubRequest", Do: []Statement{{Kind: StatementSend, MessageType: "SubReply", Size: FixedSize(64)}}}}
	}
	for i := range cfg.Instances {
		if len(cfg.Instances[i].Databases) > 0 {
			cfg.Readers = append(cfg.Readers, Reader{Queue: relayQueue(i), On: relayOn})
		}
	}
	routeRelays(w, &cfg)
	for i, q := range queues {
		on := p.handlers(w, i)
		k := slices.IndexFunc(cfg.Readers, func(r Reader) bool { return r.Queue == q })
		switch {
		case k >= 0:
			cfg.Readers[k].On = on
		case len(cfg.Procedures) > 0:
		default:
			cfg.Readers = append(cfg.Readers, Reader{Queue: q, On: on})
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
// worldSpec.route does for its services: to the relay's instance, or through the chain
// of forwarders.
func routeRelays(w worldSpec, cfg *Config) {
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
func (p programSpec) handlers(w worldSpec, i int) []Handler {
	var do []Statement
	if w.Replies {
		do = append(do, Statement{Kind: StatementSend, MessageType: "Reply", Size: FixedSize(100)})
	}
	to := p.relays(w, i)
	dialog := Statement{Contract: "S", MessageType: "SubRequest", Size: FixedSize(200), Messages: p.Messages}
	switch p.Kind {
	case 2:
		dialog.Kind, dialog.ToServices = StatementBeginDialog, to[:1]
	case 3:
		dialog.Kind, dialog.ToServices, dialog.Messages = StatementFanOut, to, 1 // a saga waits for one reply per dialog
	case 4:
		dialog.Kind, dialog.ToServices, dialog.By, dialog.Messages = StatementRoute, to, RouteBy(p.By), 0
	}
	if p.Kind >= 2 {
		do = append(do, dialog)
	}
	on := []Handler{{MessageType: "Request", Do: do}}
	if p.Kind == 3 {
		on = append(on, Handler{MessageType: "SubReply", Do: []Statement{{Kind: StatementGather}}})
	}
	return on
}

// relays are the services instance i's program reaches: the relays of the next instances.
func (p programSpec) relays(w worldSpec, i int) []string {
	var to []string
	for k := range p.Fan {
		to = append(to, relay((i+k)%w.Instances))
	}
	return to
}

// checkPrograms adds to the property's checks what a program must have done: no SEND or
// END failed but for a dialog that failed (lifetimes, END WITH ERROR) or a reply that a
// fire-and-forget initiator no longer takes (counted in send_failures), and a saga gathered
// every reply of the relays.
func checkPrograms(p programSpec, w worldSpec, res *Result) []string {
	if p.Kind == 0 {
		return nil
	}
	var problems []string
	var relayed, gathered, failures, refused int64
	for _, wl := range res.Workloads {
		if wl.End == EndFireAndForget {
			refused += wl.SendFailures // the replies a fire-and-forget initiator cannot get (DLG-11)
		}
	}
	for _, r := range res.Readers {
		if len(r.Queue) > 3 && r.Queue[:3] == "PQI" {
			relayed += r.Messages
			continue
		}
		gathered += r.Ends
		failures += r.StatementFailures
	}
	if failures > refused && w.LifetimeMs <= 0 && !w.EndWithError {
		problems = append(problems, fmt.Sprintf("programs: %d statements failed in a world where no dialog fails (%d refused replies of fire-and-forget)", failures, refused))
	}
	if p.Kind == 3 && w.LifetimeMs <= 0 && !w.EndWithError && gathered != relayed {
		problems = append(problems, fmt.Sprintf("programs: %d sub-dialogs ended by the sagas for %d requests the relays answered", gathered, relayed))
	}
	return problems
}
