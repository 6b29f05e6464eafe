package batch

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/file"
)

// marksWorldsGlob finds the test worlds written for the marks that no library scenario
// reaches (docs/marks.md): each requires the marks it is for.
const marksWorldsGlob = "testdata/marks/*.yaml"

// markWorlds returns the test worlds of the marks, by file name.
func markWorlds(t *testing.T) []Target {
	t.Helper()
	paths, err := filepath.Glob(marksWorldsGlob)
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var targets []Target
	for _, p := range paths {
		s, err := file.LoadFile(p)
		require.NoError(t, err)
		require.NotEmpty(t, s.RequireMarks, "%s requires no mark", p)
		targets = append(targets, Target{p, s, Seeds(s)})
	}
	return targets
}

var (
	libraryMarksOnce, markWorldsOnce sync.Once
	libraryMarks                     map[string]*MarkTally
	markWorldVerdicts                []Verdict
)

// markWorldChecks checks the test worlds of the marks once, and returns their verdicts.
func markWorldChecks(t *testing.T) []Verdict {
	markWorldsOnce.Do(func() {
		for v := range Check(markWorlds(t), 2, nil) {
			markWorldVerdicts = append(markWorldVerdicts, v)
		}
	})
	require.NotEmpty(t, markWorldVerdicts, "the check of the worlds of the marks failed in an earlier test")
	return markWorldVerdicts
}

// libraryMarkTallies checks the library on its first three seeds once, and returns the
// marks each scenario's seeds reached.
func libraryMarkTallies(t *testing.T) map[string]*MarkTally {
	libraryMarksOnce.Do(func() {
		var targets []Target
		for _, name := range file.LibraryNames() {
			targets = append(targets, Target{name, library(t, name), librarySeeds})
		}
		libraryMarks = map[string]*MarkTally{}
		for v := range Check(targets, 2, nil) {
			require.NoError(t, v.Err)
			tally := v.Marks
			libraryMarks[v.Name] = &tally
		}
	})
	require.NotNil(t, libraryMarks, "the library's check failed in an earlier test")
	return libraryMarks
}

// A tally counts the runs that reached each mark, merges with another as if their runs
// had been added to one, and lists the marks never reached in the table's order and the
// required ones missing in the order asked.
func TestMarkTallyCountsRunsThatReachEachMark(t *testing.T) {
	var a, b MarkTally
	var one, two model.MarkCounts
	one[model.MarkLockWait] = 5
	two[model.MarkLockWait], two[model.MarkPoisonDisabled] = 1, 2
	a.Add(&one)
	a.Add(&two)
	b.Add(&one)
	a.Merge(&b)
	assert.Equal(t, 3, a.Runs())
	assert.Equal(t, 3, a.Reached(model.MarkLockWait))
	assert.Equal(t, 1, a.Reached(model.MarkPoisonDisabled))
	never := a.NeverReached()
	assert.Len(t, never, model.NumMarks-2)
	assert.NotContains(t, never, model.MarkLockWait)
	assert.True(t, slices.IsSorted(never), "in the table's order")
	assert.Equal(t, []model.Mark{model.MarkDeadlockVictim, model.MarkRouteDelayed},
		a.Missing([]model.Mark{model.MarkDeadlockVictim, model.MarkLockWait, model.MarkRouteDelayed}))
	text := a.Text([]model.Mark{model.MarkLockWait, model.MarkDeadlockVictim})
	assert.True(t, strings.HasPrefix(text, "      FAILED: require_marks: never reached on any of 3 seeds: lock.deadlock-victim\n"+
		"      marks never reached: "+strconv.Itoa(model.NumMarks-2)+" of "+strconv.Itoa(model.NumMarks)+": fragment.retransmitted, "), text)
	assert.NotContains(t, a.Text([]model.Mark{model.MarkLockWait}), "FAILED")
	var empty MarkTally
	assert.Len(t, empty.NeverReached(), model.NumMarks)
	assert.Equal(t, "", Verdict{}.MarksText(), "a verdict of no runs says nothing of marks")
}

// Each test world of the marks passes a check of its seeds: every mark it requires is
// reached on one of them at least, and its invariants and expectations hold.
func TestMarkWorldsReachTheMarksTheyRequire(t *testing.T) {
	for _, v := range markWorldChecks(t) {
		assert.True(t, v.OK(), "%s: missing %v, failures %+v, error %v", v.Name, MarkNames(v.MissingMarks), v.Failures, v.Err)
	}
}

