package layout

import (
	"cmp"
	"math"
	"slices"
)

// maxVirtual bounds the virtual nodes of long edges over the whole graph, so
// that a deep graph with many long edges stays within a tool's memory and
// time. Long edges past the budget are left out of crossing reduction only.
const maxVirtual = 50000

// Layout places in's nodes, or reports the first thing wrong with in.
func Layout(in Input) (Output, error) {
	p, err := validate(in)
	if err != nil {
		return Output{}, err
	}
	n := len(p.ids)
	succ, pred, reversed := breakCycles(n, p.edges)
	layer := assignLayers(n, succ, pred)

	// Per node: position along the layers (main) and within them (cross),
	// and its layer as placed.
	mainPos, crossPos, row := make([]int, n), make([]int, n), make([]int, n)
	budget := maxVirtual
	crossTotal, mainTotal := 0, 0
	for i, comp := range components(n, succ) {
		if i > 0 {
			crossTotal += p.nodeGap
		}
		g := newLayered(comp, layer, succ, &budget)
		g.order()
		c, m := g.place(p, crossTotal, mainPos, crossPos, row)
		crossTotal += c
		mainTotal = max(mainTotal, m)
	}

	out := Output{Nodes: make([]Placed, n), ReversedEdges: reversed}
	for i := range n {
		pl := Placed{ID: p.ids[i], Width: p.width[i], Height: p.height[i], Layer: row[i]}
		if p.lr {
			pl.X, pl.Y = p.x+mainPos[i], p.y+crossPos[i]
		} else {
			pl.X, pl.Y = p.x+crossPos[i], p.y+mainPos[i]
		}
		out.Nodes[i] = pl
	}
	if p.lr {
		out.Width, out.Height = mainTotal, crossTotal
	} else {
		out.Width, out.Height = crossTotal, mainTotal
	}
	numberOrder(out.Nodes, crossPos)
	return out, nil
}

// numberOrder sets each node's Order: its rank by cross position among the
// nodes of its layer number, over all components.
func numberOrder(nodes []Placed, crossPos []int) {
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(nodes[a].Layer, nodes[b].Layer), cmp.Compare(crossPos[a], crossPos[b]), cmp.Compare(a, b))
	})
	for k, i := range idx {
		if k > 0 && nodes[idx[k-1]].Layer == nodes[i].Layer {
			nodes[i].Order = nodes[idx[k-1]].Order + 1
		}
	}
}

// breakCycles turns the edges into an acyclic graph without self-loops or
// repeats: a DFS in input order reverses every back edge. reversed counts the
// input edges reversed, repeats included.
func breakCycles(n int, edges [][2]int) (succ, pred [][]int, reversed int) {
	out := make([][]int, n)
	seen := make(map[[2]int]bool, len(edges))
	for _, e := range edges {
		if e[0] != e[1] && !seen[e] {
			seen[e] = true
			out[e[0]] = append(out[e[0]], e[1])
		}
	}
	const (
		white = iota
		grey
		black
	)
	state := make([]int, n)
	back := map[[2]int]bool{}
	var dfs func(v int)
	dfs = func(v int) {
		state[v] = grey
		for _, w := range out[v] {
			switch state[w] {
			case grey:
				back[[2]int{v, w}] = true
			case white:
				dfs(w)
			}
		}
		state[v] = black
	}
	for v := range n {
		if state[v] == white {
			dfs(v)
		}
	}

	succ, pred = make([][]int, n), make([][]int, n)
	clear(seen)
	for _, e := range edges {
		if e[0] == e[1] {
			continue
		}
		if back[e] {
			reversed++
			e = [2]int{e[1], e[0]}
		}
		if !seen[e] {
			seen[e] = true
			succ[e[0]] = append(succ[e[0]], e[1])
			pred[e[1]] = append(pred[e[1]], e[0])
		}
	}
	return succ, pred, reversed
}

// assignLayers gives each node its longest-path layer, then moves each
// source down to just above its highest successor, so that a start node
// joining late sits next to it rather than at the top.
func assignLayers(n int, succ, pred [][]int) []int {
	layer := make([]int, n)
	indeg := make([]int, n)
	queue := make([]int, 0, n)
	for v := range n {
		indeg[v] = len(pred[v])
		if indeg[v] == 0 {
			queue = append(queue, v)
		}
	}
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		for _, v := range succ[u] {
			layer[v] = max(layer[v], layer[u]+1)
			if indeg[v]--; indeg[v] == 0 {
				queue = append(queue, v)
			}
		}
	}
	for v := range n {
		if len(pred[v]) == 0 && len(succ[v]) > 0 {
			low := math.MaxInt
			for _, s := range succ[v] {
				low = min(low, layer[s])
			}
			layer[v] = low - 1
		}
	}
	return layer
}

// components lists the weakly connected components, each in input order,
// ordered by their first node.
func components(n int, succ [][]int) [][]int {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(v int) int {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	for u, ss := range succ {
		for _, v := range ss {
			a, b := find(u), find(v)
			if a != b {
				parent[max(a, b)] = min(a, b) // the root is the lowest index
			}
		}
	}
	var comps [][]int
	which := make(map[int]int)
	for v := range n {
		r := find(v)
		k, ok := which[r]
		if !ok {
			k = len(comps)
			which[r] = k
			comps = append(comps, nil)
		}
		comps[k] = append(comps[k], v)
	}
	return comps
}
