package results

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbsim/sbsim/model"
	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/shrink"
)

// ShardFile is the file a shard of an exploration (explore -shard i/n) writes beside its
// seeds.jsonl: what simulate merge needs to combine the shards into the one exploration.
const ShardFile = "shard.json"

// ShardManifest is shard.json: which exploration (or check) the shard is a part of (the scenario as
// the command named it, its overrides, the hash of its text, the code, the seeds, swarm or
// not), which part (shard i/n, its seeds), and what the verdict over all the seeds needs of
// it beyond seeds.jsonl: the runs broken per rule, the marks the runs reached, and the
// failing seeds whose folders (seed-N) it kept.
type ShardManifest struct {
	Command      string   `json:"command"`
	Scenario     string   `json:"scenario"`
	Overrides    []string `json:"overrides"`
	ScenarioHash string   `json:"scenario_hash,omitempty"`
	CodeVersion  string   `json:"code_version"`
	Seeds        int      `json:"seeds"`
	Swarm        bool     `json:"swarm"`
	// ShrinkRuns is the shard's -shrink-runs: its kept seeds' cards depend on it.
	ShrinkRuns int    `json:"shrink_runs"`
	Shard      string `json:"shard"`
	Index      int    `json:"index"`
	Count      int    `json:"count"`
	FirstSeed  uint64 `json:"first_seed"`
	LastSeed   uint64 `json:"last_seed"`
	// Runs is how many lines the shard wrote to seeds.jsonl: every one of its seeds.
	Runs         int              `json:"runs"`
	Rules        map[string]int   `json:"rules,omitempty"`
	Marks        *batch.MarkTally `json:"marks,omitempty"`
	RequireMarks []string         `json:"require_marks,omitempty"`
	KeptSeeds    []uint64         `json:"kept_seeds,omitempty"`
	// For a check: the command's arguments, each scenario checked, and the folders
	// NAME-seed-N of the failing seeds the shard kept. FirstSeed and LastSeed number its
	// runs among the check's, from 1: each scenario's seeds, scenario after scenario.
	Args        []string      `json:"args,omitempty"`
	Targets     []ShardTarget `json:"targets,omitempty"`
	KeptFolders []string      `json:"kept_folders,omitempty"`
}

// add counts one explored seed: its broken rule, its marks, and its seed among the kept
// ones while fewer than KeptFailingSeeds are.
func (m *ShardManifest) add(e batch.ExploredSeed) {
	if !e.OK() {
		m.Rules[cmp.Or(e.Rule, "an error")]++
		if e.Err == nil && len(m.KeptSeeds) < KeptFailingSeeds {
			m.KeptSeeds = append(m.KeptSeeds, e.Seed)
		}
	}
	if e.Err == nil {
		m.Marks.Add(&e.Marks)
	}
}

// write writes shard.json into the report's folder.
func (m *ShardManifest) write(report *BatchReport) {
	if _, err := report.Folder.Write(ShardFile, func(w io.Writer) error {
		data, err := json.MarshalIndent(m, "", "  ")
		if err == nil {
			_, err = w.Write(append(data, '\n'))
		}
		return err
	}); err != nil && report.err == nil {
		report.err = err
	}
}

// overrideStrings are overrides as -set takes them.
func overrideStrings(overrides []file.Override) []string {
	out := []string{}
	for _, o := range overrides {
		out = append(out, o.String())
	}
	return out
}

// shardDir is a shard's folder and its manifest.
type shardDir struct {
	dir string
	ShardManifest
}

