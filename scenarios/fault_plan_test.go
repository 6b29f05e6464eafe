package scenarios_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// A run's recorded fault plan, replayed on links that have no random fault left, gives the
// same run, record for record: the plan replays without the links' random streams. Without
// the plan the same links give another run, so the plan is what made it.
func TestARecordedFaultPlanReplaysTheRunWithoutTheLinksStreams(t *testing.T) {
	for _, c := range []struct {
		name  string
		seed  uint64
		swarm bool
	}{{"lossy-wan", 1, false}, {"partition-heals", 2, true}, {"three-sites", 3, true}, {"branch-gateway", 4, true}} {
		t.Run(c.name, func(t *testing.T) {
			s, err := file.Library(c.name)
			require.NoError(t, err)
			cfg := s.Config
			if c.swarm {
				cfg = scenarios.DrawFaultMix(&cfg, c.seed, true).Apply(cfg)
			}
			cfg.Trace, cfg.CheckInvariants = true, true
			rec := cfg
			rec.RecordFaults = true
			recorded, err := scenarios.Run(rec, c.seed)
			require.NoError(t, err)
			require.NotNil(t, recorded.FaultPlan)
			require.NotEmpty(t, recorded.FaultPlan.Packets, "the run's links did something to packets")
			require.NotEmpty(t, recorded.Packets)

			replay := cfg.Planned(recorded.FaultPlan)
			got, err := scenarios.Run(replay, c.seed)
			require.NoError(t, err)
			assert.Equal(t, recorded.Events, got.Events)
			require.Equal(t, len(recorded.Trace), len(got.Trace))
			for i := range recorded.Trace {
				require.Equal(t, recorded.Trace[i], got.Trace[i], "record %d", i)
			}

			control, err := scenarios.Run(cfg.Planned(nil), c.seed)
			require.NoError(t, err)
			assert.NotEqual(t, len(recorded.Trace), len(control.Trace), "without the plan, the clean links give another run")
		})
	}
}

// A packet sink sees every packet the links were offered, once, with what they did to it,
// as Result.Packets would hold them, and the packets themselves; it changes nothing in the
// run: the trace is the same record for record with it and without it. A run with a
// design finding runs again for the finding's records (Run): the sink sees the packets of
// the first run only.
func TestAPacketSinkSeesThePacketsAndChangesNothing(t *testing.T) {
	for _, name := range []string{"lossy-wan", "fire-and-forget-outage"} {
		t.Run(name, func(t *testing.T) {
			s, err := file.Library(name)
			require.NoError(t, err)
			cfg := s.Config
			cfg.Trace, cfg.CheckInvariants = true, true
			plain, err := scenarios.Run(cfg, 1)
			require.NoError(t, err)
			rec := cfg
			rec.RecordFaults = true
			recorded, err := scenarios.Run(rec, 1)
			require.NoError(t, err)

			sunk := cfg // no RecordFaults: the sink alone
			var seen []scenarios.SentPacket
			fragments := 0
			sunk.PacketSink = scenarios.PacketSinkFunc(func(sent *scenarios.SentPacket, p *model.Packet) {
				seen = append(seen, *sent)
				fragments += len(p.Fragments)
				assert.Equal(t, sent.Fragments, len(p.Fragments))
				assert.Equal(t, sent.Acks, len(p.Acks))
			})
			got, err := scenarios.Run(sunk, 1)
			require.NoError(t, err)
			require.NotEmpty(t, seen)
			assert.Nil(t, got.Packets, "the sink alone keeps no packet in the result")
			assert.Equal(t, recorded.Packets, seen, "the sink sees what Result.Packets holds, in its order, once")
			assert.Positive(t, fragments)
			require.Equal(t, len(plain.Trace), len(got.Trace))
			for i := range plain.Trace {
				require.Equal(t, plain.Trace[i], got.Trace[i], "record %d", i)
			}
			if name == "fire-and-forget-outage" {
				assert.NotEmpty(t, got.Findings, "a run with findings, run twice")
			}
		})
	}
}

// A conversation's latency counts every user message made ready, those of the DEFAULT
// type too: not END DIALOG, Error, dialog timers or event notifications. (It once left
// DEFAULT out, so a fire-and-forget design's conversations had no latency at all.)
func TestAConversationsLatencyCountsItsUserMessagesOfEveryType(t *testing.T) {
	s, err := file.Library("fire-and-forget-outage")
	require.NoError(t, err)
	cfg := s.Config
	cfg.Trace = true
	res, err := scenarios.Run(cfg, 1)
	require.NoError(t, err)
	want := map[model.ConversationID]int64{}
	for _, r := range res.Trace {
		switch r.MessageType {
		case model.EndDialogMessageType, model.ErrorMessageType, model.DialogTimerMessageType, model.EventNotificationMessageType:
		default:
			if r.Kind == model.TraceMessageReady {
				want[r.Conversation]++
			}
		}
	}
	require.NotEmpty(t, res.Conversations)
	some := false
	for _, c := range res.Conversations {
		assert.Equal(t, want[c.Conversation], c.Latency.Count, "%v", c.Conversation)
		some = some || c.Latency.Count > 0
	}
	assert.True(t, some, "the workload's DEFAULT messages have their latency")
}
