package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/batch"
	"github.com/sbsim/sbsim/scenarios/file"
	"github.com/sbsim/sbsim/scenarios/results"
)

// cmdSweep is `simulate sweep`: the scenario for every combination of one or two
// parameters, each on seeds 1 to N, on every core; sweep.csv and plots with 95%
// confidence bands across seeds, and seeds.jsonl, one line per run as it finishes.
func cmdSweep(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
	out := fs.String("out", "", "`DIR` for sweep.csv, seeds.jsonl, the plots, sweep.json and report.html (default sbsim-results/sweep-NAME)")
	nworkers := fs.Int("workers", workers(), "parallel runs, `N`; the results do not depend on it")
	verbose := fs.Bool("v", false, "print every run as it finishes, not only those that break an invariant")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	switch {
	case len(pos) != 1:
		fmt.Fprintln(stderr, "simulate sweep: want one scenario, a file or a library name")
		return results.ExitUsage
	case len(params) == 0 || len(params) > 2:
		fmt.Fprintln(stderr, "simulate sweep: want one or two -set key=v1,v2,...")
		return results.ExitUsage
	case *seeds < 1 || *nworkers < 1:
		fmt.Fprintln(stderr, "simulate sweep: -seeds and -workers must be 1 or more")
		return results.ExitUsage
	}
	s, err := file.Open(pos[0])
	if err == nil {
		var sw *batch.Sweep
		if sw, err = batch.NewSweep(s, params, *seeds); err == nil {
			tick, finish := results.Progress(stderr, len(sw.Points)*sw.Seeds, "sweeping")
			return results.RunSweep(ctx, stdout, stderr, pos[0], sw, results.BatchOptions{Out: *out, Workers: *nworkers,
				Verbose: *verbose, Progress: tick, Done: finish})
		}
	}
	fmt.Fprintf(stderr, "simulate: %v\n", err)
	return results.ExitUsage
}
