package layout

import (
	"cmp"
	"slices"
)

// sweeps bounds the barycenter passes (alternately down and up); the best
// ordering seen wins.
const sweeps = 8

// layered is one component as a proper layered graph: every edge joins
// adjacent layers, long edges passing through virtual nodes. Nodes are
// numbered locally: the component's real nodes first, in input order.
type layered struct {
	real     []int     // local node → input index; virtual nodes have none
	layers   [][]int   // local nodes per layer, in order
	up, down [][]int   // neighbours in the layer above and below
	pos      []int     // local node → index in its layer
	key      []float64 // scratch: local node → sort key
}

// newLayered builds comp's layered graph, spending the shared virtual-node
// budget on long edges in input order.
func newLayered(comp []int, layer []int, succ [][]int, budget *int) *layered {
	g := &layered{real: comp}
	local := make(map[int]int, len(comp))
	base := layer[comp[0]]
	for _, v := range comp {
		base = min(base, layer[v])
	}
	nodeLayer := make([]int, 0, len(comp))
	for i, v := range comp {
		local[v] = i
		nodeLayer = append(nodeLayer, layer[v]-base)
	}
	g.up, g.down = make([][]int, len(comp)), make([][]int, len(comp))
	link := func(a, b int) {
		g.down[a] = append(g.down[a], b)
		g.up[b] = append(g.up[b], a)
	}
	for _, u := range comp {
		for _, v := range succ[u] {
			a, b := local[u], local[v]
			span := nodeLayer[b] - nodeLayer[a]
			if span > 1 && span-1 > *budget {
				continue
			}
			for l := nodeLayer[a] + 1; l < nodeLayer[b]; l++ {
				virt := len(nodeLayer)
				nodeLayer = append(nodeLayer, l)
				g.up, g.down = append(g.up, nil), append(g.down, nil)
				link(a, virt)
				a = virt
				*budget--
			}
			link(a, b)
		}
	}
	g.pos = make([]int, len(nodeLayer))
	g.key = make([]float64, len(nodeLayer))
	for v, l := range nodeLayer {
		for len(g.layers) <= l {
			g.layers = append(g.layers, nil)
		}
		g.pos[v] = len(g.layers[l])
		g.layers[l] = append(g.layers[l], v)
	}
	return g
}

// order reduces crossings by barycenter sweeps, keeping the best ordering.
func (g *layered) order() {
	best, bestC := g.snapshot(), g.crossings()
	for i := 0; i < sweeps && bestC > 0; i++ {
		if i%2 == 0 {
			for l := 1; l < len(g.layers); l++ {
				g.sortLayer(l, g.up)
			}
		} else {
			for l := len(g.layers) - 2; l >= 0; l-- {
				g.sortLayer(l, g.down)
			}
		}
		if c := g.crossings(); c < bestC {
			best, bestC = g.snapshot(), c
		}
	}
	g.layers = best
	for _, nodes := range g.layers {
		for i, v := range nodes {
			g.pos[v] = i
		}
	}
}

// sortLayer orders layer l by the mean position of each node's neighbours
// in nbrs; a node without any keeps its own position as its key. The sort
// is stable, so ties keep the current order.
func (g *layered) sortLayer(l int, nbrs [][]int) {
	nodes, key := g.layers[l], g.key
	for _, v := range nodes {
		if len(nbrs[v]) == 0 {
			key[v] = float64(g.pos[v])
			continue
		}
		sum := 0
		for _, w := range nbrs[v] {
			sum += g.pos[w]
		}
		key[v] = float64(sum) / float64(len(nbrs[v]))
	}
	slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	for i, v := range nodes {
		g.pos[v] = i
	}
}

// crossings counts edge crossings between all adjacent layers: for the
// edges sorted by upper then lower end, the inversions of the lower ends.
func (g *layered) crossings() int {
	total := 0
	var ends []int
	for l := 0; l+1 < len(g.layers); l++ {
		ends = ends[:0]
		for _, u := range g.layers[l] {
			start := len(ends)
			for _, w := range g.down[u] {
				ends = append(ends, g.pos[w])
			}
			slices.Sort(ends[start:])
		}
		tree := make([]int, len(g.layers[l+1])+1) // Fenwick tree of lower ends seen
		for i, e := range ends {
			seenAtMost := 0
			for k := e + 1; k > 0; k -= k & -k {
				seenAtMost += tree[k]
			}
			total += i - seenAtMost
			for k := e + 1; k < len(tree); k += k & -k {
				tree[k]++
			}
		}
	}
	return total
}

func (g *layered) snapshot() [][]int {
	s := make([][]int, len(g.layers))
	for i, nodes := range g.layers {
		s[i] = slices.Clone(nodes)
	}
	return s
}

// place assigns the real nodes' positions and layers (counting only layers
// with real nodes), the component starting at cross offset at, and returns
// its extent across and along the layers. Each layer is centred across;
// each node is centred in its layer's band.
func (g *layered) place(p *params, at int, mainPos, crossPos, layer []int) (cross, main int) {
	// Slot sizes across and along the layers, rounded up.
	slot := func(v int) (c, m int) {
		w, h := ceil(p.width[v]), ceil(p.height[v])
		if p.lr {
			return h, w
		}
		return w, h
	}
	type row struct {
		nodes       []int
		cross, band int
	}
	rows := make([]row, 0, len(g.layers))
	for _, nodes := range g.layers {
		var r row
		for _, v := range nodes {
			if v >= len(g.real) {
				continue // virtual
			}
			c, m := slot(g.real[v])
			if len(r.nodes) > 0 {
				r.cross += p.nodeGap
			}
			r.nodes = append(r.nodes, g.real[v])
			r.cross += c
			r.band = max(r.band, m)
		}
		if len(r.nodes) > 0 {
			rows = append(rows, r)
			cross = max(cross, r.cross)
		}
	}
	for i, r := range rows {
		if i > 0 {
			main += p.layer
		}
		c := at + (cross-r.cross)/2
		for _, v := range r.nodes {
			w, m := slot(v)
			crossPos[v] = c
			layer[v] = i
			mainPos[v] = main + (r.band-m)/2
			c += w + p.nodeGap
		}
		main += r.band
	}
	return cross, main
}

func ceil(f float64) int {
	i := int(f)
	if float64(i) < f {
		i++
	}
	return i
}
