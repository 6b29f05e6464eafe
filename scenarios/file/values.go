package file

import (
	"fmt"
	"github.com/sbsim/sbsim/scenarios"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/sim"
)

// scalar returns the value of key when it is a scalar; it reports anything else.
func (m *mapping) scalar(key, want string) (*yaml.Node, bool) {
	v := m.get(key)
	if v == nil {
		return nil, false
	}
	if v.Kind != yaml.ScalarNode || isNull(v) {
		m.d.errorf(v, join(m.path, key), "want %s, got %s", want, describe(v))
		return nil, false
	}
	return v, true
}

// str decodes a string.
func (m *mapping) str(key string, out *string) bool {
	v, ok := m.scalar(key, "a name or text")
	if ok {
		*out = v.Value
	}
	return ok
}

// name decodes a required, non-empty name.
func (m *mapping) name(key string, out *string) bool {
	if m.str(key, out) && *out != "" {
		return true
	}
	if !m.present() {
		return false
	}
	if !m.has(key) {
		m.d.errorf(m.node, join(m.path, key), "the %s needs a %s", m.what, key)
	} else if v := m.vals[key]; v.Kind == yaml.ScalarNode && !isNull(v) {
		m.d.errorf(v, join(m.path, key), "the %s's %s is empty", m.what, key)
	}
	return false
}

// integer decodes an integer in [lo, hi].
func (m *mapping) integer(key string, out *int64, lo, hi int64) bool {
	v, ok := m.scalar(key, "an integer")
	if !ok {
		return false
	}
	n, err := parseInteger(v.Value)
	if err != nil {
		m.d.errorf(v, join(m.path, key), "want an integer, got %q", v.Value)
		return false
	}
	if n < lo || n > hi {
		m.d.errorf(v, join(m.path, key), "%s", rangeMessage(n, lo, hi))
		return false
	}
	*out = n
	return true
}

// rangeMessage says how n misses [lo, hi]: by its sign, or by the bound it passes when the
// other is no real limit, or by the whole range.
func rangeMessage(n, lo, hi int64) string {
	switch {
	case n < 0 && lo == 0:
		return fmt.Sprintf("%d is negative", n)
	case hi >= math.MaxInt32 && n < lo:
		return fmt.Sprintf("%d is below %d", n, lo)
	case hi >= math.MaxInt32:
		return fmt.Sprintf("%d is above %d, the most allowed", n, hi)
	}
	return fmt.Sprintf("%d is outside %d..%d", n, lo, hi)
}

// intField decodes an int field in [lo, hi].
func (m *mapping) intField(key string, out *int, lo, hi int64) bool {
	var n int64
	if !m.integer(key, &n, lo, hi) {
		return false
	}
	*out = int(n)
	return true
}

// parseInteger reads a decimal integer; underscores may group its digits.
func parseInteger(s string) (int64, error) {
	return strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
}

// probability decodes a probability in [0, 1], written 0.05 or 5%.
func (m *mapping) probability(key string, out *float64) bool {
	v, ok := m.scalar(key, "a probability")
	if !ok {
		return false
	}
	s, scale := v.Value, 1.0
	if t, pct := strings.CutSuffix(s, "%"); pct {
		s, scale = strings.TrimSpace(t), 100
	}
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(p) {
		m.d.errorf(v, join(m.path, key), "want a probability like 0.05 or 5%%, got %q", v.Value)
		return false
	}
	p /= scale
	if p < 0 || p > 1 {
		m.d.errorf(v, join(m.path, key), "probability %s is outside [0, 1]", v.Value)
		return false
	}
	*out = p
	return true
}

// onOff decodes a switch: on, off, true or false.
func (m *mapping) onOff(key string, out *bool) bool {
	v, ok := m.scalar(key, "on or off")
	if !ok {
		return false
	}
	switch strings.ToLower(v.Value) {
	case "on", "true", "yes":
		*out = true
	case "off", "false", "no":
		*out = false
	default:
		m.d.errorf(v, join(m.path, key), "want on or off, got %q", v.Value)
		return false
	}
	return true
}

// duration decodes a non-negative duration of at most sim.MaxDelay.
func (m *mapping) duration(key string, out *time.Duration) bool {
	v, ok := m.scalar(key, "a duration")
	if !ok {
		return false
	}
	d, msg := parseDelayValue(v.Value)
	if msg != "" {
		m.d.errorf(v, join(m.path, key), "%s", msg)
		return false
	}
	*out = time.Duration(d)
	return true
}

