package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Queues of one name are told apart by instance and database, as expectations name them:
// each gets its own subject and its own value.
func TestQueueSubjectsTellQueuesOfOneNameApart(t *testing.T) {
	res := &Result{Queues: []QueueResult{
		{Queue: "Q", Database: "Shop", Instance: "Solo", PeakActivated: 3},
		{Queue: "Q", Database: "Shop2", Instance: "Solo", PeakActivated: 1},
		{Queue: "Q", Database: "Shop", Instance: "Other", PeakActivated: 2},
		{Queue: "R", Database: "Shop", Instance: "Other", PeakActivated: 4},
	}}
	m, ok := LookupMetric("activated_tasks.peak")
	require.True(t, ok)

	var got []Measure
	got = append(got, m.Measures(res)...)

	assert.Equal(t, []Measure{
		{Metric: m.Name, Subject: Subject{Queue: "Solo/Shop/Q"}, Unit: Count, Value: 3},
		{Metric: m.Name, Subject: Subject{Queue: "Solo/Shop2/Q"}, Unit: Count, Value: 1},
		{Metric: m.Name, Subject: Subject{Queue: "Other/Shop/Q"}, Unit: Count, Value: 2},
		{Metric: m.Name, Subject: Subject{Queue: "R"}, Unit: Count, Value: 4},
	}, got)
	v, _, _ := m.Value(res, Subject{Queue: "Solo/Q"})
	assert.Equal(t, 4.0, v, "instance/queue covers both databases of the instance")
}

// A metric refuses a subject key it does not take, and needs those it needs.
func TestMetricValueChecksTheSubjectsKeys(t *testing.T) {
	m, ok := LookupMetric("readers.peak")
	require.True(t, ok)
	_, why, ok := m.Value(&Result{}, Subject{})
	assert.False(t, ok)
	assert.Equal(t, "metric readers.peak needs a queue", why)
	_, why, ok = m.Value(&Result{}, Subject{Queue: "Q", Level: 3})
	assert.False(t, ok)
	assert.Equal(t, "metric readers.peak takes no level", why)
}
