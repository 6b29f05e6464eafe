package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
	"github.com/sbsim/sbsim/scenarios/tsql"
)

// cmdImport is `simulate import`.
func cmdImport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("import", stderr)
	opts := tsql.Options{Map: map[string]string{}, Vars: map[string]string{}}
	fs.Func("map", "put a database on an instance (`DATABASE=INSTANCE`), or a route's address (TCP://host:port=INSTANCE); repeatable",
		func(v string) error { return tsql.SetPair(opts.Map, v) })
	fs.Func("var", "set a sqlcmd variable (`NAME=VALUE`), over the scripts' :setvar; repeatable", func(v string) error { return tsql.SetPair(opts.Vars, v) })
	fs.StringVar(&opts.Database, "db", "", "the database of the statements before any USE (default: the .sqlproj's name, or master)")
	out := fs.String("o", "", "write the scenario to `FILE` (default: standard output)")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "simulate import: want one or more .sql files or folders")
		return results.ExitUsage
	}
	err := tsql.ImportFiles(pos, opts, *out, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "simulate import: %v\n", err)
		return results.ExitUsage
	}
	return 0
}