// parseDurationValue reads a Go duration ("250ms", "2s", "1h30m"); it returns a message
// when s is not one or is negative.
func parseDurationValue(s string) (int64, string) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, e := strconv.ParseFloat(s, 64); e == nil {
			return 0, fmt.Sprintf("want a duration with a unit, like 250ms or 2s, got %q", s)
		}
		return 0, fmt.Sprintf("want a duration like 250ms or 2s, got %q", s)
	}
	if d < 0 {
		return 0, fmt.Sprintf("duration %s is negative", s)
	}
	return int64(d), ""
}

// parseDelayValue reads a duration that the simulation waits for or adds to the clock: at
// most sim.MaxDelay (ten years), so that no sum of a few of them and an instant of the run
// can overflow virtual time.
func parseDelayValue(s string) (int64, string) {
	d, msg := parseDurationValue(s)
	if msg == "" && d > int64(sim.MaxDelay) {
		return 0, fmt.Sprintf("duration %s is above the longest the simulator allows, %dh (ten years)", s, sim.MaxDelay/time.Hour)
	}
	return d, msg
}

// sizeUnits are the suffixes a size may carry.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"B", 1}}

// parseSizeValue reads a number of bytes: 40000, 40_000, 40KB (1000 bytes a KB) or 40KiB
// (1024 bytes a KiB).
func parseSizeValue(s string) (int64, string) {
	num, unit := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if t, ok := strings.CutSuffix(num, u.suffix); ok {
			num, unit = strings.TrimSpace(t), u.bytes
			break
		}
	}
	n, err := parseInteger(num)
	if err != nil {
		return 0, fmt.Sprintf("want a size in bytes, like 4096 or 40KB, got %q", s)
	}
	if n < 0 {
		return 0, fmt.Sprintf("size %s is negative", s)
	}
	if n > math.MaxInt64/unit {
		return 0, fmt.Sprintf("size %s is too large", s)
	}
	return n * unit, ""
}

// size decodes a number of bytes.
func (m *mapping) size(key string, out *int64) bool {
	v, ok := m.scalar(key, "a size in bytes")
	if !ok {
		return false
	}
	n, msg := parseSizeValue(v.Value)
	if msg != "" {
		m.d.errorf(v, join(m.path, key), "%s", msg)
		return false
	}
	*out = n
	return true
}

// sizeInt decodes a number of bytes into an int field, at most 2 GiB.
func (m *mapping) sizeInt(key string, out *int) bool {
	var n int64
	if !m.size(key, &n) {
		return false
	}
	if n > math.MaxInt32 {
		m.d.errorf(m.d.pos[join(m.path, key)], join(m.path, key), "size %d is above 2 GiB", n)
		return false
	}
	*out = int(n)
	return true
}

// list calls item for each element of the list at key.
func (m *mapping) list(key, what string, item func(i int, n *yaml.Node, path string)) {
	m.d.items(m.get(key), join(m.path, key), what, item)
}

// items calls item for each element of the list v at path; nil or null is an empty list.
func (d *decoder) items(v *yaml.Node, path, what string, item func(i int, n *yaml.Node, path string)) {
	if v == nil || isNull(v) {
		return
	}
	if v.Kind != yaml.SequenceNode {
		d.errorf(v, path, "want a list of %s, got %s", what, describe(v))
		return
	}
	for i, n := range v.Content {
		p := index(path, i)
		if n = d.resolve(n); n != nil {
			d.pos[p] = n
			item(i, n, p)
		}
	}
}

// distribution is a distribution read from a file, in the unit of its values
// (nanoseconds or bytes).
type distribution struct {
	kind                   sim.DistributionKind
	mean, stdDev, min, max int64
}

func (d distribution) duration() sim.Distribution {
	return sim.Distribution{Kind: d.kind, Mean: time.Duration(d.mean), StdDev: time.Duration(d.stdDev),
		Min: time.Duration(d.min), Max: time.Duration(d.max)}
}

func (d distribution) size() scenarios.SizeDistribution {
	return scenarios.SizeDistribution{Kind: d.kind, Mean: d.mean, StdDev: d.stdDev, Min: d.min, Max: d.max}
}

