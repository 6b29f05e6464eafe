package faulty

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sbsim/sbsim/sim"
)

// Config sets the behaviour of one direction of a link. Its zero value is a perfect link:
// no delay, unlimited bandwidth, no fault.
type Config struct {
	// LatencyFixed is the propagation delay every packet takes once it is on the wire.
	LatencyFixed time.Duration
	// LatencyJitter is an extra delay drawn for each packet. When it varies, a packet can
	// overtake one sent before it: this is how the link reorders.
	LatencyJitter sim.Distribution
	// Bandwidth is in bytes per second; zero means unlimited. A packet takes size/Bandwidth
	// to serialise, and packets wait their turn for the wire in FIFO order.
	Bandwidth int64
	// LossProbability is the chance that a packet is lost, independently of the others.
	LossProbability float64
	// LossBurst, when enabled, loses packets in bursts instead (Gilbert–Elliott). It
	// excludes LossProbability.
	LossBurst GilbertElliott
	// DuplicateProbability is the chance that a packet that gets through arrives twice; the
	// copy draws its own jitter.
	DuplicateProbability float64
	// CorruptProbability is the chance that a packet arrives marked corrupt.
	CorruptProbability float64
	// Capacity is the most packets the link holds at once, waiting for the wire or in flight;
	// a packet sent while it is full is dropped. Zero means unlimited.
	Capacity int
	// Down lists scheduled windows during which this direction is cut: a packet sent during
	// one is dropped, and so is a packet in flight when one begins.
	Down []Window
}

// GilbertElliott is the two-state Markov model of bursty loss (Gilbert 1960, Elliott 1963).
// The link is Good or Bad; before each packet it moves Good→Bad with probability GoodToBad
// and Bad→Good with probability BadToGood, then loses the packet with the loss probability
// of its state. Mean burst length is 1/BadToGood packets. The zero value is disabled.
type GilbertElliott struct {
	GoodToBad, BadToGood float64
	LossGood, LossBad    float64
}

// Enabled reports whether the model is in use: a link never entering Bad loses nothing.
func (g GilbertElliott) Enabled() bool { return g.GoodToBad > 0 }

// MeanLoss returns the long-run fraction of packets lost: the stationary probability of each
// state times its loss probability.
func (g GilbertElliott) MeanLoss() float64 {
	if !g.Enabled() {
		return 0
	}
	bad := g.GoodToBad / (g.GoodToBad + g.BadToGood)
	return (1-bad)*g.LossGood + bad*g.LossBad
}

// Window is an interval of virtual time [From, Until).
type Window struct {
	From, Until time.Duration
}

// String prints the window as [from, until).
func (w Window) String() string { return fmt.Sprintf("[%v, %v)", w.From, w.Until) }

// FieldError says which field of a Config is wrong, with its value, so that a layer above
// (a scenario file) can point at the line that set it.
type FieldError struct {
	Field  string // the Config field, dotted for nested ones: "LossBurst.BadToGood", "Down[1]"
	Value  any
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %v %s", e.Field, e.Value, e.Reason)
}

// Validate returns a *FieldError for the first field that makes the config unusable.
func (c Config) Validate() error {
	if c.LatencyFixed < 0 {
		return &FieldError{"LatencyFixed", c.LatencyFixed, "is negative"}
	}
	if err := c.LatencyJitter.Validate(); err != nil {
		return &FieldError{"LatencyJitter", c.LatencyJitter, fmt.Sprintf("is invalid: %v", err)}
	}
	if c.Bandwidth < 0 {
		return &FieldError{"Bandwidth", c.Bandwidth, "is negative"}
	}
	probabilities := []struct {
		field string
		p     float64
	}{
		{"LossProbability", c.LossProbability},
		{"LossBurst.GoodToBad", c.LossBurst.GoodToBad},
		{"LossBurst.BadToGood", c.LossBurst.BadToGood},
		{"LossBurst.LossGood", c.LossBurst.LossGood},
		{"LossBurst.LossBad", c.LossBurst.LossBad},
		{"DuplicateProbability", c.DuplicateProbability},
		{"CorruptProbability", c.CorruptProbability},
	}
	for _, pr := range probabilities {
		if math.IsNaN(pr.p) || pr.p < 0 || pr.p > 1 {
			return &FieldError{pr.field, pr.p, "outside [0, 1]"}
		}
	}
	if c.LossBurst.Enabled() {
		if c.LossProbability > 0 {
			return &FieldError{"LossProbability", c.LossProbability,
				"set together with LossBurst: choose independent or bursty loss"}
		}
		if c.LossBurst.BadToGood == 0 {
			return &FieldError{"LossBurst.BadToGood", 0.0,
				"would keep the link Bad for ever once it enters it: use a Down window for an outage"}
		}
	} else if c.LossBurst != (GilbertElliott{}) {
		return &FieldError{"LossBurst.GoodToBad", 0.0, "is zero while other LossBurst fields are set: the model would never leave Good"}
	}
	if c.Capacity < 0 {
		return &FieldError{"Capacity", c.Capacity, "is negative"}
	}
	for i, w := range c.Down {
		if w.From < 0 || w.Until <= w.From {
			return &FieldError{fmt.Sprintf("Down[%d]", i), w, "is not an interval: From must be >= 0 and before Until"}
		}
	}
	return nil
}

// downWindows returns the windows sorted by start and with overlaps merged.
func downWindows(ws []Window) []Window {
	sorted := slices.Clone(ws)
	slices.SortFunc(sorted, func(a, b Window) int { return cmp.Compare(a.From, b.From) })
	var merged []Window
	for _, w := range sorted {
		if n := len(merged); n > 0 && w.From <= merged[n-1].Until {
			merged[n-1].Until = max(merged[n-1].Until, w.Until)
			continue
		}
		merged = append(merged, w)
	}
	return merged
}
