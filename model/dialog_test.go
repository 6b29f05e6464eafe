package model

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dialog is one conversation of the test world, seen from both sides.
type dialog struct {
	w         *world
	initiator ConversationHandle
	conv      ConversationID
	targetAt  InstanceID
}

// beginDialog begins a dialog from Initiator to the target service on the contract.
func beginDialog(w *world, target, contract string, opts BeginDialogOptions) *dialog {
	h := w.begin("Initiator", target, contract, opts)
	ep, ok := w.brokers[instA].Endpoint(h)
	require.True(w.t, ok)
	return &dialog{w: w, initiator: h, conv: ep.ConversationID, targetAt: w.cat.Services[w.service(target)].Instance}
}

// establish begins a dialog from Initiator to Target, sends one Request and lets it arrive
// and be acknowledged.
func establish(w *world) *dialog {
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(w.t, d.sendRequest())
	w.runUntil(w.now + time.Second)
	_, ok := d.target()
	require.True(w.t, ok, "the target endpoint exists once the first message arrived")
	return d
}

func (d *dialog) sendRequest() error { return d.w.send(instA, d.initiator, "Request", 100) }

func (d *dialog) sendReply() error {
	t, ok := d.target()
	require.True(d.w.t, ok, "a target endpoint to reply from")
	return d.w.send(d.targetAt, t.ConversationHandle, "Reply", 100)
}

// target returns the target endpoint, if the target instance has one.
func (d *dialog) target() (ConversationEndpoint, bool) {
	return d.w.endpointOf(d.targetAt, d.conv, false)
}

// state returns an endpoint's state code, or "" when the instance has no endpoint for the
// dialog.
func (d *dialog) state(initiator bool) string {
	inst := instA
	if !initiator {
		inst = d.targetAt
	}
	if ep, ok := d.w.endpointOf(inst, d.conv, initiator); ok {
		return ep.State.String()
	}
	return ""
}

func (d *dialog) endInitiator(opts EndOptions) error { return d.w.end(instA, d.initiator, opts) }

func (d *dialog) endTarget(opts EndOptions) error {
	t, ok := d.target()
	require.True(d.w.t, ok, "a target endpoint to end")
	return d.w.end(d.targetAt, t.ConversationHandle, opts)
}

// fragmentsSentBy counts the fragments instance i put in packets since time from.
func (w *world) fragmentsSentBy(i InstanceID, from time.Duration) int {
	n := 0
	for _, r := range w.records(i, TraceFragmentSent) {
		if r.At >= from {
			n++
		}
	}
	return n
}

// Reference: BEGIN DIALOG CONVERSATION; spec DLG-1: the initiator endpoint is created in SO,
// in a new group, and nothing goes on the network before the first SEND.
func TestDLG1_BeginCreatesStartedOutboundAndTransmitsNothing(t *testing.T) {
	for _, lifetime := range []time.Duration{0, time.Minute} {
		t.Run("lifetime "+lifetime.String(), func(t *testing.T) {
			w := newWorld(t, Config{})
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: lifetime})
			ep, ok := w.brokers[instA].Endpoint(d.initiator)
			require.True(t, ok)
			assert.Equal(t, StartedOutbound, ep.State)
			assert.True(t, ep.IsInitiator)
			assert.Equal(t, w.service("Initiator"), ep.Service)
			assert.Equal(t, w.name("Target"), ep.FarService)
			assert.Equal(t, instB, ep.FarInstance)
			assert.NotZero(t, ep.ConversationGroupID)
			assert.Equal(t, SequenceNumber(0), ep.SendSequence)
			assert.Equal(t, SequenceNumber(-1), ep.EndDialogSequence)
			assert.Zero(t, ep.TransmissionRows)
			assert.Empty(t, w.brokers[instA].TransmissionQueue())

			w.settle()
			assert.Empty(t, w.sent, "no packet before the first SEND")
			assert.Empty(t, w.brokers[instB].Endpoints(), "the target knows nothing")
			for _, c := range w.brokers[instA].Connections() {
				assert.Equal(t, ConnectionClosed, c.State, "no connection to instance %d", c.Peer)
			}
			assert.Zero(t, w.brokers[instA].TransmissionObjectBytes())
		})
	}
}

