package file

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A program's mistakes are reported at their place in the file: an unknown statement, a
// service or message type that does not exist, a contract that does not let the
// initiator send the type (DLG-16), a type with two handlers, a route choice unknown.
func TestDLG16_LoadReportsBadProgramsWithLineAndColumn(t *testing.T) {
	reader := func(on string) string { return base + "readers:\n  - queue: Q\n    on:\n" + on }
	for _, tc := range []struct{ name, file, want string }{
		{"unknown statement", reader("      - message_type: DEFAULT\n        do:\n          - reply: {}\n"),
			`bad.yaml:13:13: readers[0].on[0].do[0]: unknown statement "reply": want send, begin_dialog, fan_out, gather, route, end or timer`},
		{"unknown service", reader("      - message_type: DEFAULT\n        do:\n          - begin_dialog: {to_service: Nowhere}\n"),
			`bad.yaml:13:13: readers[0].on[0].do[0].begin_dialog: service "Nowhere" does not exist`},
		{"unknown handler type", reader("      - message_type: Ping\n"),
			`bad.yaml:11:23: readers[0].on[0].message_type: message type "Ping" does not exist`},
		{"two handlers for a type", reader("      - message_type: EndDialog\n      - message_type: EndDialog\n"),
			`bad.yaml:12:23: readers[0].on[1].message_type: message type "EndDialog" already has a handler`},
		{"route choice", reader("      - message_type: DEFAULT\n        do:\n          - route: {to_services: [S], by: sticky}\n"),
			`bad.yaml:13:43: readers[0].on[0].do[0].route.by: want round-robin, random or hash, got "sticky"`},
		{"timer without timeout", reader("      - message_type: DEFAULT\n        do:\n          - timer: {conversation: begun}\n"),
			`readers[0].on[0].do[0].timer.timeout: the timer statement needs a timeout`},
		{"unknown key in a statement", reader("      - message_type: DEFAULT\n        do:\n          - send: {mesage_type: DEFAULT}\n"),
			`readers[0].on[0].do[0].send.mesage_type: unknown key "mesage_type" in the send statement (did you mean "message_type"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load("bad.yaml", []byte(tc.file))

			require.Error(t, err, tc.file)
			assert.Contains(t, err.Error(), tc.want, "file:\n%s", tc.file)
			assert.Len(t, strings.Split(err.Error(), "\n"), 1, "one error:\n%s", err)
		})
	}
}

// A contract that does not let the initiator send a new dialog's type is refused at load
// time, at the statement (DLG-16).
func TestDLG16_LoadRefusesADialogTheContractForbids(t *testing.T) {
	file := `instances:
  - name: A
    databases:
      - name: D
        message_types: [Request, Reply]
        contracts:
          - {name: C, messages: [{message_type: Request, sent_by: initiator}, {message_type: Reply, sent_by: target}]}
        queues: [{name: Q}, {name: R}]
        services: [{name: S, queue: Q, contracts: [C]}, {name: T, queue: R, contracts: [C]}]
readers:
  - queue: Q
    on:
      - message_type: Request
        do:
          - fan_out: {to_services: [T], contract: C, message_type: Reply}
`
	_, err := Load("bad.yaml", []byte(file))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `bad.yaml:15:13: readers[0].on[0].do[0].fan_out: contract "C" does not let the initiator send "Reply" (DLG-16)`)
}

// An override reaches a handler's keys by index: a sweep can vary a program.
func TestOverrideSetsAHandlersKeys(t *testing.T) {
	f, err := LoadFile("testdata/files/programs.yaml")
	require.NoError(t, err)

	g, err := f.With(Override{"readers.0.on.0.processing_time", "10ms"}, Override{"readers.3.on.0.rollback_rate", "0.5"})

	require.NoError(t, err)
	assert.Equal(t, int64(10e6), int64(g.Config.Readers[0].On[0].ProcessingTime.Mean))
	assert.Equal(t, 0.5, g.Config.Readers[3].On[0].RollbackRate)
	assert.Equal(t, f.Config.Readers[1].On, g.Config.Readers[1].On)
}
