package scenarios

import (
	"fmt"
	"reflect"
	"time"

	"github.com/sbsim/sbsim/model"
)

// endpointProbe compares, at instants of a run, every database's endpoint counts by state
// (model.Broker.EndpointStates, kept as endpoints change) with a count of the rows of
// sys.conversation_endpoints (Endpoints) made there and then. Its instants are spaced by
// an interval that doubles every 32 probes, so that a run of hours costs few probes; it
// stops when nothing else is left to happen.
type endpointProbe struct {
	w        *world
	interval time.Duration
	probes   int
	problem  string
}

func (p *endpointProbe) HandleEvent(uint64) {
	if p.problem == "" {
		p.problem = endpointCountsProblem(p.w)
	}
	p.probes++
	if p.probes%32 == 0 {
		p.interval *= 2
	}
	if p.w.e.Pending() > 0 {
		p.w.e.After(p.interval, p, 0)
	}
}

// endpointCountsProblem describes the first database whose counts differ from a count of
// its endpoints, or returns "".
func endpointCountsProblem(w *world) string {
	for i, b := range w.brokers {
		want := make([]model.EndpointStateCounts, len(w.cat.Databases))
		all := b.Endpoints()
		if first, total := b.EndpointsUpTo(5); total != len(all) || !reflect.DeepEqual(first, all[:min(5, len(all))]) {
			return fmt.Sprintf("t=%v: instance %s: EndpointsUpTo(5) gave %d rows of %d, not the first of sys.conversation_endpoints' %d",
				w.now(), w.cat.Instances[i].Name, len(first), total, len(all))
		}
		txq := b.TransmissionQueue()
		var oldest []model.TransmissionQueueRow
		b.EachTransmissionQueueRow(func(r model.TransmissionQueueRow) { oldest = keepOldest(oldest, 5, r) })
		if want := txq[:min(5, len(txq))]; !reflect.DeepEqual(oldest, want) && (len(oldest) > 0 || len(want) > 0) {
			return fmt.Sprintf("t=%v: instance %s: the oldest transmission queue rows a snapshot keeps are %v, not %v",
				w.now(), w.cat.Instances[i].Name, oldest, want)
		}
		for _, ep := range all {
			if ep.Contract != model.PostEventNotificationContract {
				want[w.cat.Services[ep.Service].Database][ep.State]++
			}
		}
		for d := range w.cat.Databases {
			if got := b.EndpointStates(model.DatabaseID(d)); got != want[d] {
				return fmt.Sprintf("t=%v: instance %s, database %d: endpoint counts %v, but sys.conversation_endpoints has %v",
					w.now(), w.cat.Instances[i].Name, d, got, want[d])
			}
		}
	}
	return ""
}

// CheckEndpointCounts runs cfg with seed and an endpointProbe, and describes the first
// difference the probe saw, or returns "". It is exported for the property of the external
// tests (endpoint_states_property_test.go), which draw the worlds from scenarios/gen.
func CheckEndpointCounts(cfg Config, seed uint64) string {
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return "compile: " + err.Error()
	}
	if err := cfg.Validate(cat); err != nil {
		return "validate: " + err.Error()
	}
	w, err := build(&cfg, cat, seed)
	if err != nil {
		return "build: " + err.Error()
	}
	probe := &endpointProbe{w: w, interval: 50 * time.Millisecond}
	w.e.Schedule(0, probe, 0)
	w.run()
	if probe.problem == "" {
		probe.problem = endpointCountsProblem(w) // at the end too
	}
	if probe.problem != "" {
		return fmt.Sprintf("seed %d: %s", seed, probe.problem)
	}
	return ""
}
