package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
)

// Option gives a plot what its caller knows beyond the data: which run or runs it shows
// (Run, Seeds), and the spans of virtual time to shade on a plot over time (Downtimes,
// QueueOff). Every plot function takes any number of them.
type Option func(*options)

// options are the Options of one plot.
type options struct {
	subtitle string
	shades   []shading
}

// Span is a span of virtual time, in seconds, when something held of a subject (a queue
// was OFF); To is +Inf when it still held at the end.
type Span struct {
	Subject  string
	From, To float64
}

// shading is a set of spans shaded in one colour, with one legend entry per subject.
type shading struct {
	spans []Span
	fill  color.NRGBA
	label func(name string) string
}

// Run names the scenario and the seed of the run a plot shows: the title gets a second
// line "scenario NAME, seed N".
func Run(scenario string, seed uint64) Option {
	return func(o *options) { o.subtitle = caption(scenario, "seed "+strconv.FormatUint(seed, 10)) }
}

// Seeds names the scenario and the seeds of the runs a plot shows (a sweep's): the title
// gets a second line "scenario NAME, seeds 1–5" (runs of consecutive seeds are written as
// ranges).
func Seeds(scenario string, seeds []uint64) Option {
	return func(o *options) { o.subtitle = caption(scenario, seedList(seeds)) }
}

// caption is the second line of a title: the scenario, then its seeds.
func caption(scenario, seeds string) string {
	if scenario == "" {
		return seeds
	}
	return "scenario " + scenario + ", " + seeds
}

// seedList writes seeds for a title: "seed 4", "seeds 1–5", "seeds 1–3, 7, 9–10".
func seedList(seeds []uint64) string {
	if len(seeds) == 1 {
		return "seed " + strconv.FormatUint(seeds[0], 10)
	}
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		part := strconv.FormatUint(seeds[i], 10)
		if j > i {
			part += "–" + strconv.FormatUint(seeds[j], 10)
		}
		parts = append(parts, part)
		i = j + 1
	}
	return "seeds " + strings.Join(parts, ", ")
}

// downtimeColor shades a downtime: light enough that the lines show through it.
var downtimeColor = color.NRGBA{0x7f, 0x7f, 0x7f, 0x40}

// offColor shades the spans when a queue was OFF: a light red, told apart from a
// downtime's grey.
var offColor = color.NRGBA{0xd6, 0x27, 0x28, 0x26}

// Downtimes shades on a plot over time the spans when an instance was down (G-13), over
// the whole height of the data area in grey, with one legend entry "INSTANCE down" per
// instance. It changes neither axis.
func Downtimes(spans []Downtime) Option {
	as := make([]Span, len(spans))
	for i, d := range spans {
		as[i] = Span{Subject: d.Instance, From: d.From, To: d.To}
	}
	return func(o *options) {
		o.shades = append(o.shades, shading{spans: as, fill: downtimeColor, label: func(n string) string { return n + " down" }})
	}
}

// QueueOff shades on a plot over time the spans when a queue's STATUS was OFF, in light
// red, with one legend entry "QUEUE OFF" per queue named. It changes neither axis.
func QueueOff(spans []Span) Option {
	return func(o *options) {
		o.shades = append(o.shades, shading{spans: spans, fill: offColor, label: func(n string) string { return n + " OFF" }})
	}
}

// collect applies opts and checks their spans.
func collect(opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	for _, sh := range o.shades {
		for _, s := range sh.spans {
			if !finite(s.From) || math.IsNaN(s.To) || s.To < s.From {
				return o, fmt.Errorf("span of %s from %v to %v", s.Subject, s.From, s.To)
			}
		}
	}
	return o, nil
}
