package model

import (
	"fmt"
	"time"
)

// Config holds the broker's protocol parameters: the proposed defaults G-n of the
// specification. A zero field takes the default.
type Config struct {
	// FragmentSize is the payload of one fragment, in bytes (G-9: 8192).
	FragmentSize int
	// RetryIntervalMin and RetryIntervalMax bound the retry back-off of an unacknowledged
	// fragment: the first retry after Min, then doubling, capped at Max (G-8: 4 s, 64 s).
	RetryIntervalMin, RetryIntervalMax time.Duration
	// AckDelay is how long an acknowledgement waits for a fragment going the other way to
	// ride on before it is sent on its own (G-20: 50 ms).
	AckDelay time.Duration
	// ReceiveWindow is how many messages beyond receive_sequence the receiver holds out of
	// order; fragments beyond it are dropped unacknowledged (G-21: 64).
	ReceiveWindow int
	// SendWindow is the most fragments of one dialog sent and not yet acknowledged (G-11: 32).
	SendWindow int
	// BlockFragmentsMax and BlockBytesMax bound one block of fragments to one instance
	// (G-10: 32 fragments, 64 KiB).
	BlockFragmentsMax, BlockBytesMax int
	// ConnectionIdleClose closes an adjacent-broker connection after this long without a
	// fragment sent or received (G-12: 90 s).
	ConnectionIdleClose time.Duration
	// TransmissionObjectBytes is the memory one transmission object is accounted (TXQ-6,
	// G-13: about 1 KB).
	TransmissionObjectBytes int
	// ClosedTargetRetention is how long a closed target endpoint is kept, so that a late
	// duplicate of the first message cannot create a second one (G-16: 30 min).
	ClosedTargetRetention time.Duration
	// StarvationAgingStep raises a dialog's effective transmit level by one for every step
	// its oldest pending fragment has waited, up to StarvationAgingCap (G-11: 10 s, 10).
	// StarvationAgingOff turns this starvation prevention off.
	StarvationAgingStep time.Duration
	StarvationAgingCap  PriorityLevel
	StarvationAgingOff  bool
	// RouteRetryInterval is how often a delayed conversation looks for a route again
	// (G-28: 10 s).
	RouteRetryInterval time.Duration
	// Defects breaks the broker on purpose, for sbsim's own tests of its tools (Defects);
	// zero, the default, is the broker the specification describes.
	Defects Defects
}

// MaxWindow bounds ReceiveWindow, SendWindow and BlockFragmentsMax.
const MaxWindow = 1 << 16

// DefaultConfig returns the specification's proposed defaults.
func DefaultConfig() Config {
	return Config{
		FragmentSize:            8192,
		RetryIntervalMin:        4 * time.Second,
		RetryIntervalMax:        64 * time.Second,
		AckDelay:                50 * time.Millisecond,
		ReceiveWindow:           64,
		SendWindow:              32,
		BlockFragmentsMax:       32,
		BlockBytesMax:           64 << 10,
		ConnectionIdleClose:     90 * time.Second,
		TransmissionObjectBytes: 1024,
		ClosedTargetRetention:   30 * time.Minute,
		StarvationAgingStep:     10 * time.Second,
		StarvationAgingCap:      10,
		RouteRetryInterval:      10 * time.Second,
	}
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	setInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setDur := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setInt(&c.FragmentSize, d.FragmentSize)
	setDur(&c.RetryIntervalMin, d.RetryIntervalMin)
	setDur(&c.RetryIntervalMax, d.RetryIntervalMax)
	setDur(&c.AckDelay, d.AckDelay)
	setInt(&c.ReceiveWindow, d.ReceiveWindow)
	setInt(&c.SendWindow, d.SendWindow)
	setInt(&c.BlockFragmentsMax, d.BlockFragmentsMax)
	setInt(&c.BlockBytesMax, d.BlockBytesMax)
	setDur(&c.ConnectionIdleClose, d.ConnectionIdleClose)
	setInt(&c.TransmissionObjectBytes, d.TransmissionObjectBytes)
	setDur(&c.ClosedTargetRetention, d.ClosedTargetRetention)
	setDur(&c.StarvationAgingStep, d.StarvationAgingStep)
	setDur(&c.RouteRetryInterval, d.RouteRetryInterval)
	if c.StarvationAgingCap == 0 {
		c.StarvationAgingCap = d.StarvationAgingCap
	}
	return c
}

