package file

import (
	"math"
	"strings"

	"github.com/sbsim/sbsim/scenarios"
)

// lifeCycle decodes a workload's end: the life cycle of its dialogs (docs/lifecycles.md).
func (m *mapping) lifeCycle(out *scenarios.LifeCycle) {
	var s string
	if !m.str("end", &s) {
		return
	}
	c, ok := scenarios.ParseLifeCycle(strings.ToLower(s))
	if !ok {
		m.d.errorf(m.d.at(join(m.path, "end")), join(m.path, "end"), "want one of %s, got %q",
			strings.Join(scenarios.LifeCycleNames(), ", "), s)
		return
	}
	*out = c
}

// recycleModes are the values of reuse: recycle.
var recycleModes = map[string]bool{"end": false, "end-of-stream": true, "end_of_stream": true}

// reuse decodes a workload's reuse: its pool of long-lived dialogs (docs/lifecycles.md).
func (d *decoder) reuse(m *mapping, path string) *scenarios.Reuse {
	v := m.get("reuse")
	if v == nil {
		return nil
	}
	rpath := join(path, "reuse")
	rm := d.mapping(v, rpath, "reuse")
	r := &scenarios.Reuse{}
	if !rm.intField("dialogs", &r.Dialogs, 1, math.MaxInt32) && !rm.has("dialogs") && rm.present() {
		d.errorf(v, join(rpath, "dialogs"), "a pool needs dialogs, how many long-lived dialogs it keeps")
	}
	rm.intField("senders", &r.Senders, 0, scenarios.MaxSessions)
	rm.intField("recycle_after_messages", &r.RecycleAfterMessages, 0, math.MaxInt32)
	rm.duration("recycle_after", &r.RecycleAfter)
	var mode string
	if rm.str("recycle", &mode) {
		eos, ok := recycleModes[strings.ToLower(mode)]
		if !ok {
			d.errorf(d.at(join(rpath, "recycle")), join(rpath, "recycle"), "want end or end-of-stream, got %q", mode)
		}
		r.EndOfStream = eos
	}
	rm.durationDistribution("hold_time", &r.HoldTime)
	rm.done()
	return r
}

// lifeCycle writes a workload's end and reuse, when set.
func (e *encoder) lifeCycle(wm node, w scenarios.Workload, path string) {
	if w.End != scenarios.EndInitiator {
		wm.set("end", plain(w.End.String()))
	}
	r := w.Reuse
	if r == nil {
		return
	}
	rm := newMap(true)
	rm.integer("dialogs", int64(r.Dialogs))
	rm.integer("senders", int64(r.Senders))
	rm.integer("recycle_after_messages", int64(r.RecycleAfterMessages))
	rm.duration("recycle_after", r.RecycleAfter)
	if r.EndOfStream {
		rm.set("recycle", plain("end-of-stream"))
	}
	e.setDistribution(rm, "hold_time", r.HoldTime, join(path, "reuse"))
	wm.set("reuse", rm.Node)
}

// checkLifeCycle reports, in the file's keys, the life cycles that do not fit the rest of
// the workload (Workload.Validate names the Go fields).
func (d *decoder) checkLifeCycle(w scenarios.Workload, path string) {
	end := join(path, "end")
	switch {
	case w.End == scenarios.EndTarget && w.Replies:
		d.errorf(d.at(end), end, "end: target ends on the last message, without replies: with replies: on, write end: target-after-reply")
	case w.End == scenarios.EndTargetAfterReply && !w.Replies:
		d.errorf(d.at(end), end, "end: target-after-reply needs replies: on")
	case w.EndWithError && (w.End == scenarios.EndNever || w.End == scenarios.EndCleanup):
		d.errorf(d.at(join(path, "end_with_error")), join(path, "end_with_error"), "end_with_error: a dialog of end: %v is not ended with an error", w.End)
	}
	if w.Reuse == nil {
		return
	}
	reuse := join(path, "reuse")
	switch {
	case w.End != scenarios.EndInitiator:
		d.errorf(d.at(reuse), reuse, "reuse: a pool's dialogs end by their recycling (reuse.recycle): leave end out")
	case w.GroupSize > 1:
		d.errorf(d.at(reuse), reuse, "reuse: each pooled dialog has a group of its own: leave group_size out")
	}
}
