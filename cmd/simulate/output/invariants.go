package output

import (
	"strings"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// Rule is an invariant that model/invariant checks online, with what it asserts.
type Rule struct {
	ID, Description string
}

// Rules are the invariants model/invariant checks, in the order its package comment gives
// them. INV-12 is checked once, at the end of a run that drained.
var Rules = []Rule{
	{"INV-1", "exactly once, in order, per dialog direction, counting a received message only when its transaction commits"},
	{"INV-2", "no message enqueued twice, none made receivable or received incomplete"},
	{"INV-3", "a transmission queue row leaves only once the receiver stored its fragments, or by a documented discard"},
	{"INV-4", "a conversation group lock has at most one holder, and none after its transaction ends"},
	{"INV-5", "a RECEIVE result comes from one group locked by its transaction; no two live transactions receive from one group"},
	{"INV-6", "inside a RECEIVE result: conversations by level, each contiguous and in sequence order"},
	{"INV-7", "an endpoint keeps the priority level it was created with"},
	{"INV-8", "a queue monitor starts a task only while fewer than MAX_QUEUE_READERS run"},
	{"INV-9", "at most one QUEUE_ACTIVATION per notification time-out"},
	{"INV-10", "a rollback returns every row it received"},
	{"ACT-4", "a task starts, or a notification goes, only when activation is necessary"},
	{"G-4", "no second start while the queue monitor is NOTIFIED"},
	{"G-32", "the queue monitor's count of running tasks is right"},
	{"PRI-15", "no fragment leaves below the best effective level waiting for the same destination"},
	{"PROTO-2", "each message sent gets the next sequence number of its dialog direction"},
	{"INV-12", "once the faults healed and the run drained, everything sent was delivered and the transmission queues are empty"},
}

// endRule is the invariant checked only when a run drains.
const endRule = "INV-12"

// Rule verdicts.
const (
	VerdictOK        = "ok"
	VerdictViolated  = "violated"
	VerdictUnchecked = "unchecked"
)

// Invariants are the verdicts of the invariant checkers. Checked is false for a run
// without them (every rule is then "unchecked"); Violation is the first invariant violated,
// which stopped the run, or nil.
type Invariants struct {
	Checked   bool          `json:"checked"`
	Rules     []RuleVerdict `json:"rules"`
	Violation *Violation    `json:"violation"`
}

// RuleVerdict is one rule's verdict: "ok" (it held for as long as the run went on),
// "violated" (Detail says how) or "unchecked".
type RuleVerdict struct {
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Verdict     string `json:"verdict"`
	Detail      string `json:"detail"`
}

// Violation is the first invariant violated: which rule, when, where, why, and the trace
// records that led to it, oldest first, in trace.jsonl's form.
type Violation struct {
	Rule  string  `json:"rule"`
	TimeS float64 `json:"time_s"`
	// Conversation, Instance, Tx and Group say where, when the rule concerns one: the
	// conversation's id ("c…", empty for none), the instance's number (an index into
	// instances), the transaction (0 for none) and the conversation group ("g…", empty for
	// none).
	Conversation string        `json:"conversation"`
	Instance     int           `json:"instance"`
	Tx           uint64        `json:"tx"`
	Group        string        `json:"group"`
	Message      string        `json:"message"`
	Records      []TraceRecord `json:"records"`
}

// invariants returns the verdicts of a run that checked its invariants.
func invariants(res *scenarios.Result) Invariants {
	v := res.Violation
	inv := Invariants{Checked: true, Rules: make([]RuleVerdict, 0, len(Rules)+1)}
	known := false
	for _, r := range Rules {
		row := RuleVerdict{Rule: r.ID, Description: r.Description, Verdict: VerdictOK}
		switch {
		case v != nil && v.Rule == r.ID:
			row.Verdict, row.Detail = VerdictViolated, violationLine(v)
			known = true
		case r.ID == endRule && res.StopReason != sim.Drained:
			row.Verdict, row.Detail = VerdictUnchecked, "the run did not drain"
		}
		inv.Rules = append(inv.Rules, row)
	}
	if v != nil && !known { // a rule Rules does not list yet
		inv.Rules = append(inv.Rules, RuleVerdict{Rule: v.Rule, Verdict: VerdictViolated, Detail: violationLine(v)})
	}
	if v != nil {
		inv.Violation = violation(v)
	}
	return inv
}

// uncheckedInvariants returns the verdicts of a run that did not check its invariants.
func uncheckedInvariants() Invariants {
	inv := Invariants{Rules: make([]RuleVerdict, 0, len(Rules))}
	for _, r := range Rules {
		inv.Rules = append(inv.Rules, RuleVerdict{Rule: r.ID, Description: r.Description, Verdict: VerdictUnchecked,
			Detail: "the run did not check invariants"})
	}
	return inv
}

// violationLine is the first line of the violation's text: rule, time, place and message,
// without the records.
func violationLine(v *invariant.Violation) string {
	line, _, _ := strings.Cut(v.Error(), "\n")
	return line
}

func violation(v *invariant.Violation) *Violation {
	out := &Violation{Rule: v.Rule, TimeS: seconds(v.At), Instance: int(v.Instance), Tx: uint64(v.Tx),
		Message: v.Message, Records: make([]TraceRecord, 0, len(v.Records))}
	if v.Conversation != 0 {
		out.Conversation = v.Conversation.String()
	}
	if v.Group != 0 {
		out.Group = v.Group.String()
	}
	for _, r := range v.Records {
		out.Records = append(out.Records, NewTraceRecord(r))
	}
	return out
}
