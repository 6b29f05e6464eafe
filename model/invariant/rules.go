package invariant

// Rule is an invariant the Checker watches, with what it asserts.
type Rule struct {
	ID, Description string
	// AtEnd marks the rule checked once, by Finish, at the end of a run that drained.
	AtEnd bool
}

// rules are the invariants the Checker watches, in the order the package comment gives
// them. They are the one list: the text report, summary.json and the package comment take
// it from here (a test checks that every rule a violation can name is listed, and that the
// package comment names each).
var rules = []Rule{
	{ID: "INV-1", Description: "exactly once, in order, per dialog direction, counting a received message only when its transaction commits"},
	{ID: "INV-2", Description: "no message enqueued twice, none made receivable or received incomplete"},
	{ID: "INV-3", Description: "a transmission queue row leaves only once the receiver stored its fragments, or by a documented discard"},
	{ID: "INV-4", Description: "a conversation group lock has at most one holder, and none after its transaction ends"},
	{ID: "INV-5", Description: "a RECEIVE result comes from one group locked by its transaction; no two live transactions receive from one group"},
	{ID: "INV-6", Description: "inside a RECEIVE result: conversations by level, each contiguous and in sequence order"},
	{ID: "INV-7", Description: "an endpoint keeps the priority level it was created with"},
	{ID: "INV-8", Description: "a queue monitor starts a task only while fewer than MAX_QUEUE_READERS run"},
	{ID: "INV-9", Description: "at most one QUEUE_ACTIVATION per notification time-out"},
	{ID: "INV-10", Description: "a rollback returns every row it received"},
	{ID: "ACT-4", Description: "a task starts, or a notification goes, only when activation is necessary"},
	{ID: "G-4", Description: "no second start while the queue monitor is NOTIFIED"},
	{ID: "G-32", Description: "the queue monitor's count of running tasks is right"},
	{ID: "PRI-15", Description: "no fragment leaves below the best effective level waiting for the same destination"},
	{ID: "PRI-14", Description: "a forwarder passes fragments on at level 5, whatever the dialog's level"},
	{ID: "RTE-5", Description: "a forwarder never stores what it forwards: no reassembly, and only the destination acknowledges"},
	{ID: "PROTO-2", Description: "each message sent gets the next sequence number of its dialog direction"},
	{ID: "G-13", Description: "nothing volatile survives a crash: no record while down, no lock or task past the crash, nothing of the old incarnation after the restart"},
	{ID: "INV-12", Description: "once the faults healed, everything sent was delivered and the transmission queues emptied within the liveness bound", AtEnd: true},
}

// Rules returns the invariants the Checker watches, in a fixed order.
func Rules() []Rule { return append([]Rule(nil), rules...) }
