package tsql

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/file"
)

// diagnostics lints scripts and returns "ID line:col" of each diagnostic.
func diagnostics(t *testing.T, files ...string) []string {
	t.Helper()
	d, err := read(Options{}, files...)
	require.NoError(t, err)
	var out []string
	for _, e := range d.Diagnostics() {
		require.NotEmpty(t, e.ID, "%v", e)
		require.NotEmpty(t, e.Fix, "%v", e)
		out = append(out, e.ID+" "+e.File+":"+itoa(e.Line)+":"+itoa(e.Column))
	}
	return out
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	if s == "" {
		return "0"
	}
	return s
}

// SB113: what the importer finds likely wrong in the scripts (an ALTER of what no script
// creates, DISABLE_BROKER) is a lint warning at its statement; the same scripts in the
// right order have none.
func TestSB113_WhatTheScriptsGetWrong(t *testing.T) {
	activated := base + "ALTER QUEUE WorkQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = P, MAX_QUEUE_READERS = 1)\nGO\nCREATE PROCEDURE P AS WAITFOR (RECEIVE TOP (1) * FROM WorkQueue), TIMEOUT 100\nGO\n"
	bad := diagnostics(t, "a.sql", "USE Shop\nALTER QUEUE Later WITH STATUS = OFF\nALTER DATABASE Shop SET DISABLE_BROKER\n", "b.sql", activated+"CREATE QUEUE Later\n")
	assert.Contains(t, bad, LintScriptWarning+" a.sql:2:1")
	assert.Contains(t, bad, LintScriptWarning+" a.sql:3:25")
	good := diagnostics(t, "b.sql", activated+"CREATE QUEUE Later\n", "a.sql", "USE Shop\nALTER QUEUE Later WITH STATUS = OFF\n")
	assert.NotContains(t, good, LintScriptWarning+" a.sql:2:1")
	for _, g := range good {
		assert.NotContains(t, g, LintScriptWarning)
	}
}

// Lint sees the scripts, not the skeleton: a queue that nothing in them reads is SB103 at
// its CREATE QUEUE although the scenario assumes a reader there; a target no route
// reaches is SB105, although the skeleton left its workload out; a route to an address
// no instance has is SB104 at its ADDRESS.
func TestLintSeesTheScriptsNotTheSkeleton(t *testing.T) {
	got := diagnostics(t, "s.sql", base)
	assert.Contains(t, got, file.LintQueueNotRead+" s.sql:7:1", "WorkQueue: nothing reads it")

	two := ":CONNECT A\nUSE One\nCREATE QUEUE Q\nCREATE SERVICE From1 ON QUEUE Q\nCREATE ROUTE Other WITH SERVICE_NAME = 'Nothing', ADDRESS = 'TCP://B:4022'\n" +
		"CREATE ROUTE Far WITH SERVICE_NAME = 'X', ADDRESS = 'TCP://nowhere:4022'\nGO\n" +
		":CONNECT B\nUSE Two\nCREATE QUEUE Q WITH ACTIVATION (PROCEDURE_NAME = P, MAX_QUEUE_READERS = 1)\nCREATE SERVICE To2 ON QUEUE Q ([DEFAULT])\nGO\n" +
		"CREATE PROCEDURE P AS WAITFOR (RECEIVE TOP (1) * FROM Q), TIMEOUT 100\nGO\n"
	d, err := read(Options{}, "t.sql", two)
	require.NoError(t, err)
	assert.Empty(t, d.Scenario.Config.Workloads, "no route reaches To2: the skeleton has no workload to it")
	got = diagnostics(t, "t.sql", two)
	assert.Contains(t, got, file.LintUnreachedService+" t.sql:11:1", "at To2's CREATE SERVICE: %v", got)
	assert.Contains(t, got, file.LintRouteGoesNowhere+" t.sql:6:43", "%v", got)
}
