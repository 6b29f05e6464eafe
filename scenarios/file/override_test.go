package file

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustOverride(t *testing.T, s string) Override {
	t.Helper()
	o, err := ParseOverride(s)
	require.NoError(t, err)
	return o
}

// A key the file leaves at its default can be set: lossy-wan has no broker section, and
// -set broker.retry_interval_min=1s sets the minimum retry interval (G-8) all the same.
func TestOverrideSetsAKeyTheFileLeavesAtItsDefault(t *testing.T) {
	f, err := Library("lossy-wan")
	require.NoError(t, err)
	require.Zero(t, f.Config.Broker.RetryIntervalMin, "the file sets no retry interval")

	g, err := f.With(mustOverride(t, "broker.retry_interval_min=1s"))

	require.NoError(t, err)
	assert.Equal(t, time.Second, g.Config.Broker.RetryIntervalMin)
	g.Config.Broker.RetryIntervalMin = 0
	assert.Equal(t, f.Config, g.Config, "nothing else changed")
	assert.NotEqual(t, f.Hash, g.Hash)
	assert.Contains(t, g.Source, "broker.retry_interval_min=1s")
}

// priority-flood's three workloads merge from one YAML anchor; setting the first one's
// dialogs changes that workload only.
func TestOverrideOfAnItemMergedFromAnAnchorChangesThatItemOnly(t *testing.T) {
	f, err := Library("priority-flood")
	require.NoError(t, err)
	require.Len(t, f.Config.Workloads, 3)
	before := f.Config.Workloads[1].Dialogs
	require.NotEqual(t, 5, before)

	g, err := f.With(mustOverride(t, "workloads.0.dialogs=5"))

	require.NoError(t, err)
	assert.Equal(t, 5, g.Config.Workloads[0].Dialogs)
	assert.Equal(t, before, g.Config.Workloads[1].Dialogs, "workload 1 keeps its dialogs")
	assert.Equal(t, before, g.Config.Workloads[2].Dialogs, "workload 2 keeps its dialogs")
	assert.Equal(t, f.Config.Workloads[0].Dialogs, f.Config.Workloads[1].Dialogs, "the file itself is untouched")

	byName, err := f.With(mustOverride(t, "workloads.level 5.dialogs=7"))
	require.NoError(t, err)
	assert.Equal(t, 7, byName.Config.Workloads[1].Dialogs, "an item by its name")
	assert.Equal(t, before, byName.Config.Workloads[0].Dialogs)
}

// A value may be a flow mapping, for keys whose value is one (a distribution).
func TestOverrideTakesAFlowMapping(t *testing.T) {
	f, err := Library("lossy-wan")
	require.NoError(t, err)

	g, err := f.With(mustOverride(t, "workloads.orders.interarrival={exponential: 5s}"))

	require.NoError(t, err)
	assert.Equal(t, 5*time.Second, g.Config.Workloads[0].Interarrival.Mean)
}

// Overrides are validated as the file is: an unknown key, a bad value or a missing item is
// an error that names the override.
func TestOverrideErrorsNameTheOverride(t *testing.T) {
	f, err := Library("lossy-wan")
	require.NoError(t, err)
	for _, c := range []struct{ set, want string }{
		{"broker.retry_interval_mni=1s", `unknown key "retry_interval_mni"`},
		{"workloads.orders.dialogs=-3", "workloads[0].dialogs"},
		{"workloads.nope.dialogs=3", `no item "nope" in workloads`},
		{"name.x=1", "name is a value"},
	} {
		_, err := f.With(mustOverride(t, c.set))
		require.Error(t, err, c.set)
		assert.Contains(t, err.Error(), "-set "+c.set, c.set)
		assert.Contains(t, err.Error(), c.want, c.set)
	}
	_, err = ParseOverride("novalue")
	assert.Error(t, err)
}
