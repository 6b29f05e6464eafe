package file

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeWorld is the review's probe (issue 14): a client on A asks Stock on B over contract
// RR (Request sent by the initiator, Reply by the target); Stock's activated procedure
// Answer runs the program that follows, from line 41.
const probeWorld = `x-cat: &cat
  message_types: [Request, Reply]
  contracts:
    - name: RR
      messages:
        - {message_type: Request, sent_by: initiator}
        - {message_type: Reply, sent_by: target}
instances:
  - name: A
    databases:
      - name: Shop
        <<: *cat
        queues: [{name: ClientQueue}]
        services: [{name: Client, queue: ClientQueue}]
  - name: B
    databases:
      - name: Stock
        <<: *cat
        queues:
          - name: StockQueue
            activation: {procedure_name: Answer, max_queue_readers: 2}
        services: [{name: Stock, queue: StockQueue, contracts: [RR]}]
links:
  - between: [A, B]
    both: {latency: 20ms}
workloads:
  - name: orders
    from_service: Client
    to_service: Stock
    contract: RR
    message_type: Request
    dialogs: 20
    interarrival: {exponential: 1s}
    messages: 3
    size: 200
    replies: true
    reply_type: Reply
procedures:
  - name: Answer
    on:
`

// DLG-16, DLG-2, DLG-11, ENT-3: a program statement that can only fail is refused at
// load time, at its line and column, in the file's words; each case is one of the
// review's probes or a neighbour of one.
func TestDLG16_LoadRefusesProgramStatementsThatCanOnlyFail(t *testing.T) {
	for _, tc := range []struct {
		name, on, want string
		errors         int // 1 unless set
	}{
		{"origin without a fan_out (origin_nofan)", "      - message_type: Request\n        do:\n          - send: {conversation: origin, message_type: Reply}\n",
			"probe.yaml:43:13: procedures[0].on[0].do[0].send: conversation: origin is the conversation a fan_out started from, and the program has no fan_out", 0},
		{"begun with nothing begun (begun_nobegin)", "      - message_type: Request\n        do:\n          - send: {conversation: begun, message_type: Reply}\n",
			"probe.yaml:43:13: procedures[0].on[0].do[0].send: conversation: begun is the dialog of a begin_dialog or route before it in its list, and there is none", 0},
		{"gather without a fan_out (gather_nofan)", "      - message_type: Request\n        do:\n          - gather: {then: [{send: {conversation: origin, message_type: Reply}}]}\n",
			"probe.yaml:43:13: procedures[0].on[0].do[0].gather: gather counts the replies of a fan_out, and the program has no fan_out", 2},
		{"the target sends the initiator's type (wrongside)", "      - message_type: Request\n        do:\n          - send: {message_type: Request, size: 500}\n",
			`probe.yaml:43:13: procedures[0].on[0].do[0].send: "Request" is received by the target, and no contract lets the target send "Request" (DLG-16)`, 0},
		{"a dialog to a service that accepts no contract (bd_target_refuses)", "      - message_type: Request\n        do:\n          - begin_dialog: {to_service: Client, contract: RR, message_type: Request}\n",
			`probe.yaml:43:13: procedures[0].on[0].do[0].begin_dialog: service "Client" of A/Shop does not accept contract "RR" (ENT-3)`, 0},
		{"a router to its own service (route_self_loop)", "      - message_type: Request\n        do:\n          - route: {to_services: [Stock], contract: RR}\n",
			`probe.yaml:43:13: procedures[0].on[0].do[0].route: the new dialog sends "Request" to the program's own queue, whose handler would send it on again`, 0},
		{"a fan-out to its own service", "      - message_type: Request\n        do:\n          - fan_out: {to_services: [Stock], contract: RR, message_type: Request}\n",
			`probe.yaml:43:13: procedures[0].on[0].do[0].fan_out: the new dialog sends "Request" to the program's own queue`, 0},
		{"an empty fan-out (fanout_empty)", "      - message_type: Request\n        do:\n          - fan_out: {to_services: [], contract: RR, message_type: Request}\n",
			"probe.yaml:43:36: procedures[0].on[0].do[0].fan_out.to_services: want at least one service name, got an empty list", 0},
		{"a SEND after the far side ended", "      - message_type: EndDialog\n        do:\n          - send: {message_type: Reply}\n",
			"probe.yaml:43:13: procedures[0].on[0].do[0].send: a SEND on a conversation whose far side has ended (EndDialog, DLG-4) would fail", 0},
		{"a SEND after an end", "      - message_type: Request\n        do:\n          - end: {}\n          - send: {message_type: Reply}\n",
			"probe.yaml:44:13: procedures[0].on[0].do[1].send: an end before it in the list has ended the received conversation: a send on it would fail (DLG-11)", 0},
		{"the received conversation in a gather's then", "      - message_type: DialogTimer\n        do:\n          - fan_out: {to_services: [Stock], contract: RR, message_type: Request}\n      - message_type: Reply\n        do:\n          - gather: {then: [{send: {message_type: Reply}}]}\n",
			"probe.yaml:46:30: procedures[0].on[1].do[0].gather.then[0].send: the gather ends the sub-dialog the reply came on before then runs", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := probeWorld + tc.on
			_, err := Load("probe.yaml", []byte(file))

			require.Error(t, err, file)
			assert.Contains(t, err.Error(), tc.want, "file:\n%s", file)
			assert.Len(t, strings.Split(err.Error(), "\n"), max(tc.errors, 1), "errors:\n%s", err)
		})
	}
}

// A program whose statements can succeed loads: a reply, a reply and an end, a saga
// started on a timer whose origin gets the answer.
func TestDLG16_LoadAcceptsProgramStatementsThatCanSucceed(t *testing.T) {
	for _, on := range []string{
		"      - message_type: Request\n        do:\n          - send: {message_type: Reply}\n",
		"      - message_type: DialogTimer\n        do:\n          - fan_out: {to_services: [Stock], contract: RR, message_type: Request}\n      - message_type: Reply\n        do:\n          - gather: {then: [{send: {conversation: origin, message_type: Reply}}]}\n",
		"      - message_type: Request\n        do:\n          - send: {message_type: Reply}\n          - end: {}\n",
	} {
		_, err := Load("probe.yaml", []byte(probeWorld+on))
		assert.NoError(t, err, on)
	}
}
