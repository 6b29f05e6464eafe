package main

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/scenarios/results"
)

// process runs the simulate binary in dir with args, as a process of its own, and returns
// its exit code and stdout.
func process(t *testing.T, bin, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err)
	}
	if exit != nil {
		return exit.ExitCode(), stdout.String() + stderr.String()
	}
	return 0, stdout.String()
}

// folderFiles reads every file under dir by its path in dir, with its mode.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = fmt.Sprintf("%v\n%s", info.Mode(), data)
		return nil
	}))
	return files
}

// Merge: shards run as processes, merged, byte-identical to the one-machine run. Each
// shard of an exploration (or of a check) runs as a process of its own (as the pods of a Kubernetes
// Indexed Job do, one of them taking its index from JOB_COMPLETION_INDEX); simulate merge
// of their folders writes every file the one exploration of all the seeds writes, byte for
// byte (seeds.jsonl, the manifest, each kept failing seed's folder), prints the same report
// and exits with the same code. The failing exploration keeps the first five failing seeds
// overall, which its shards hold between them; the failing check the first failing seed
// of each scenario.
func TestMergeOfShardsRunAsProcessesIsTheOneMachineRun(t *testing.T) {
	bin, err := simulateBinary()
	require.NoError(t, err)
	broken := []string{"-set", "broker.retry_interval_min=1000h", "-set", "broker.retry_interval_max=1000h",
		"-set", "broker.closed_target_retention=2001h", "-set", "liveness={within: 10m}"}
	explore := func(seeds int, args ...string) []string {
		return append([]string{"explore", "lossy-wan", "-seeds", fmt.Sprint(seeds), "-workers", "1"}, args...)
	}
	cases := []struct {
		name    string
		command []string
		shards  int
		code    int
		heavy   bool
	}{
		{"explore, passing, swarm", explore(30, "-swarm"), 3, results.ExitOK, false},
		{"explore, more shards than seeds", explore(2), 3, results.ExitOK, false},
		{"explore, failing seeds kept across shards", explore(8, append([]string{"-swarm", "-shrink-runs", "20"}, broken...)...), 4, results.ExitFailed, true},
		{"check, passing", []string{"check", "lossy-wan", "poison-message", "-seeds", "3", "-workers", "1"}, 4, results.ExitOK, false},
		// lossy-wan's statistical expectations are judged over seeds of two shards; each
		// scenario's first failing seed is kept, from the shard that ran it
		{"check, failing", []string{"check", "lossy-wan", "activation-burst", "-seeds", "2", "-workers", "1",
			"-set", "broker.retry_interval_min=1000h", "-set", "broker.retry_interval_max=1000h",
			"-set", "broker.closed_target_retention=2001h", "-shrink-runs", "5"}, 3, results.ExitFailed, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy && testing.Short() {
				t.Skip("the kept seeds' plots take seconds; not with -short")
			}
			one, many := t.TempDir(), t.TempDir()
			code, report := process(t, bin, one, nil, append(tc.command, "-out", "results")...)
			require.Equal(t, tc.code, code, report)

			var dirs []string
			for i := range tc.shards {
				dir := fmt.Sprintf("shard-%d", i)
				args, env := append(tc.command, "-shard", fmt.Sprintf("%d/%d", i, tc.shards), "-out", dir), []string(nil)
				if i == tc.shards-1 { // as a pod of an Indexed Job
					args, env = append(tc.command, "-shard", fmt.Sprintf("auto/%d", tc.shards), "-out", dir), []string{"JOB_COMPLETION_INDEX=" + fmt.Sprint(i)}
				}
				code, out := process(t, bin, many, env, args...)
				require.Contains(t, []int{results.ExitOK, results.ExitFailed}, code, out)
				require.FileExists(t, filepath.Join(many, dir, results.ShardFile), out)
				dirs = append(dirs, dir)
			}
			code, merged := process(t, bin, many, nil, append([]string{"merge", "-out", "results"}, dirs...)...)
			assert.Equal(t, tc.code, code, merged)
			assert.Empty(t, firstDifference(report, merged), "merge prints what the one exploration printed")
			want, got := folderFiles(t, filepath.Join(one, "results")), folderFiles(t, filepath.Join(many, "results"))
			require.NotEmpty(t, want)
			assert.Equal(t, keys(want), keys(got), "the same files")
			for name, w := range want {
				assert.Empty(t, firstDifference(w, got[name]), "%s byte for byte", name)
			}
			if tc.code == results.ExitFailed && tc.command[0] == "explore" {
				assert.Contains(t, want, "seed-5/trace.jsonl", "the first five failing seeds are kept, across shards")
				assert.Contains(t, want, "seed-5/card/card.txt", "each kept seed has its counterexample card")
			}
			if tc.code == results.ExitFailed && tc.command[0] == "check" {
				assert.Contains(t, want, "lossy-wan-seed-1/trace.jsonl", "each failing scenario's first failing seed is kept")
				assert.Contains(t, want, "lossy-wan-seed-1/card/card.txt", "a kept seed that broke an invariant has its card")
				assert.Contains(t, want, "activation-burst-seed-2/trace.jsonl", "each failing scenario's first failing seed is kept")
			}
		})
	}
}

// keys returns the names of files, sorted.
func keys(files map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(files)), "\n")
}

// firstDifference says where b first differs from a, by line: empty when they are equal.
func firstDifference(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		x, y := "(none)", "(none)"
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: want %.300q, got %.300q", i+1, x, y)
		}
	}
	return "they differ"
}
