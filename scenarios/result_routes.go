package scenarios

import (
	"cmp"
	"slices"

	"github.com/sbsim/sbsim/model"
)

// DatabaseResult is one database at the end of the run: its broker instance
// (service_broker_guid) and its sys.routes.
type DatabaseResult struct {
	Name           string
	BrokerInstance string
	Routes         []model.RouteRow
}

// TransmissionQueueGroup counts the rows of sys.transmission_queue left at the end that
// share a database, a to_service_name and a transmission_status: how a user sees, in one
// line, the messages of delayed conversations (model.TransmissionStatusNoRoute).
type TransmissionQueueGroup struct {
	Database           string
	ToService          string
	TransmissionStatus string
	Rows               int
}

// routeResults fills an instance's row with its routes, its databases' routes, its
// transmission queue by group and its delayed conversations at the end.
func (w *world) routeResults(inst model.InstanceID, ir *InstanceResult) {
	b := w.brokers[inst]
	ir.Routes = b.Routes(model.Msdb)
	for _, db := range w.cat.Instances[inst].Databases {
		d := w.cat.Databases[db]
		ir.Databases = append(ir.Databases, DatabaseResult{Name: d.Name, BrokerInstance: w.cat.BrokerInstance(d.Broker),
			Routes: b.Routes(db)})
	}
	ir.TransmissionQueue = w.transmissionQueueGroups(b, b.TransmissionQueue())
	for _, ep := range ir.Endpoints {
		if ep.Delayed {
			ir.DelayedConversations++
		}
	}
	if w.delayed != nil {
		ir.ConversationsDelayed = w.delayed[inst]
	}
}

// transmissionQueueGroups counts rows of an instance's sys.transmission_queue by database,
// to_service_name and transmission_status, in that order.
func (w *world) transmissionQueueGroups(b *model.Broker, rows []model.TransmissionQueueRow) []TransmissionQueueGroup {
	var g txqGrouper
	for _, r := range rows {
		g.add(w, b, r)
	}
	return g.groups()
}

// txqGrouper counts rows of sys.transmission_queue by database, to_service_name and
// transmission_status, one row at a time.
type txqGrouper struct{ counted []TransmissionQueueGroup }

func (x *txqGrouper) add(w *world, b *model.Broker, r model.TransmissionQueueRow) {
	// The row is in its endpoint's database: the sender's, or for a message that arrived
	// and waits for an OFF queue (TXQ-4) the target's.
	service := r.FromService
	if ep, ok := b.Endpoint(r.ConversationHandle); ok {
		service = ep.Service
	}
	g := TransmissionQueueGroup{ToService: w.cat.ServiceNames[r.ToService], TransmissionStatus: r.TransmissionStatus}
	if service >= 0 {
		g.Database = w.cat.Databases[w.cat.Services[service].Database].Name
	}
	i := slices.IndexFunc(x.counted, func(y TransmissionQueueGroup) bool {
		return y.Database == g.Database && y.ToService == g.ToService && y.TransmissionStatus == g.TransmissionStatus
	})
	if i < 0 {
		x.counted = append(x.counted, g)
		i = len(x.counted) - 1
	}
	x.counted[i].Rows++
}

// groups returns the counts, by database, to_service_name and transmission_status.
func (x *txqGrouper) groups() []TransmissionQueueGroup {
	slices.SortFunc(x.counted, func(a, b TransmissionQueueGroup) int {
		return cmp.Or(cmp.Compare(a.Database, b.Database), cmp.Compare(a.ToService, b.ToService),
			cmp.Compare(a.TransmissionStatus, b.TransmissionStatus))
	})
	return x.counted
}

// countDelayed counts the conversations of an instance that were delayed (RTE-2 step 7),
// from its trace records: a conversation delayed, routed and delayed again counts twice.
func (w *world) countDelayed(inst model.InstanceID, r *model.TraceRecord) {
	if r.Kind == model.TraceDelayed {
		if w.delayed == nil {
			w.delayed = make([]int64, len(w.brokers))
		}
		w.delayed[inst]++
	}
}
