package tsql

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"
)

// NoteKind says what a Note is about.
type NoteKind uint8

const (
	// NotModelled is a statement or option that has no place in a scenario: certificates,
	// users, permissions, tables, VALIDATION, EXECUTE AS.
	NotModelled NoteKind = iota + 1
	// ControlFlow is a statement around the DDL (IF EXISTS guards, BEGIN ... END, PRINT,
	// SET NOCOUNT ON): the DDL inside is read as if it ran.
	ControlFlow
	// Inferred is something the importer decided that the scripts do not say outright: an
	// address's instance, a broker instance's database, a program from a procedure.
	Inferred
	// Warning is what is likely wrong in the scripts, or left out of the scenario: an
	// ALTER of an object no script creates, a route to an address no instance has.
	Warning
)

var noteKindNames = [...]string{"", "not modelled", "control flow", "inferred", "warning"}

func (k NoteKind) String() string { return noteKindNames[k] }

// Note is what the importer says about a place in the scripts.
type Note struct {
	Pos     Pos
	Kind    NoteKind
	Message string
	// ID and Fix, for a Warning, are its lint diagnostic's (LintScriptWarning when ID is
	// empty) and how to fix it.
	ID, Fix string
}

func (n Note) String() string { return fmt.Sprintf("%s: %s: %s", n.Pos, n.Kind, n.Message) }

// Options are an import's settings.
type Options struct {
	// Map puts databases on instances (DATABASE=INSTANCE), ahead of :CONNECT; a key with
	// "://" maps a route's address (TCP://host:4022=INSTANCE).
	Map map[string]string
	// Vars are SQLCMD variables; they win over the scripts' :setvar.
	Vars map[string]string
	// Database is the database of the statements before any USE; empty means the
	// database project's name (the .sqlproj file's, in a folder that has one) or master.
	Database string
}

// DefaultInstance names the one instance of scripts that neither :CONNECT nor -map put
// elsewhere.
const DefaultInstance = "Server"

// Source is one script's name and text.
type Source struct {
	Name, Text string
}

// Project is what a folder's SSDT project file (.sqlproj) says: its name, the database's
// (and the built-in SQLCMD variable DatabaseName), and its SQLCMD variables' default values.
type Project struct {
	Name string
	Vars map[string]string
}

// readProject reads a .sqlproj file.
func readProject(path string) (*Project, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var x struct {
		Names []string `xml:"PropertyGroup>Name"`
		Vars  []struct {
			Include string `xml:"Include,attr"`
			Default string `xml:"DefaultValue"`
		} `xml:"ItemGroup>SqlCmdVariable"`
	}
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &Project{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Vars: map[string]string{}}
	if len(x.Names) > 0 && x.Names[0] != "" {
		p.Name = x.Names[0]
	}
	p.Vars["DatabaseName"] = p.Name
	for _, v := range x.Vars {
		p.Vars[v.Include] = v.Default
	}
	return p, nil
}

// ReadSources reads the scripts at paths: a file as it is, a folder's .sql files in the
// order of their paths (its sub-folders too, as a database project has them), and the
// first .sqlproj found in a folder.
func ReadSources(paths []string) ([]Source, *Project, error) {
	var out []Source
	var project *Project
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !info.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, Source{Name: p, Text: decode(data)})
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch ext := strings.ToLower(filepath.Ext(path)); {
			case d.IsDir():
			case ext == ".sql":
				files = append(files, path)
			case ext == ".sqlproj" && project == nil:
				project, err = readProject(path)
				return err
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if len(files) == 0 {
			return nil, nil, fmt.Errorf("%s: no .sql file in the folder", p)
		}
		sort.Strings(files)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, Source{Name: filepath.ToSlash(f), Text: decode(data)})
		}
	}
	return out, project, nil
}

// decode returns a script's text: UTF-16 with its byte order mark (as SSMS can save, and
// sqlcmd reads), else UTF-8.
func decode(data []byte) string {
	if len(data) >= 2 && ((data[0] == 0xFF && data[1] == 0xFE) || (data[0] == 0xFE && data[1] == 0xFF)) {
		big := data[0] == 0xFE
		units := make([]uint16, 0, len(data)/2)
		for i := 2; i+1 < len(data); i += 2 {
			if big {
				units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
			} else {
				units = append(units, uint16(data[i+1])<<8|uint16(data[i]))
			}
		}
		return string(utf16.Decode(units))
	}
	return string(data)
}

// reader holds what the scripts have said so far.
type reader struct {
	opts      Options
	instances []*instance
	notes     []Note
	// use is the database the current script's USE named ("" before any).
	use string
	// last is the instance of the current script's last database statement, for msdb's
	// routes when nothing maps msdb.
	last *instance
	// dialogs are the applications' BEGIN DIALOGs outside procedures.
	dialogs []dialog
	// batches and statements count what was read, for the report.
	batches, statements int
}

func (r *reader) note(p Pos, kind NoteKind, format string, args ...any) {
	r.notes = append(r.notes, Note{Pos: p, Kind: kind, Message: fmt.Sprintf(format, args...)})
}

// warn records a Warning with its lint diagnostic's ID and fix.
func (r *reader) warn(p Pos, id, fix, format string, args ...any) {
	r.notes = append(r.notes, Note{Pos: p, Kind: Warning, Message: fmt.Sprintf(format, args...), ID: id, Fix: fix})
}

