package file

import (
	"bytes"
	"fmt"
	"github.com/sbsim/sbsim/scenarios"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/sbsim/sbsim/model"
)

// Scenario is a scenario file: a whole design (Config), the question it answers, and the
// expectations its results must meet. docs/scenario-files.md describes every key.
type Scenario struct {
	Config scenarios.Config
	// Question is the design question the scenario answers, in the designer's words.
	Question string
	// Description says what the scenario sets up.
	Description string
	// Seeds is how many seeds `simulate check` runs the scenario on when not told; zero
	// leaves it to the command.
	Seeds int
	// Expectations are the assertions the results must meet (Check).
	Expectations []Expectation
	// RequireMarks are the coverage marks a run must reach (Check), and a check over its
	// seeds (batch.Verdict): require_marks.
	RequireMarks []model.Mark
	// Warnings are what Load found legal but likely wrong, each at its place in the file:
	// a workload's target that no route reaches, or that has no route back
	// (scenarios.Config.RouteWarnings). simulate validate prints them.
	Warnings []*Error
	// Source names the text the scenario was loaded from, a path or NAME.yaml, with the
	// overrides applied to it (With); Hash identifies that text (summary.json's
	// scenario_hash).
	Source, Hash string
	// Places are where each value was written, by path in the file's own terms (as
	// Error.Path writes it: instances[0].databases[1].queues[2]): Load fills them from the
	// YAML, and tsql's import from the T-SQL statement that made each object. PlaceOf
	// finds the place of a path, or of its nearest ancestor with one.
	Places map[string]Place
}

// Place is where something in a scenario's source was written: a file, and a line and
// column counted from 1 (zero when unknown).
type Place struct {
	File         string
	Line, Column int
}