// Reference: SEND; spec DLG-16: the message type must be allowed by the contract for the
// sending side; the DEFAULT type goes on the DEFAULT contract; the body may be empty.
func TestDLG16_SendChecksTheContractForTheSide(t *testing.T) {
	tests := []struct {
		name        string
		contract    string
		fromTarget  bool
		messageType string
		bytes       int64
		wantErr     error
	}{
		{"initiator sends its request", "RequestReply", false, "Request", 100, nil},
		{"initiator sends an empty request", "RequestReply", false, "Request", 0, nil},
		{"initiator sends the target's reply", "RequestReply", false, "Reply", 100, ErrMessageTypeNotAllowed},
		{"initiator sends DEFAULT on a contract without it", "RequestReply", false, MessageTypeDefault, 100, ErrMessageTypeNotAllowed},
		{"initiator sends EndDialog", "RequestReply", false, MessageTypeEndDialog, 0, ErrMessageTypeNotAllowed},
		{"initiator sends Error", "RequestReply", false, MessageTypeError, 0, ErrMessageTypeNotAllowed},
		{"initiator sends DEFAULT on DEFAULT", ContractDefault, false, MessageTypeDefault, 100, nil},
		{"initiator sends a request on DEFAULT", ContractDefault, false, "Request", 100, ErrMessageTypeNotAllowed},
		{"initiator sends a body over the cap", "RequestReply", false, "Request", MaxMessageBytes + 1, ErrMessageTooLarge},
		{"target sends its reply", "RequestReply", true, "Reply", 100, nil},
		{"target sends the initiator's request", "RequestReply", true, "Request", 100, ErrMessageTypeNotAllowed},
		{"target sends DEFAULT on DEFAULT", ContractDefault, true, MessageTypeDefault, 100, nil},
		{"target sends a reply on DEFAULT", ContractDefault, true, "Reply", 100, ErrMessageTypeNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			d := beginDialog(w, "Target", tt.contract, BeginDialogOptions{})
			inst, h := instA, d.initiator
			if tt.fromTarget {
				first := "Request"
				if tt.contract == ContractDefault {
					first = MessageTypeDefault
				}
				require.NoError(t, w.send(instA, d.initiator, first, 10))
				w.runUntil(time.Second)
				tep, ok := d.target()
				require.True(t, ok)
				inst, h = instB, tep.ConversationHandle
			}
			before, _ := w.brokers[inst].Endpoint(h)
			err := w.send(inst, h, tt.messageType, tt.bytes)
			after, _ := w.brokers[inst].Endpoint(h)
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, before.SendSequence+1, after.SendSequence)
				assert.Equal(t, Conversing, after.State)
				return
			}
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Equal(t, before, after, "a refused SEND changes nothing")
		})
	}
}

// sendErrorFor is the error SEND gets in a state, by G-16: allowed only in SO and CO; an
// ended or unknown handle is not found (DLG-11).
func sendErrorFor(state string) error {
	switch state {
	case "SO", "CO":
		return nil
	case "DI", "ER", "SI":
		return ErrConversationNotSending
	}
	return ErrHandleNotFound
}

