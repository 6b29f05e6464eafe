// Package results writes what runs of a scenario produced: for one run, the text report
// (WriteReport) and the files, summary.json (a versioned summary of every figure, with the
// invariant and expectation verdicts and the value of every metric of scenarios.Metrics),
// series.csv (the figures sampled over time, in long form), latency_cdf.csv (the latency
// distribution per priority level), trace.jsonl (the trace records, one JSON object a
// line) and the plots, PNG and SVG, drawn by package plots, with the scenario's copy and
// replay.sh (WriteRunFolder); for a sweep, sweep.csv, its plots, sweep.json (the points'
// verdicts) and its report.html (SweepWriter, WriteSweepReportFromFolder); for a kept
// seed's counterexample card, card.html beside card.txt (WriteCardPageFromFolder); for a
// check or a sweep, seeds.jsonl, a line per run as it finishes (BatchReport), and the
// report of -check-determinism (CheckDeterminism, RunDeterminism). Every file goes into a
// Folder: written under a temporary name and renamed into place once whole, and listed in
// the folder's manifest.txt, so that the folder holds one run only. The exit
// codes of the command are here too (ExitOK ..., RunExitCode, StoppedAtLimit).
// docs/outputs.md is the reference of every file, field and column.
// The list of invariants the report and summary.json give a verdict for is
// invariant.Rules.
//
// It converts a *scenarios.Result, which is plain data, into those files, and runs no
// simulation. Every writer is a pure function of its input and of the code (CodeVersion):
// the same Result, scenario name, hash and verdicts give the same bytes, run after run, on
// any machine, but for a few pixels of a PNG where the platform fuses multiply-add
// (docs/outputs.md#conventions). Slices and structs fix the order of everything written;
// no map is iterated into the output.
//
// Durations are written as seconds, a JSON or CSV number: in fields and columns whose name
// ends in "_s" (end_time_s, p99_s, time_s), and in the value of a metric whose unit is
// "duration" (summary.json's metrics list, sweep.csv); a duration that has no value (a
// queue monitor that never activated) is JSON null.
//
// The plots are drawn from series.csv and latency_cdf.csv alone, so Replot re-renders them,
// byte for byte, from a directory WriteAll wrote. The plots over time end shortly after the
// last change of any figure: a run that drains idles until its closed target endpoints are
// deleted (30 minutes by default), which would squeeze everything else into a sliver.
//
// Usage:
//
//	res, err := scenarios.Run(cfg, seed)
//	if err != nil {
//		return err
//	}
//	s := results.NewSummary(res, name, hash, verdicts)
//	paths, err := results.WriteAll(dir, res, s, res.Trace) // nil instead of res.Trace: no trace.jsonl
//
// A run too long to keep its trace (Config.Trace) streams it into the folder instead, and
// counts its conversations table as it goes:
//
//	f, err := results.OpenFolder(dir)
//	sink, err := f.StreamTrace()
//	cfg.Trace, cfg.Conversations, cfg.TraceSink = false, true, sink
//	res, err := scenarios.Run(cfg, seed)
//	paths, err := f.WriteRun(res, results.NewSummary(res, name, hash, verdicts), nil) // the streamed trace.jsonl
//	err = f.Close()
package results
