package faulty

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/sim"
)

// A link's recorded fates, handed back to a link of another seed through SetFates, give
// the same arrivals, copies and corrupt marks, and the same counters: a fault plan replays
// without the random streams.
func TestRecordedFatesReplayWithoutTheStreams(t *testing.T) {
	cfg := Config{
		LatencyFixed: 10 * time.Millisecond, LatencyJitter: sim.Distribution{Kind: sim.Uniform, Min: 0, Max: 30 * time.Millisecond},
		Bandwidth: 1 << 20, LossBurst: GilbertElliott{GoodToBad: 0.1, BadToGood: 0.3, LossBad: 0.8, LossGood: 0.02},
		DuplicateProbability: 0.1, CorruptProbability: 0.05, Capacity: 6,
		Down: []Window{{From: 300 * time.Millisecond, Until: 450 * time.Millisecond}},
	}
	rec := newHarness(t, 7, cfg)
	var sent []Sent[packet]
	rec.link.SetRecorder(func(s Sent[packet]) { sent = append(sent, s) })
	rec.sendEvery(400, 3*time.Millisecond, 700)
	require.Len(t, sent, 400, "the recorder sees every packet offered, dropped or not")
	kinds := map[string]int{}
	for _, s := range sent {
		switch {
		case s.Dropped == DroppedPartition:
			kinds["partition"]++
		case s.Dropped == DroppedCapacity:
			kinds["capacity"]++
		case s.Fate.Lost:
			kinds["lost"]++
		case s.Fate.Duplicate:
			kinds["duplicate"]++
		}
		if s.Fate.Corrupt {
			kinds["corrupt"]++
		}
	}
	for _, k := range []string{"partition", "capacity", "lost", "duplicate", "corrupt"} {
		require.Positive(t, kinds[k], "the recorded run has %s packets: %v", k, kinds)
	}

	replay := newHarness(t, 99, cfg) // another seed: its streams would draw other fates
	next := 0
	replay.link.SetFates(func(p packet, size int) Fate {
		for sent[next].Dropped != NotDropped { // dropped packets draw no fate
			next++
		}
		require.Equal(t, sent[next].Packet.id, p.id, "fates are asked in send order")
		next++
		return sent[next-1].Fate
	})
	replay.sendEvery(400, 3*time.Millisecond, 700)
	assert.Equal(t, rec.got, replay.got)
	assert.Equal(t, rec.link.Counters(), replay.link.Counters())

	other := newHarness(t, 99, cfg) // the control: without the fates, seed 99 differs
	other.sendEvery(400, 3*time.Millisecond, 700)
	assert.NotEqual(t, rec.got, other.got)
}

// Under SetFates a lost packet gets no copy, whatever the fate says, and the recorder
// reports when each copy is due.
func TestFatesLoseAPacketWithItsCopyAndRecordArrivals(t *testing.T) {
	h := newHarness(t, 1, Config{LatencyFixed: 5 * time.Millisecond})
	h.link.SetFates(func(p packet, size int) Fate {
		return Fate{Lost: p.id == 0, Duplicate: true, Jitter: time.Duration(p.id) * time.Millisecond, DuplicateJitter: 9 * time.Millisecond}
	})
	var sent []Sent[packet]
	h.link.SetRecorder(func(s Sent[packet]) { sent = append(sent, s) })
	h.sendEvery(2, time.Millisecond, 0)
	require.Len(t, h.got, 2, "packet 1 and its copy; packet 0 is lost with no copy")
	assert.Equal(t, 6*time.Millisecond+time.Millisecond, h.got[0].at)
	assert.False(t, sent[0].Fate.Duplicate)
	assert.Equal(t, 7*time.Millisecond, sent[1].Arrival)
	assert.Equal(t, 15*time.Millisecond, sent[1].DuplicateArrival)
}
