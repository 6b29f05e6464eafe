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
)

// ShardFile is the file a shard of an exploration (explore -shard i/n) writes beside its
// seeds.jsonl: what simulate merge needs to combine the shards into the one exploration.
const ShardFile = "shard.json"

// ShardManifest is shard.json: which exploration the shard is a part of (the scenario as
// the command named it, its overrides, the hash of its text, the code, the seeds, swarm or
// not), which part (shard i/n, its seeds), and what the verdict over all the seeds needs of
// it beyond seeds.jsonl: the runs broken per rule, the marks the runs reached, and the
// failing seeds whose folders (seed-N) it kept.
type ShardManifest struct {
	Command      string   `json:"command"`
	Scenario     string   `json:"scenario"`
	Overrides    []string `json:"overrides"`
	ScenarioHash string   `json:"scenario_hash"`
	CodeVersion  string   `json:"code_version"`
	Seeds        int      `json:"seeds"`
	Swarm        bool     `json:"swarm"`
	Shard        string   `json:"shard"`
	Index        int      `json:"index"`
	Count        int      `json:"count"`
	FirstSeed    uint64   `json:"first_seed"`
	LastSeed     uint64   `json:"last_seed"`
	// Runs is how many lines the shard wrote to seeds.jsonl: every one of its seeds.
	Runs         int             `json:"runs"`
	Rules        map[string]int  `json:"rules"`
	Marks        batch.MarkTally `json:"marks"`
	RequireMarks []string        `json:"require_marks"`
	KeptSeeds    []uint64        `json:"kept_seeds"`
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
			return nil, fmt.Errorf("%s: no %s: not the folder of a shard (simulate explore -shard i/n -out DIR), or its run was interrupted", dir, ShardFile)
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
	case s.Count != first.Count:
		return differ("the number of shards", first.Count, s.Count)
	}
	return nil
}

// checkShard checks that a shard's manifest is one explore writes, its seeds those of its
// index, and its seeds.jsonl whole: one line for each of its seeds, in order.
func checkShard(s shardDir) error {
	sh := batch.Shard{Index: s.Index, Count: s.Count}
	first, last := sh.Range(s.Seeds)
	switch {
	case s.Command != "explore":
		return fmt.Errorf("%s: a shard of %q: simulate merge combines explorations", s.dir, s.Command)
	case s.Count < 1 || s.Index < 0 || s.Index >= s.Count || s.Shard != sh.String() || first != s.FirstSeed || last != s.LastSeed:
		return fmt.Errorf("%s: %s is not one simulate explore -shard wrote", s.dir, ShardFile)
	}
	file, err := os.Open(filepath.Join(s.dir, SeedsFile))
	if err != nil {
		return err
	}
	defer file.Close()
	r := &lineReader{path: file.Name(), r: bufio.NewReaderSize(file, 1<<16)}
	n, want := 0, first
	for {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if r.line.Seed != want || want > last {
			return fmt.Errorf("%s: line %d is of seed %d, where shard %s has seed %d", r.path, n+1, r.line.Seed, s.Shard, want)
		}
		n, want = n+1, want+1
	}
	if n != s.Runs || want != last+1 {
		return fmt.Errorf("%s: %d lines, where shard %s ran %d seeds (%d to %d)", r.path, n, s.Shard, last+1-first, first, last)
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
		marks.Merge(&s.Marks)
		for _, seed := range s.KeptSeeds {
			kept = append(kept, keptIn{seed, s.dir})
		}
	}
	if err := mergeLines(ctx, shards, report.explored); err != nil {
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
	}
	return report.Close(m.Seeds, ctx.Err() != nil, stderr)
}

// mergeLines hands each line of the shards' seeds.jsonl to f in seed order, whichever
// seeds each shard ran (a heap of each shard's next line), and checks that they are the
// seeds 1 to N, each once. It stops when ctx ends.
func mergeLines(ctx context.Context, shards []shardDir, f func(SeedLine)) error {
	var h lineHeap
	for _, s := range shards {
		file, err := os.Open(filepath.Join(s.dir, SeedsFile))
		if err != nil {
			return err
		}
		defer file.Close()
		r := &lineReader{path: file.Name(), r: bufio.NewReaderSize(file, 1<<16)}
		if ok, err := r.next(); err != nil {
			return err
		} else if ok {
			h = append(h, r)
		}
	}
	heap.Init(&h)
	for want := uint64(1); len(h) > 0 && ctx.Err() == nil; want++ {
		r := h[0]
		if r.line.Seed != want {
			return fmt.Errorf("%s: seed %d where the merge wants seed %d", r.path, r.line.Seed, want)
		}
		f(r.line)
		if ok, err := r.next(); err != nil {
			return err
		} else if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// lineReader reads a seeds.jsonl a line at a time; line is the last one read.
type lineReader struct {
	path string
	r    *bufio.Reader
	line SeedLine
}

// next reads the next line, and reports whether there was one.
func (l *lineReader) next() (bool, error) {
	for {
		raw, err := l.r.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			l.line = SeedLine{}
			if err := json.Unmarshal(raw, &l.line); err != nil {
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

// lineHeap orders the shards' readers by the seed of their next line.
type lineHeap []*lineReader

func (h lineHeap) Len() int           { return len(h) }
func (h lineHeap) Less(i, j int) bool { return h[i].line.Seed < h[j].line.Seed }
func (h lineHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)        { *h = append(*h, x.(*lineReader)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
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
