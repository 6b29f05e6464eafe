package results

import (
	"fmt"
	"strings"

	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/sim"
)

// Rule verdicts.
const (
	VerdictOK        = "ok"
	VerdictViolated  = "violated"
	VerdictUnchecked = "unchecked"
	// VerdictNotToTheEnd: the rule held until a violation of another stopped the run.
	VerdictNotToTheEnd = "not_checked_to_the_end"
)

// Invariants are the verdicts of the invariant checkers. Checked is false for a run
// without them (every rule is then "unchecked"); Violation is the first invariant violated,
// which stopped the run, or nil.
type Invariants struct {
	Checked   bool          `json:"checked"`
	Rules     []RuleVerdict `json:"rules"`
	Violation *Violation    `json:"violation"`
	// FindingCount counts the design findings (invariant.Finding), Findings holds the
	// first of them: what Service Broker itself would do wrong with the design.
	FindingCount int       `json:"finding_count"`
	Findings     []Finding `json:"findings"`
}

// Finding is one design finding, as summary.json writes it.
type Finding struct {
	ID             string  `json:"id"`
	TimeS          float64 `json:"time_s"`
	Conversation   string  `json:"conversation"`
	ForgottenAtS   float64 `json:"forgotten_at_s"`
	InitiatorState string  `json:"initiator_state"`
	Message        string  `json:"message"`
}

// RuleVerdict is one rule's verdict: "ok" (it held to the end of the run), "violated"
// (Detail says how), "not_checked_to_the_end" (it held until another rule's violation
// stopped the run, which Detail names) or "unchecked" (Detail says why).
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
	rules := invariant.Rules()
	inv := Invariants{Checked: true, Rules: make([]RuleVerdict, 0, len(rules)+1), Findings: []Finding{}}
	known := false
	for _, r := range rules {
		row := RuleVerdict{Rule: r.ID, Description: r.Description, Verdict: VerdictOK}
		switch {
		case v != nil && v.Rule == r.ID:
			row.Verdict, row.Detail = VerdictViolated, violationLine(v)
			known = true
		case v != nil && res.StopReason == sim.Stopped:
			row.Verdict, row.Detail = VerdictNotToTheEnd, StoppedAt(v)
		case r.AtEnd && res.StopReason != sim.Drained && res.Liveness.Off:
			row.Verdict, row.Detail = VerdictUnchecked, NotDrained
		}
		inv.Rules = append(inv.Rules, row)
	}
	if v != nil && !known { // a rule invariant.Rules does not list: a bug, but say it

		inv.Rules = append(inv.Rules, RuleVerdict{Rule: v.Rule, Verdict: VerdictViolated, Detail: violationLine(v)})
	}
	if v != nil {
		inv.Violation = violation(v)
	}
	inv.FindingCount = res.FindingCount
	for _, f := range res.Findings {
		inv.Findings = append(inv.Findings, Finding{ID: f.ID, TimeS: seconds(f.At), Conversation: f.Conversation.String(),
			ForgottenAtS: seconds(f.ForgottenAt), InitiatorState: f.InitiatorState.String(), Message: f.Message})
	}
	return inv
}

// NotDrained says why INV-12 is unchecked in a run that stopped on a limit before it
// drained, as its scenario expected.
const NotDrained = "the run did not drain, as its scenario expects (liveness: off)"

// StoppedAt says where a violation stopped the run, for the rules it kept from being
// checked to the end: "the run stopped at the INV-2 violation at 31m57s".
func StoppedAt(v *invariant.Violation) string {
	return fmt.Sprintf("the run stopped at the %s violation at %v", v.Rule, v.At)
}

// uncheckedInvariants returns the verdicts of a run that did not check its invariants.
func uncheckedInvariants() Invariants {
	rules := invariant.Rules()
	inv := Invariants{Rules: make([]RuleVerdict, 0, len(rules)), Findings: []Finding{}}
	for _, r := range rules {
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
