package results

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The code a run names is the build's module version, else its VCS revision, else the
// clear UnknownCode; go test builds without either, so summary.json stays the same bytes.
func TestCodeVersionNamesTheBuildOrSaysItIsUnknown(t *testing.T) {
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"a tagged module", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"a pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201113000-819625e7ab12+dirty"}},
			"v0.0.0-20261201113000-819625e7ab12+dirty"},
		{"a revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "819625e7ab12cd34ef56"}, {Key: "vcs.modified", Value: "false"}}}, "819625e7ab12"},
		{"a revision with changes", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "819625e7ab12cd34ef56"}, {Key: "vcs.modified", Value: "true"}}}, "819625e7ab12+dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, UnknownCode},
		{"no main module", debug.BuildInfo{}, UnknownCode},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, codeVersion(&tc.bi), tc.name)
	}
	assert.Equal(t, UnknownCode, CodeVersion(), "go test builds carry no version: the golden hashes depend on it")
}

func TestPinnedReplayEndsWithAShellComment(t *testing.T) {
	assert.Equal(t, "go run ./cmd/simulate run x -seed 1  # code devel, scenario 0123456789abcdef",
		PinnedReplay("go run ./cmd/simulate run x -seed 1", "0123456789abcdef"))
}