// readShards reads the manifests of the shards in dirs, checks that they are every shard
// of one exploration, each once and whole, and returns them in the order of their index.
func readShards(out string, dirs []string) ([]shardDir, error) {
	if out == "" || len(dirs) == 0 {
		return nil, errors.New("want -out DIR and the folders of the shards (explore -shard i/n -out SHARD_DIR)")
	}
	var shards []shardDir
	for _, dir := range dirs {
		if same, _ := sameDir(dir, out); same {
			return nil, fmt.Errorf("-out %s is one of the shards: give the merge a folder of its own", out)
		}
		data, err := os.ReadFile(filepath.Join(dir, ShardFile))
		if err != nil {
			return nil, fmt.Errorf("%s: no %s: not the folder of a shard (simulate explore or check -shard i/n -out DIR), or its run was interrupted", dir, ShardFile)
		}
		s := shardDir{dir: dir}
		if err := json.Unmarshal(data, &s.ShardManifest); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ShardFile), err)
		}
		shards = append(shards, s)
	}
	first := shards[0]
	for _, s := range shards {
		if err := sameExploration(first, s); err != nil {
			return nil, err
		}
		if err := checkShard(s); err != nil {
			return nil, err
		}
	}
	byIndex := make([]*shardDir, first.Count)
	for i := range shards {
		s := &shards[i]
		if o := byIndex[s.Index]; o != nil {
			return nil, fmt.Errorf("shard %s is given twice: %s and %s", s.Shard, o.dir, s.dir)
		}
		byIndex[s.Index] = s
	}
	var missing []string
	for i, s := range byIndex {
		if s == nil {
			missing = append(missing, batch.Shard{Index: i, Count: first.Count}.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("the exploration of %s has %d shards, and shard %s is missing (%d given)",
			first.Scenario, first.Count, strings.Join(missing, ", shard "), len(shards))
	}
	slices.SortFunc(shards, func(a, b shardDir) int { return a.Index - b.Index })
	return shards, nil
}

// sameExploration says how shard s is of another exploration than first, if it is.
func sameExploration(first, s shardDir) error {
	differ := func(what string, a, b any) error {
		return fmt.Errorf("the shards are of different explorations: %s is of %s %v, %s of %v", first.dir, what, a, s.dir, b)
	}
	switch {
	case s.Command != first.Command:
		return differ("the command", first.Command, s.Command)
	case s.Scenario != first.Scenario:
		return differ("the scenario", first.Scenario, s.Scenario)
	case !slices.Equal(s.Overrides, first.Overrides):
		return differ("the overrides", first.Overrides, s.Overrides)
	case s.ScenarioHash != first.ScenarioHash:
		return differ("the scenario text", first.ScenarioHash, s.ScenarioHash)
	case s.CodeVersion != first.CodeVersion:
		return differ("the code", first.CodeVersion, s.CodeVersion)
	case s.Seeds != first.Seeds:
		return differ("the seeds 1 to", first.Seeds, s.Seeds)
	case s.Swarm != first.Swarm:
		return differ("swarm", first.Swarm, s.Swarm)
	case s.ShrinkRuns != first.ShrinkRuns:
		return differ("-shrink-runs", first.ShrinkRuns, s.ShrinkRuns)
	case s.Count != first.Count:
		return differ("the number of shards", first.Count, s.Count)
	case !slices.Equal(s.Targets, first.Targets):
		return differ("the scenarios", first.Targets, s.Targets)
	}
	return nil
}

// checkShard checks that a shard's manifest is one explore or check writes, its seeds (or
// runs) those of its index, and its lines whole: one for each of its seeds, in order.
func checkShard(s shardDir) error {
	sh := batch.Shard{Index: s.Index, Count: s.Count}
	first, last := sh.Range(s.Seeds)
	if s.Command == "check" {
		first, last = sh.Range(checkRunsOf(s.Targets))
	}
	switch {
	case s.Command != "explore" && s.Command != "check":
		return fmt.Errorf("%s: a shard of %q: simulate merge combines explorations and checks", s.dir, s.Command)
	case s.Count < 1 || s.Index < 0 || s.Index >= s.Count || s.Shard != sh.String() || first != s.FirstSeed || last != s.LastSeed:
		return fmt.Errorf("%s: %s is not one simulate %s -shard wrote", s.dir, ShardFile, s.Command)
	}
	if s.Command == "check" {
		if err := checkKeys(filepath.Join(s.dir, RecordsFile), first, last, s.Shard, "run", func(r batch.CheckRecord) uint64 { return uint64(r.Run) }); err != nil {
			return err
		}
		// its seeds.jsonl: one line per run, of the scenarios in the order of the runs
		return checkKeys(filepath.Join(s.dir, SeedsFile), first, last, s.Shard, "run", func(SeedLine) uint64 { return 0 })
	}
	return checkKeys(filepath.Join(s.dir, SeedsFile), first, last, s.Shard, "seed", func(l SeedLine) uint64 { return l.Seed })
}

// checkKeys checks that the lines of path are first to last by key, one each, in order;
// a key of 0 is not checked, only counted.
func checkKeys[T any](path string, first, last uint64, shard, what string, key func(T) uint64) error {
	r, err := openLines[T](path)
	if err != nil {
		return err
	}
	defer r.close()
	n, want := uint64(0), first
	for {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if k := key(r.value); (k != 0 && k != want) || want > last {
			return fmt.Errorf("%s: line %d is of %s %d, where shard %s has %s %d", path, n+1, what, k, shard, what, want)
		}
		n, want = n+1, want+1
	}
	if want != last+1 {
		return fmt.Errorf("%s: %d lines, where shard %s ran %d %ss (%d to %d)", path, n, shard, last+1-first, what, first, last)
	}
	return nil
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// Merge is simulate merge: it combines the folders of every shard of an exploration
// (explore -shard i/n) into out, as the one exploration of all the seeds would have
// written it, byte for byte: seeds.jsonl in seed order, the kept folders of the first
// KeptFailingSeeds failing seeds (copied from their shards), the manifest; and it prints
// what that exploration prints and returns its exit code. Shards of different explorations,
// or a shard missing, given twice or not whole, are refused (ExitUsage) before anything is
// written.
func Merge(ctx context.Context, stdout, stderr io.Writer, out string, dirs []string, verbose bool) int {
	shards, err := readShards(out, dirs)
	if err != nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		return ExitUsage
	}
	m := shards[0].ShardManifest
	if m.Command == "check" {
		return mergeCheck(ctx, stdout, stderr, out, shards, verbose)
	}
	required := make([]model.Mark, 0, len(m.RequireMarks))
	for _, name := range m.RequireMarks {
		mark, ok := model.LookupMark(name)
		if !ok {
			fmt.Fprintf(stderr, "simulate merge: %s: unknown mark %q\n", shards[0].dir, name)
			return ExitUsage
		}
		required = append(required, mark)
	}
	report, err := NewBatchReport(stdout, out, verbose)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return ExitNotWritten
	}
	fmt.Fprint(stdout, exploreHeader(m.Scenario, m.Seeds, m.Swarm, batch.Shard{}))
	rules := map[string]int{}
	var marks batch.MarkTally
	var kept []keptIn
	for _, s := range shards {
		for rule, n := range s.Rules {
			rules[rule] += n
		}
		if s.Marks != nil {
			marks.Merge(s.Marks)
		}
		for _, seed := range s.KeptSeeds {
			kept = append(kept, keptIn{seed, s.dir})
		}
	}
	var paths []string
	for _, s := range shards {
		paths = append(paths, filepath.Join(s.dir, SeedsFile))
	}
	if err := eachMerged(ctx, paths, func(l SeedLine) uint64 { return l.Seed }, report.explored); err != nil {
		fmt.Fprintf(stderr, "simulate merge: %v\n", err)
		report.Close(m.Seeds, false, stderr)
		return ExitNotWritten
	}
	if ctx.Err() == nil {
		exploreVerdict(stdout, report, m.Scenario, rules, &marks, required)
	}
	slices.SortFunc(kept, func(a, b keptIn) int { return cmp.Compare(a.seed, b.seed) })
	for _, k := range kept[:min(len(kept), KeptFailingSeeds)] {
		if ctx.Err() != nil {
			break
		}
		name := fmt.Sprintf("seed-%d", k.seed)
		dst := filepath.Join(report.Folder.Dir(), name)
		if err := copyDir(filepath.Join(k.dir, name), dst); err != nil {
			fmt.Fprintf(stderr, "simulate merge: the kept folder of seed %d: %v\n", k.seed, err)
			continue
		}
		fmt.Fprintf(stdout, "      seed %d: its results and trace are in %s (simulate recheck %s)\n", k.seed, dst, dst)
		if _, err := os.Stat(filepath.Join(dst, CardFolder, shrink.CardFile)); err == nil {
			cardLine(stdout, fmt.Sprintf("seed %d", k.seed), dst)
		}
	}
	return report.Close(m.Seeds, ctx.Err() != nil, stderr)
}

