package tsql

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// LintScriptWarning is the diagnostic of what the importer finds likely wrong in the
// scripts themselves: an ALTER of an object no script creates, DISABLE_BROKER, two
// BROKER_INSTANCEs for one database (docs/lint.md).
const LintScriptWarning = "SB113"

// LintView is the design as lint sees it: the scripts' catalog and programs, with the
// workloads the skeleton would begin, those it left out for want of a route included, and
// without the readers it assumed on queues nothing in the scripts reads. Each workload's
// place is its target's CREATE SERVICE.
func (d *Design) LintView() *file.Scenario {
	s := *d.Scenario
	s.Config.Readers = nil
	for i, r := range d.Scenario.Config.Readers {
		if !slices.Contains(d.invented, i) {
			s.Config.Readers = append(s.Config.Readers, r)
		}
	}
	s.Places = make(map[string]file.Place, len(d.Scenario.Places))
	for k, v := range d.Scenario.Places {
		s.Places[k] = v
	}
	s.Config.Workloads = append(append([]scenarios.Workload(nil), d.Scenario.Config.Workloads...), d.unreached...)
	for i, at := range d.unreachedAt {
		s.Places[fmt.Sprintf("workloads[%d]", len(d.Scenario.Config.Workloads)+i)] = at
	}
	return &s
}

// Diagnostics is lint's view of the scripts: file.Lint of LintView, and the import's
// warnings, each with its ID, place and fix, in the order of the scripts.
func (d *Design) Diagnostics() []*file.Error {
	out := file.Lint(d.LintView())
	for _, n := range d.Notes {
		if n.Kind != Warning {
			continue
		}
		id := n.ID
		if id == "" {
			id = LintScriptWarning
		}
		out = append(out, &file.Error{File: n.Pos.File, Line: n.Pos.Line, Column: n.Pos.Col, Message: n.Message, ID: id, Fix: n.Fix, Warning: true})
	}
	slices.SortStableFunc(out, func(a, b *file.Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), cmp.Compare(a.ID, b.ID))
	})
	return out
}
