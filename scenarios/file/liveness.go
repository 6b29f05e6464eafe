package file

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/scenarios"
)

// liveness decodes the liveness key: off (the scenario expects its run not to drain), on
// (the default), or {after: 40m, within: 10m}.
func (d *decoder) liveness(top *mapping, out *scenarios.Liveness) {
	n := top.get("liveness")
	if n == nil || isNull(n) {
		return
	}
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "on", "true", "yes":
		case "off", "false", "no":
			out.Off = true
		default:
			d.errorf(n, "liveness", "want on, off or {after: DURATION, within: DURATION}, got %q", n.Value)
		}
		return
	}
	m := d.mapping(n, "liveness", "liveness")
	m.duration("after", &out.After)
	m.duration("within", &out.Within)
	if m.has("after") && out.After == 0 {
		d.errorf(m.get("after"), "liveness.after", "after must be after the start: leave it out to heal when the last fault ends")
	}
	m.done()
}

// liveness encodes the liveness key, when it is not the default.
func (e *encoder) liveness(m node, l scenarios.Liveness) {
	switch {
	case l.Off:
		m.set("liveness", plain("off"))
	case l.After > 0 || l.Within > 0:
		lm := newMap(true)
		lm.duration("after", l.After)
		lm.duration("within", l.Within)
		m.set("liveness", lm.Node)
	}
}