// A mark that a scenario requires and that none of its seeds reaches fails the check, with
// the mark named, although every seed passed on its own; a single run that never reaches
// it fails too (file.Scenario.Check). With the mark reached, both pass.
func TestRequiredMarkNeverReachedFailsTheScenario(t *testing.T) {
	base := library(t, "poison-message") // no lock is ever waited for there
	for _, c := range []struct {
		name    string
		require []model.Mark
		ok      bool
	}{
		{"a mark never reached", []model.Mark{model.MarkPoisonDisabled, model.MarkDeadlockVictim}, false},
		{"marks reached", []model.Mark{model.MarkPoisonDisabled, model.MarkMessageReturned}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := *base
			s.RequireMarks = c.require
			var verdicts []Verdict
			for v := range Check([]Target{{"poison-message", &s, 2}}, 2, nil) {
				verdicts = append(verdicts, v)
			}
			require.Len(t, verdicts, 1)
			v := verdicts[0]
			assert.Empty(t, v.Failures, "no seed fails on its own: require_marks is judged over the seeds")
			assert.Equal(t, c.ok, v.OK())
			assert.Equal(t, 2, v.Marks.Runs())
			res, err := scenarios.Run(Judged(s.Config), 1)
			require.NoError(t, err)
			var failed []file.ExpectationVerdict
			for _, ev := range s.Check(res) {
				if !ev.OK {
					failed = append(failed, ev)
				}
			}
			if c.ok {
				assert.Empty(t, v.MissingMarks)
				assert.NotContains(t, v.MarksText(), "FAILED")
				assert.Empty(t, failed, "the single run")
				return
			}
			assert.Equal(t, []model.Mark{model.MarkDeadlockVictim}, v.MissingMarks)
			assert.Contains(t, v.MarksText(), "FAILED: require_marks: never reached on any of 2 seeds: lock.deadlock-victim\n")
			require.Len(t, failed, 1, "the single run")
			assert.True(t, failed[0].Expectation.RequiresMarks())
			assert.Equal(t, "FAILED: every mark of require_marks reached (got never reached: lock.deadlock-victim)", failed[0].String())
		})
	}
}

// libraryReaches lists, for library scenarios, marks that their first three seeds must
// reach: the paths each scenario is there to show.
var libraryReaches = []struct {
	scenario string
	marks    []model.Mark
}{
	{"lossy-wan", []model.Mark{model.MarkFragmentRetransmitted, model.MarkFragmentAckedAfterRetry, model.MarkFragmentDuplicate,
		model.MarkPacketCorrupt, model.MarkFragmentOutOfOrder, model.MarkMessageReassembled, model.MarkActivationArrivalOnEmpty}},
	{"three-sites", []model.Mark{model.MarkPacketCorrupt, model.MarkPartitionHealed}},
	{"partition-heals", []model.Mark{model.MarkPartitionHealed, model.MarkFragmentRetransmitted, model.MarkFragmentAckedAfterRetry}},
	{"fire-and-forget-outage", []model.Mark{model.MarkPartitionHealed, model.MarkClosedTargetRetained, model.MarkClosedTargetForgotten}},
	{"lock-contention", []model.Mark{model.MarkLockWait, model.MarkMessageReturned}},
	{"poison-message", []model.Mark{model.MarkPoisonDisabled, model.MarkMessageReturned}},
	{"queue-off-on", []model.Mark{model.MarkArrivalHeldQueueOff, model.MarkQueueOnReleased}},
	{"timer-scheduler", []model.Mark{model.MarkDialogTimerFired}},
	{"missing-route-added-later", []model.Mark{model.MarkRouteDelayed, model.MarkRouteFoundLater}},
	{"mirror-failover", []model.Mark{model.MarkFailedOverToMirror, model.MarkCrashRolledBack}},
	{"target-crash", []model.Mark{model.MarkCrashRolledBack}},
	{"branch-gateway", []model.Mark{model.MarkFragmentForwarded, model.MarkForwardFull}},
	{"priority-flood", []model.Mark{model.MarkAgedPastHigherLevel}},
	{"activation-burst", []model.Mark{model.MarkActivationArrivalOnEmpty, model.MarkActivationUnread,
		model.MarkActivationSessionWaits, model.MarkActivationAtMaxReaders}},
	{"external-activation", []model.Mark{model.MarkNotificationSent}},
	{"how-many-readers", []model.Mark{model.MarkWaitforExpired, model.MarkActivationAtMaxReaders}},
}

// Each library scenario reaches, over seeds 1 to 3, the marks of the paths it shows.
func TestLibraryScenariosReachTheirMarks(t *testing.T) {
	tallies := libraryMarkTallies(t)
	for _, c := range libraryReaches {
		tally, ok := tallies[c.scenario]
		require.True(t, ok, "%s is not in the library", c.scenario)
		assert.Empty(t, MarkNames(tally.Missing(c.marks)), "%s never reached these marks over %d seeds", c.scenario, tally.Runs())
	}
}

// Every mark of the table is reached by a test world: a library scenario on its first
// three seeds, or one of the worlds written for the marks. A mark added without a world
// that reaches it, or an increment lost from the code, fails here.
func TestEveryMarkIsReachedByATestWorld(t *testing.T) {
	var all MarkTally
	for _, tally := range libraryMarkTallies(t) {
		all.Merge(tally)
	}
	for _, v := range markWorldChecks(t) {
		require.NoError(t, v.Err)
		all.Merge(&v.Marks)
	}
	assert.Empty(t, MarkNames(all.NeverReached()), "no test world reaches these marks (docs/marks.md)")
}