// eachMerged hands f the lines of the files in the order of their keys, whichever keys
// each file holds (a heap of each file's next line), and checks that the keys are 1, 2, 3,
// ..., each once. It stops when ctx ends.
func eachMerged[T any](ctx context.Context, paths []string, key func(T) uint64, f func(T)) error {
	var err error
	next, stop := pullMerged(paths, key, &err)
	defer stop()
	for ctx.Err() == nil {
		v, ok := next()
		if !ok {
			break
		}
		f(v)
	}
	return err
}

// pullMerged returns next, which returns the lines of the files in the order of their
// keys, checked to be 1, 2, 3, ...; next returns false at the end or on an error, which
// it sets in *errp. stop closes the files.
func pullMerged[T any](paths []string, key func(T) uint64, errp *error) (next func() (T, bool), stop func()) {
	h := &lineHeap[T]{key: key}
	stop = func() {
		for _, r := range h.readers {
			r.close()
		}
	}
	var zero T
	for _, path := range paths {
		r, err := openLines[T](path)
		if err == nil {
			var ok bool
			if ok, err = r.next(); ok {
				h.readers = append(h.readers, r)
			} else {
				r.close()
			}
		}
		if err != nil {
			*errp = err
			return func() (T, bool) { return zero, false }, stop
		}
	}
	heap.Init(h)
	want := uint64(1)
	return func() (T, bool) {
		if len(h.readers) == 0 || *errp != nil {
			return zero, false
		}
		r := h.readers[0]
		v := r.value
		if k := key(v); k != want {
			*errp = fmt.Errorf("%s: %d where the merge wants %d", r.path, k, want)
			return zero, false
		}
		want++
		if ok, err := r.next(); err != nil {
			*errp = err
			return zero, false
		} else if ok {
			heap.Fix(h, 0)
		} else {
			r.close()
			heap.Pop(h)
		}
		return v, true
	}, stop
}

