package scenarios

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/sim"
)

// stepWorld is a two-instance world, built but not run.
func stepWorld(t *testing.T) *world {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "orders", Dialogs: 1, Interarrival: sim.Fixed(time.Second),
		Messages: 1, Size: FixedSize(100)})
	cat, err := model.Compile(cfg.Instances)
	require.NoError(t, err)
	require.NoError(t, cfg.Validate(cat))
	w, err := build(&cfg, cat, 1)
	require.NoError(t, err)
	return w
}

// sendOne begins a dialog from Initiator to Target on b and sends one message on it.
func sendOne(t *testing.T, w *world, b *model.Broker) {
	from, _ := w.cat.Service("Initiator")
	to, _ := w.cat.Service("Target")
	contract, _ := w.cat.Contract("RequestReply")
	request, _ := w.cat.MessageType("Request")
	h, err := b.BeginDialog(w.now(), from, w.cat.NameOf(to), contract, model.BeginDialogOptions{})
	require.NoError(t, err)
	require.NoError(t, b.Send(w.now(), h, request, 100))
}

func TestStepCarriesOutEveryEffectOfItsInput(t *testing.T) {
	w := stepWorld(t)

	w.step(0, func(b *model.Broker) { sendOne(t, w, b) })

	assert.False(t, pendingEffects(w.brokers[0].Effects()), "the effects of BEGIN DIALOG and SEND are carried out")
	assert.Equal(t, int64(1), w.brokers[0].Counters().MessagesSent)
}

// An input given outside step leaves effects that nothing carries out: the next step on
// that broker reports it as a bug rather than carrying them out late.
func TestStepPanicsOnEffectsAnInputOutsideStepLeft(t *testing.T) {
	w := stepWorld(t)
	sendOne(t, w, w.brokers[0]) // not through step

	var got any
	func() {
		defer func() { got = recover() }()
		w.step(0, func(b *model.Broker) {})
	}()

	require.NotNil(t, got, "step must refuse effects left by an input given outside it")
	assert.Contains(t, fmt.Sprint(got), "instance 0 has effects that no step carried out")
	assert.Contains(t, fmt.Sprint(got), "an input was given outside step")
}
