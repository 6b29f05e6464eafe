package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// printParameters writes every parameter of the run that the seed and the flags imply.
func printParameters(w io.Writer, wd *world) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "parameters:")
	fmt.Fprintf(w, "  instances: %s\n", strings.Join(wd.instances(), ", "))
	fmt.Fprintf(w, "  duration: traffic for %v of virtual time, then the links drain what is in flight\n", wd.duration)
	fmt.Fprintf(w, "  run limits: virtual time %v, %d events\n", wd.limits.MaxTime, wd.limits.MaxEvents)
	fmt.Fprintf(w, "  traffic: on each direction, Poisson arrivals; sizes %s\n", describeSizes(demoSizes))
	for i, p := range wd.pairs {
		fmt.Fprintf(w, "  %s<->%s, %s: one packet every %v on average, each way\n", p.a, p.b, p.character, p.gapMean)
		for _, part := range p.cfg.Partitions {
			fmt.Fprintf(w, "    partition %s\n", describePartition(p.a, p.b, part))
		}
		for _, dl := range wd.links[2*i : 2*i+2] {
			fmt.Fprintf(w, "    %s: %s\n", dl.link.Name(), describeConfig(dl.link.Config()))
		}
	}
}

// describeSizes says in words how packet sizes are drawn.
func describeSizes(m sizeMix) string {
	return fmt.Sprintf("%s acknowledgements of %d to %d bytes, the rest fragments of %d to %d bytes (uniform)",
		percent(m.ackShare), m.ackMin, m.ackMax-1, m.fragmentMin, m.fragmentMax-1)
}

// describePartition says which directions a partition cuts, and when.
func describePartition(a, b string, p faulty.Partition) string {
	switch p.Direction {
	case faulty.Both:
		return fmt.Sprintf("both ways during %v", p.Window)
	case faulty.AToB:
		return fmt.Sprintf("one way, %s->%s only, during %v", a, b, p.Window)
	case faulty.BToA:
		return fmt.Sprintf("one way, %s->%s only, during %v", b, a, p.Window)
	}
	return fmt.Sprintf("%v during %v", p.Direction, p.Window)
}

// describeConfig says in words what one direction of a link does.
func describeConfig(c faulty.Config) string {
	parts := []string{
		describeLatency(c.LatencyFixed, c.LatencyJitter),
		describeBandwidth(c.Bandwidth),
		describeLoss(c),
		describeProbability("duplication", c.DuplicateProbability),
		describeProbability("corruption", c.CorruptProbability),
	}
	if c.Capacity > 0 {
		parts = append(parts, fmt.Sprintf("capacity %d packets", c.Capacity))
	} else {
		parts = append(parts, "unlimited capacity")
	}
	if len(c.Down) == 0 {
		parts = append(parts, "never down")
	} else {
		windows := make([]string, len(c.Down))
		for i, d := range c.Down {
			windows[i] = d.String()
		}
		parts = append(parts, "down "+strings.Join(windows, " and "))
	}
	return strings.Join(parts, "; ")
}

func describeLatency(fixed time.Duration, jitter sim.Distribution) string {
	if jitter == (sim.Distribution{}) {
		return fmt.Sprintf("latency %v", fixed)
	}
	return fmt.Sprintf("latency %v + %v jitter", fixed, jitter)
}

// describeBandwidth gives a bandwidth in bits per second, the unit links are sold in, and in
// bytes per second, the unit of the configuration.
func describeBandwidth(bytesPerSecond int64) string {
	if bytesPerSecond == 0 {
		return "unlimited bandwidth"
	}
	bits := bytesPerSecond * 8
	var rate string
	switch {
	case bits%1_000_000_000 == 0:
		rate = fmt.Sprintf("%d Gbit/s", bits/1_000_000_000)
	case bits%1_000_000 == 0:
		rate = fmt.Sprintf("%d Mbit/s", bits/1_000_000)
	case bits%1_000 == 0:
		rate = fmt.Sprintf("%d kbit/s", bits/1_000)
	default:
		rate = fmt.Sprintf("%d bit/s", bits)
	}
	return fmt.Sprintf("bandwidth %s (%d bytes/s)", rate, bytesPerSecond)
}

