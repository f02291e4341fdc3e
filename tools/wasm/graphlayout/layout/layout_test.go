package layout

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func f(v float64) *float64 { return &v }

// graph builds an Input from ids and "from>to" edges.
func graph(ids string, edges ...string) Input {
	in := Input{Nodes: []Node{}}
	for _, id := range strings.Fields(ids) {
		in.Nodes = append(in.Nodes, Node{ID: id})
	}
	for _, e := range edges {
		from, to, _ := strings.Cut(e, ">")
		in.Edges = append(in.Edges, Edge{From: from, To: to})
	}
	return in
}

// box is a placed node in short form for exact expectations.
type box struct {
	ID           string
	X, Y         int
	Layer, Order int
}

func boxes(out Output) []box {
	var bs []box
	for _, n := range out.Nodes {
		bs = append(bs, box{n.ID, n.X, n.Y, n.Layer, n.Order})
	}
	return bs
}

func mustLayout(t *testing.T, in Input) Output {
	t.Helper()
	out, err := Layout(in)
	if err != nil {
		t.Fatalf("Layout: %v", err)
	}
	check(t, in, out)
	return out
}

func TestLayout(t *testing.T) {
	tests := []struct {
		name         string
		in           Input
		want         []box
		w, h, revved int
	}{{
		name: "chain",
		in:   graph("a b c", "a>b", "b>c"),
		want: []box{{"a", 0, 0, 0, 0}, {"b", 0, 160, 1, 0}, {"c", 0, 320, 2, 0}},
		w:    160, h: 400,
	}, {
		name: "diamond",
		in:   graph("a b c d", "a>b", "a>c", "b>d", "c>d"),
		want: []box{{"a", 100, 0, 0, 0}, {"b", 0, 160, 1, 0}, {"c", 200, 160, 1, 1}, {"d", 100, 320, 2, 0}},
		w:    360, h: 400,
	}, {
		name: "cycle",
		in:   graph("a b c", "a>b", "b>c", "c>a"),
		want: []box{{"a", 0, 0, 0, 0}, {"b", 0, 160, 1, 0}, {"c", 0, 320, 2, 0}},
		w:    160, h: 400, revved: 1,
	}, {
		name: "two-node cycle and repeats count every reversed edge",
		in:   graph("a b", "a>b", "b>a", "b>a"),
		want: []box{{"a", 0, 0, 0, 0}, {"b", 0, 160, 1, 0}},
		w:    160, h: 240, revved: 2,
	}, {
		name: "self-loops and repeated edges are ignored",
		in:   graph("a b", "a>a", "a>b", "a>b"),
		want: []box{{"a", 0, 0, 0, 0}, {"b", 0, 160, 1, 0}},
		w:    160, h: 240,
	}, {
		name: "disconnected components side by side in input order",
		in:   graph("a b c d e", "c>d", "a>b"),
		want: []box{{"a", 0, 0, 0, 0}, {"b", 0, 160, 1, 0}, {"c", 200, 0, 0, 1}, {"d", 200, 160, 1, 1}, {"e", 400, 0, 0, 2}},
		w:    560, h: 240,
	}, {
		name: "LR",
		in:   func() Input { in := graph("a b c", "a>b", "a>c"); in.Direction = "LR"; return in }(),
		want: []box{{"a", 0, 60, 0, 0}, {"b", 240, 0, 1, 0}, {"c", 240, 120, 1, 1}},
		w:    400, h: 200,
	}, {
		name: "crossing removed: children follow their parents' order",
		in:   graph("a b c d", "a>d", "b>c"),
		want: []box{{"a", 0, 0, 0, 0}, {"b", 200, 0, 0, 1}, {"c", 200, 160, 1, 1}, {"d", 0, 160, 1, 0}},
		w:    360, h: 240,
	}, {
		name: "source joins next to its successor",
		in:   graph("a b c s", "a>b", "b>c", "s>c"),
		want: []box{{"a", 100, 0, 0, 0}, {"b", 0, 160, 1, 0}, {"c", 100, 320, 2, 0}, {"s", 200, 160, 1, 1}},
		w:    360, h: 400,
	}, {
		name: "gaps, origin and sizes: fractions round up, bands centre",
		in: Input{
			Nodes:   []Node{{ID: "a", Width: f(99.5), Height: f(20)}, {ID: "b", Width: f(10), Height: f(40.2)}, {ID: "c"}},
			Edges:   []Edge{{From: "a", To: "c"}, {From: "b", To: "c"}},
			NodeGap: f(9.1), LayerGap: f(0), X: -10.4, Y: 7.5,
		},
		want: []box{{"a", 10, 18, 0, 0}, {"b", 120, 8, 0, 1}, {"c", -10, 49, 1, 0}},
		w:    160, h: 121,
	}, {
		name: "empty graph",
		in:   Input{Nodes: []Node{}, X: 5, Y: 5},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustLayout(t, tt.in)
			if diff := cmp.Diff(tt.want, boxes(out)); diff != "" {
				t.Errorf("boxes (-want +got):\n%s", diff)
			}
			if out.Width != tt.w || out.Height != tt.h || out.ReversedEdges != tt.revved {
				t.Errorf("width %d, height %d, reversed %d; want %d, %d, %d", out.Width, out.Height, out.ReversedEdges, tt.w, tt.h, tt.revved)
			}
		})
	}
}

