package batch

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// The shards of a seed set hold every seed exactly once, in seed order, each a contiguous
// range, their sizes at most one apart: for every number of seeds and shards, more shards
// than seeds included.
func TestShardsHoldEverySeedExactlyOnce(t *testing.T) {
	for seeds := 0; seeds <= 60; seeds++ {
		for count := 1; count <= 70; count++ {
			next := uint64(1)
			smallest, largest := seeds, 0
			for i := range count {
				first, last := Shard{Index: i, Count: count}.Range(seeds)
				require.Equal(t, next, first, "shard %d/%d of %d seeds begins where the one before ended", i, count, seeds)
				require.GreaterOrEqual(t, last+1, first, "shard %d/%d of %d seeds", i, count, seeds)
				size := int(last + 1 - first)
				smallest, largest = min(smallest, size), max(largest, size)
				next = last + 1
			}
			require.Equal(t, uint64(seeds)+1, next, "the %d shards of %d seeds end at its last seed", count, seeds)
			assert.LessOrEqual(t, largest-smallest, 1, "the %d shards of %d seeds differ in size by at most one", count, seeds)
		}
	}
	first, last := Shard{}.Range(7)
	assert.Equal(t, [2]uint64{1, 7}, [2]uint64{first, last}, "the zero Shard is every seed")
	first, last = Shard{Index: 2, Count: 3}.Range(1000000)
	assert.Equal(t, [2]uint64{666667, 1000000}, [2]uint64{first, last})
}

// -shard takes i/n, or auto/n with i from JOB_COMPLETION_INDEX, and says what is wrong
// with anything else.
func TestParseShard(t *testing.T) {
	cases := []struct {
		value, index string
		want         Shard
		err          string
	}{
		{"0/3", "", Shard{0, 3}, ""},
		{"2/3", "7", Shard{2, 3}, ""}, // an index given by hand wins over the environment
		{"0/1", "", Shard{0, 1}, ""},
		{"auto/4", "3", Shard{3, 4}, ""},
		{"auto/4", "0", Shard{0, 4}, ""},
		{"auto/4", "", Shard{}, "JOB_COMPLETION_INDEX is not set"},
		{"auto/4", "4", Shard{}, `JOB_COMPLETION_INDEX="4": want a whole number from 0 to 3 (of 4 shards)`},
		{"auto/4", "-1", Shard{}, "from 0 to 3"},
		{"auto/4", "x", Shard{}, `JOB_COMPLETION_INDEX="x"`},
		{"3/3", "", Shard{}, `the shard's index "3": want a whole number from 0 to 2`},
		{"-1/3", "", Shard{}, "from 0 to 2"},
		{"1/0", "", Shard{}, "want i/n"},
		{"3", "", Shard{}, "want i/n"},
		{"a/b", "", Shard{}, "want i/n"},
		{"", "", Shard{}, "want i/n"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s index %q", tc.value, tc.index), func(t *testing.T) {
			got, err := ParseShard(tc.value, tc.index)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.value != "auto/4", got.String() == tc.value, "String is the -shard it was read from")
		})
	}
}

// A tally of marks goes to JSON and back unchanged (shard.json), and merging the tallies of
// two halves of the runs is the tally of all of them.
func TestMarkTallyRoundTripsThroughJSON(t *testing.T) {
	var all, a, b MarkTally
	for i := range 9 {
		var c model.MarkCounts
		c[model.MarkFragmentRetransmitted] = uint64(i % 2)
		c[model.MarkFragmentDuplicate] = uint64(i)
		all.Add(&c)
		if i < 4 {
			a.Add(&c)
		} else {
			b.Add(&c)
		}
	}
	data, err := json.Marshal(all)
	require.NoError(t, err)
	var back MarkTally
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, all, back, string(data))
	a.Merge(&b)
	assert.Equal(t, all, a)
	assert.Error(t, json.Unmarshal([]byte(`{"runs":1,"reached":{"no.such-mark":1}}`), &back))
}

// checkOutput is what a check yields, in order: each seed's result and each verdict.
type checkOutput struct {
	seeds    []SeedResult
	verdicts []Verdict
}

func collect(seq func(yield func(SeedResult, *Verdict) bool)) checkOutput {
	var out checkOutput
	for r, v := range seq {
		if v != nil {
			out.verdicts = append(out.verdicts, *v)
		} else {
			out.seeds = append(out.seeds, r)
		}
	}
	return out
}

// A check's shards record their runs (through JSON, as records.jsonl holds them), and the
// scenarios judged again from every shard's records, in the order of the runs, give the
// seed results and verdicts of the one check, the statistical expectations' running
// figures and the marks included; each shard alone judges its own runs.
func TestCheckRecordsOfTheShardsJudgeAsTheOneCheck(t *testing.T) {
	targets := []Target{{Name: "lossy-wan", Scenario: library(t, "lossy-wan"), Seeds: 5},
		{Name: "none", Scenario: library(t, "poison-message"), Seeds: 0},
		{Name: "honor-priority-off", Scenario: library(t, "honor-priority-off"), Seeds: 3}}
	want := collect(CheckSeeds(targets, 2, nil))
	require.Len(t, want.seeds, 8)
	require.Len(t, want.verdicts, 3)

	var records []CheckRecord
	shardSeeds := 0
	for i := range 3 {
		got := collect(CheckShard(targets, Shard{Index: i, Count: 3}, 2, nil, true))
		for _, r := range got.seeds {
			require.NotNil(t, r.Record, "shard %d records %s seed %d", i, r.Name, r.Seed)
			data, err := json.Marshal(r.Record)
			require.NoError(t, err)
			var back CheckRecord
			require.NoError(t, json.Unmarshal(data, &back))
			records = append(records, back)
		}
		shardSeeds += len(got.seeds)
		first, last := Shard{Index: i, Count: 3}.Range(8)
		assert.Len(t, got.seeds, int(last+1-first), "shard %d runs its runs", i)
	}
	assert.Equal(t, 8, shardSeeds)
	next := 0
	var err error
	got := collect(CheckRecords(targets, func() (CheckRecord, error) {
		next++
		return records[next-1], nil
	}, &err))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// records out of order are refused
	records[0], records[1] = records[1], records[0]
	next = 0
	collect(CheckRecords(targets, func() (CheckRecord, error) {
		next++
		return records[next-1], nil
	}, &err))
	assert.ErrorContains(t, err, "the record of run 2 is of lossy-wan seed 2, where run 1 is of lossy-wan")
}
