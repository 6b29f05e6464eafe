package results

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
)

// Verdicts checks the scenario's expectations on res, in the scenario's order.
func Verdicts(s *file.Scenario, res *scenarios.Result) []Verdict {
	var out []Verdict
	for _, v := range s.Check(res) {
		e := v.Expectation
		out = append(out, Verdict{Name: e.String(), OK: v.OK, Detail: v.Got,
			ExpectsFinding: e.Metric == scenarios.MetricReopened && e.Implicit == ""})
	}
	return out
}

// RunOf is one run of simulate run: the argument that named its scenario (a path or a
// library name), the overrides, the seed, whether it writes its trace (the one the folder
// streamed, Folder.StreamTrace, or else Result.Trace), the scenario loaded with the
// overrides, and its result.
type RunOf struct {
	Arg       string
	Overrides []file.Override
	Seed      uint64
	Trace     bool
	Scenario  *file.Scenario
	Result    *scenarios.Result
	// Config is the config the run ran with, when it is not Scenario's (a fault mix
	// applied): report.json's charts run it again.
	Config *scenarios.Config
	// Explore, when set, makes the run one seed of an exploration: replay.sh replays it
	// with its fault mix (simulate explore -seed).
	Explore *ExploreSeed
}

// WriteRunFolder writes, into the folder, the files of WriteRun, a copy of the scenario
// the run read (Source) and replay.sh (ReplayScript), which replays the run from that copy,
// so that the folder replays by itself, then report.json (NewReportData, which runs the
// config again for its charts) and report.html; then it closes the folder. It returns the paths
// written.
func WriteRunFolder(folder *Folder, r RunOf, verdicts []Verdict) ([]string, error) {
	sum := NewSummary(r.Result, r.Scenario.Config.Name, r.Scenario.Hash, verdicts)
	if !r.Scenario.Config.CheckInvariants {
		sum = sum.WithoutInvariantChecks()
	}
	var records []model.TraceRecord // none, or the streamed trace (StreamTrace) goes in their place
	var extra []string
	if r.Trace {
		extra = []string{"-trace"}
		if folder.stream == nil {
			records = r.Result.Trace
		}
	}
	files, err := folder.WriteRun(r.Result, sum, records)
	if err != nil {
		return files, err
	}
	name, text, err := Source(r.Arg)
	if err != nil {
		return files, err
	}
	command := file.Replay(name, r.Overrides, r.Seed, extra...)
	if r.Explore != nil {
		command = batch.ExploreReplay(name, r.Overrides, r.Seed, r.Explore.Swarm, extra...)
	}
	script := ReplayScript(command, r.Scenario.Hash)
	for _, f := range []struct {
		name string
		data []byte
	}{{name, text}, {ReplayScriptFile, script}} {
		path, err := folder.Write(f.name, func(w io.Writer) error { _, err := w.Write(f.data); return err })
		if err != nil {
			return files, err
		}
		files = append(files, path)
	}
	cfg := r.Scenario.Config
	if r.Config != nil {
		cfg = *r.Config
	}
	data, err := NewReportData(cfg, r.Seed, r.Result)
	if err != nil {
		return files, err
	}
	head := []ReportParameter{{"the run", "seed", strconv.FormatUint(r.Seed, 10)}, {"the run", "replay", command}}
	for _, o := range r.Overrides {
		head = append(head, ReportParameter{"the run", "set on the command line", o.String()})
	}
	data.Parameters = append(head, data.Parameters...)
	path, err := folder.Write(ReportDataFile, func(w io.Writer) error { return WriteReportData(w, data) })
	if err != nil {
		return files, err
	}
	files = append(files, path)
	path, err = folder.Write(ReportFile, func(w io.Writer) error { return WriteReportFromFolder(w, folder.dir, r.Scenario.Question) })
	if err != nil {
		return files, err
	}
	files = append(files, path)
	return files, folder.Close()
}

// Source is the file name and the text of the scenario arg names, for its copy beside the
// results: a file's exact bytes under its own name (with .yaml added when it has another
// extension), a library scenario's text as NAME.yaml.
func Source(arg string) (name string, text []byte, err error) {
	if !file.IsPath(arg) {
		text, err = file.LibraryText(arg)
		return arg + ".yaml", text, err
	}
	if name = filepath.Base(arg); !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
		name += ".yaml"
	}
	text, err = os.ReadFile(arg)
	return name, text, err
}
