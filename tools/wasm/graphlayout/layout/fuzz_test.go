package layout

import (
	"fmt"
	"testing"
)

// FuzzLayout decodes a graph from bytes (node count, sizes, edge pairs,
// options) so that the fuzzer explores shapes rather than JSON syntax. The
// layout must never fail on a valid graph, never panic, and keep every
// property verify checks, no overlaps included.
func FuzzLayout(f *testing.F) {
	f.Add(uint8(4), []byte{0, 1, 0, 2, 1, 3, 2, 3}, []byte{10, 200}, uint8(0))
	f.Add(uint8(3), []byte{0, 1, 1, 2, 2, 0, 1, 1}, []byte{}, uint8(1))
	f.Add(uint8(12), []byte{0, 11, 1, 10, 2, 9, 0, 5, 5, 11, 3, 3, 7, 2}, []byte{1, 2, 3, 255, 0, 9}, uint8(7))
	f.Fuzz(func(t *testing.T, n uint8, edges, sizes []byte, opts uint8) {
		in := Input{Nodes: make([]Node, int(n)%64+1)}
		for i := range in.Nodes {
			in.Nodes[i].ID = fmt.Sprint("n", i)
			if 2*i+1 < len(sizes) {
				w, h := float64(sizes[2*i])/3+0.25, float64(sizes[2*i+1])/7+0.5
				in.Nodes[i].Width, in.Nodes[i].Height = &w, &h
			}
		}
		for i := 0; i+1 < len(edges) && len(in.Edges) < MaxEdges; i += 2 {
			from, to := int(edges[i])%len(in.Nodes), int(edges[i+1])%len(in.Nodes)
			in.Edges = append(in.Edges, Edge{From: in.Nodes[from].ID, To: in.Nodes[to].ID})
		}
		if opts&1 != 0 {
			in.Direction = "LR"
		}
		gap := float64(opts>>1) / 5
		in.NodeGap, in.LayerGap = &gap, &gap
		in.X, in.Y = float64(opts)-100.5, -float64(opts)/3
		out, err := Layout(in)
		if err != nil {
			t.Fatalf("valid graph rejected: %v", err)
		}
		if err := verify(in, out); err != nil {
			t.Fatal(err)
		}
	})
}
