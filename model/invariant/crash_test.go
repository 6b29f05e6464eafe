package invariant

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// crashed and restarted are the crash records of instance 0, whose last transaction and
// task are lastTx and lastTask.
func crashed(lastTx model.TxID, lastTask model.TaskID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceInstanceCrashed, Tx: lastTx, Task: lastTask}
}
func restarted(lastTx model.TxID, lastTask model.TaskID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceInstanceRestarted, Tx: lastTx, Task: lastTask}
}
func fragmentSent(seq model.SequenceNumber, frag int32, retry bool) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceFragmentSent, Conversation: conv, FromInitiator: true, Sequence: seq, Fragment: frag, Retry: retry}
}
func taskStarted(task model.TaskID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceTaskStarted, Queue: 1, Task: task, MaxReaders: 5, Ready: 1, Cause: causeArrivalOnEmpty}
}
func taskExited(task model.TaskID) model.TraceRecord {
	return model.TraceRecord{Kind: model.TraceTaskExited, Queue: 1, Task: task}
}

// A crash and restart as the model records them passes: the transaction that held a lock
// rolled back before the crash, the task ended, the rows are sent again from scratch after
// the restart and then retried (G-13).
func TestG13_CheckerAcceptsACrashAndRestart(t *testing.T) {
	records := concat(
		[]model.TraceRecord{sent(0, 2), fragmentSent(0, 0, false), fragmentSent(0, 1, false), fragmentSent(0, 0, true),
			taskStarted(1), lock(4)},
		[]model.TraceRecord{unlock(4), rollback(4), taskExited(1), crashed(4, 1), restarted(4, 1),
			fragmentSent(0, 0, false), fragmentSent(0, 0, true), fragmentSent(0, 1, false), fragmentSent(0, 1, true),
			onInstance(taskStarted(2), 0), lock(5), unlock(5), commit(5)},
	)
	_, v := observeAll(t, records)
	assert.Nil(t, v)
}

// The checker's G-13 flags what must not survive a crash, each case with the record at
// fault.
func TestG13_CheckerFlagsWhatSurvivesACrash(t *testing.T) {
	for _, tc := range []struct {
		name    string
		records []model.TraceRecord
		want    string
	}{
		{"a record while down", []model.TraceRecord{crashed(0, 0), sent(0, 1)},
			"instance 0 recorded sent while down"},
		{"a lock held past the crash", []model.TraceRecord{lock(4), crashed(4, 0)},
			"instance 0 crashed with transaction 4 holding locks"},
		{"a task running past the crash", []model.TraceRecord{taskStarted(1), crashed(0, 1)},
			"instance 0 crashed with tasks running on queue 1"},
		{"a transaction of the old incarnation", []model.TraceRecord{crashed(4, 0), restarted(4, 0), lock(3)},
			"transaction 3 of instance 0 began before its crash, and acted (lock-acquired) after the restart"},
		{"a task of the old incarnation", []model.TraceRecord{crashed(0, 2), restarted(0, 2), taskExited(2)},
			"task 2 of instance 0 started before its crash, and acted (task-exited) after the restart"},
		{"a retry kept from before the crash", []model.TraceRecord{sent(0, 2), fragmentSent(0, 0, false), fragmentSent(0, 1, false),
			crashed(0, 0), restarted(0, 0), fragmentSent(0, 0, false), fragmentSent(0, 1, true)},
			"fragment 1 of message 0 went as a retry after instance 0 restarted, but was not sent since"},
		{"a restart without a crash", []model.TraceRecord{restarted(0, 0)}, "instance 0 restarted, but it had not crashed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, v := observeAll(t, tc.records)
			require.NotNil(t, v)
			assert.Equal(t, "G-13", v.Rule)
			assert.Contains(t, v.Message, tc.want)
		})
	}
}
