// Command simulate is sbsim's command line: flags in, calls of the library packages
// (scenarios/file to load a scenario and apply -set overrides, scenarios to run it,
// scenarios/batch for check and sweep, scenarios/results for the report and the files),
// files and an exit code out.
//
// Every scenario is a YAML file or a name from the embedded library (simulate list). With
// no argument, simulate runs the showcase lossy-wan on a new seed and writes its results
// under sbsim-results/; with flags only, it is `simulate run lossy-wan` with them. Every
// run prints its seed first and, second, the command that replays it byte for byte.
//
//	go run ./cmd/simulate                      # the showcase, results written
//	go run ./cmd/simulate -seed 1              # = go run ./cmd/simulate run lossy-wan -seed 1
//	go run ./cmd/simulate run FILE|NAME -seed N -set key=value -out DIR -trace
//	go run ./cmd/simulate check all -seeds 20
//	go run ./cmd/simulate sweep NAME -set key=v1,v2 -seeds 10
//	go run ./cmd/simulate -h                   # every subcommand; simulate SUBCOMMAND -h for its flags
//
// The wall clock is read only to choose a seed when -seed is absent. Exit codes (results.Exit*,
// docs/outputs.md#exit-codes): 0 all held, 1 failed, 2 bad input, 3 not written, 4 limit, 130 interrupt.
package main
