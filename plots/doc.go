// Package plots renders the plain result data of a run as PNG and SVG images with
// gonum/plot. It holds no simulation logic: it never runs a simulation and imports
// neither model nor scenarios. The caller (cmd/simulate) converts a scenarios.Result into
// the package's own plain types: Point, Line (a named series), BandPoint and Band (a
// named curve with its confidence interval). Times and latencies are float64 seconds;
// the caller converts a time.Duration with its Seconds method.
//
// One function per plot, each returning a *plot.Plot, or an error for empty or invalid
// input (no lines, a line with no points or no name, a non-finite value, time running
// backwards, a CDF fraction outside [0, 1]):
//
//   - LatencyCDF: latency distribution per priority level; a log latency axis when the
//     latencies span a factor of ten or more, tick labels as durations (1ms, 100ms).
//   - ThroughputByLevel: messages per second per level over time. It takes rates;
//     Rates turns the cumulative counts a run samples into rates.
//   - QueueOverTime: one queue's ready messages and reader sessions (running, activated,
//     waiting) over time; the sessions get a right-hand axis of their own when the ready
//     messages dwarf them.
//   - TransmissionQueueDepth: rows per database over time.
//   - LinkCounters: packets lost, dropped by partition or for capacity, fragments
//     retransmitted and copies duplicated, per link over time, as cumulative counts.
//   - RoundTripCDF, EndpointsByState, Backlog, CPUByInstance: round trips per workload,
//     endpoints per database and state, ready messages per queue, CPUs busy per instance.
//   - Sweep: a metric against a swept parameter, a mean line per level or queue over a
//     shaded confidence band.
//
// Each takes Options too: Run or Seeds name the scenario and the seeds on the title's
// second line; Downtimes and QueueOff shade the spans an instance was down or a queue OFF.
//
// Every plot has a title, axis labels with units, light grid lines and a legend; each line
// gets its own colour and dash pattern (ten colours, four patterns). The legend stands
// below the plot, under the X axis label, in up to four columns, so that it takes no width
// from the data and hides no line; it is the package's own (gonum's Legend stays empty),
// drawn in room the X axis label makes for it. QueueOverTime draws its reader sessions
// wide and pale, under the activated tasks and waiting sessions, thin and dashed, so that
// lines that coincide both stay visible.
//
// Save writes a plot as PNG or SVG after the file's extension, at a given size; SaveBoth
// writes base.png and base.svg at DefaultWidth by DefaultHeight (8 by 5 inches: 768 by 480
// pixels, 576 by 360 points). Neither creates directories. The same input gives the same
// bytes in both formats, run after run: gonum's output holds no date, random identifier or
// map order, and the SVG names its fonts without embedding them.
//
// Usage:
//
//	lines := []plots.Line{{Name: "priority 10", Points: cdf10}, {Name: "priority 1", Points: cdf1}}
//	p, err := plots.LatencyCDF(lines)
//	if err != nil {
//		return fmt.Errorf("latency plot: %w", err)
//	}
//	if err := plots.SaveBoth(p, outDir, "latency-cdf"); err != nil {
//		return err
//	}
package plots
