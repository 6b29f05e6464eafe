package model

import (
	"fmt"
	"slices"
	"time"
)

// statement is one statement of a transaction, kept while it waits.
type statement struct {
	kind        statementKind
	number      uint64
	queue       QueueID
	handle      ConversationHandle
	group       ConversationGroupID
	top         int
	waitFor     bool
	deadline    time.Duration // WAITFOR TIMEOUT; negative: none
	lockExpires time.Duration // SET LOCK_TIMEOUT; negative: none
	armedAt     time.Duration // the time-out timer asked for, negative for none
	// BEGIN DIALOG
	from     ServiceID
	to       ServiceName
	contract ContractID
	opts     BeginDialogOptions
	// SEND, END, TIMER
	msgType MessageTypeID
	bytes   int64
	end     EndOptions
	timeout time.Duration
	// results
	rows   []ReceivedMessage
	result ConversationGroupID
	err    error
}

type statementKind uint8

const (
	stmtBeginDialog statementKind = iota + 1
	stmtSend
	stmtEnd
	stmtTimer
	stmtMove
	stmtReceive
	stmtGetGroup
)

// start checks that the transaction can run a statement, numbers it, and makes it the
// transaction's current statement.
func (t *Tx) start(now time.Duration, st statement) (*statement, error) {
	t.checkIncarnation(statementNames[st.kind], now)
	switch {
	case t.done:
		return nil, ErrTransactionEnded
	case t.wait != nil:
		return nil, ErrStatementPending
	}
	t.b.now = now
	t.b.statements++
	st.number = t.b.statements
	st.deadline, st.lockExpires, st.armedAt = -1, -1, -1
	if t.lockTimeout >= 0 {
		st.lockExpires = now + t.lockTimeout
	}
	t.cur = st
	return &t.cur, nil
}

// run executes a started statement; a statement that waits returns ErrWaiting.
func (t *Tx) run(now time.Duration, st *statement) error {
	if !t.exec(now, st) {
		return ErrWaiting
	}
	return st.err
}

// exec executes st and reports whether it finished; when it did not, t waits.
func (t *Tx) exec(now time.Duration, st *statement) bool {
	b := t.b
	switch st.kind {
	case stmtReceive, stmtGetGroup:
		return b.execReceive(now, t, st)
	case stmtBeginDialog:
		return b.execBeginDialog(now, t, st)
	case stmtMove:
		return b.execMove(now, t, st)
	}
	// SEND, END CONVERSATION, BEGIN CONVERSATION TIMER: lock the conversation's group,
	// then defer the effect to commit.
	ep, err := t.liveEndpoint(st.handle, st.kind, st.kind == stmtEnd && st.end.WithCleanup)
	if err != nil {
		st.err = err
		return true
	}
	if st.kind == stmtSend {
		if err := b.checkSend(ep, st.msgType, st.bytes); err != nil {
			st.err = err
			return true
		}
	}
	if st.kind == stmtEnd && st.end.WithError && st.end.ErrorCode <= 0 {
		st.err = fmt.Errorf("END CONVERSATION %v WITH ERROR = %d: the code must be positive", st.handle, st.end.ErrorCode)
		return true
	}
	if ep.grp != nil && !t.lock(now, ep.grp, st) { // an endpoint stuck in DO has left its group
		return false
	}
	switch st.kind {
	case stmtSend:
		t.deferred = append(t.deferred, deferredEffect{kind: deferredSend, ep: ep, msgType: st.msgType, bytes: st.bytes})
	case stmtEnd:
		t.deferred = append(t.deferred, deferredEffect{kind: deferredEnd, ep: ep, end: st.end})
		t.ended = append(t.ended, ep.handle)
	case stmtTimer:
		t.deferred = append(t.deferred, deferredEffect{kind: deferredTimer, ep: ep, timeout: st.timeout})
	}
	return true
}

var statementNames = [...]string{"", "BEGIN DIALOG", "SEND", "END CONVERSATION", "BEGIN CONVERSATION TIMER",
	"MOVE CONVERSATION", "RECEIVE", "GET CONVERSATION GROUP"}

// liveEndpoint finds the endpoint a statement names: live (DLG-11) and not ended earlier in
// this transaction. END CONVERSATION WITH CLEANUP also reaches an endpoint stuck in DO.
func (t *Tx) liveEndpoint(h ConversationHandle, kind statementKind, cleanup bool) (*endpoint, error) {
	name := statementNames[kind]
	if slices.Contains(t.ended, h) {
		return nil, fmt.Errorf("%s on %v: %w", name, h, ErrHandleNotFound)
	}
	ep, err := t.b.liveEndpoint(h, name, cleanup)
	if err != nil {
		return nil, err
	}
	return ep, nil
}

// BeginDialog is BEGIN DIALOG in the transaction (DLG-1, DLG-2): the new endpoint joins a
// new group, the related conversation's group, or the named group (created when it does
// not exist), and the transaction locks that group (LOCK-10).
func (t *Tx) BeginDialog(now time.Duration, from ServiceID, to ServiceName, contract ContractID, opts BeginDialogOptions) (ConversationHandle, error) {
	st, err := t.start(now, statement{kind: stmtBeginDialog, from: from, to: to, contract: contract, opts: opts})
	if err != nil {
		return 0, err
	}
	err = t.run(now, st)
	return st.handle, err
}

