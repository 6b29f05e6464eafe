package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdSweep is `simulate sweep`: the scenario for every combination of one or two
// parameters, each on seeds 1 to N, on every core; sweep.csv and plots with 95%
// confidence bands across seeds.
func cmdSweep(args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("sweep", stderr)
	var params []batch.Param
	fs.Func("set", "`key=v1,v2,...`: a parameter and its values, the key as -set of simulate run takes it,\n"+
		"such as workloads.0.dialogs or instances.Tokyo.databases.Warehouse.queues.StockQueue.activation.max_queue_readers;\n"+
		"once or twice", func(v string) error {
		p, err := batch.ParseParam(v)
		params = append(params, p)
		return err
	})
	seeds := fs.Int("seeds", 5, "seeds 1 to `N` for every point")
	out := fs.String("out", "", "`DIR` for sweep.csv and the plots (default sbsim-results/sweep-NAME)")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`; the results do not depend on it")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintln(stderr, "simulate sweep: want one scenario, a file or a library name")
		return 2
	case len(params) == 0 || len(params) > 2:
		fmt.Fprintln(stderr, "simulate sweep: want one or two -set key=v1,v2,...")
		return 2
	case *seeds < 1 || *nworkers < 1:
		fmt.Fprintln(stderr, "simulate sweep: -seeds and -workers must be 1 or more")
		return 2
	}
	s, err := file.Open(pos[0])
	if err == nil {
		var sw *batch.Sweep
		if sw, err = batch.NewSweep(s, params, *seeds); err == nil {
			return runSweep(pos[0], sw, *out, *nworkers, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "simulate: %v\n", err)
	return 2
}

// runSweep runs the sweep, reports the runs that broke an invariant with the command that
// replays each, and writes sweep.csv and the plots.
func runSweep(arg string, sw *batch.Sweep, out string, nworkers int, stdout, stderr io.Writer) int {
	dir := out
	if dir == "" {
		dir = filepath.Join("sbsim-results", "sweep-"+strings.TrimSuffix(filepath.Base(arg), ".yaml"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	w, err := results.NewSweepWriter(dir, sw)
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	tick, finish := progress(stderr, len(sw.Points)*sw.Seeds, "sweeping")
	violated := 0
	for r, err := range sw.Run(nworkers, tick) {
		if err == nil {
			err = w.Add(r)
		}
		if err != nil { // a run that could not start or panicked (a bug), or a file not written
			finish()
			fmt.Fprintf(stderr, "simulate: %v\nreplay: %s\n", err, file.Replay(arg, sw.Overrides(sw.Points[r.Point]), r.Seed))
			return 1
		}
		fmt.Fprint(stdout, sw.PointFailures(r)) // a point whose expectations failed, after its last seed
		if v := r.Violation; v != nil {
			violated++
			pt := sw.Points[r.Point]
			fmt.Fprintf(stdout, "%s violated with %s, seed %d; replay it with:\n  %s\n", v.Rule, sw.Describe(pt), r.Seed,
				file.Replay(arg, sw.Overrides(pt), r.Seed))
		}
	}
	finish()
	files, err := w.Close()
	if err != nil {
		fmt.Fprintf(stderr, "simulate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d points x %d seeds = %d runs; wrote %s\n", len(sw.Points), sw.Seeds, len(sw.Points)*sw.Seeds, strings.Join(files, ", "))
	if len(files) == 1 {
		fmt.Fprintf(stdout, "no plots: the values of %s are not numbers or durations\n", sw.Params[0].Key)
	}
	if violated > 0 {
		fmt.Fprintf(stdout, "%d runs broke an invariant\n", violated)
		return 1
	}
	return 0
}