// PlaceOf returns where path was written, or its nearest ancestor with a place, or the
// scenario's source with no line.
func (f *Scenario) PlaceOf(path string) Place {
	for path != "" {
		if p, ok := f.Places[path]; ok {
			return p
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return Place{File: f.Source}
}

// LoadFile reads and loads the scenario file at path; errors name the path.
func LoadFile(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario file: %w", err)
	}
	return Load(path, data)
}

// Load decodes a scenario file's contents and validates everything in it: the keys and
// their types and ranges, then the catalog (model.Compile), the names the applications,
// links, timeline and expectations use, and the rest of the config (Config.Validate).
// name is the file's name, for the errors and the scenario's default name. The error is
// Errors: each problem with its line, column and key.
func Load(name string, data []byte) (*Scenario, error) {
	if name == "" {
		name = "scenario"
	}
	d := newDecoder(name)
	root, err := parseDocument(name, data)
	if err != nil {
		return nil, Errors{err}
	}
	f := d.decodeFile(root, strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	if len(d.errs) == 0 {
		d.check(f)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	f.Source, f.Hash = name, hashText(data)
	f.Places = make(map[string]Place, len(d.pos))
	for path, n := range d.pos {
		f.Places[path] = Place{File: name, Line: n.Line, Column: n.Column}
	}
	return f, nil
}

// yamlLine finds the line in the YAML library's messages ("yaml: line 3: ...").
var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// parseDocument parses the one YAML document of data into its root node.
func parseDocument(name string, data []byte) (root *yaml.Node, ferr *Error) {
	defer func() {
		if r := recover(); r != nil {
			root, ferr = nil, &Error{File: name, Message: fmt.Sprintf("not YAML: the parser failed: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if err == nil {
		var next yaml.Node
		switch err2 := dec.Decode(&next); {
		case err2 == nil:
			return nil, &Error{File: name, Line: next.Line, Column: next.Column,
				Message: "a second YAML document: a scenario file holds one"}
		case err2 != io.EOF:
			err = err2
		}
	}
	switch {
	case err == io.EOF || (err == nil && len(doc.Content) == 0):
		return nil, &Error{File: name, Message: "the file is empty"}
	case err != nil:
		e := &Error{File: name, Message: "not valid YAML: " + yamlLine.ReplaceAllString(err.Error(), "")}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil && m[1] != "" {
			e.Line, _ = strconv.Atoi(m[1])
		}
		return nil, e
	}
	return doc.Content[0], nil
}

// decodeFile decodes the top-level mapping.
func (d *decoder) decodeFile(n *yaml.Node, defaultName string) *Scenario {
	f := &Scenario{}
	cfg := &f.Config
	m := d.mapping(n, "", "scenario")
	d.root = m.node
	if !m.present() {
		if isNull(n) {
			d.errorf(n, "", "the scenario is empty: it needs instances")
		}
		return f
	}
	if !m.str("name", &cfg.Name) {
		cfg.Name = defaultName
	}
	m.str("question", &f.Question)
	m.str("description", &f.Description)
	m.intField("seeds", &f.Seeds, 0, 1_000_000)
	if !m.has("instances") {
		d.errorf(m.node, "instances", "the scenario needs instances")
	}
	cfg.Instances = d.instances(m)
	cfg.CPUs = d.cpus
	d.objects.node, d.objects.path = m.node, ""
	if v := d.pos["instances"]; v != nil {
		d.objects.node, d.objects.path = v, "instances"
	}
	cfg.Links = d.links(m)
	cfg.Broker = d.broker(m)
	cfg.Workloads = d.workloads(m)
	cfg.Readers = d.readers(m)
	cfg.Procedures = d.procedures(m)
	cfg.ExternalActivators = d.externalActivators(m)
	cfg.Timeline = d.timeline(m)
	d.crashes(m, &cfg.Crashes)
	cfg.FaultPlan = d.faultPlan(m)
	d.resolveBrokerInstances(cfg)
	limits := d.mapping(m.get("limits"), "limits", "limits")
	limits.duration("max_time", &cfg.MaxTime)
	var events int64
	if limits.integer("max_events", &events, 0, math.MaxInt64) {
		cfg.MaxEvents = uint64(events)
	}
	limits.size("max_memory", &cfg.MaxMemory)
	limits.done()
	m.duration("sample_interval", &cfg.SampleInterval)
	snapshots := d.mapping(m.get("snapshots"), "snapshots", "snapshots")
	snapshots.intField("count", &cfg.Snapshots.Count, 1, scenarios.MaxSnapshots)
	snapshots.intField("rows", &cfg.Snapshots.Rows, 1, scenarios.MaxSnapshotRows)
	snapshots.done()
	cfg.CheckInvariants = true
	m.onOff("check_invariants", &cfg.CheckInvariants)
	m.onOff("trace", &cfg.Trace)
	d.liveness(m, &cfg.Liveness)
	d.costs(m, cfg)
	f.Expectations = d.expectations(m)
	f.RequireMarks = d.requireMarks(m)
	m.done()
	return f
}

// check runs the checks that need the whole file: the catalog, the names used elsewhere,
// the config.
func (d *decoder) check(f *Scenario) {
	cat, err := model.Compile(f.Config.Instances)
	if err != nil {
		d.compileError(err)
		return
	}
	d.checkReferences(f, cat)
	d.checkExpectations(f, cat)
	if len(d.errs) > 0 {
		return
	}
	if err := f.Config.Validate(cat); err != nil {
		path := d.validatePath(err.Error())
		d.add(d.at(path), path, err.Error(), err)
		return
	}
	f.Warnings = d.routeWarnings(&f.Config, cat)
}

// at returns the node of path, or of its nearest ancestor that has one, or the file's.
func (d *decoder) at(path string) *yaml.Node {
	for path != "" {
		if n := d.pos[path]; n != nil {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return d.root
}

// objectPos is where a catalog object is defined in the file, with the objects and
// references inside it, by kind and quoted name as model.Compile's errors write them:
// `queue "StockQueue"`.
type objectPos struct {
	node     *yaml.Node
	path     string
	children map[string]*objectPos
}

// add records an object; a later one of the same kind and name replaces it, since
// Compile names the later of two duplicates.
func (o *objectPos) add(kind, name string, node *yaml.Node, path string) *objectPos {
	if o.children == nil {
		o.children = map[string]*objectPos{}
	}
	c := &objectPos{node: node, path: path}
	o.children[kind+" "+strconv.Quote(name)] = c
	return c
}

// compileObject finds the objects model.Compile's errors name.
var compileObject = regexp.MustCompile(`(instance|database|message type|contract|queue|service|broker priority|event notification|CONTRACT_NAME|LOCAL_SERVICE_NAME|route|MIRROR_ADDRESS|ADDRESS) ("(?:[^"\\]|\\.)*")`)

// compileError places model.Compile's error at the innermost object it names.
func (d *decoder) compileError(err error) {
	cur := d.objects
	for _, m := range compileObject.FindAllStringSubmatch(err.Error(), -1) {
		c, ok := cur.children[m[1]+" "+m[2]]
		if !ok {
			break
		}
		cur = c
	}
	d.add(cur.node, cur.path, err.Error(), err)
}

// validateSection finds the entry a Config.Validate error names.
var validateSection = regexp.MustCompile(`^(link|workload|reader|procedure|external activator|timeline) (\d+)(?: \([^)]*\))?(?:: (\w+))?`)

var validateSections = map[string]string{"link": "links", "workload": "workloads", "reader": "readers",
	"procedure": "procedures", "external activator": "external_activators", "timeline": "timeline"}

// fieldKeys are the file's keys for the Config fields whose names do not become them in
// snake case.
var fieldKeys = map[string]string{"From": "from_service", "To": "to_service", "ToBrokerInstance": "to_broker_instance", "Target": "target_queue", "At": "at",
	"Queue": "queue", "Mode": "mode"}

// validatePath returns the path of what a Config.Validate error names.
func (d *decoder) validatePath(msg string) string {
	if m := validateSection.FindStringSubmatch(msg); m != nil {
		path := validateSections[m[1]] + "[" + m[2] + "]"
		if m[3] == "Route" {
			return d.routeChangePath(path, msg)
		}
		if m[3] != "" {
			if key, ok := fieldKeys[m[3]]; ok {
				return join(path, key)
			}
			return join(path, snake(m[3]))
		}
		return path
	}
	if field, ok := strings.CutPrefix(msg, "broker config: "); ok {
		return join("broker", snake(strings.Fields(field)[0]))
	}
	if field, ok := strings.CutPrefix(msg, "Crashes: "); ok {
		return join("crashes", snake(strings.Fields(field)[0]))
	}
	if strings.HasPrefix(msg, "SampleInterval") {
		return "sample_interval"
	}
	if strings.HasPrefix(msg, "MaxMemory") {
		return "limits.max_memory"
	}
	for _, a := range d.activations {
		if strings.HasPrefix(msg, "queue "+strconv.Quote(a.queue)+":") {
			return a.path
		}
	}
	return ""
}

// snake turns a Go field name into a file key: RetryIntervalMax becomes retry_interval_max.
func snake(field string) string {
	var b strings.Builder
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
