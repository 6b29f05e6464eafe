package scenarios

import (
	"fmt"
	"time"

	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// namedDelay is one duration of a config, named as Validate's errors name it.
type namedDelay struct {
	where string
	d     time.Duration
}

// validateDelays checks that no duration of the config is above sim.MaxDelay (each
// distribution's Validate checks its own): with every delay at most that, and no event
// after sim.Horizon, no sum the world forms of an instant and a few delays overflows.
func (c *Config) validateDelays() error {
	if c.MaxTime > sim.Horizon {
		return fmt.Errorf("MaxTime %v is after the last instant the simulator reaches, %v", c.MaxTime, sim.Horizon)
	}
	// MaxTime is an instant, not a delay added to one: it may go to the horizon.
	ds := []namedDelay{{"SampleInterval", c.SampleInterval}}
	b := c.Broker
	for _, f := range []namedDelay{{"RetryIntervalMin", b.RetryIntervalMin}, {"RetryIntervalMax", b.RetryIntervalMax},
		{"AckDelay", b.AckDelay}, {"ConnectionIdleClose", b.ConnectionIdleClose},
		{"ClosedTargetRetention", b.ClosedTargetRetention}, {"StarvationAgingStep", b.StarvationAgingStep}} {
		ds = append(ds, namedDelay{"broker config: " + f.where, f.d})
	}
	for i, l := range c.Links {
		where := fmt.Sprintf("link %d (%s<->%s): ", i, l.A, l.B)
		ds = linkDelays(ds, where+"AToB.", &l.AToB)
		ds = linkDelays(ds, where+"BToA.", &l.BToA)
		for j, p := range l.Partitions {
			ds = append(ds, namedDelay{fmt.Sprintf("%sPartitions[%d].From", where, j), p.From},
				namedDelay{fmt.Sprintf("%sPartitions[%d].Until", where, j), p.Until})
		}
	}
	for i, w := range c.Workloads {
		where := fmt.Sprintf("workload %d (%s): ", i, w.Name)
		ds = append(ds, namedDelay{where + "Start", w.Start}, namedDelay{where + "Lifetime", w.Lifetime})
	}
	for i, r := range c.Readers {
		where := fmt.Sprintf("reader %d (%s): ", i, r.Queue)
		ds = append(ds, namedDelay{where + "WaitFor", r.WaitFor}, namedDelay{where + "TouchTimer", r.TouchTimer})
	}
	for i, p := range c.Procedures {
		ds = append(ds, namedDelay{fmt.Sprintf("procedure %d (%s): WaitFor", i, p.Name), p.WaitFor})
	}
	for i, ch := range c.Timeline {
		where := fmt.Sprintf("timeline %d: ", i)
		ds = append(ds, namedDelay{where + "At", ch.At})
		if l := ch.Link; l != nil {
			ds = linkDelays(ds, where+"AToB.", l.AToB)
			ds = linkDelays(ds, where+"BToA.", l.BToA)
		}
	}
	for _, d := range ds {
		if d.d > sim.MaxDelay {
			return fmt.Errorf("%s %v is above the longest delay, %v", d.where, d.d, sim.MaxDelay)
		}
	}
	return nil
}

// linkDelays adds the fixed latency and the down windows of one direction of a link (nil:
// none); the jitter is a distribution, which validates itself.
func linkDelays(ds []namedDelay, where string, c *faulty.Config) []namedDelay {
	if c == nil {
		return ds
	}
	ds = append(ds, namedDelay{where + "LatencyFixed", c.LatencyFixed})
	for j, w := range c.Down {
		ds = append(ds, namedDelay{fmt.Sprintf("%sDown[%d].From", where, j), w.From},
			namedDelay{fmt.Sprintf("%sDown[%d].Until", where, j), w.Until})
	}
	return ds
}
