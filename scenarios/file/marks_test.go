package file

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
)

// require_marks loads as the marks it names, in its order, and Marshal writes it back so
// that Load reads the same marks again.
func TestRequireMarksLoadAndMarshalBack(t *testing.T) {
	f, err := Load("marks.yaml", []byte(base+"require_marks: [route.delayed, lock.waited]\n"))
	require.NoError(t, err)
	assert.Equal(t, []model.Mark{model.MarkRouteDelayed, model.MarkLockWait}, f.RequireMarks)
	out, err := f.Marshal()
	require.NoError(t, err)
	assert.Contains(t, string(out), "require_marks: [route.delayed, lock.waited]\n")
	again, err := Load("again.yaml", out)
	require.NoError(t, err, "%s", out)
	assert.Equal(t, f.RequireMarks, again.RequireMarks)
}

// A run that never reached a required mark fails Check with one verdict naming the marks
// it missed; a run that reached them all has no such verdict, nor has a scenario that
// requires none.
func TestCheckFailsARunThatMissedARequiredMark(t *testing.T) {
	f, err := Load("marks.yaml", []byte(base+"require_marks: [route.delayed, lock.waited, queue.poison-disabled]\n"))
	require.NoError(t, err)
	res := &scenarios.Result{}
	res.Marks[model.MarkLockWait] = 3
	vs := f.Check(res)
	require.Len(t, vs, 1)
	assert.False(t, vs[0].OK)
	assert.True(t, vs[0].Expectation.RequiresMarks())
	assert.Equal(t, "FAILED: every mark of require_marks reached (got never reached: route.delayed, queue.poison-disabled)", vs[0].String())
	res.Marks[model.MarkRouteDelayed], res.Marks[model.MarkPoisonDisabled] = 1, 1
	assert.Empty(t, f.Check(res))
	f.RequireMarks = nil
	assert.Empty(t, f.Check(&scenarios.Result{}))
}
