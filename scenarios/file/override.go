package file

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Override sets one key of a scenario to a value, as `simulate run -set key=value` says:
// the key is a dotted path of the file's keys, a sequence's item by its index or by its
// name (workloads.orders.dialogs, instances.Tokyo.databases.Warehouse.queues.StockQueue.
// activation.max_queue_readers), and the value is written as the file would write it (a
// scalar, or a YAML flow mapping or sequence such as {exponential: 2s}).
type Override struct {
	Key, Value string
}

func (o Override) String() string { return o.Key + "=" + o.Value }

// ParseOverride reads key=value.
func ParseOverride(s string) (Override, error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return Override{}, fmt.Errorf("want key=value, got %q", s)
	}
	return Override{key, value}, nil
}

// With returns the scenario with the overrides applied, in order, and validated as a file
// is. They apply to the decoded scenario, written out with Marshal: every key the file left
// at its default can be set (broker.retry_interval_min in a file without a broker section),
// and an item that the file merged from a YAML anchor is changed alone. The result's Source
// names the overrides, and its Hash is of the text they gave.
func (s *Scenario) With(overrides ...Override) (*Scenario, error) {
	if len(overrides) == 0 {
		return s, nil
	}
	text, err := s.Marshal()
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", s.Config.Name, err)
	}
	var names []string
	for _, o := range overrides {
		if err := set(&doc, o); err != nil {
			return nil, fmt.Errorf("%s: -set %s: %w", s.Source, o, err)
		}
		names = append(names, o.String())
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	out, err := Load(s.Source+" with "+strings.Join(names, ", "), buf.Bytes())
	var errs Errors
	if errors.As(err, &errs) {
		// The lines and columns are in the text Marshal wrote, which the user never saw: the
		// errors name the overrides instead, and the keys.
		placed := make(Errors, len(errs))
		for i, e := range errs {
			placed[i] = &Error{File: s.Source + ": -set " + strings.Join(names, " -set "), Path: e.Path, Message: e.Message, Err: e.Err}
		}
		return nil, placed
	}
	return out, err
}

// set writes the override's value at its key, adding the mappings a missing key needs.
func set(doc *yaml.Node, o Override) error {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	parts := strings.Split(o.Key, ".")
	for k, part := range parts {
		last := k == len(parts)-1
		switch n.Kind {
		case yaml.MappingNode:
			var found *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == part {
					found = n.Content[i+1]
				}
			}
			if found == nil {
				found = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				if last {
					found = &yaml.Node{Kind: yaml.ScalarNode}
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: part}, found)
			}
			n = found
		case yaml.SequenceNode:
			item := itemOf(n, part)
			if item == nil {
				return fmt.Errorf("no item %q in %s", part, strings.Join(parts[:k], "."))
			}
			n = item
		default:
			return fmt.Errorf("%s is a value, not a mapping or a list", strings.Join(parts[:k], "."))
		}
	}
	v, err := valueNode(o.Value)
	if err != nil {
		return err
	}
	*n = *v
	return nil
}

// valueNode parses an override's value: a flow mapping or sequence as YAML, anything else
// as a plain scalar.
func valueNode(s string) (*yaml.Node, error) {
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(t), &doc); err != nil || len(doc.Content) != 1 {
			return nil, fmt.Errorf("value %q is not a YAML mapping or list", s)
		}
		return doc.Content[0], nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}, nil
}

// itemOf returns the sequence's item at index part, or the mapping item whose name is part.
func itemOf(seq *yaml.Node, part string) *yaml.Node {
	if i, err := strconv.Atoi(part); err == nil {
		if i >= 0 && i < len(seq.Content) {
			return seq.Content[i]
		}
		return nil
	}
	for _, it := range seq.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value == "name" && it.Content[i+1].Value == part {
				return it
			}
		}
	}
	return nil
}
