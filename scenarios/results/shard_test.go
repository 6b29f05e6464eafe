package results

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// exploreShard explores lossy-wan (with overrides) into dir as shard i/n of seeds, and
// returns what it printed.
func exploreShard(t *testing.T, dir string, seeds int, swarm bool, shard batch.Shard, overrides ...file.Override) string {
	t.Helper()
	s, err := file.Open("lossy-wan")
	require.NoError(t, err)
	s, err = s.With(overrides...)
	require.NoError(t, err)
	var out bytes.Buffer
	o := ExploreOptions{Arg: "lossy-wan", Overrides: overrides, Seeds: seeds, Swarm: swarm, Shard: shard,
		BatchOptions: BatchOptions{Out: dir, Workers: 1}}
	require.Equal(t, ExitOK, Explore(context.Background(), &out, io.Discard, s, o), out.String())
	return out.String()
}

// merge merges dirs into out and returns the exit code and what it printed to stderr.
func merge(out string, dirs ...string) (int, string) {
	var stderr bytes.Buffer
	code := Merge(context.Background(), io.Discard, &stderr, out, dirs, false)
	return code, stderr.String()
}

// The merge of an exploration's shards, in any order on its command line, writes the
// seeds.jsonl and prints the report of the exploration of all its seeds; one shard of one
// is the whole exploration.
func TestMergeIsTheWholeExplorationInAnyOrder(t *testing.T) {
	root := t.TempDir()
	whole := exploreShard(t, filepath.Join(root, "whole"), 5, true, batch.Shard{})
	var dirs []string
	for i := range 3 {
		dirs = append(dirs, filepath.Join(root, fmt.Sprint("shard-", i)))
		out := exploreShard(t, dirs[i], 5, true, batch.Shard{Index: i, Count: 3})
		first, last := batch.Shard{Index: i, Count: 3}.Range(5)
		assert.Contains(t, out, fmt.Sprintf("over seeds %d to %d, shard %d/3 of seeds 1 to 5,", first, last, i))
	}
	one := filepath.Join(root, "one")
	exploreShard(t, one, 5, true, batch.Shard{Index: 0, Count: 1})
	want, err := os.ReadFile(filepath.Join(root, "whole", SeedsFile))
	require.NoError(t, err)
	for name, dirs := range map[string][]string{"in order": dirs, "reversed": {dirs[2], dirs[0], dirs[1]}, "one of one": {one}} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			var stdout bytes.Buffer
			require.Equal(t, ExitOK, Merge(context.Background(), &stdout, io.Discard, out, dirs, false))
			got, err := os.ReadFile(filepath.Join(out, SeedsFile))
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
			assert.Equal(t, whole, stdout.String())
			assert.NoFileExists(t, filepath.Join(out, ShardFile), "the merged folder is the whole exploration's, no shard's")
		})
	}
	t.Run("-v", func(t *testing.T) {
		s, err := file.Open("lossy-wan")
		require.NoError(t, err)
		var verbose, merged bytes.Buffer
		o := ExploreOptions{Arg: "lossy-wan", Seeds: 5, Swarm: true, BatchOptions: BatchOptions{Out: t.TempDir(), Workers: 1, Verbose: true}}
		require.Equal(t, ExitOK, Explore(context.Background(), &verbose, io.Discard, s, o))
		require.Equal(t, ExitOK, Merge(context.Background(), &merged, io.Discard, filepath.Join(t.TempDir(), "merged"), dirs, true))
		assert.Equal(t, verbose.String(), merged.String(), "merge -v prints every seed as explore -v does")
		assert.Contains(t, merged.String(), "lossy-wan seed 3: ok")
	})
}