// distributionKinds are the shapes a file may name, in sim.DistributionKind order.
var distributionKinds = []string{"fixed", "uniform", "exponential", "normal", "lognormal"}

// distribution decodes a distribution of values that parse reads: a scalar is a fixed
// value; {fixed: v}, {exponential: mean}, {uniform: [min, max]}, {normal: {mean, stddev}},
// {lognormal: {mean, stddev}}.
func (m *mapping) distribution(key string, parse func(string) (int64, string), out *distribution) bool {
	v := m.get(key)
	if v == nil {
		return false
	}
	path := join(m.path, key)
	d, ok := m.d.distribution(v, path, parse)
	if ok {
		*out = d
	}
	return ok
}

func (d *decoder) value(n *yaml.Node, path string, parse func(string) (int64, string)) (int64, bool) {
	if n == nil {
		return 0, false
	}
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, path, "want a value, got %s", describe(n))
		return 0, false
	}
	v, msg := parse(n.Value)
	if msg != "" {
		d.errorf(n, path, "%s", msg)
		return 0, false
	}
	return v, true
}

func (d *decoder) distribution(v *yaml.Node, path string, parse func(string) (int64, string)) (distribution, bool) {
	if v.Kind == yaml.ScalarNode && !isNull(v) {
		x, ok := d.value(v, path, parse)
		return distribution{kind: sim.Constant, mean: x}, ok
	}
	if v.Kind != yaml.MappingNode || len(v.Content) != 2 {
		d.errorf(v, path, "want a value or a distribution ({fixed: v}, {exponential: mean}, {uniform: [min, max]}, {normal: {mean: m, stddev: s}}, {lognormal: {mean: m, stddev: s}}), got %s", describe(v))
		return distribution{}, false
	}
	k, body := v.Content[0], d.resolve(v.Content[1])
	kind := -1
	for i, name := range distributionKinds {
		if k.Value == name {
			kind = i
		}
	}
	if kind < 0 || body == nil {
		d.errorf(k, path, "unknown distribution %q; known: %s", k.Value, strings.Join(distributionKinds, ", "))
		return distribution{}, false
	}
	path = join(path, k.Value)
	out := distribution{kind: sim.DistributionKind(kind)}
	ok := true
	switch out.kind {
	case sim.Constant, sim.Exponential:
		out.mean, ok = d.value(body, path, parse)
	case sim.Uniform:
		if body.Kind != yaml.SequenceNode || len(body.Content) != 2 {
			d.errorf(body, path, "want [min, max], got %s", describe(body))
			return out, false
		}
		lo, hi := d.resolve(body.Content[0]), d.resolve(body.Content[1])
		var ok2 bool
		out.min, ok = d.value(lo, index(path, 0), parse)
		out.max, ok2 = d.value(hi, index(path, 1), parse)
		ok = ok && ok2
		if ok && out.max < out.min {
			d.errorf(body, path, "max %s is below min %s", hi.Value, lo.Value)
			ok = false
		}
	case sim.Normal, sim.LogNormal:
		m := d.mapping(body, path, k.Value+" distribution")
		var ok1, ok2 bool
		out.mean, ok1 = d.value(m.get("mean"), join(path, "mean"), parse)
		out.stdDev, ok2 = d.value(m.get("stddev"), join(path, "stddev"), parse)
		m.done()
		if !m.has("mean") || !m.has("stddev") {
			d.errorf(body, path, "a %s distribution needs a mean and a stddev", k.Value)
		}
		ok = ok1 && ok2
		if ok && out.kind == sim.LogNormal && out.mean == 0 && out.stdDev > 0 {
			d.errorf(body, path, "a lognormal distribution needs a positive mean when its stddev is")
			ok = false
		}
	}
	return out, ok
}

// durationDistribution decodes a distribution of durations.
func (m *mapping) durationDistribution(key string, out *sim.Distribution) bool {
	var d distribution
	if !m.distribution(key, parseDelayValue, &d) {
		return false
	}
	*out = d.duration()
	return true
}

// sizeDistribution decodes a distribution of sizes in bytes.
func (m *mapping) sizeDistribution(key string, out *scenarios.SizeDistribution) bool {
	var d distribution
	if !m.distribution(key, parseSizeValue, &d) {
		return false
	}
	*out = d.size()
	return true
}
