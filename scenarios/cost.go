package scenarios

// costKind names a statement that the cost model charges CPU time for (issue 14, item 5).
// The applications call charge as they run statements; with no cost model, charging is
// free and nothing waits for a CPU.
type costKind uint8

const (
	costBeginDialog costKind = iota
	costSend
	costReceiveCall // one RECEIVE or GET CONVERSATION GROUP statement
	costReceiveRow  // one row it returned
	costEnd         // END CONVERSATION
	costTimer       // BEGIN CONVERSATION TIMER
	costCommit      // COMMIT (and its log flush)
)

// charge notes that the session ran n statements (or rows) of kind k in its current step.
func (s *session) charge(k costKind, n int) {}

// charge notes that the workload ran n statements of kind k in its current step.
func (wl *workloadRun) charge(k costKind, n int) {}