// Validate names the first field that is negative or inconsistent. Validate the config
// that will be used, after WithDefaults: a zero field stands for its default.
func (c Config) Validate() error {
	if err := c.Defects.validate(); err != nil {
		return err
	}
	ints := []struct {
		name string
		v    int
	}{
		{"FragmentSize", c.FragmentSize}, {"ReceiveWindow", c.ReceiveWindow}, {"SendWindow", c.SendWindow},
		{"BlockFragmentsMax", c.BlockFragmentsMax}, {"BlockBytesMax", c.BlockBytesMax},
		{"TransmissionObjectBytes", c.TransmissionObjectBytes},
	}
	for _, f := range ints {
		if f.v < 0 {
			return fmt.Errorf("broker config: %s %d is negative", f.name, f.v)
		}
	}
	// One acknowledgement, retry or block walks a window: bounding them bounds the work of
	// one event, so that the event limit bounds a run's.
	for _, f := range ints {
		if f.v > MaxWindow && (f.name == "ReceiveWindow" || f.name == "SendWindow" || f.name == "BlockFragmentsMax") {
			return fmt.Errorf("broker config: %s %d is above %d: one event walks the window", f.name, f.v, MaxWindow)
		}
	}
	durs := []struct {
		name string
		v    time.Duration
	}{
		{"RetryIntervalMin", c.RetryIntervalMin}, {"RetryIntervalMax", c.RetryIntervalMax}, {"AckDelay", c.AckDelay},
		{"ConnectionIdleClose", c.ConnectionIdleClose}, {"ClosedTargetRetention", c.ClosedTargetRetention},
		{"StarvationAgingStep", c.StarvationAgingStep}, {"RouteRetryInterval", c.RouteRetryInterval},
	}
	for _, f := range durs {
		if f.v < 0 {
			return fmt.Errorf("broker config: %s %v is negative", f.name, f.v)
		}
	}
	if c.RetryIntervalMax < c.RetryIntervalMin {
		return fmt.Errorf("broker config: RetryIntervalMax %v is below RetryIntervalMin %v", c.RetryIntervalMax, c.RetryIntervalMin)
	}
	// A closed target must outlive the gap between two copies of a fragment whose acks get
	// lost, or the next copy finds the dialog forgotten and creates a second target
	// endpoint (G-16). Twice the longest back-off leaves room for the network's delay.
	if c.ClosedTargetRetention < 2*c.RetryIntervalMax {
		return fmt.Errorf("broker config: ClosedTargetRetention %v is below twice RetryIntervalMax %v: a retried fragment could outlive a closed target and create a second one",
			c.ClosedTargetRetention, c.RetryIntervalMax)
	}
	if c.StarvationAgingCap > 10 {
		return fmt.Errorf("broker config: StarvationAgingCap %d is above 10", c.StarvationAgingCap)
	}
	if !c.StarvationAgingOff && c.StarvationAgingStep == 0 {
		return fmt.Errorf("broker config: StarvationAgingStep is zero with aging on")
	}
	if c.FragmentSize > 1<<30 {
		return fmt.Errorf("broker config: FragmentSize %d is above 1 GiB", c.FragmentSize)
	}
	return nil
}

// retryInterval returns the back-off after a fragment's retries-th retransmission (G-8).
func (c *Config) retryInterval(retries uint8) time.Duration {
	d := c.RetryIntervalMin
	for i := uint8(0); i < retries && d < c.RetryIntervalMax; i++ {
		d *= 2
	}
	return min(d, c.RetryIntervalMax)
}