// Merge refuses, before it writes anything, shards of different explorations (scenario,
// overrides, seeds, swarm, number of shards), a shard missing or given twice, a folder that
// is no shard, a shard whose seeds.jsonl is not whole, and an -out that is a shard.
func TestMergeRefusesShardsThatAreNotOneExploration(t *testing.T) {
	root := t.TempDir()
	shard := func(name string, seeds int, swarm bool, i, n int, overrides ...file.Override) string {
		dir := filepath.Join(root, name)
		exploreShard(t, dir, seeds, swarm, batch.Shard{Index: i, Count: n}, overrides...)
		return dir
	}
	a0, a1, a2 := shard("a0", 3, false, 0, 3), shard("a1", 3, false, 1, 3), shard("a2", 3, false, 2, 3)
	other := file.Override{Key: "workloads.audit.dialogs", Value: "1"}
	overridden := shard("overridden", 3, false, 1, 3, other)
	moreSeeds := shard("more-seeds", 4, false, 1, 3)
	swarm := shard("swarm", 3, true, 1, 3)
	fewerShards := shard("fewer-shards", 3, false, 1, 2)
	whole := filepath.Join(root, "whole")
	exploreShard(t, whole, 3, false, batch.Shard{})
	cut := filepath.Join(root, "cut")
	exploreShard(t, cut, 6, false, batch.Shard{Index: 1, Count: 3})
	seeds := filepath.Join(cut, SeedsFile)
	data, err := os.ReadFile(seeds)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(seeds, data[:bytes.IndexByte(data, '\n')+1], 0o644))

	cases := []struct {
		name string
		out  string
		dirs []string
		err  string
	}{
		{"other overrides", "", []string{a0, overridden, a2}, "different explorations: " + a0 + " is of the overrides [], " + overridden + " of [workloads.audit.dialogs=1]"},
		{"other seeds", "", []string{a0, moreSeeds, a2}, "is of the seeds 1 to 3, " + moreSeeds + " of 4"},
		{"swarm", "", []string{a0, swarm, a2}, "is of swarm false, " + swarm + " of true"},
		{"other number of shards", "", []string{a0, fewerShards, a2}, "is of the number of shards 3, " + fewerShards + " of 2"},
		{"a shard missing", "", []string{a0, a2}, "has 3 shards, and shard 1/3 is missing (2 given)"},
		{"two missing", "", []string{a1}, "shard 0/3, shard 2/3 is missing"},
		{"a shard twice", "", []string{a0, a1, a1, a2}, "shard 1/3 is given twice: " + a1 + " and " + a1},
		{"not a shard", "", []string{a0, whole, a2}, whole + ": no shard.json: not the folder of a shard"},
		{"seeds.jsonl cut short", "", []string{cut}, "1 lines, where shard 1/3 ran 2 seeds (3 to 4)"},
		{"-out a shard", a1, []string{a0, a1, a2}, "-out " + a1 + " is one of the shards"},
		{"no -out", "-", []string{a0, a1, a2}, "want -out DIR"},
		{"no shard", "", nil, "want -out DIR and the folders of the shards"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			switch tc.out {
			case "-":
				out = ""
			case "":
			default:
				out = tc.out
			}
			code, stderr := merge(out, tc.dirs...)
			assert.Equal(t, ExitUsage, code, stderr)
			assert.Contains(t, stderr, tc.err)
			if tc.out == "" {
				assert.NoDirExists(t, out, "nothing written")
			}
		})
	}
	code, stderr := merge(filepath.Join(t.TempDir(), "merged"), a2, a0, a1)
	assert.Equal(t, ExitOK, code, "the three shards merge: %s", stderr)
}

// A check's shards merge into the one check (its seeds.jsonl, and the verdicts printed);
// a shard of an exploration does not merge with a check's, and a scenario file changed
// after its shards ran is refused: the merge judges the scenarios again, and would judge
// another text.
func TestMergeOfACheckJudgesTheScenariosTheShardsRan(t *testing.T) {
	root := t.TempDir()
	text, err := file.LibraryText("poison-message")
	require.NoError(t, err)
	path := filepath.Join(root, "mine.yaml")
	require.NoError(t, os.WriteFile(path, text, 0o644))
	check := func(out string, shard batch.Shard) string {
		var stdout bytes.Buffer
		o := CheckOptions{Args: []string{"lossy-wan", path}, Seeds: 3, Shard: shard, BatchOptions: BatchOptions{Out: out, Workers: 1}}
		require.Equal(t, ExitOK, Check(context.Background(), &stdout, io.Discard, o), stdout.String())
		return stdout.String()
	}
	whole := check(filepath.Join(root, "whole"), batch.Shard{})
	var dirs []string
	for i := range 4 {
		dirs = append(dirs, filepath.Join(root, fmt.Sprint("shard-", i)))
		check(dirs[i], batch.Shard{Index: i, Count: 4})
	}
	out := filepath.Join(root, "merged")
	var stdout bytes.Buffer
	require.Equal(t, ExitOK, Merge(context.Background(), &stdout, io.Discard, out, dirs, false))
	assert.Equal(t, whole, stdout.String())
	want, err := os.ReadFile(filepath.Join(root, "whole", SeedsFile))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(out, SeedsFile))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	assert.NoFileExists(t, filepath.Join(out, RecordsFile))

	explored := filepath.Join(root, "explored")
	exploreShard(t, explored, 3, false, batch.Shard{Index: 1, Count: 4})
	code, stderr := merge(filepath.Join(t.TempDir(), "merged"), dirs[0], explored, dirs[2], dirs[3])
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "is of the command check, "+explored+" of explore")

	require.NoError(t, os.WriteFile(path, append([]byte("# changed\n"), text...), 0o644))
	code, stderr = merge(filepath.Join(t.TempDir(), "merged"), dirs...)
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, path+" is not the scenario the shards checked (its text ")
}
