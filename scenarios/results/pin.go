package results

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// UnknownCode is the CodeVersion of a binary that carries no version: one built by go
// test, with -buildvcs=false (as GOFLAGS may set) or outside version control. A replay
// cannot then be pinned to the code.
const UnknownCode = "devel"

// CodeVersion names the code the running binary was built from, for summary.json and
// replay lines: the main module's version when the build set one (a tag, or Go's
// pseudo-version of the commit), else the VCS revision (12 digits, "+dirty" when the tree
// had changes), else UnknownCode.
func CodeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return UnknownCode
	}
	return codeVersion(bi)
}

// codeVersion is CodeVersion of a build's information.
func codeVersion(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return UnknownCode
	}
	revision = revision[:min(12, len(revision))]
	if modified == "true" {
		revision += "+dirty"
	}
	return revision
}

// PinnedReplay follows a replay line with a shell comment that names the code and the
// scenario it replays: the same command gives the same bytes with that code and a scenario
// of that hash (summary.json's code_version and scenario_hash).
func PinnedReplay(line, hash string) string {
	var b strings.Builder
	b.WriteString(line)
	b.WriteString("  # code ")
	b.WriteString(CodeVersion())
	if hash != "" {
		b.WriteString(", scenario ")
		b.WriteString(hash)
	}
	return b.String()
}

// ReplayScriptFile is the script, in the folder of a run, that replays the run from the
// folder's own copy of its scenario.
const ReplayScriptFile = "replay.sh"

// replayPrefix begins every replay line of a run (file.Replay), exploreReplayPrefix every
// replay line of an exploration's seed (batch.ExploreReplay).
const (
	replayPrefix        = "go run ./cmd/simulate run "
	exploreReplayPrefix = "go run ./cmd/simulate explore "
)

// ReplayScript is replay.sh for a run whose scenario the folder holds a copy of: command
// is the replay line of that copy by its name alone ("go run ./cmd/simulate run NAME.yaml
// -seed 1", file.Replay, or an exploration's seed, batch.ExploreReplay), without -out. The script runs it on the copy beside the script
// and writes the folder again: the same bytes, with the same code. It holds no path of the
// machine that wrote it, so the folder replays wherever it is moved.
func ReplayScript(command, hash string) []byte {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&b, "# Replays the run that wrote this folder, from its copy of the scenario (hash %s), with\n", hash)
	fmt.Fprintf(&b, "# the code %s, and writes the folder again. From the root of sbsim's source:\n", CodeVersion())
	b.WriteString("#   sh path/to/this/folder/" + ReplayScriptFile + "\n")
	b.WriteString("here=$(dirname \"$0\")\n")
	prefix := replayPrefix
	if strings.HasPrefix(command, exploreReplayPrefix) { // one seed of an exploration
		prefix = exploreReplayPrefix
	}
	fmt.Fprintf(&b, "exec %s\"$here\"/%s -out \"$here\"\n", prefix, strings.TrimPrefix(command, prefix))
	return []byte(b.String())
}
