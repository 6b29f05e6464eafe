package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forwardingInstances is a branch A whose dialogs to Target at B go through the forwarders
// named in between (a gateway, or a chain), each with MESSAGE_FORWARDING on and msdb routes
// to the next hop for Target and to the previous one for Initiator; B routes its replies
// and acknowledgements back through the last forwarder. Instances: A, the forwarders in
// order, then B.
func forwardingInstances(forwarders ...string) []Instance {
	in := testInstances()
	a, b := in[0], in[1]
	hops := append(append([]string{"A"}, forwarders...), "B")
	a.Databases[0].Routes = []Route{{Name: "to-target", ServiceName: "Target", Address: hops[1]}}
	b.Databases[0].Routes = []Route{{Name: "to-initiator", ServiceName: "Initiator", Address: hops[len(hops)-2]}}
	out := []Instance{a}
	for i, name := range forwarders {
		out = append(out, Instance{Name: name, Forwarding: Forwarding{Enabled: true},
			Routes: []Route{{Name: "on", ServiceName: "Target", Address: hops[i+2]}, {Name: "back", ServiceName: "Initiator", Address: hops[i]}}})
	}
	return append(out, b)
}

// instanceNamed returns the id of an instance of the test world.
func (w *world) instanceNamed(name string) InstanceID {
	id, ok := w.cat.Instance(name)
	require.True(w.t, ok, "instance %q", name)
	return id
}

// RTE-5: a forwarder passes fragments on one by one, without reassembling the message and
// without acknowledging: the final destination acknowledges, through the forwarder, and
// only then does the initiator's transmission queue let the message go.
func TestRTE5_AForwarderPassesFragmentsOnWithoutReassemblyOrAcknowledging(t *testing.T) {
	w := newWorldOf(t, Config{FragmentSize: 256}, forwardingInstances("F"))
	f, b := w.instanceNamed("F"), w.instanceNamed("B")
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 1000)) // 4 fragments
	w.settle()

	assert.Equal(t, int64(4), w.brokers[f].Counters().FragmentsForwarded)
	assert.Empty(t, w.records(f, TraceFragmentStored), "no reassembly at the forwarder")
	fc := w.brokers[f].Counters()
	assert.Positive(t, fc.AcksForwarded, "the target's acknowledgement travels back through it")
	assert.Equal(t, fc.AcksForwarded, fc.AcksSent, "every acknowledgement the forwarder sent, it passed on: none is its own")
	assert.Empty(t, w.brokers[f].Endpoints(), "the forwarder has no endpoint of the dialog")
	assert.Len(t, w.records(b, TraceFragmentStored), 4)
	ep, ok := w.endpointOf(b, conversationOf(w, h), false)
	require.True(t, ok)
	assert.Equal(t, 1, ep.ReadyMessages)
	assert.Equal(t, f, ep.FarInstance, "the target's way back is the forwarder")
	assert.Empty(t, w.brokers[instA].TransmissionQueue(), "acknowledged end to end")
	for _, r := range w.records(f, TraceForwarded) {
		assert.Equal(t, b, r.Peer)
	}
	assert.Zero(t, w.brokers[f].ForwardHeldBytes(), "nothing left in memory")
}

// PRI-14: forwarded messages leave at level 5, whatever the dialog's level.
func TestPRI14_ForwardedMessagesLeaveAtLevel5(t *testing.T) {
	in := forwardingInstances("F")
	in[0].Databases[0].HonorBrokerPriority = true
	in[0].Databases[0].Priorities = []BrokerPriority{{Name: "high", Level: 10}}
	w := newWorldOf(t, Config{}, in)
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 100))
	w.settle()

	sent := w.records(instA, TraceScheduled)
	require.NotEmpty(t, sent)
	assert.Equal(t, 10, sent[0].Priority.Level(), "the initiator sends at its level")
	fwd := w.records(w.instanceNamed("F"), TraceForwarded)
	require.NotEmpty(t, fwd)
	for _, r := range fwd {
		assert.Equal(t, 5, r.Priority.Level())
	}
}

// RTE-4: with forwarding off, a message for a service msdb routes elsewhere is dropped;
// the initiator keeps it and retries, so nothing is lost and nothing arrives.
func TestRTE4_WithoutForwardingAMessageForElsewhereIsDropped(t *testing.T) {
	in := forwardingInstances("F")
	in[1].Forwarding.Enabled = false
	w := newWorldOf(t, Config{}, in)
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 100))
	w.runUntil(30 * time.Second)

	drops := w.records(w.instanceNamed("F"), TraceFragmentDiscarded)
	require.NotEmpty(t, drops)
	assert.Equal(t, ReasonNotForwarded, drops[0].Reason)
	assert.Len(t, w.brokers[instA].TransmissionQueue(), 1, "kept by the sender")
	assert.Empty(t, w.records(w.instanceNamed("B"), TraceFragmentStored))
}