// pullRecords is pullMerged of the records of a check's shards, by run, for
// batch.CheckRecords.
func pullRecords(paths []string, errp *error) (next func() (batch.CheckRecord, error), stop func()) {
	pull, stop := pullMerged(paths, func(r batch.CheckRecord) uint64 { return uint64(r.Run) }, errp)
	return func() (batch.CheckRecord, error) {
		r, ok := pull()
		if !ok && *errp == nil {
			*errp = errors.New("the shards' records end before the check's runs")
		}
		return r, *errp
	}, stop
}

// lines reads a JSON Lines file a line at a time; value is the last one read.
type lines[T any] struct {
	path  string
	file  *os.File
	r     *bufio.Reader
	value T
}

// openLines opens path for reading its lines.
func openLines[T any](path string) (*lines[T], error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &lines[T]{path: path, file: file, r: bufio.NewReaderSize(file, 1<<16)}, nil
}

// next reads the next line, and reports whether there was one.
func (l *lines[T]) next() (bool, error) {
	for {
		raw, err := l.r.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			var zero T
			l.value = zero
			if err := json.Unmarshal(raw, &l.value); err != nil {
				return false, fmt.Errorf("%s: %w", l.path, err)
			}
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", l.path, err)
		}
	}
}

// close closes the file; twice is harmless.
func (l *lines[T]) close() { l.file.Close() }

// lineHeap orders readers by the key of their next line.
type lineHeap[T any] struct {
	readers []*lines[T]
	key     func(T) uint64
}

func (h *lineHeap[T]) Len() int { return len(h.readers) }
func (h *lineHeap[T]) Less(i, j int) bool {
	return h.key(h.readers[i].value) < h.key(h.readers[j].value)
}
func (h *lineHeap[T]) Swap(i, j int) { h.readers[i], h.readers[j] = h.readers[j], h.readers[i] }
func (h *lineHeap[T]) Push(x any)    { h.readers = append(h.readers, x.(*lines[T])) }
func (h *lineHeap[T]) Pop() any {
	x := h.readers[len(h.readers)-1]
	h.readers = h.readers[:len(h.readers)-1]
	return x
}

// keptIn is a kept failing seed and the shard folder that holds its folder.
type keptIn struct {
	seed uint64
	dir  string
}

// copyDir copies the files of the folder src (a kept seed's results: files only) into dst,
// made anew, with their modes (replay.sh runs).
func copyDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return err
		}
		if info.IsDir() { // a kept seed's counterexample card
			if err := copyDir(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
				return err
			}
			continue
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a file", filepath.Join(src, e.Name()))
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
