package results

import (
	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// Route is a row of sys.routes at the end of the run (model.RouteRow): lifetime_s is the
// LIFETIME it was given (null for none), expires_s when it expires, or expired (null for
// never).
type Route struct {
	Name           string   `json:"name"`
	ServiceName    string   `json:"service_name"`
	BrokerInstance string   `json:"broker_instance"`
	Address        string   `json:"address"`
	MirrorAddress  string   `json:"mirror_address"`
	LifetimeS      *float64 `json:"lifetime_s"`
	ExpiresS       *float64 `json:"expires_s"`
}

// Database is one database at the end: its broker instance and its sys.routes.
type Database struct {
	Database       string  `json:"database"`
	BrokerInstance string  `json:"broker_instance"`
	Routes         []Route `json:"routes"`
}

// TransmissionQueueGroup counts the rows of sys.transmission_queue left at the end with
// one database, to_service_name and transmission_status.
type TransmissionQueueGroup struct {
	Database           string `json:"database"`
	ToServiceName      string `json:"to_service_name"`
	TransmissionStatus string `json:"transmission_status"`
	Rows               int    `json:"rows"`
}

func routes(in []model.RouteRow) []Route {
	out := make([]Route, 0, len(in))
	for _, r := range in {
		row := Route{Name: r.Name, ServiceName: r.ServiceName, BrokerInstance: r.BrokerInstance, Address: r.Address,
			MirrorAddress: r.MirrorAddress}
		if r.Lifetime > 0 {
			row.LifetimeS = optionalSeconds(r.Lifetime)
		}
		if r.Expires > 0 {
			row.ExpiresS = optionalSeconds(r.Expires)
		}
		out = append(out, row)
	}
	return out
}

// routeRows fills an instance's routing keys: msdb's routes, the databases', the
// transmission queue by group and the delayed conversations.
func routeRows(row *Instance, r *scenarios.InstanceResult) {
	row.Routes, row.Databases, row.TransmissionQueue = routes(r.Routes), []Database{}, []TransmissionQueueGroup{}
	for _, db := range r.Databases {
		row.Databases = append(row.Databases, Database{Database: db.Name, BrokerInstance: db.BrokerInstance, Routes: routes(db.Routes)})
	}
	for _, g := range r.TransmissionQueue {
		row.TransmissionQueue = append(row.TransmissionQueue, TransmissionQueueGroup{Database: g.Database,
			ToServiceName: g.ToService, TransmissionStatus: g.TransmissionStatus, Rows: g.Rows})
	}
	row.DelayedConversations, row.ConversationsDelayed = r.DelayedConversations, r.ConversationsDelayed
}
