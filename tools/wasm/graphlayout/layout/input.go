// Package layout computes a layered (Sugiyama-style) layout of a directed
// graph, for flowcharts on a whiteboard: cycles are broken by reversing DFS
// back edges, nodes are put in layers by longest path, long edges get
// virtual nodes, a few barycenter sweeps reduce crossings, and each layer is
// centred. Weakly connected components are laid out separately, side by side
// in input order. The result is deterministic: ties go to input order.
//
// Coordinates are whole units: sizes and gaps are rounded up and the origin
// rounded, so boxes never overlap, however fractional the input.
package layout

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Limits and defaults. The tool's input schema states the same numbers.
const (
	MaxNodes = 1000
	MaxEdges = 5000
	MaxIDLen = 256    // in characters, as JSON Schema's maxLength counts
	MaxSize  = 100000 // largest width, height, nodeGap and layerGap
	MaxCoord = 1e9    // largest |x| and |y| of the origin

	DefaultWidth    = 160
	DefaultHeight   = 80
	DefaultNodeGap  = 40
	DefaultLayerGap = 80
)

// Input is a graph to lay out: the tool's arguments.
type Input struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges,omitempty"`
	// Direction is "TB" (layers top to bottom, the default) or "LR" (left
	// to right).
	Direction string `json:"direction,omitempty"`
	// NodeGap separates neighbours within a layer, LayerGap separates
	// layers; nil means the default.
	NodeGap  *float64 `json:"nodeGap,omitempty"`
	LayerGap *float64 `json:"layerGap,omitempty"`
	// X and Y are the top-left corner of the whole layout.
	X float64 `json:"x,omitempty"`
	Y float64 `json:"y,omitempty"`
}

// Node is a box to place; nil sizes mean the defaults.
type Node struct {
	ID     string   `json:"id"`
	Width  *float64 `json:"width,omitempty"`
	Height *float64 `json:"height,omitempty"`
}

// Edge runs from one node to another. Self-loops are ignored (they do not
// affect a layered layout), and so are repeated edges.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Output is the layout: the tool's result.
type Output struct {
	// Nodes are in input order.
	Nodes []Placed `json:"nodes"`
	// Width and Height are the extent of the layout from (X, Y).
	Width  int `json:"width"`
	Height int `json:"height"`
	// ReversedEdges counts the edges that point against the layering
	// because they closed a cycle.
	ReversedEdges int `json:"reversedEdges"`
}

// Placed is a node with its position: X, Y is its top-left corner.
type Placed struct {
	ID     string  `json:"id"`
	X      int     `json:"x"`
	Y      int     `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Layer is the node's layer in its component, 0 first; Order its
	// position in the layer, counted left to right (TB) or top to bottom
	// (LR) over all components.
	Layer int `json:"layer"`
	Order int `json:"order"`
}

// params is the validated input: nodes by index, edges as index pairs.
type params struct {
	ids            []string
	width, height  []float64 // as given or defaulted
	edges          [][2]int  // input order, self-loops kept
	lr             bool
	nodeGap, layer int // rounded up
	x, y           int // rounded
}

// validate checks in and resolves defaults, with errors that name the
// offending field as a JSON path.
func validate(in Input) (*params, error) {
	if in.Nodes == nil {
		return nil, fmt.Errorf("nodes: required")
	}
	if len(in.Nodes) > MaxNodes {
		return nil, fmt.Errorf("nodes: %d nodes, at most %d allowed", len(in.Nodes), MaxNodes)
	}
	if len(in.Edges) > MaxEdges {
		return nil, fmt.Errorf("edges: %d edges, at most %d allowed", len(in.Edges), MaxEdges)
	}
	p := &params{
		ids:    make([]string, len(in.Nodes)),
		width:  make([]float64, len(in.Nodes)),
		height: make([]float64, len(in.Nodes)),
	}
	index := make(map[string]int, len(in.Nodes))
	for i, n := range in.Nodes {
		switch {
		case n.ID == "":
			return nil, fmt.Errorf("nodes[%d].id: empty", i)
		case utf8.RuneCountInString(n.ID) > MaxIDLen:
			return nil, fmt.Errorf("nodes[%d].id: longer than %d characters", i, MaxIDLen)
		}
		if j, dup := index[n.ID]; dup {
			return nil, fmt.Errorf("nodes[%d].id: duplicate id %q (also nodes[%d])", i, n.ID, j)
		}
		index[n.ID] = i
		p.ids[i] = n.ID
		var err error
		if p.width[i], err = size(n.Width, DefaultWidth); err != nil {
			return nil, fmt.Errorf("nodes[%d].width: %w", i, err)
		}
		if p.height[i], err = size(n.Height, DefaultHeight); err != nil {
			return nil, fmt.Errorf("nodes[%d].height: %w", i, err)
		}
	}
	p.edges = make([][2]int, len(in.Edges))
	for i, e := range in.Edges {
		from, ok := index[e.From]
		if !ok {
			return nil, fmt.Errorf("edges[%d].from: unknown node %q", i, e.From)
		}
		to, ok := index[e.To]
		if !ok {
			return nil, fmt.Errorf("edges[%d].to: unknown node %q", i, e.To)
		}
		p.edges[i] = [2]int{from, to}
	}
	switch in.Direction {
	case "", "TB":
	case "LR":
		p.lr = true
	default:
		return nil, fmt.Errorf(`direction: must be "TB" or "LR", got %q`, in.Direction)
	}
	var err error
	if p.nodeGap, err = gap(in.NodeGap, DefaultNodeGap); err != nil {
		return nil, fmt.Errorf("nodeGap: %w", err)
	}
	if p.layer, err = gap(in.LayerGap, DefaultLayerGap); err != nil {
		return nil, fmt.Errorf("layerGap: %w", err)
	}
	if p.x, err = coord(in.X); err != nil {
		return nil, fmt.Errorf("x: %w", err)
	}
	if p.y, err = coord(in.Y); err != nil {
		return nil, fmt.Errorf("y: %w", err)
	}
	return p, nil
}

func size(v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if !(*v > 0 && *v <= MaxSize) { // also rejects NaN
		return 0, fmt.Errorf("must be greater than 0 and at most %d, got %v", MaxSize, *v)
	}
	return *v, nil
}

func gap(v *float64, def int) (int, error) {
	if v == nil {
		return def, nil
	}
	if !(*v >= 0 && *v <= MaxSize) {
		return 0, fmt.Errorf("must be between 0 and %d, got %v", MaxSize, *v)
	}
	return int(math.Ceil(*v)), nil
}

func coord(v float64) (int, error) {
	if !(v >= -MaxCoord && v <= MaxCoord) {
		return 0, fmt.Errorf("must be between %g and %g, got %v", -MaxCoord, MaxCoord, v)
	}
	return int(math.Round(v)), nil
}