// Reference: sys.conversation_endpoints, column state; spec DLG-4 and the transition table
// G-16. Each script builds and drives a dialog from A to B; then both endpoints' states are
// checked ("" when the instance keeps no endpoint for the dialog), the quiet ones check that
// nobody sends a fragment afterwards, and SEND is tried on each side (allowed only in SO, CO).
func TestG16_EndpointTransitions(t *testing.T) {
	later := func(w *world, d time.Duration) { w.runUntil(w.now + d) }
	lostLastFragment := func(p *Packet, n int) action {
		if p.From == instA && n == 0 {
			p.Fragments = p.Fragments[:len(p.Fragments)-1]
		}
		return deliver
	}
	tests := []struct {
		name                  string
		cfg                   Config
		script                func(w *world) *dialog
		wantInitiator, wantTo string
		quiet                 bool // nothing is sent once the script is done
	}{
		{"BEGIN ⇒ SO", Config{}, func(w *world) *dialog {
			return beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
		}, "SO", "", true},
		{"first SEND ⇒ initiator CO; whole first message ⇒ target CO", Config{}, establish, "CO", "CO", false},
		{"fragmented first message ⇒ target SI", Config{FragmentSize: 256}, func(w *world) *dialog {
			w.filter = lostLastFragment
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", 1000))
			later(w, time.Second)
			return d
		}, "CO", "SI", false},
		{"first message completed by a retry ⇒ SI→CO", Config{FragmentSize: 256}, func(w *world) *dialog {
			w.filter = lostLastFragment
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", 1000))
			later(w, 10*time.Second)
			return d
		}, "CO", "CO", false},
		{"END from CO ⇒ DO; EndDialog received ⇒ DI", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endInitiator(EndOptions{}))
			later(w, latency+time.Millisecond)
			return d
		}, "DO", "DI", false},
		{"DO + ack ⇒ CD, and a closed initiator is deleted at once", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endInitiator(EndOptions{}))
			later(w, time.Second)
			return d
		}, "", "DI", true},
		{"END from DI ⇒ CD, and a closed target is retained", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endInitiator(EndOptions{}))
			later(w, time.Second)
			require.NoError(t, d.endTarget(EndOptions{}))
			return d
		}, "", "CD", true},
		{"target END from CO ⇒ DO; initiator DI", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endTarget(EndOptions{}))
			later(w, latency+time.Millisecond)
			return d
		}, "DI", "DO", false},
		{"target DO + ack ⇒ CD, retained", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endTarget(EndOptions{}))
			later(w, time.Second)
			return d
		}, "DI", "CD", true},
		{"END from SO ⇒ CD, deleted, nothing sent", Config{}, func(w *world) *dialog {
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, d.endInitiator(EndOptions{}))
			return d
		}, "", "", true},
		{"Error received ⇒ ER", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endInitiator(EndOptions{WithError: true, ErrorCode: 7}))
			later(w, latency+time.Millisecond)
			return d
		}, "DO", "ER", false},
		{"END from ER ⇒ CD, nothing sent", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endInitiator(EndOptions{WithError: true, ErrorCode: 7}))
			later(w, time.Second)
			require.NoError(t, d.endTarget(EndOptions{}))
			return d
		}, "", "CD", true},
		{"lifetime expiry ⇒ ER on both sides", Config{}, func(w *world) *dialog {
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: 2 * time.Second})
			require.NoError(t, d.sendRequest())
			w.runUntil(3 * time.Second)
			return d
		}, "ER", "ER", true},
		{"END from ER after lifetime expiry ⇒ CD on both sides", Config{}, func(w *world) *dialog {
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: 2 * time.Second})
			require.NoError(t, d.sendRequest())
			w.runUntil(3 * time.Second)
			require.NoError(t, d.endInitiator(EndOptions{}))
			require.NoError(t, d.endTarget(EndOptions{}))
			return d
		}, "", "CD", true},
		{"END WITH CLEANUP ⇒ deleted, the far side is not told", Config{}, func(w *world) *dialog {
			d := establish(w)
			require.NoError(t, d.endInitiator(EndOptions{WithCleanup: true}))
			return d
		}, "", "CO", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg)
			d := tt.script(w)
			assert.Equal(t, tt.wantInitiator, d.state(true), "initiator state")
			assert.Equal(t, tt.wantTo, d.state(false), "target state")
			if tt.quiet {
				from := w.now
				w.runUntil(w.now + time.Minute)
				assert.Zero(t, w.fragmentsSentBy(instA, from), "fragments sent by A after the script")
				assert.Zero(t, w.fragmentsSentBy(instB, from), "fragments sent by B after the script")
			}
			assert.ErrorIs(t, d.sendRequest(), sendErrorFor(tt.wantInitiator), "SEND on the initiator in %q", tt.wantInitiator)
			if tep, ok := d.target(); ok {
				err := w.send(instB, tep.ConversationHandle, "Reply", 10)
				assert.ErrorIs(t, err, sendErrorFor(tt.wantTo), "SEND on the target in %q", tt.wantTo)
			}
		})
	}
}

