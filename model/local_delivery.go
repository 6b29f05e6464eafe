package model

// localDeliveryList lists the same-instance dialogs that have something to deliver. Direct
// delivery ignores levels (PRI-13), so they go first in, first out; dialogs between
// instances go through the scheduler by level instead (scheduler.go).
type localDeliveryList interface {
	// ready adds an endpoint that has fragments due. The broker never adds an endpoint
	// that is already waiting.
	ready(ep *endpoint)
	// next returns the endpoint to serve now, or nil when none waits.
	next() *endpoint
}

// fifoDeliveryList serves endpoints in the order they became ready: messages leave in the
// order they were sent, across conversations.
type fifoDeliveryList struct {
	list []*endpoint
	head int
}

func (l *fifoDeliveryList) ready(ep *endpoint) { l.list = append(l.list, ep) }

func (l *fifoDeliveryList) next() *endpoint {
	if l.head == len(l.list) {
		l.list, l.head = l.list[:0], 0
		return nil
	}
	ep := l.list[l.head]
	l.list[l.head] = nil
	l.head++
	if l.head > 1024 && l.head > len(l.list)/2 {
		n := copy(l.list, l.list[l.head:])
		clear(l.list[n:])
		l.list, l.head = l.list[:n], 0
	}
	return ep
}
