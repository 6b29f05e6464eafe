package batch

import (
	"fmt"
	"strconv"
	"strings"
)

// ShardIndexVariable is the environment variable in which a Kubernetes Indexed Job gives
// each of its pods its index, 0 to completions-1: the shard of `-shard auto/N`.
const ShardIndexVariable = "JOB_COMPLETION_INDEX"

// ShardUsage explains -shard, for the commands that take it.
const ShardUsage = "run shard `i/n` of the seeds (i from 0 to n-1: the seeds from i*N/n+1 to (i+1)*N/n), for simulate merge;\n" +
	"auto/n takes i from " + ShardIndexVariable + ", which a Kubernetes Indexed Job sets in each pod"

// Shard is one of Count parts of a seed set, Index counted from 0. Shard i of n of the
// seeds 1 to N is the contiguous range of seeds from i·N/n+1 to (i+1)·N/n (integer
// division): every seed is in exactly one shard, the shards in seed order, their sizes
// differing by at most one. The zero value is the whole set, not sharded.
type Shard struct {
	Index, Count int
}

// Sharded reports whether the shard is a part of a seed set (a -shard was given), even the
// one part of one.
func (s Shard) Sharded() bool { return s.Count > 0 }

// Range returns the seeds of the shard of seeds 1 to n: from first to last, none when
// first > last (a shard of more shards than seeds).
func (s Shard) Range(n int) (first, last uint64) {
	if !s.Sharded() {
		return 1, uint64(n)
	}
	return uint64(s.Index*n/s.Count) + 1, uint64((s.Index + 1) * n / s.Count)
}

// String is the shard as -shard takes it: i/n.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard reads -shard: "i/n", shard i (0 to n-1) of n, or "auto/n", whose i is index,
// the value of JOB_COMPLETION_INDEX that the caller read from the environment (empty when
// unset). The error says what is wrong and what it wants.
func ParseShard(v, index string) (Shard, error) {
	i, n, ok := strings.Cut(v, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 1 {
		return Shard{}, fmt.Errorf("want i/n, shard i (0 to n-1) of n shards, or auto/n with i from %s", ShardIndexVariable)
	}
	what := "the shard's index " + strconv.Quote(i)
	if i == "auto" {
		if index == "" {
			return Shard{}, fmt.Errorf("%s is not set (a Kubernetes Indexed Job sets it in each pod): give i/%d", ShardIndexVariable, count)
		}
		i, what = index, ShardIndexVariable+"="+strconv.Quote(index)
	}
	k, err := strconv.Atoi(i)
	if err != nil || k < 0 || k >= count {
		return Shard{}, fmt.Errorf("%s: want a whole number from 0 to %d (of %d shards)", what, count-1, count)
	}
	return Shard{Index: k, Count: count}, nil
}
