package docs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// deployDocuments reads the YAML documents of a manifest of deploy/.
func deployDocuments(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", name))
	require.NoError(t, err)
	var docs []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs
		}
		require.NoError(t, err, name)
		docs = append(docs, doc)
	}
}

// at follows keys (a name for a mapping, an index for a list) into a YAML document.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, k := range path {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(t, ok, "%v: want a mapping at %q", path, k)
			v = m[k]
		case int:
			l, ok := v.([]any)
			require.True(t, ok && k < len(l), "%v: want a list of more than %d at %d", path, k, k)
			v = l[k]
		}
	}
	return v
}

// We cannot run Kubernetes or docker here, so this reads what deploy/ ships: the
// exploration is an Indexed Job whose pods each run one shard of a library scenario's
// seeds (-shard auto/N, N the Job's completions, the folder named by the pod's index on the
// volume the merge Job reads), and the Dockerfile builds the command the Job runs,
// ./cmd/simulate, statically, in a stage of its own.
func TestTheDeployManifestIsAnIndexedJobOfOneShardPerPod(t *testing.T) {
	var job map[string]any
	for _, d := range deployDocuments(t, "explore-job.yaml") {
		if d["kind"] == "Job" {
			job = d
		}
	}
	require.NotNil(t, job, "explore-job.yaml has a Job")
	assert.Equal(t, "batch/v1", job["apiVersion"])
	assert.Equal(t, "Indexed", at(t, job, "spec", "completionMode"))
	completions, ok := at(t, job, "spec", "completions").(int)
	require.True(t, ok, "completions is a number")
	assert.Equal(t, completions, at(t, job, "spec", "parallelism"), "one pod per shard at once")
	pod := at(t, job, "spec", "template", "spec")
	assert.Equal(t, "Never", at(t, pod, "restartPolicy"))
	container := at(t, pod, "containers", 0)
	assert.Equal(t, []any{"/bin/sh", "-c"}, at(t, container, "command"))
	script := at(t, container, "args", 0).(string)

	m := regexp.MustCompile(`(?m)^simulate explore (\S+) -seeds (\d+) .*-shard (\S+) .*-out (/results/shard-\$JOB_COMPLETION_INDEX)$`).FindStringSubmatch(script)
	require.NotNil(t, m, "the pod runs one shard of an exploration into its own folder:\n%s", script)
	_, err := file.LibraryText(m[1])
	assert.NoError(t, err, "the Job explores a library scenario")
	seeds, _ := strconv.Atoi(m[2])
	assert.Equal(t, 1000000, seeds)
	assert.Equal(t, "auto/"+strconv.Itoa(completions), m[3], "the shard count is the Job's completions")
	for i := range completions {
		sh, err := batch.ParseShard(m[3], strconv.Itoa(i))
		require.NoError(t, err, "pod %d", i)
		assert.Equal(t, batch.Shard{Index: i, Count: completions}, sh)
	}
	_, err = batch.ParseShard(m[3], strconv.Itoa(completions))
	assert.Error(t, err, "no pod beyond the shards")
	assert.Equal(t, "/results", at(t, container, "volumeMounts", 0, "mountPath"))
	claim := at(t, pod, "volumes", 0, "persistentVolumeClaim", "claimName")

	merge := deployDocuments(t, "merge-job.yaml")[0]
	assert.Equal(t, "Job", merge["kind"])
	mc := at(t, merge, "spec", "template", "spec", "containers", 0)
	assert.Contains(t, at(t, mc, "args", 0), "simulate merge -out /results/merged /results/shard-* ")
	assert.Equal(t, claim, at(t, merge, "spec", "template", "spec", "volumes", 0, "persistentVolumeClaim", "claimName"), "the merge reads the shards' volume")
	assert.Equal(t, at(t, container, "image"), at(t, mc, "image"), "the merge runs the shards' image")

	dockerfile, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "Dockerfile"))
	require.NoError(t, err)
	text := string(dockerfile)
	assert.Regexp(t, `(?m)^FROM golang:\S+ AS build$`, text, "a build stage from a golang image")
	assert.Regexp(t, `(?m)^RUN CGO_ENABLED=0 .*go build .*-o /out/simulate \./cmd/simulate$`, text, "a static build of the command")
	assert.Equal(t, 2, strings.Count(text, "\nFROM "), "two stages")
	assert.Contains(t, text, "COPY --from=build /out/simulate /usr/local/bin/simulate")
	_, err = os.Stat(filepath.Join(repoRoot, "cmd", "simulate", "main.go"))
	assert.NoError(t, err, "the package the Dockerfile builds")
}
