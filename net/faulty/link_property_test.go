package faulty

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/sbsim/sbsim/sim"
)

// propSeed fixes gopter's generator so that CI explores the same cases every run.
const propSeed = 20261130

// faultMix is a generated link configuration and traffic pattern.
type faultMix struct {
	Seed                        uint64
	Loss, Duplicate, Corrupt    float64
	Bursty                      bool
	JitterMs, LatencyMs         int
	Bandwidth                   int64
	Capacity                    int
	DownFromMs, DownLengthMs    int
	Packets, IntervalMs, SizeKB int
}

func (m faultMix) config() Config {
	c := Config{
		LatencyFixed:         time.Duration(m.LatencyMs) * time.Millisecond,
		LatencyJitter:        sim.ExponentialMean(time.Duration(m.JitterMs) * time.Millisecond),
		Bandwidth:            m.Bandwidth,
		DuplicateProbability: m.Duplicate,
		CorruptProbability:   m.Corrupt,
		Capacity:             m.Capacity,
	}
	if m.Bursty {
		c.LossBurst = GilbertElliott{GoodToBad: 0.05, BadToGood: 0.25, LossGood: m.Loss / 10, LossBad: m.Loss}
	} else {
		c.LossProbability = m.Loss
	}
	if m.DownLengthMs > 0 {
		from := time.Duration(m.DownFromMs) * time.Millisecond
		c.Down = []Window{{From: from, Until: from + time.Duration(m.DownLengthMs)*time.Millisecond}}
	}
	return c
}

func genFaultMix() gopter.Gen {
	return gen.Struct(reflect.TypeFor[faultMix](), map[string]gopter.Gen{
		"Seed":         gen.UInt64(),
		"Loss":         gen.Float64Range(0, 0.5),
		"Duplicate":    gen.Float64Range(0, 0.5),
		"Corrupt":      gen.Float64Range(0, 0.3),
		"Bursty":       gen.Bool(),
		"JitterMs":     gen.IntRange(0, 50),
		"LatencyMs":    gen.IntRange(0, 100),
		"Bandwidth":    gen.OneConstOf(int64(0), int64(10_000), int64(1_000_000)),
		"Capacity":     gen.IntRange(0, 20),
		"DownFromMs":   gen.IntRange(0, 2000),
		"DownLengthMs": gen.IntRange(0, 1000),
		"Packets":      gen.IntRange(0, 400),
		"IntervalMs":   gen.IntRange(0, 10),
		"SizeKB":       gen.IntRange(0, 4),
	})
}

// TestCountersAddUpUnderEveryFaultMix checks, over random configurations, that every packet
// is accounted for at every delivery and at the end, that what the receiver saw matches the
// counters, and that nothing arrived across a down window.
func TestCountersAddUpUnderEveryFaultMix(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(propSeed)
	params.MinSuccessfulTests = 300
	if testing.Short() {
		params.MinSuccessfulTests = 60
	}
	properties := gopter.NewProperties(params)
	properties.Property("sent = delivered + lost + dropped + in flight; receiver agrees", prop.ForAll(
		func(m faultMix) string {
			cfg := m.config()
			e := sim.New(m.Seed)
			var received, corrupt int64
			var failure string
			var link *Link[packet]
			link, err := New(e, "A->B", cfg, func(d Delivery[packet]) {
				received++
				if d.Corrupt {
					corrupt++
				}
				for _, w := range cfg.Down {
					if w.From <= e.Now() && w.Until > d.Packet.sentAt && failure == "" {
						failure = fmt.Sprintf("packet sent at %v arrived at %v across %v", d.Packet.sentAt, e.Now(), w)
					}
				}
				if err := link.Counters().Check(); err != nil && failure == "" {
					failure = fmt.Sprintf("at %v: %v", e.Now(), err)
				}
			})
			if err != nil {
				return err.Error()
			}
			sendPackets(e, link, m.Packets, time.Duration(m.IntervalMs)*time.Millisecond, m.SizeKB*1024)
			e.Run(sim.Limits{})
			c := link.Counters()
			switch {
			case failure != "":
				return failure
			case c.Check() != nil:
				return c.Check().Error()
			case c.InFlight != 0:
				return fmt.Sprintf("%d packets still in flight after the run", c.InFlight)
			case c.Sent != int64(m.Packets):
				return fmt.Sprintf("sent %d, want %d", c.Sent, m.Packets)
			case received != c.Delivered+c.Duplicated:
				return fmt.Sprintf("receiver got %d, counters say %d + %d", received, c.Delivered, c.Duplicated)
			case corrupt != c.Corrupted:
				return fmt.Sprintf("receiver saw %d corrupt, counters say %d", corrupt, c.Corrupted)
			}
			return ""
		},
		genFaultMix(),
	))
	properties.TestingRun(t)
}

// sendPackets schedules n sends of size bytes, one every interval from time zero.
func sendPackets(e *sim.Engine, link *Link[packet], n int, interval time.Duration, size int) {
	var send sim.HandlerFunc
	send = func(i uint64) {
		link.Send(packet{id: int(i), sentAt: e.Now()}, size)
		if int(i)+1 < n {
			e.After(interval, send, i+1)
		}
	}
	if n > 0 {
		e.Schedule(0, send, 0)
	}
}
