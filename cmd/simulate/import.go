package main

import (
	"context"
	"flag"
	"io"

	"github.com/sbsim/sbsim/scenarios/results"
	"github.com/sbsim/sbsim/scenarios/tsql"
)

// cmdImport is `simulate import`.
func cmdImport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newSubFlags("import", stderr)
	opts := scriptFlags(fs)
	out := fs.String("o", "", "write the scenario to `FILE` (default: standard output)")
	pos, code, done := parseInterleaved(fs, args, stdout)
	if done {
		return code
	}
	return results.Import(pos, *opts, *out, stdout, stderr)
}

// scriptFlags adds the flags that say how T-SQL scripts are read (import, lint).
func scriptFlags(fs *flag.FlagSet) *tsql.Options {
	opts := &tsql.Options{Map: map[string]string{}, Vars: map[string]string{}}
	fs.Func("map", "put a database on an instance (`DATABASE=INSTANCE`), or a route's address (TCP://host:port=INSTANCE); repeatable",
		func(v string) error { return tsql.SetPair(opts.Map, v) })
	fs.Func("var", "set a sqlcmd variable (`NAME=VALUE`), over the scripts' :setvar; repeatable", func(v string) error { return tsql.SetPair(opts.Vars, v) })
	fs.StringVar(&opts.Database, "db", "", "the database of the statements before any USE (default: the .sqlproj's name, or master)")
	return opts
}