// RTE-6 and G-27: a fragment makes at most HopBudget hops; a forwarding loop ends.
func TestRTE6_G27_AForwardingLoopEnds(t *testing.T) {
	in := forwardingInstances("F1", "F2")
	in[2].Routes[0].Address = "F1" // F2 sends Target back to F1: a loop
	w := newWorldOf(t, Config{}, in)
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 100))
	w.runUntil(time.Second) // before the first retry

	f1, f2 := w.instanceNamed("F1"), w.instanceNamed("F2")
	forwarded := w.brokers[f1].Counters().FragmentsForwarded + w.brokers[f2].Counters().FragmentsForwarded
	assert.Equal(t, int64(HopBudget), forwarded, "one fragment, 32 hops")
	var hops []TraceRecord
	for _, i := range []InstanceID{f1, f2} {
		for _, r := range w.records(i, TraceFragmentDiscarded) {
			hops = append(hops, r)
		}
	}
	require.Len(t, hops, 1)
	assert.Equal(t, ReasonHops, hops[0].Reason)
	assert.Len(t, w.brokers[instA].TransmissionQueue(), 1)
}

// RTE-6: a forwarder discards a fragment whose dialog's lifetime is over.
func TestRTE6_AForwarderDropsWhatOutlivedItsDialog(t *testing.T) {
	w := newWorldOf(t, Config{}, forwardingInstances("F"))
	f := w.instanceNamed("F")
	frag := Fragment{Conversation: 99, FromInitiator: true, Count: 1, Bytes: 10, MessageBytes: 10,
		FromService: w.name("Initiator"), ToService: w.name("Target"), Lifetime: time.Second}
	w.inject(2*time.Second, &Packet{From: instA, To: f, Fragments: []Fragment{frag}})
	w.settle()

	drops := w.records(f, TraceFragmentDiscarded)
	require.Len(t, drops, 1)
	assert.Equal(t, ReasonLifetime, drops[0].Reason)
	assert.Zero(t, w.brokers[f].Counters().FragmentsForwarded)
}

// RTE-5: a fragment that would take the forwarder past MESSAGE_FORWARD_SIZE is dropped; the
// sender's retries bring it again once there is room, and the message is delivered once.
func TestRTE5_OverTheForwardSizeIsDroppedAndRetried(t *testing.T) {
	in := forwardingInstances("F")
	in[1].Forwarding.MaxBytes = 400 // one fragment of 256 bytes and its header
	w := newWorldOf(t, Config{FragmentSize: 256}, in)
	f := w.instanceNamed("F")
	w.wirePerFragment = 100 * time.Millisecond // the forwarder cannot pass them on at once
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 1000))
	w.settle()

	full := 0
	for _, r := range w.records(f, TraceFragmentDiscarded) {
		if r.Reason == ReasonForwardFull {
			full++
		}
	}
	assert.Positive(t, full)
	ep, ok := w.endpointOf(w.instanceNamed("B"), conversationOf(w, h), false)
	require.True(t, ok)
	assert.Equal(t, 1, ep.ReadyMessages)
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
}

// A chain of forwarders works both ways.
func TestRTE5_AChainOfForwarders(t *testing.T) {
	w := newWorldOf(t, Config{FragmentSize: 256}, forwardingInstances("F1", "F2", "F3"))
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	for range 3 {
		require.NoError(t, w.send(instA, h, "Request", 600))
	}
	w.settle()
	b := w.instanceNamed("B")
	ep, ok := w.endpointOf(b, conversationOf(w, h), false)
	require.True(t, ok)
	require.Equal(t, 3, ep.ReadyMessages)
	require.NoError(t, w.send(b, ep.ConversationHandle, "Reply", 600))
	w.settle()

	back, ok := w.brokers[instA].Endpoint(h)
	require.True(t, ok)
	assert.Equal(t, 1, back.ReadyMessages, "the reply came back through the chain")
	assert.Empty(t, w.brokers[instA].TransmissionQueue())
	assert.Empty(t, w.brokers[b].TransmissionQueue())
	for _, name := range []string{"F1", "F2", "F3"} {
		assert.Equal(t, int64(9+3), w.brokers[w.instanceNamed(name)].Counters().FragmentsForwarded, name)
	}
}

// RTE-5: a forwarder whose msdb lacks the way back (AutoCreatedLocal catches the reply) does
// not acknowledge what is not for one of its databases: it drops it, the target keeps its
// reply and sends it again, and the reply arrives once the route back exists.
func TestRTE5_AForwarderWithoutTheRouteBackDropsRepliesUnacknowledged(t *testing.T) {
	in := forwardingInstances("F")
	in[1].Routes = in[1].Routes[:1] // only the way on
	w := newWorldOf(t, Config{}, in)
	f, b := w.instanceNamed("F"), w.instanceNamed("B")
	h := w.begin("Initiator", "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, w.send(instA, h, "Request", 100))
	w.runUntil(time.Second)
	ep, ok := w.endpointOf(b, conversationOf(w, h), false)
	require.True(t, ok)
	require.NoError(t, w.send(b, ep.ConversationHandle, "Reply", 100))
	w.runUntil(30 * time.Second)

	assert.Len(t, w.brokers[b].TransmissionQueue(), 1, "the reply is not acknowledged by the forwarder")
	var noRoute int
	for _, r := range w.records(f, TraceFragmentDiscarded) {
		if r.Reason == ReasonNoRoute {
			noRoute++
		}
	}
	assert.Positive(t, noRoute)

	require.NoError(t, w.brokers[f].CreateRoute(w.now, Msdb, Route{Name: "back", ServiceName: "Initiator", Address: "A"}))
	w.drain(f)
	w.runUntil(w.now + 2*time.Minute)
	back, _ := w.brokers[instA].Endpoint(h)
	assert.Equal(t, 1, back.ReadyMessages, "the reply arrives once the route back exists")
	assert.Empty(t, w.brokers[b].TransmissionQueue())
}
