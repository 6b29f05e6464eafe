package model

import "slices"

// EndpointStateCounts counts conversation endpoints by state, indexed by EndpointState
// (index 0 is unused): the rows of sys.conversation_endpoints grouped by state.
type EndpointStateCounts [Closed + 1]int

// EndpointStates counts the endpoints of a local database by state, as
// sys.conversation_endpoints lists them (closed targets under retention included,
// endpoints ended WITH CLEANUP left out), those of event notification dialogs aside
// (ACT-11): zero for another instance's database. The counts are kept as endpoints are
// created, change state and are deleted, so that reading them costs nothing however many
// conversations the instance holds.
func (b *Broker) EndpointStates(db DatabaseID) EndpointStateCounts {
	if db < 0 || int(db) >= len(b.endpointStates) {
		return EndpointStateCounts{}
	}
	return b.endpointStates[db]
}

// countState moves ep from state from to state to in the counts, while it is listed.
func (b *Broker) countState(ep *endpoint, from, to EndpointState) {
	if !ep.listed || ep.contract == PostEventNotificationContract {
		return
	}
	if b.endpointStates == nil {
		b.endpointStates = make([]EndpointStateCounts, len(b.cat.Databases))
	}
	c := &b.endpointStates[b.cat.Services[ep.service].Database]
	if from != 0 {
		c[from]--
	}
	if to != 0 {
		c[to]++
	}
}

// list adds ep to sys.conversation_endpoints; unlist takes it out, once.
func (b *Broker) list(ep *endpoint) {
	b.endpoints.set(uint64(ep.handle), ep)
	ep.listed = true
	b.countState(ep, 0, ep.state)
}

func (b *Broker) unlist(ep *endpoint) {
	b.countState(ep, ep.state, 0)
	ep.listed = false
	b.endpoints.remove(uint64(ep.handle))
}

// EndpointsUpTo returns the first n rows of sys.conversation_endpoints, by handle, as
// Endpoints would list them, and how many rows there are in all: a bounded look at an
// instance that may hold a million endpoints, without building every row.
func (b *Broker) EndpointsUpTo(n int) (rows []ConversationEndpoint, total int) {
	first := make([]ConversationHandle, 0, min(n, b.endpoints.len())) // the n smallest handles, in order
	for ep := range b.endpoints.all {
		h := ep.handle
		if len(first) == n && (n == 0 || h > first[n-1]) {
			continue
		}
		i, _ := slices.BinarySearch(first, h)
		if len(first) < n {
			first = append(first, 0)
		}
		copy(first[i+1:], first[i:len(first)-1])
		first[i] = h
	}
	rows = make([]ConversationEndpoint, 0, len(first))
	for _, h := range first {
		rows = append(rows, b.endpoints.get(uint64(h)).row())
	}
	return rows, b.endpoints.len()
}
