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
// shard of an exploration runs as a process of its own (as the pods of a Kubernetes
// Indexed Job do, one of them taking its index from JOB_COMPLETION_INDEX); simulate merge
// of their folders writes every file the one exploration of all the seeds writes, byte for
// byte (seeds.jsonl, the manifest, each kept failing seed's folder), prints the same report
// and exits with the same code. The failing exploration keeps the first five failing seeds
// overall, which its shards hold between them.
func TestMergeOfShardsRunAsProcessesIsTheOneMachineRun(t *testing.T) {
	bin, err := simulateBinary()
	require.NoError(t, err)
	broken := []string{"-set", "broker.retry_interval_min=1000h", "-set", "broker.retry_interval_max=1000h",
		"-set", "broker.closed_target_retention=2001h", "-set", "liveness={within: 10m}"}
	cases := []struct {
		name   string
		seeds  int
		shards int
		args   []string
		code   int
		heavy  bool
	}{
		{"passing, swarm", 30, 3, []string{"-swarm"}, results.ExitOK, false},
		{"more shards than seeds", 2, 3, nil, results.ExitOK, false},
		{"failing seeds kept across shards", 8, 4, append([]string{"-swarm"}, broken...), results.ExitFailed, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.heavy && testing.Short() {
				t.Skip("the kept seeds' plots take seconds; not with -short")
			}
			explore := append([]string{"explore", "lossy-wan", "-seeds", fmt.Sprint(tc.seeds), "-workers", "1"}, tc.args...)
			one, many := t.TempDir(), t.TempDir()
			code, report := process(t, bin, one, nil, append(explore, "-out", "results")...)
			require.Equal(t, tc.code, code, report)

			var dirs []string
			for i := range tc.shards {
				dir := fmt.Sprintf("shard-%d", i)
				args, env := append(explore, "-shard", fmt.Sprintf("%d/%d", i, tc.shards), "-out", dir), []string(nil)
				if i == tc.shards-1 { // as a pod of an Indexed Job
					args, env = append(explore, "-shard", fmt.Sprintf("auto/%d", tc.shards), "-out", dir), []string{"JOB_COMPLETION_INDEX=" + fmt.Sprint(i)}
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
			if tc.code == results.ExitFailed {
				assert.Contains(t, want, "seed-5/trace.jsonl", "the first five failing seeds are kept, across shards")
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