// Send is SEND ON CONVERSATION in the transaction: it locks the conversation's group
// (LOCK-9); the message gets its sequence number and leaves at commit (TXN-1, G-31).
func (t *Tx) Send(now time.Duration, h ConversationHandle, mt MessageTypeID, bytes int64) error {
	st, err := t.start(now, statement{kind: stmtSend, handle: h, msgType: mt, bytes: bytes})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// EndConversation is END CONVERSATION in the transaction: it locks the group (LOCK-10) and
// takes effect at commit.
func (t *Tx) EndConversation(now time.Duration, h ConversationHandle, opts EndOptions) error {
	st, err := t.start(now, statement{kind: stmtEnd, handle: h, end: opts})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// BeginConversationTimer is BEGIN CONVERSATION TIMER (h) TIMEOUT = timeout: it locks the
// group; at commit it (re)sets the endpoint's one timer, whose expiry puts a DialogTimer
// message on this side's queue (DLG-14).
func (t *Tx) BeginConversationTimer(now time.Duration, h ConversationHandle, timeout time.Duration) error {
	if timeout < 0 {
		return fmt.Errorf("BEGIN CONVERSATION TIMER on %v: time-out %v is negative", h, timeout)
	}
	st, err := t.start(now, statement{kind: stmtTimer, handle: h, timeout: timeout})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// MoveConversation is MOVE CONVERSATION h TO group: it locks the source group, then the
// destination (LOCK-11); both must belong to the same queue. The conversation moves at
// once, with its ready messages; a rollback moves it back.
func (t *Tx) MoveConversation(now time.Duration, h ConversationHandle, to ConversationGroupID) error {
	st, err := t.start(now, statement{kind: stmtMove, handle: h, group: to})
	if err != nil {
		return err
	}
	return t.run(now, st)
}

// execBeginDialog runs BEGIN DIALOG.
func (b *Broker) execBeginDialog(now time.Duration, t *Tx, st *statement) bool {
	from, to, contract, opts := st.from, st.to, st.contract, st.opts
	if err := b.checkBeginDialog(from, to, contract, opts); err != nil {
		st.err = err
		return true
	}
	var g *group
	switch {
	case opts.RelatedConversation != 0:
		rel := b.endpoints.get(uint64(opts.RelatedConversation))
		if rel == nil || rel.deleted || rel.grp == nil {
			st.err = fmt.Errorf("BEGIN DIALOG WITH RELATED_CONVERSATION = %v: %w", opts.RelatedConversation, ErrRelatedConversation)
			return true
		}
		g = rel.grp
	case opts.RelatedConversationGroup != 0:
		g = b.groups[opts.RelatedConversationGroup]
		if g == nil {
			g = b.newGroup(opts.RelatedConversationGroup, from) // DLG-2: a new group with that id
		}
	}
	if g != nil && g.service != from {
		st.err = fmt.Errorf("BEGIN DIALOG FROM SERVICE %q in group %v: %w", b.cat.Services[from].Name, g.id, ErrGroupOfOtherService)
		b.maybeForget(g)
		return true
	}
	if g != nil && !t.lock(now, g, st) {
		return false
	}
	ep := b.beginDialog(now, from, to, contract, opts, g)
	if g == nil {
		b.acquire(now, t, ep.grp)
	}
	t.undo = append(t.undo, undoEntry{kind: undoBegin, ep: ep})
	st.handle = ep.handle
	return true
}

// execMove runs MOVE CONVERSATION.
func (b *Broker) execMove(now time.Duration, t *Tx, st *statement) bool {
	ep, err := t.liveEndpoint(st.handle, stmtMove, false)
	if err != nil {
		st.err = err
		return true
	}
	dst := b.groups[st.group]
	if dst == nil {
		st.err = fmt.Errorf("MOVE CONVERSATION %v TO %v: %w", st.handle, st.group, ErrGroupNotFound)
		return true
	}
	if dst.queue != ep.grp.queue {
		st.err = fmt.Errorf("MOVE CONVERSATION %v TO %v: %w", st.handle, st.group, ErrMoveAcrossQueues)
		return true
	}
	src := ep.grp
	if !t.lock(now, src, st) || !t.lock(now, dst, st) {
		return false
	}
	if src == dst {
		return true
	}
	b.move(ep, dst)
	t.undo = append(t.undo, undoEntry{kind: undoMove, ep: ep, from: src})
	return true
}

// move puts ep, with its ready messages, in group dst.
func (b *Broker) move(ep *endpoint, dst *group) {
	src := ep.grp
	rows := ep.ready
	ep.ready = nil
	b.readyChanged(ep) // out of src's heaps
	src.members--
	b.join(ep, dst)
	if ep.ready = rows; len(rows) > 0 {
		b.readyChanged(ep)
	}
	b.maybeForget(src)
}
