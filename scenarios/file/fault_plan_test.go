package file

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/model/invariant"
	"github.com/sbsim/sbsim/net/faulty"
	"github.com/sbsim/sbsim/scenarios"
)

// planSites is a valid scenario of two linked instances that the fault plans below use.
const planSites = `name: t
instances:
  - {name: A, databases: [{name: D, queues: [{name: Q}], services: [{name: S, queue: Q}]}]}
  - {name: B, databases: [{name: D, queues: [{name: R}], services: [{name: T, queue: R, contracts: [DEFAULT]}]}]}
`

// fault_plan loads into Config.FaultPlan, entry by entry: left out, no plan (the links'
// random streams); an empty list, a plan with no packet fault; and Marshal writes each
// back in the same form, to the same bytes again.
func TestFaultPlanLoadsAndRoundTrips(t *testing.T) {
	cases := []struct {
		name, text string
		want       *scenarios.FaultPlan
	}{
		{"no key: no plan", "", nil},
		{"an empty list: a plan of no fault", "fault_plan: []\n", &scenarios.FaultPlan{}},
		{"every key", `fault_plan:
  - {from: A, to: B, packet: "c1000000000002 I→T seq=2 frag=0", copy: 1, at: 1.25s, lost: true}
  - {from: A, to: B, packet: "c1000000000002 I→T seq=2 frag=0", copy: 2, at: 5.25s, corrupt: true, duplicate: true, jitter: 3ms, duplicate_jitter: 1.5ms}
  - {from: B, to: A, packet: "ack c1000000000002 I→T seq=2 frag=0", copy: 1, at: 0s, jitter: 250ms}
`, &scenarios.FaultPlan{Packets: []scenarios.PacketFault{
			{From: "A", To: "B", Key: "c1000000000002 I→T seq=2 frag=0", Copy: 1, At: 1250 * time.Millisecond, Fate: faulty.Fate{Lost: true}},
			{From: "A", To: "B", Key: "c1000000000002 I→T seq=2 frag=0", Copy: 2, At: 5250 * time.Millisecond,
				Fate: faulty.Fate{Corrupt: true, Duplicate: true, Jitter: 3 * time.Millisecond, DuplicateJitter: 1500 * time.Microsecond}},
			{From: "B", To: "A", Key: "ack c1000000000002 I→T seq=2 frag=0", Copy: 1, Fate: faulty.Fate{Jitter: 250 * time.Millisecond}}}}},
		{"copy left out: the first", "fault_plan: [{from: A, to: B, packet: k, lost: on}]\n",
			&scenarios.FaultPlan{Packets: []scenarios.PacketFault{{From: "A", To: "B", Key: "k", Copy: 1, Fate: faulty.Fate{Lost: true}}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Load("p.yaml", []byte(planSites+tc.text))
			require.NoError(t, err)
			assert.Equal(t, tc.want, f.Config.FaultPlan)

			out, err := f.Marshal()
			require.NoError(t, err)
			switch {
			case tc.want == nil:
				assert.NotContains(t, string(out), "fault_plan")
			case len(tc.want.Packets) == 0:
				assert.Contains(t, string(out), "\n\nfault_plan: []\n", "a section of its own")
			default:
				assert.Contains(t, string(out), "\n\nfault_plan:\n  - {from: "+tc.want.Packets[0].From+", to: ", "a section of flow maps")
			}
			g, err := Load("p.yaml", out)
			require.NoError(t, err, "written:\n%s", out)
			assert.Equal(t, tc.want, g.Config.FaultPlan, "written:\n%s", out)
			again, err := g.Marshal()
			require.NoError(t, err)
			assert.Equal(t, string(out), string(again))
		})
	}
}

// faultPlanBadFiles are fault plans, defects and rollbacks each wrong in one way, with the
// errors Load must give at their place, once each (TestLoadReportsBadFiles).
var faultPlanBadFiles = []struct {
	name, file string
	want       []string
}{
	{"an unknown instance", planSites + "fault_plan: [{from: A, to: Mars, packet: k}]\n",
		[]string{`bad.yaml:5:28: fault_plan[0].to: instance "Mars" does not exist (instances: A, B)`}},
	{"an instance to itself", planSites + "fault_plan: [{from: A, to: A, packet: k}]\n",
		[]string{`bad.yaml:5:28: fault_plan[0].to: no link joins the instance "A" to itself`}},
	{"no packet", planSites + "fault_plan: [{from: A, to: B}]\n",
		[]string{`bad.yaml:5:14: fault_plan[0].packet: the packet fault needs a packet`}},
	{"copy 0", planSites + "fault_plan: [{from: A, to: B, packet: k, copy: 0}]\n",
		[]string{`bad.yaml:5:48: fault_plan[0].copy: copy 0 is not positive: copy 1 is the first packet with the key, 2 its first retransmission`}},
	{"a negative jitter", planSites + "fault_plan: [{from: A, to: B, packet: k, jitter: -1ms}]\n",
		[]string{`bad.yaml:5:50: fault_plan[0].jitter: duration -1ms is negative`}},
	{"a negative duplicate jitter", planSites + "fault_plan: [{from: A, to: B, packet: k, duplicate: true, duplicate_jitter: -1ms}]\n",
		[]string{`bad.yaml:5:77: fault_plan[0].duplicate_jitter: duration -1ms is negative`}},
	{"a packet listed twice", planSites + "fault_plan:\n  - {from: A, to: B, packet: k, lost: true}\n  - {from: A, to: B, packet: k, copy: 1, corrupt: true}\n",
		[]string{`bad.yaml:7:5: fault_plan[1]: A→B "k" copy 1 is listed twice (first fault_plan[0]): a packet has one fate`}},
	{"a lost packet duplicated", planSites + "fault_plan: [{from: A, to: B, packet: k, lost: true, duplicate: true}]\n",
		[]string{`bad.yaml:5:65: fault_plan[0].duplicate: a lost packet has no copy: duplicate and lost exclude each other`}},
	{"an unknown key in an entry", planSites + "fault_plan: [{from: A, to: B, packet: k, loss: true}]\n",
		[]string{`bad.yaml:5:42: fault_plan[0].loss: unknown key "loss" in the packet fault (did you mean "lost"?)`}},
	{"an empty entry", planSites + "fault_plan: [{from: A, to: B, packet: k}, ~]\n",
		[]string{`bad.yaml:5:43: fault_plan[1]: want a packet fault, {from: A, to: B, packet: KEY, ...}, got nothing`}},
	{"not a list", planSites + "fault_plan: {from: A}\n",
		[]string{`bad.yaml:5:13: fault_plan: want a list of packet faults, got a mapping`}},
	{"an unknown defect", planSites + "broker: {defects: [redeliver-duplicate]}\n",
		[]string{`bad.yaml:5:20: broker.defects[0]: unknown defect "redeliver-duplicate": one of redeliver-duplicates, share-held-lock, activate-beyond-max`}},
	{"a defect twice", planSites + "broker: {defects: [activate-beyond-max, activate-beyond-max]}\n",
		[]string{`bad.yaml:5:41: broker.defects[1]: defect "activate-beyond-max" is listed twice`}},
	{"a negative rollback_until", planSites + "readers: [{queue: Q, rollback_rate: 0.1, rollback_until: -1s}]\n",
		[]string{`bad.yaml:5:58: readers[0].rollback_until: duration -1s is negative`}},
	{"a procedure's negative rollback_until", planSites + "procedures: [{name: P, rollback_until: -1s}]\n",
		[]string{`bad.yaml:5:40: procedures[0].rollback_until: duration -1s is negative`}},
}

// broker.defects loads into model.Config.Defects by name, and Marshal writes the names
// back; rollback_until, a reader's and a procedure's, loads and is written back.
func TestDefectsAndRollbackUntilLoadAndRoundTrip(t *testing.T) {
	f, err := Load("d.yaml", []byte(planSites+`broker: {defects: [activate-beyond-max, redeliver-duplicates]}
readers: [{queue: Q, rollback_rate: 0.2, rollback_until: 90s}]
procedures: [{name: P, rollback_rate: 0.1, rollback_until: 2m}]
`))
	require.NoError(t, err)
	assert.Equal(t, model.DefectRedeliverDuplicates|model.DefectActivateBeyondMax, f.Config.Broker.Defects)
	assert.Equal(t, 90*time.Second, f.Config.Readers[0].RollbackUntil)
	assert.Equal(t, 2*time.Minute, f.Config.Procedures[0].RollbackUntil)

	out, err := f.Marshal()
	require.NoError(t, err)
	assert.Contains(t, string(out), "defects: [redeliver-duplicates, activate-beyond-max]")
	g, err := Load("d.yaml", out)
	require.NoError(t, err, "written:\n%s", out)
	assert.Equal(t, f.Config, g.Config, "written:\n%s", out)
}

// What a plan or a broker cannot say in a file is refused rather than written wrong.
func TestMarshalRefusesAPlanOrDefectsAFileCannotSay(t *testing.T) {
	f := &Scenario{Config: scenarios.Config{Name: "x", FaultPlan: &scenarios.FaultPlan{Packets: []scenarios.PacketFault{
		{From: "A", To: "B", Key: "k", Copy: 1, Fate: faulty.Fate{Lost: true, Duplicate: true}}}}}}
	_, err := f.Marshal()
	assert.ErrorContains(t, err, "fault_plan[0]: a lost packet that is duplicated cannot be written")

	f = &Scenario{Config: scenarios.Config{Name: "x", Broker: model.Config{Defects: 1 << 7}}}
	_, err = f.Marshal()
	assert.ErrorContains(t, err, "broker.defects: defects 0x80 has bits no defect name gives")
}

// A counterexample's scenario file replays it: testdata's counterexample.yaml, a broker
// with a defect and a fault plan on a link with no random fault, fails INV-2 on every seed,
// at the same time; the same file without its plan, or with an empty plan, does not.
func TestAFaultPlanInAFileReplaysTheFailure(t *testing.T) {
	f, err := LoadFile("testdata/files/counterexample.yaml")
	require.NoError(t, err)
	require.NotNil(t, f.Config.FaultPlan)
	var first *invariant.Violation
	for seed := uint64(1); seed <= 5; seed++ {
		res, err := scenarios.Run(f.Config, seed)
		require.NoError(t, err)
		require.NotNil(t, res.Violation, "seed %d", seed)
		assert.Equal(t, "INV-2", res.Violation.Rule, "seed %d", seed)
		if first == nil {
			first = res.Violation
		}
		assert.Equal(t, first.At, res.Violation.At, "seed %d", seed)
	}
	for _, c := range []struct {
		name string
		plan *scenarios.FaultPlan
	}{{"no plan", nil}, {"an empty plan", &scenarios.FaultPlan{}}} {
		cfg := f.Config
		cfg.FaultPlan = c.plan
		res, err := scenarios.Run(cfg, 1)
		require.NoError(t, err)
		assert.Nil(t, res.Violation, "%s", c.name)
	}
}
