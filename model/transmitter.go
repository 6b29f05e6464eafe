package model

// transmitter lists the same-instance dialogs that have something to deliver. Direct
// delivery ignores levels (PRI-13), so they go first in, first out; dialogs between
// instances go through the scheduler by level instead (scheduler.go).
type transmitter interface {
	// ready adds an endpoint that has fragments due. The broker never adds an endpoint
	// that is already waiting.
	ready(ep *endpoint)
	// next returns the endpoint to serve now, or nil when none waits.
	next() *endpoint
}

// fifoTransmitter serves endpoints in the order they became ready: messages leave in the
// order they were sent, across conversations.
type fifoTransmitter struct {
	list []*endpoint
	head int
}

func (t *fifoTransmitter) ready(ep *endpoint) { t.list = append(t.list, ep) }

func (t *fifoTransmitter) next() *endpoint {
	if t.head == len(t.list) {
		t.list, t.head = t.list[:0], 0
		return nil
	}
	ep := t.list[t.head]
	t.list[t.head] = nil
	t.head++
	if t.head > 1024 && t.head > len(t.list)/2 {
		n := copy(t.list, t.list[t.head:])
		clear(t.list[n:])
		t.list, t.head = t.list[:n], 0
	}
	return ep
}