func describeLoss(c faulty.Config) string {
	if g := c.LossBurst; g.Enabled() {
		return fmt.Sprintf("bursty loss (Gilbert-Elliott: good->bad %s, bad->good %s, loss %s when good and %s when bad;"+
			" %s of packets in the long run, bad spells of %s packets on average)",
			percent(g.GoodToBad), percent(g.BadToGood), percent(g.LossGood), percent(g.LossBad),
			percent(g.MeanLoss()), strconv.FormatFloat(1/g.BadToGood, 'g', 3, 64))
	}
	if c.LossProbability == 0 {
		return "no loss"
	}
	return fmt.Sprintf("independent loss %s", percent(c.LossProbability))
}

func describeProbability(what string, p float64) string {
	if p == 0 {
		return "no " + what
	}
	return fmt.Sprintf("%s %s", what, percent(p))
}

// percent formats a probability as a percentage with three significant digits.
func percent(p float64) string {
	return strconv.FormatFloat(p*100, 'g', 3, 64) + "%"
}

// printResults writes one table row per link, then what the engine did.
func printResults(w io.Writer, wd *world, reason sim.StopReason) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "results, one row per direction:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "link\tsent\tdelivered\tlost\tdup\tcorrupt\tcap-drop\tpart-drop\tbytes\treordered\tp50\tp99\tmax\t")
	for _, dl := range wd.links {
		c := dl.link.Counters()
		p50, p99, most := latencyQuantiles(dl.rx.latencies)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n",
			dl.link.Name(), c.Sent, c.Delivered, c.Lost, c.Duplicated, c.Corrupted,
			c.DroppedCapacity, c.DroppedPartition, c.Bytes, dl.rx.reordered, p50, p99, most)
	}
	tw.Flush()
	fmt.Fprintln(w, "  dup: extra copies delivered; corrupt: deliveries marked corrupt; cap-drop: refused, the link was full;")
	fmt.Fprintln(w, "  part-drop: cut by a partition; bytes: bytes sent; reordered: arrivals overtaken by a packet sent later;")
	fmt.Fprintln(w, "  p50, p99, max: latency from send to arrival, over every copy that arrived")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "engine: %v at virtual time %v after %d events\n", reason, wd.engine.Now(), wd.engine.Fired())
}

// latencyQuantiles returns the median, the 99th percentile and the maximum of samples (in
// nanoseconds), rounded to the microsecond, or dashes when there is none. It sorts samples.
func latencyQuantiles(samples []float64) (p50, p99, most string) {
	if len(samples) == 0 {
		return "-", "-", "-"
	}
	slices.Sort(samples)
	q := func(p float64) string {
		return time.Duration(stat.Quantile(p, stat.Empirical, samples, nil)).Round(time.Microsecond).String()
	}
	return q(0.5), q(0.99), q(1)
}

// printVerdict checks every link and writes the verdict; it reports whether all passed.
func printVerdict(w io.Writer, wd *world) bool {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "checks: Sent = Delivered + Lost + DroppedCapacity + DroppedPartition + InFlight on every link,")
	fmt.Fprintln(w, "  and the counters agree with what the traffic sent and the receiver saw")
	drained := wd.engine.Pending() == 0
	failed := 0
	for _, dl := range wd.links {
		if err := dl.check(drained); err != nil {
			failed++
			fmt.Fprintf(w, "  %s: FAILED: %v\n", dl.link.Name(), err)
			continue
		}
		fmt.Fprintf(w, "  %s: ok\n", dl.link.Name())
	}
	if failed > 0 {
		fmt.Fprintf(w, "verdict: FAILED, %d of %d links do not add up\n", failed, len(wd.links))
		return false
	}
	fmt.Fprintf(w, "verdict: ok, the counters of all %d links add up\n", len(wd.links))
	return true
}