// lookupFold returns m's value for key: the key's own, else that of the first key, in
// sorted order, equal to it but for case (never map order: an import is deterministic).
func lookupFold(m map[string]string, key string) (string, bool) {
	if v, ok := m[key]; ok {
		return v, true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return m[k], true
		}
	}
	return "", false
}

// instanceFor returns the instance a statement on database db runs on: -map's, the
// batch's :CONNECT server, the one msdb follows, or the default.
func (r *reader) instanceFor(db string, b Batch) *instance {
	name, _ := lookupFold(r.opts.Map, db)
	switch {
	case name != "":
	case b.Connect != "":
		name = b.Connect
	case (strings.EqualFold(db, "msdb") || strings.EqualFold(db, "master")) && r.last != nil:
		return r.last
	default:
		name = DefaultInstance
	}
	for _, in := range r.instances {
		if strings.EqualFold(in.name, name) {
			r.last = in
			return in
		}
	}
	in := &instance{name: name}
	r.instances = append(r.instances, in)
	r.last = in
	return in
}

// read interprets every statement of one script. Errors are collected: each statement
// that has one is skipped.
func (r *reader) read(src Source) []error {
	script, err := Split(src.Name, src.Text, r.opts.Vars)
	if err != nil {
		return []error{err}
	}
	for _, d := range script.Directives {
		what := strings.Fields(d.Text)
		if len(what) > 2 {
			what = what[:2]
		}
		r.note(d.Pos, NotModelled, "SQLCMD %s: not acted on", strings.Join(what, " "))
	}
	r.use, r.last = "", nil
	var errs []error
	for _, b := range script.Batches {
		toks, err := Tokens(b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.batches++
		if b.Repeat > 1 {
			r.note(Pos{b.File, b.GoLine, 1}, Inferred, "GO %d: the batch is read once; creating its objects again would fail", b.Repeat)
		}
		for _, s := range Statements(toks) {
			r.statements++
			if err := r.exec(s, b); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errs
}

// Errors is every mistake an import found, in the order of the scripts.
type Errors []error

func (es Errors) Error() string {
	var lines []string
	for _, e := range es {
		lines = append(lines, e.Error())
	}
	return strings.Join(lines, "\n")
}

func (es Errors) Unwrap() []error { return es }

// maxErrors bounds the errors an import reports.
const maxErrors = 50

// Read reads the scripts' statements, in order. The error is Errors, every statement the
// importer could not read with its place.
func Read(srcs []Source, opts Options) (*Design, error) {
	if opts.Database == "" {
		opts.Database = "master"
	}
	r := &reader{opts: opts}
	var errs Errors
	for _, s := range srcs {
		errs = append(errs, r.read(s)...)
		if len(errs) >= maxErrors {
			errs = append(errs[:maxErrors], errors.New("too many errors"))
			break
		}
	}
	if len(errs) > 0 {
		return nil, r.explain(errs)
	}
	if len(r.instances) == 0 {
		name := ""
		if len(srcs) > 0 {
			name = srcs[0].Name
		}
		return nil, Errors{&Error{Pos: Pos{File: name}, Msg: "no Service Broker statement in the scripts: nothing to import"}}
	}
	d, err := r.design(srcs)
	if es, ok := err.(Errors); ok {
		return nil, r.explain(es)
	}
	return d, err
}

// explain adds to an import's errors the notes that may explain them: an :r include that
// was not read.
func (r *reader) explain(errs Errors) Errors {
	for _, n := range r.notes {
		if n.Kind == NotModelled && strings.HasPrefix(n.Message, "SQLCMD :r") {
			errs = append(errs, &Error{Pos: n.Pos, Msg: "note: SQLCMD :r is not acted on: give the file it includes as an argument, in its place"})
		}
	}
	return errs
}

// Import reads the scripts at paths (files, or folders of .sql files) into a design.
func Import(paths []string, opts Options) (*Design, error) {
	srcs, project, err := ReadSources(paths)
	if err != nil {
		return nil, err
	}
	if project != nil {
		// The project's defaults, as if given with -var, under the caller's own.
		vars := map[string]string{}
		for k, v := range project.Vars {
			vars[k] = v
		}
		for k, v := range opts.Vars {
			for p := range vars {
				if strings.EqualFold(p, k) {
					delete(vars, p)
				}
			}
			vars[k] = v
		}
		opts.Vars = vars
		if opts.Database == "" {
			opts.Database = project.Name
		}
	}
	return Read(srcs, opts)
}

// SetPair adds NAME=VALUE to m, as -map and -var give it.
func SetPair(m map[string]string, v string) error {
	k, value, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	m[strings.TrimSpace(k)] = value
	return nil
}

// ImportFiles is `simulate import`: it imports the scripts at paths, writes the report to
// stderr and the scenario to the file out (standard output when out is empty).
func ImportFiles(paths []string, opts Options, out string, stdout, stderr io.Writer) error {
	d, err := Import(paths, opts)
	if err != nil {
		return err
	}
	data, err := d.YAML()
	if err != nil {
		return err
	}
	fmt.Fprint(stderr, d.Report())
	if out == "" {
		_, err = stdout.Write(data)
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: edit its EDIT lines, then: simulate run %s\n", out, out)
	return nil
}
