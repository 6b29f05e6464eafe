package scenarios

import "github.com/sbsim/sbsim/model"

// endpointMetrics are the conversation endpoints left at the end of the run by state, one
// metric per state (endpoints.SO, endpoints.CO, endpoints.DI, ...): the rows of
// sys.conversation_endpoints grouped by its state column, those of event notification
// dialogs aside. One metric per state, rather than a state key, keeps an expectation to
// one line ({metric: endpoints.DI, instance: Fulfillment, equals: 360}) and a sweep to one
// column per state, with the instance key every instance figure takes.
func endpointMetrics() []Metric {
	var ms []Metric
	for st := model.StartedOutbound; st <= model.Closed; st++ {
		ms = append(ms, Metric{Name: "endpoints." + st.String(), Takes: InstanceKey,
			Doc: "conversation endpoints in state " + st.String() + " when the run stopped, as sys.conversation_endpoints lists them " +
				"(closed targets kept for their retention included, G-16; event notification dialogs aside); with an instance, on that one",
			value: instanceValue(func(in InstanceResult) float64 { return float64(in.endpointsIn(st)) })})
	}
	return ms
}

// endpointsIn counts the instance's endpoints left in state st.
func (in InstanceResult) endpointsIn(st model.EndpointState) int {
	for _, sc := range in.EndpointStates {
		if sc.State == st {
			return sc.Count
		}
	}
	return 0
}
