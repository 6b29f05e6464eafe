package file

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

const (
	// maxFileErrors bounds the errors one load reports: past it, the rest are noise.
	maxFileErrors = 50
	// maxFileNodes bounds the nodes one load visits, aliases expanded, so that a file of a
	// few lines cannot make the loader walk billions of them.
	maxFileNodes = 1 << 18
)

// decoder walks a scenario file's nodes, collects every error with its position, and keeps
// the position of what it decoded for the checks that come after (the catalog's and the
// config's).
type decoder struct {
	file    string
	root    *yaml.Node // the top-level mapping
	errs    Errors
	visited int
	full    bool // too many errors or nodes: stop reporting
	// pos is the node of every value decoded, by path.
	pos map[string]*yaml.Node
	// objects are the catalog objects by kind and name, for model.Compile's errors.
	objects *objectPos
	// activations are the queues' ACTIVATION clauses, checked against the procedures.
	activations []activationRef
	// bare are the instances without a database that do not forward: each must be the
	// standby of a failover (failover_to), checked once the timeline is known.
	bare []bareInstance
	// cpus are the instances' cpus, by name (costs.go).
	cpus map[string]int
}

// bareInstance is an instance without a database, where the file declares it.
type bareInstance struct {
	name, path string
	node       *yaml.Node
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, pos: map[string]*yaml.Node{}, objects: &objectPos{}}
}

// errorf records an error at node n (nil: no position).
func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	d.add(n, path, fmt.Sprintf(format, args...), nil)
}

func (d *decoder) add(n *yaml.Node, path, msg string, cause error) {
	if d.full {
		return
	}
	e := &Error{File: d.file, Path: path, Message: msg, Err: cause}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
	if len(d.errs) >= maxFileErrors {
		d.errs = append(d.errs, &Error{File: d.file, Message: "too many errors, the rest are not shown"})
		d.full = true
	}
}

// resolve follows an alias and counts the node against the budget; nil means absent.
func (d *decoder) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 100 {
			return nil
		}
		n = n.Alias
	}
	if n == nil || d.full {
		return nil
	}
	d.visited++
	if d.visited > maxFileNodes {
		d.add(n, "", fmt.Sprintf("the file expands to more than %d nodes (aliases?)", maxFileNodes), nil)
		d.full = true
		return nil
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names what a node is, for "want X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "a document"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// mapping is one YAML mapping being decoded. The keys its getters ask for are the known
// keys; done reports the others as unknown.
type mapping struct {
	d     *decoder
	node  *yaml.Node // nil when absent or not a mapping
	path  string
	what  string
	keys  []*yaml.Node // key nodes, in file order
	vals  map[string]*yaml.Node
	asked []string
}

// mapping opens node n as a mapping of the given kind ("queue"); an absent or empty node
// is an empty mapping.
func (d *decoder) mapping(n *yaml.Node, path, what string) *mapping {
	m := &mapping{d: d, path: path, what: what, vals: map[string]*yaml.Node{}}
	n = d.resolve(n)
	if n == nil || isNull(n) {
		return m
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping (key: value) for the %s, got %s", what, describe(n))
		return m
	}
	m.node = n
	m.collect(n, 0, true)
	return m
}

// collect adds n's entries; merge keys (<<: *anchor) add those not set explicitly.
func (m *mapping) collect(n *yaml.Node, depth int, explicit bool) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			m.d.errorf(k, m.path, "a key of the %s is %s, not a name", m.what, describe(k))
			continue
		}
		if first, dup := m.vals[k.Value]; dup {
			if explicit {
				m.d.errorf(k, join(m.path, k.Value), "key %q appears twice in the %s (first at line %d)", k.Value, m.what, first.Line)
			}
			continue
		}
		m.keys = append(m.keys, k)
		m.vals[k.Value] = v
	}
	for _, v := range merges {
		v = m.d.resolve(v)
		switch {
		case v == nil:
		case depth > 10:
			m.d.errorf(v, m.path, "merge keys nested too deep")
		case v.Kind == yaml.MappingNode:
			m.collect(v, depth+1, false)
		case v.Kind == yaml.SequenceNode:
			for _, s := range v.Content {
				if s = m.d.resolve(s); s != nil && s.Kind == yaml.MappingNode {
					m.collect(s, depth+1, false)
				} else if s != nil {
					m.d.errorf(s, m.path, "a merge key (<<) takes mappings, got %s", describe(s))
				}
			}
		default:
			m.d.errorf(v, m.path, "a merge key (<<) takes a mapping, got %s", describe(v))
		}
	}
}

// present reports whether the mapping exists in the file.
func (m *mapping) present() bool { return m.node != nil }

// get returns the value of key, resolved, and records key as known; nil when absent.
func (m *mapping) get(key string) *yaml.Node {
	m.asked = append(m.asked, key)
	v, ok := m.vals[key]
	if !ok {
		return nil
	}
	v = m.d.resolve(v)
	if v != nil {
		m.d.pos[join(m.path, key)] = v
	}
	return v
}

// has reports whether key is set, without asking for it.
func (m *mapping) has(key string) bool {
	_, ok := m.vals[key]
	return ok
}

// keyNode returns the node of key itself.
func (m *mapping) keyNode(key string) *yaml.Node {
	for _, k := range m.keys {
		if k.Value == key {
			return k
		}
	}
	return m.node
}

// done reports the keys no getter asked for. Top-level keys that begin with x- are the
// file's own, for anchors: they are not read.
func (m *mapping) done() {
	for _, k := range m.keys {
		if containsString(m.asked, k.Value) || (m.path == "" && strings.HasPrefix(k.Value, "x-")) {
			continue
		}
		msg := fmt.Sprintf("unknown key %q in the %s", k.Value, m.what)
		if s := closest(k.Value, m.asked); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		msg += "; known keys: " + strings.Join(m.asked, ", ")
		m.d.errorf(k, join(m.path, k.Value), "%s", msg)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// closest returns the known key within two edits of key, if any.
func closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(key, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
