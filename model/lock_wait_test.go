package model

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The paired assertion on conversation group locks (STYLE.md §5, LOCK-6): a lock is
// checked when it is taken and again when it is released. Each case calls a check on a
// group that a transaction holds, or on a free one, in a way the model never does.
func TestGroupLockAssertionsFireOnACorruptedState(t *testing.T) {
	tests := []struct {
		name  string
		check func(now time.Duration, holder, other, ended *Tx, held, free *group)
		want  string // the panic, with %v for the groups and %d for the transactions; "" for none
	}{
		{"a lock taken while free and released by its holder", func(now time.Duration, holder, other, _ *Tx, held, free *group) {
			checkAcquire(now, other, free)
			checkRelease(now, holder, held)
		}, ""},
		{"a lock taken while another transaction holds it", func(now time.Duration, _, other, _ *Tx, held, _ *group) {
			checkAcquire(now, other, held)
		}, "conversation group {held} locked by transaction {holder}, taken by transaction {other} at t=50ms"},
		{"a lock taken twice by its holder", func(now time.Duration, holder, _, _ *Tx, held, _ *group) {
			checkAcquire(now, holder, held)
		}, "conversation group {held} locked twice by transaction {holder} at t=50ms"},
		{"a lock taken by a transaction that has ended", func(now time.Duration, _, _, ended *Tx, _, free *group) {
			checkAcquire(now, ended, free)
		}, "conversation group {free} taken by transaction {ended}, which has ended, at t=50ms"},
		{"a lock released by a transaction that does not hold it", func(now time.Duration, _, other, _ *Tx, held, _ *group) {
			checkRelease(now, other, held)
		}, "conversation group {held} locked by transaction {holder}, released by transaction {other} at t=50ms"},
		{"a lock released that is free", func(now time.Duration, holder, _, _ *Tx, _, free *group) {
			checkRelease(now, holder, free)
		}, "conversation group {free} released by transaction {holder}, but it is not locked, at t=50ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTxWorld(t)
			_, a := w.local("a", "Initiator", 1)
			_, b := w.local("b", "Initiator", 1)
			s := w.beginTx()
			require.Len(t, s.mustReceive("LocalTargetQueue", 1), 1)
			require.Len(t, s.tx.Locks(), 1, "the RECEIVE locked one group")
			held := w.brokers[instA].groups[s.tx.Locks()[0]]
			free := w.brokers[instA].groups[w.groupOf(b)]
			if held == free {
				free = w.brokers[instA].groups[w.groupOf(a)]
			}
			require.Nil(t, free.holder, "the other group is free")
			other := w.beginTx()
			ended := w.beginTx()
			ended.commit()

			got := panicOf(func() { tt.check(50*time.Millisecond, s.tx, other.tx, ended.tx, held, free) })

			if tt.want == "" {
				assert.Empty(t, got, tt.name)
				return
			}
			want := tt.want
			for k, v := range map[string]string{"{held}": held.id.String(), "{free}": free.id.String(),
				"{holder}": fmt.Sprint(s.id()), "{other}": fmt.Sprint(other.id()), "{ended}": fmt.Sprint(ended.id())} {
				want = strings.ReplaceAll(want, k, v)
			}
			assert.Equal(t, "model: "+want, got, tt.name)
		})
	}
}
