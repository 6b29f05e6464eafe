package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/sim"
)

// twoInstances is a world of instances A and B: service Initiator on A, Target on B, a
// contract with a request and a reply type, and a workload between them over link.
func twoInstances(link faulty.PairConfig, wl Workload) Config {
	contract := model.Contract{Name: "RequestReply", Messages: []model.ContractMessage{
		{MessageType: "Request", SentBy: model.SentByInitiator}, {MessageType: "Reply", SentBy: model.SentByTarget}}}
	db := func(name, service, queue string) model.Database {
		return model.Database{Name: name,
			MessageTypes: []model.MessageType{{Name: "Request"}, {Name: "Reply"}},
			Contracts:    []model.Contract{contract},
			Queues:       []model.Queue{{Name: queue}},
			Services:     []model.Service{{Name: service, Queue: queue, Contracts: []string{"RequestReply"}}}}
	}
	wl.From, wl.To, wl.Contract, wl.MessageType, wl.ReplyType = "Initiator", "Target", "RequestReply", "Request", "Reply"
	return Config{
		Name: "two instances",
		Instances: []model.Instance{
			{Name: "A", Databases: []model.Database{db("Orders", "Initiator", "InitiatorQueue")}},
			{Name: "B", Databases: []model.Database{db("Stock", "Target", "TargetQueue")}},
		},
		Links:           []Link{{A: "A", B: "B", PairConfig: link}},
		Workloads:       []Workload{wl},
		CheckInvariants: true,
	}
}

func lossy(loss, dup float64) faulty.PairConfig {
	c := faulty.Config{LatencyFixed: 20 * time.Millisecond, LatencyJitter: sim.ExponentialMean(5 * time.Millisecond),
		LossProbability: loss, DuplicateProbability: dup, CorruptProbability: 0.01}
	return faulty.PairConfig{AToB: c, BToA: c}
}

// PROTO-1: the dialog protocol (model) runs over the adjacent-broker links (net/faulty):
// every message of every dialog arrives over a link that loses, duplicates and corrupts.
func TestOneWayDialogsDeliverEverythingOverALossyLink(t *testing.T) {
	cfg := twoInstances(lossy(0.1, 0.1), Workload{Name: "orders", Dialogs: 20,
		Interarrival: sim.ExponentialMean(100 * time.Millisecond), Messages: 10, Size: FixedSize(20000)})

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Equal(t, sim.Drained, res.StopReason)
	assert.Equal(t, int64(200), res.Workloads[0].MessagesSent)
	assert.Equal(t, int64(20), res.Workloads[0].DialogsEnded)
	assert.Equal(t, int64(200), res.Latency.Count)
	assert.Zero(t, res.StatementErrors)
	for _, in := range res.Instances {
		assert.Zero(t, in.TransmissionQueueRows, "instance %s", in.Name)
	}
	t.Logf("%+v", res.Instances)
	t.Logf("%+v", res.Latency)
}

func TestRequestReplyDialogs(t *testing.T) {
	cfg := twoInstances(lossy(0.2, 0.2), Workload{Name: "rr", Dialogs: 10,
		Interarrival: sim.ExponentialMean(time.Second), Messages: 5, Size: FixedSize(100), Replies: true, ReplySize: FixedSize(3000)})

	res, err := Run(cfg, 2)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Equal(t, int64(50), res.Workloads[0].RepliesReceived)
	assert.Equal(t, int64(10), res.Workloads[0].DialogsEnded)
	assert.Zero(t, res.StatementErrors)
}

// G-19 from the timeline: the link loses every packet from 5 s to 25 s, then is as before.
// Retries carry everything across once it heals (PROTO-10, INV-12), so the messages sent
// during the outage arrive late but once and in order.
func TestTimelineChangesALinkForAWhile(t *testing.T) {
	cfg := twoInstances(lossy(0, 0), Workload{Name: "orders", Dialogs: 20, Interarrival: sim.Fixed(time.Second),
		Messages: 3, Size: FixedSize(2000)})
	healthy := cfg.Links[0].AToB
	dead := healthy
	dead.LossProbability = 1
	cfg.Timeline = []Change{
		{At: 5 * time.Second, Link: &LinkChange{A: "A", B: "B", AToB: &dead, BToA: &dead}},
		{At: 25 * time.Second, Link: &LinkChange{A: "B", B: "A", AToB: &healthy, BToA: &healthy}},
	}

	res, err := Run(cfg, 1)

	require.NoError(t, err)
	require.Nil(t, res.Violation)
	assert.Equal(t, sim.Drained, res.StopReason)
	assert.Equal(t, int64(60), res.Latency.Count, "everything delivered once the link is back")
	assert.Greater(t, res.Latency.Max, 10*time.Second, "what was sent during the outage waited for it")
	assert.Positive(t, res.Links[0].Counters.Lost)
}
