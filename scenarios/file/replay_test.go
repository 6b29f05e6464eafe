package file

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReplayIsTheOneFormOfAReplayLine(t *testing.T) {
	assert.Equal(t, "go run ./cmd/simulate run lossy-wan -seed 7", Replay("lossy-wan", nil, 7))
	assert.Equal(t, "go run ./cmd/simulate run lossy-wan -set workloads.orders.dialogs=3 -seed 0 -out results/x -trace",
		Replay("lossy-wan", []Override{{"workloads.orders.dialogs", "3"}}, 0, "-out", "results/x", "-trace"))
}

// A replay line survives a POSIX shell: what the shell hands the command is what it was
// given, whatever the path or the value holds ($, backquotes, quotes, spaces, braces).
func TestReplayQuotesForTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	args := []string{"my $HOME `id` design's.yaml", "{exponential: 2s}", "plain"}
	line := Replay(args[0], []Override{{"workloads.0.interarrival", args[1]}, {"name", args[2]}}, 1)
	script := "for a in " + strings.TrimPrefix(line, "go run ./cmd/simulate run ") + `; do printf '%s\n' "$a"; done`
	out, err := exec.Command(sh, "-c", script).Output()
	require.NoError(t, err, script)
	assert.Equal(t, []string{args[0], "-set", "workloads.0.interarrival=" + args[1], "-set", "name=" + args[2], "-seed", "1"},
		strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"))
}