func TestLayoutSizesEchoed(t *testing.T) {
	out := mustLayout(t, Input{Nodes: []Node{{ID: "a", Width: f(12.5)}, {ID: "b", Height: f(3)}}})
	got := [][2]float64{{out.Nodes[0].Width, out.Nodes[0].Height}, {out.Nodes[1].Width, out.Nodes[1].Height}}
	if diff := cmp.Diff([][2]float64{{12.5, 80}, {160, 3}}, got); diff != "" {
		t.Errorf("sizes (-want +got):\n%s", diff)
	}
}

// check asserts the properties every layout has: input order, no overlaps,
// every box inside the reported extent, edges pointing down the layers
// except the reversed ones, and orders numbering each layer from 0.
func check(t *testing.T, in Input, out Output) {
	t.Helper()
	if err := verify(in, out); err != nil {
		t.Fatal(err)
	}
}

func verify(in Input, out Output) error {
	if len(out.Nodes) != len(in.Nodes) {
		return fmt.Errorf("%d nodes out, %d in", len(out.Nodes), len(in.Nodes))
	}
	x0, y0 := int(roundHalfAway(in.X)), int(roundHalfAway(in.Y))
	layerOf := map[string]int{}
	orders := map[int][]int{}
	for i, n := range out.Nodes {
		if n.ID != in.Nodes[i].ID {
			return fmt.Errorf("node %d is %q, want %q", i, n.ID, in.Nodes[i].ID)
		}
		if float64(n.X) < float64(x0) || float64(n.Y) < float64(y0) ||
			float64(n.X)+n.Width > float64(x0+out.Width) || float64(n.Y)+n.Height > float64(y0+out.Height) {
			return fmt.Errorf("%q at (%d,%d) %vx%v outside the extent %dx%d from (%d,%d)", n.ID, n.X, n.Y, n.Width, n.Height, out.Width, out.Height, x0, y0)
		}
		for _, m := range out.Nodes[:i] {
			if float64(n.X) < float64(m.X)+m.Width && float64(m.X) < float64(n.X)+n.Width &&
				float64(n.Y) < float64(m.Y)+m.Height && float64(m.Y) < float64(n.Y)+n.Height {
				return fmt.Errorf("%q %+v overlaps %q %+v", n.ID, n, m.ID, m)
			}
		}
		layerOf[n.ID] = n.Layer
		orders[n.Layer] = append(orders[n.Layer], n.Order)
	}
	for l, os := range orders {
		seen := make([]bool, len(os))
		for _, o := range os {
			if o < 0 || o >= len(os) || seen[o] {
				return fmt.Errorf("layer %d: orders %v are not 0..%d", l, os, len(os)-1)
			}
			seen[o] = true
		}
	}
	up := 0
	for _, e := range in.Edges {
		if e.From != e.To && layerOf[e.From] >= layerOf[e.To] {
			up++
		}
	}
	if up != out.ReversedEdges {
		return fmt.Errorf("%d edges point up or sideways, %d reported reversed", up, out.ReversedEdges)
	}
	return nil
}

func roundHalfAway(v float64) float64 {
	if v < 0 {
		return -roundHalfAway(-v)
	}
	return float64(int64(v + 0.5))
}

// random builds a graph of n nodes and m edges, with assorted sizes.
func random(r *rand.Rand, n, m int) Input {
	in := Input{Nodes: make([]Node, n)}
	for i := range in.Nodes {
		in.Nodes[i] = Node{ID: fmt.Sprint("n", i)}
		if r.IntN(2) == 0 {
			in.Nodes[i].Width, in.Nodes[i].Height = f(1+r.Float64()*300), f(1+r.Float64()*200)
		}
	}
	for range m {
		in.Edges = append(in.Edges, Edge{From: fmt.Sprint("n", r.IntN(n)), To: fmt.Sprint("n", r.IntN(n))})
	}
	if r.IntN(2) == 0 {
		in.Direction = "LR"
	}
	in.NodeGap, in.LayerGap = f(r.Float64()*3), f(r.Float64()*3)
	return in
}

func TestLayoutRandomProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := 1 + r.IntN(60)
		in := random(r, n, r.IntN(3*n))
		out, err := Layout(in)
		if err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
		if err := verify(in, out); err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
	}
}

func TestLayoutDeterministic(t *testing.T) {
	in := random(rand.New(rand.NewPCG(3, 4)), 200, 500)
	first := mustLayout(t, in)
	for range 3 {
		if diff := cmp.Diff(first, mustLayout(t, in)); diff != "" {
			t.Fatalf("second layout differs (-first +again):\n%s", diff)
		}
	}
}

// The worst inputs the limits allow: the largest graph, and a deep one whose
// long edges would need millions of virtual nodes without the budget.
func TestLayoutLimits(t *testing.T) {
	deep := Input{}
	for i := range MaxNodes {
		deep.Nodes = append(deep.Nodes, Node{ID: fmt.Sprint(i)})
		if i > 0 {
			deep.Edges = append(deep.Edges, Edge{From: fmt.Sprint(i - 1), To: fmt.Sprint(i)})
		}
	}
	for i := len(deep.Edges); i < MaxEdges; i++ { // 4001 distinct edges spanning 800 layers or more
		deep.Edges = append(deep.Edges, Edge{From: fmt.Sprint(i % 200), To: fmt.Sprint(MaxNodes - 1 - i/200)})
	}
	for name, in := range map[string]Input{
		"wide": random(rand.New(rand.NewPCG(5, 6)), MaxNodes, MaxEdges),
		"deep": deep,
	} {
		start := time.Now()
		out := mustLayout(t, in)
		t.Logf("%s: %d nodes, %d edges in %v, %dx%d", name, len(in.Nodes), len(in.Edges), time.Since(start), out.Width, out.Height)
	}
}

func TestLayoutErrors(t *testing.T) {
	many := func(n int) []Node {
		nodes := make([]Node, n)
		for i := range nodes {
			nodes[i].ID = fmt.Sprint(i)
		}
		return nodes
	}
	ab := []Node{{ID: "a"}, {ID: "b"}}
	tests := []struct {
		in   Input
		want string
	}{
		{Input{}, "nodes: required"},
		{Input{Nodes: many(MaxNodes + 1)}, "nodes: 1001 nodes, at most 1000 allowed"},
		{Input{Nodes: ab, Edges: make([]Edge, MaxEdges+1)}, "edges: 5001 edges, at most 5000 allowed"},
		{Input{Nodes: []Node{{ID: "a"}, {ID: ""}}}, "nodes[1].id: empty"},
		{Input{Nodes: []Node{{ID: strings.Repeat("x", MaxIDLen+1)}}}, "nodes[0].id: longer than 256 characters"},
		{Input{Nodes: []Node{{ID: strings.Repeat("é", MaxIDLen)}}, Direction: "?"}, `direction: must be "TB" or "LR", got "?"`},
		{Input{Nodes: []Node{{ID: "a"}, {ID: "b"}, {ID: "a"}}}, `nodes[2].id: duplicate id "a" (also nodes[0])`},
		{Input{Nodes: []Node{{ID: "a", Width: f(0)}}}, "nodes[0].width: must be greater than 0 and at most 100000, got 0"},
		{Input{Nodes: []Node{{ID: "a", Height: f(-3)}}}, "nodes[0].height: must be greater than 0 and at most 100000, got -3"},
		{Input{Nodes: []Node{{ID: "a", Width: f(100001)}}}, "nodes[0].width: must be greater than 0 and at most 100000, got 100001"},
		{Input{Nodes: ab, Edges: []Edge{{From: "a", To: "b"}, {From: "x", To: "b"}}}, `edges[1].from: unknown node "x"`},
		{Input{Nodes: ab, Edges: []Edge{{From: "a", To: ""}}}, `edges[0].to: unknown node ""`},
		{Input{Nodes: ab, Direction: "tb"}, `direction: must be "TB" or "LR", got "tb"`},
		{Input{Nodes: ab, NodeGap: f(-1)}, "nodeGap: must be between 0 and 100000, got -1"},
		{Input{Nodes: ab, LayerGap: f(1e6)}, "layerGap: must be between 0 and 100000, got 1e+06"},
		{Input{Nodes: ab, X: 2e9}, "x: must be between -1e+09 and 1e+09, got 2e+09"},
		{Input{Nodes: ab, Y: -2e9}, "y: must be between -1e+09 and 1e+09, got -2e+09"},
	}
	for _, tt := range tests {
		_, err := Layout(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("got error %v, want %q", err, tt.want)
		}
	}
}
