package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
)

// A workload that no result can name, or that the catalog would never let deliver, is bad
// input (DLG-16, ENT-3): Validate refuses it, naming the workload and the field, where it
// used to run and report ok with nothing sent.
func TestValidateRefusesWorkloadsThatCannotDeliverOrHaveNoName(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"no name", func(c *Config) { c.Workloads[0].Name = "" },
			"workload 0: Name is empty: results and expectations name workloads"},
		{"one name twice", func(c *Config) { c.Workloads = append(c.Workloads, c.Workloads[0]) },
			"workload 1 (w): Name is also workload 0's"},
		{"a message type only the target sends", func(c *Config) { c.Workloads[0].MessageType = "Reply" },
			`workload 0 (w): MessageType: contract "RequestReply" lets only the target send "Reply", not the initiator (DLG-16): every SEND would fail`},
		{"a reply type only the initiator sends", func(c *Config) { c.Workloads[0].Replies, c.Workloads[0].ReplyType = true, "Request" },
			`workload 0 (w): ReplyType: contract "RequestReply" lets only the initiator send "Request", not the target (DLG-16): every SEND would fail`},
		{"a message type the contract does not name", func(c *Config) { c.Workloads[0].MessageType = "" },
			`workload 0 (w): MessageType: contract "RequestReply" does not name message type "DEFAULT" (DLG-16): every SEND would fail`},
		{"a target that does not accept the contract", func(c *Config) { c.Instances[1].Databases[0].Services[0].Contracts = nil },
			`workload 0 (w): To: service "Target" of B/Stock does not accept contract "RequestReply" (ENT-3): every dialog it gets would be refused with an error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := twoInstances(faulty.PairConfig{}, Workload{Name: "w", Dialogs: 1, Messages: 1})
			require.NoError(t, validateConfig(cfg), "the base config")
			tt.set(&cfg)
			assert.EqualError(t, validateConfig(cfg), tt.want)
		})
	}
	cfg := twoInstances(faulty.PairConfig{}, Workload{Name: "w", Messages: 1})
	cfg.Workloads[0].MessageType = "Reply"
	assert.NoError(t, validateConfig(cfg), "a workload of no dialogs sends nothing, so nothing fails")
}

func validateConfig(cfg Config) error {
	cat, err := model.Compile(cfg.Instances)
	if err != nil {
		return err
	}
	return cfg.Validate(cat)
}
