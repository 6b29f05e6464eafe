package faulty

import (
	"fmt"

	"github.com/sbsim/sbsim/sim"
)

// Direction says which way a partition cuts a pair of instances.
type Direction int

const (
	// Both cuts A→B and B→A: a symmetric partition.
	Both Direction = iota
	// AToB cuts only A→B: a one-way partition, B still reaches A.
	AToB
	// BToA cuts only B→A.
	BToA
)

// String names the direction as a scenario file does.
func (d Direction) String() string {
	switch d {
	case Both:
		return "both"
	case AToB:
		return "a-to-b"
	case BToA:
		return "b-to-a"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// Partition cuts a pair of instances during a window, in one direction or both.
type Partition struct {
	Window
	Direction Direction
}

// PairConfig configures the two directions between instances A and B, and the partitions
// between them.
type PairConfig struct {
	AToB, BToA Config
	Partitions []Partition
}

// Pair is the two links between instances A and B.
type Pair[P any] struct {
	AToB, BToA *Link[P]
}

// NewPair builds the links a→b and b→a. Each partition is added to the down windows of the
// directions it cuts; the links are named "a->b" and "b->a".
func NewPair[P any](e *sim.Engine, a, b string, cfg PairConfig, toB, toA func(Delivery[P])) (*Pair[P], error) {
	ab, ba := cfg.AToB, cfg.BToA
	ab.Down = append([]Window(nil), ab.Down...)
	ba.Down = append([]Window(nil), ba.Down...)
	for i, p := range cfg.Partitions {
		if p.From < 0 || p.Until <= p.From {
			return nil, fmt.Errorf("pair %s<->%s: %w", a, b,
				&FieldError{fmt.Sprintf("Partitions[%d]", i), p.Window, "is not an interval: From must be >= 0 and before Until"})
		}
		switch p.Direction {
		case Both:
			ab.Down = append(ab.Down, p.Window)
			ba.Down = append(ba.Down, p.Window)
		case AToB:
			ab.Down = append(ab.Down, p.Window)
		case BToA:
			ba.Down = append(ba.Down, p.Window)
		default:
			return nil, fmt.Errorf("pair %s<->%s: %w", a, b,
				&FieldError{fmt.Sprintf("Partitions[%d].Direction", i), int(p.Direction), "is unknown"})
		}
	}
	linkAB, err := New(e, a+"->"+b, ab, toB)
	if err != nil {
		return nil, err
	}
	linkBA, err := New(e, b+"->"+a, ba, toA)
	if err != nil {
		return nil, err
	}
	return &Pair[P]{AToB: linkAB, BToA: linkBA}, nil
}