// Reference: spec DLG-4 ("if the first transmission holds the whole first message the
// endpoint is created directly in CO") and G-16/G-23: the states the target endpoint goes
// through, as the trace shows them.
func TestG16_TargetStatesOnFirstMessage(t *testing.T) {
	tests := []struct {
		name  string
		cfg   Config
		bytes int64
		drop  bool // lose the first message's last fragment once
		want  []string
	}{
		{"whole first message ⇒ created in CO", Config{}, 100, false, []string{"CO"}},
		{"fragmented first message, one lost ⇒ SI, then CO", Config{FragmentSize: 256}, 1000, true, []string{"SI", "CO"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg)
			if tt.drop {
				w.filter = func(p *Packet, n int) action {
					if p.From == instA && n == 0 {
						p.Fragments = p.Fragments[:len(p.Fragments)-1]
					}
					return deliver
				}
			}
			d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
			require.NoError(t, w.send(instA, d.initiator, "Request", tt.bytes))
			w.runUntil(10 * time.Second)
			var got []string
			for _, r := range w.records(instB, TraceStateChanged) {
				got = append(got, r.To.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// Reference: spec G-16: a closed target endpoint is kept for ClosedTargetRetention, then
// deleted; a closed initiator endpoint is deleted at once.
func TestG16_ClosedTargetRetainedThenDeleted(t *testing.T) {
	const retention = 10 * time.Minute
	w := newWorld(t, Config{ClosedTargetRetention: retention})
	d := establish(w)
	tep, _ := d.target()
	require.NoError(t, d.endInitiator(EndOptions{}))
	w.runUntil(w.now + time.Second)
	_, ok := w.brokers[instA].Endpoint(d.initiator)
	assert.False(t, ok, "the closed initiator endpoint is deleted at once")
	assert.Equal(t, int64(1), w.brokers[instA].Counters().EndpointsDeleted)

	require.NoError(t, d.endTarget(EndOptions{}))
	closedAt := w.now
	w.runUntil(closedAt + retention - time.Nanosecond)
	ep, ok := w.brokers[instB].Endpoint(tep.ConversationHandle)
	if assert.True(t, ok, "the closed target endpoint is retained for %v", retention) {
		assert.Equal(t, Closed, ep.State)
	}
	assert.Zero(t, w.brokers[instB].Counters().EndpointsDeleted)

	w.runUntil(closedAt + retention)
	_, ok = w.brokers[instB].Endpoint(tep.ConversationHandle)
	assert.False(t, ok, "the closed target endpoint is deleted once its retention ends")
	assert.Equal(t, int64(1), w.brokers[instB].Counters().EndpointsDeleted)
}

// Reference: spec G-16, DLG-17 and INV-1: a late copy of the first message, arriving after the
// target received it (or after it closed), must not create a second target endpoint, nor be
// enqueued again; it is acknowledged.
func TestG16_LateDuplicateOfFirstMessageCreatesNoSecondTarget(t *testing.T) {
	tests := []struct {
		name      string
		close     bool
		wantTrace TraceKind
		wantState EndpointState
	}{
		{"target conversing", false, TraceFragmentDuplicate, Conversing},
		{"target closed and retained", true, TraceFragmentDiscarded, Closed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, Config{})
			d := establish(w)
			require.NotEmpty(t, w.sent)
			first := w.sent[0].packet
			require.Equal(t, SequenceNumber(0), first.Fragments[0].Sequence)
			if tt.close {
				require.NoError(t, d.endInitiator(EndOptions{}))
				w.runUntil(w.now + time.Second)
				require.NoError(t, d.endTarget(EndOptions{}))
			}
			msgs, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			acksBefore := w.brokers[instB].Counters().AcksSent

			w.inject(w.now+time.Minute, &first)
			w.runUntil(w.now + 2*time.Minute)

			b := w.brokers[instB]
			assert.Equal(t, int64(1), b.Counters().EndpointsCreated, "endpoints created on B")
			if assert.Len(t, b.Endpoints(), 1) {
				assert.Equal(t, tt.wantState, b.Endpoints()[0].State)
			}
			assert.Len(t, w.records(instB, tt.wantTrace), 1, "the late copy is recognised")
			again, err := w.receiveAll("TargetQueue")
			require.NoError(t, err)
			assert.Empty(t, again, "the late copy is not enqueued (already received: %v)", w.types(msgs))
			assert.Equal(t, acksBefore+1, b.Counters().AcksSent, "the late copy is acknowledged")
		})
	}
}

// DLG-5: a first message that arrives after the dialog's lifetime creates no target
// endpoint and puts nothing on the queue.
func TestDLG5_FirstMessageAfterLifetimeCreatesNoTarget(t *testing.T) {
	w := newWorld(t, Config{})
	w.filter = func(p *Packet, n int) action {
		if p.From == instA && len(p.Fragments) > 0 {
			return action{delay: 2 * time.Second}
		}
		return action{}
	}
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: time.Second})
	require.NoError(t, d.sendRequest())
	w.runUntil(3 * time.Second)

	assert.Empty(t, w.brokers[instB].Endpoints())
	assert.Zero(t, w.brokers[instB].ReadyMessages(w.queue("TargetQueue")))
}

// Reference: spec DLG-3: the target endpoint is created when the dialog's first message
// reaches the target instance, in a conversation group of its own on the target's side
// (groups are never shared between the participants, ENT-6), and the messages RECEIVE
// returns carry that group.
func TestDLG3_TargetCreatedOnFirstArrivalInItsOwnGroup(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	require.NoError(t, d.sendRequest())
	assert.Empty(t, w.brokers[instB].Endpoints(), "nothing exists at the target before the message arrives")

	w.runUntil(latency)
	tep, ok := d.target()
	require.True(t, ok, "the first message created the target endpoint")
	iep, _ := w.brokers[instA].Endpoint(d.initiator)
	assert.NotEqual(t, iep.ConversationGroupID, tep.ConversationGroupID)
	assert.Equal(t, iep.ConversationID, tep.ConversationID)
	msgs, err := w.receiveAll("TargetQueue")
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	assert.Equal(t, tep.ConversationGroupID, msgs[0].ConversationGroupID)
	assert.Equal(t, tep.ConversationHandle, msgs[0].ConversationHandle)
}

// Reference: spec DLG-6: Service Broker never ends a dialog by itself. After the lifetime
// expires, both endpoints stay in ER, holding their Error, until each side issues END
// CONVERSATION.
func TestDLG6_ExpiredDialogWaitsInERForEnd(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{Lifetime: 2 * time.Second})
	require.NoError(t, d.sendRequest())
	w.runUntil(time.Hour)
	require.Equal(t, "ER", d.state(true))
	require.Equal(t, "ER", d.state(false))

	require.NoError(t, d.endInitiator(EndOptions{}))
	require.NoError(t, d.endTarget(EndOptions{}))
	w.runUntil(time.Hour + time.Minute)
	_, initiatorLeft := w.brokers[instA].Endpoint(d.initiator)
	assert.False(t, initiatorLeft, "the initiator closed and was deleted")
	assert.Equal(t, "CD", d.state(false), "the target closed, retained for late arrivals")
}

// Reference: spec TXQ-3: the sending service's own queue is not involved in a SEND.
func TestTXQ3_SendersQueueIsNotInvolved(t *testing.T) {
	w := newWorld(t, Config{})
	d := beginDialog(w, "Target", "RequestReply", BeginDialogOptions{})
	for range 3 {
		require.NoError(t, d.sendRequest())
	}
	w.runUntil(time.Second)

	assert.Zero(t, w.brokers[instA].ReadyMessages(w.queue("InitiatorQueue")))
	assert.NotContains(t, w.ready, w.queue("InitiatorQueue"))
	assert.Equal(t, 3, w.brokers[instB].ReadyMessages(w.queue("TargetQueue")))
}
