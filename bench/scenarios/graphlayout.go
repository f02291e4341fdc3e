package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// flowStep is a box of graph-layout's flowchart; flowEdge an arrow.
type flowStep struct {
	Key  string `json:"key"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

type flowEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label,omitempty"`
}

const triageTitle = "Bug triage"

var (
	triageSteps = []flowStep{
		{"reported", "ellipse", "Bug reported"},
		{"reproduce", "rectangle", "Reproduce"},
		{"reproducible", "diamond", "Reproducible?"},
		{"details", "rectangle", "Ask for details"},
		{"test", "rectangle", "Write a failing test"},
		{"fix", "rectangle", "Fix"},
		{"review", "rectangle", "Review"},
		{"merged", "ellipse", "Merged"},
	}
	// The edge back from "details" to "reproduce" closes a loop: the one
	// arrow a layered layout points up.
	triageEdges = []flowEdge{
		{"reported", "reproduce", ""},
		{"reproduce", "reproducible", ""},
		{"reproducible", "test", "yes"},
		{"reproducible", "details", "no"},
		{"details", "reproduce", ""},
		{"test", "fix", ""},
		{"fix", "review", ""},
		{"review", "merged", ""},
	}
	triageBack = flowEdge{"details", "reproduce", ""}
)

// graphLayout: a flowchart with a loop, placed by the graph.layout WASM
// tool. The checker cannot see which tool placed the boxes; it wants what
// a layered layout gives: no overlaps, every arrow pointing down but the
// one closing the loop.
func graphLayout() bench.Scenario {
	return bench.Scenario{
		Name:     "graph-layout",
		Task:     triageTask(),
		Check:    checkGraphLayout,
		Scripted: scriptGraphLayout,
		Tools:    []string{"graph.layout"},
	}
}

func triageTask() string {
	text := map[string]string{}
	var steps, arrows []string
	for _, s := range triageSteps {
		text[s.Key] = s.Text
		steps = append(steps, fmt.Sprintf("%q (%s)", s.Text, s.Kind))
	}
	for _, e := range triageEdges {
		a := fmt.Sprintf("%q → %q", text[e.From], text[e.To])
		if e.Label != "" {
			a += fmt.Sprintf(" labelled %q", e.Label)
		}
		arrows = append(arrows, a)
	}
	return fmt.Sprintf("Draw this bug-triage flowchart inside a new frame titled %q, laid out top to bottom with the "+
		"graph.layout tool. Shapes: %s. Arrows: %s.", triageTitle, strings.Join(steps, ", "), strings.Join(arrows, ", "))
}

func checkGraphLayout(b *whiteboard.Board) error {
	frame, err := oneFrame(b, triageTitle)
	if err != nil {
		return err
	}
	byText := map[string]whiteboard.Object{}
	var shapes, connectors []whiteboard.Object
	for _, o := range b.Objects() {
		switch o.Type {
		case "shape":
			if _, dup := byText[o.Text]; dup {
				return fmt.Errorf("two shapes say %q", o.Text)
			}
			byText[o.Text] = o
			shapes = append(shapes, o)
		case "connector":
			connectors = append(connectors, o)
		case "frame":
		default:
			return fmt.Errorf("the board holds %s, which the flowchart does not need", describe(o))
		}
	}
	if len(shapes) != len(triageSteps) || len(connectors) != len(triageEdges) {
		return fmt.Errorf("%d shapes and %d connectors, want %d and %d", len(shapes), len(connectors), len(triageSteps), len(triageEdges))
	}
	byKey := map[string]whiteboard.Object{}
	for _, s := range triageSteps {
		o, ok := byText[s.Text]
		switch {
		case !ok:
			return fmt.Errorf("no shape says %q", s.Text)
		case o.Shape != s.Kind:
			return fmt.Errorf("%s is a %s, want a %s", describe(o), o.Shape, s.Kind)
		case o.ParentID != frame.ID || !inside(o, frame):
			return fmt.Errorf("%s is not inside the frame %q", describe(o), triageTitle)
		}
		byKey[s.Key] = o
	}
	for i, a := range shapes {
		for _, c := range shapes[i+1:] {
			if overlap(a, c) {
				return fmt.Errorf("%s and %s overlap", describe(a), describe(c))
			}
		}
	}
	for _, e := range triageEdges {
		from, to := byKey[e.From], byKey[e.To]
		n := 0
		for _, c := range connectors {
			if c.FromID == from.ID && c.ToID == to.ID && c.Label == e.Label && c.Style == "arrow" {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("%d arrows from %q to %q labelled %q, want 1", n, from.Text, to.Text, e.Label)
		}
		if e == triageBack {
			if to.Y+to.Height > from.Y {
				return fmt.Errorf("the loop's arrow from %q to %q does not point up: a layered layout puts %q in an earlier layer", from.Text, to.Text, to.Text)
			}
		} else if from.Y+from.Height > to.Y {
			return fmt.Errorf("the arrow from %q to %q does not point down: %q is not in a later layer", from.Text, to.Text, to.Text)
		}
	}
	return nil
}

// triageLayout is the graph.layout arguments: boxes by kind, the layout's
// corner inside the frame (which starts at 0, 0), below its title.
func triageLayout() map[string]any {
	nodes := make([]map[string]any, len(triageSteps))
	for i, s := range triageSteps {
		w, h := stepSize(s.Kind)
		nodes[i] = map[string]any{"id": s.Key, "width": w, "height": h}
	}
	edges := make([]map[string]string, len(triageEdges))
	for i, e := range triageEdges {
		edges[i] = map[string]string{"from": e.From, "to": e.To}
	}
	return map[string]any{"nodes": nodes, "edges": edges, "direction": "TB", "x": 40, "y": 100}
}

func stepSize(kind string) (w, h int) {
	if kind == "diamond" {
		return 200, 120
	}
	return 200, 80
}

var stepColors = map[string]string{"ellipse": "green", "rectangle": "blue", "diamond": "orange"}

// layoutResult is what the models read of graph.layout's result.
type layoutResult struct {
	Nodes []struct {
		X, Y          float64
		Width, Height float64
	} `json:"nodes"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func decodeLayout(r bench.ToolResult) (layoutResult, error) {
	var l layoutResult
	if err := r.Decode(&l); err != nil {
		return l, err
	}
	if len(l.Nodes) != len(triageSteps) {
		return l, fmt.Errorf("graph.layout placed %d nodes, not the %d asked for: %.300s", len(l.Nodes), len(triageSteps), r.Content)
	}
	return l, nil
}

func triageFrame(l layoutResult) map[string]any {
	return map[string]any{"title": triageTitle, "x": 0, "y": 0, "width": l.Width + 80, "height": l.Height + 140}
}

func triageShape(l layoutResult, i int, parent any) map[string]any {
	s, n := triageSteps[i], l.Nodes[i]
	return map[string]any{
		"type": s.Kind, "text": s.Text, "color": stepColors[s.Kind], "parentId": parent,
		"x": n.X, "y": n.Y, "width": n.Width, "height": n.Height,
	}
}

func triageConnector(e flowEdge, from, to any) map[string]any {
	args := map[string]any{"fromId": from, "toId": to, "style": "arrow"}
	if e.Label != "" {
		args["label"] = e.Label
	}
	return args
}

func scriptGraphLayout(s bench.Strategy) bench.Model {
	switch s {
	case bench.Code:
		return scriptOnce(triageScript())
	case bench.Batch:
		// The layout first: the frame's size and the boxes' places come
		// from its result; then everything else in one batch, joined by
		// $refs to the ids it creates.
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			switch t.Index {
			case 0:
				return bench.Calls(t.BatchCall(bench.Op{Tool: "graph.layout", Args: triageLayout(), Label: "layout"})), nil
			case 1:
				ops, err := batchOps(t.Results[0])
				if err != nil {
					return bench.Message{}, err
				}
				raw, err := labelled(ops, "layout")
				if err != nil {
					return bench.Message{}, err
				}
				l, err := decodeLayout(raw)
				if err != nil {
					return bench.Message{}, err
				}
				draw := []bench.Op{{Tool: "createFrame", Args: triageFrame(l), Label: "frame"}}
				for i, s := range triageSteps {
					draw = append(draw, bench.Op{Tool: "createShape", Args: triageShape(l, i, bench.Ref("frame.id")), Label: s.Key})
				}
				for _, e := range triageEdges {
					draw = append(draw, bench.Op{Tool: "createConnector", Args: triageConnector(e, bench.Ref(e.From+".id"), bench.Ref(e.To+".id"))})
				}
				return bench.Calls(t.BatchCall(draw...)), nil
			}
			return done(t)
		})
	default:
		return scriptGraphPerCall()
	}
}

// scriptGraphPerCall lays out, makes the frame, then each shape and each
// arrow, one call per turn, with the ids the shapes' calls returned.
func scriptGraphPerCall() bench.Model {
	var (
		l     layoutResult
		frame string
		ids   = map[string]string{}
	)
	const shapesFrom = 2 // the turn of the first shape
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		if err := failed(t); err != nil {
			return bench.Message{}, err
		}
		var err error
		switch t.Index {
		case 0:
			return bench.Calls(t.Call("graph.layout", triageLayout())), nil
		case 1:
			if l, err = decodeLayout(t.Results[0]); err != nil {
				return bench.Message{}, err
			}
			return bench.Calls(t.Call("createFrame", triageFrame(l))), nil
		case shapesFrom:
			frame, err = resultID(t.Results[0])
		default:
			if prev := t.Index - shapesFrom - 1; prev < len(triageSteps) {
				ids[triageSteps[prev].Key], err = resultID(t.Results[0])
			}
		}
		if err != nil {
			return bench.Message{}, err
		}
		k := t.Index - shapesFrom
		if k < len(triageSteps) {
			return bench.Calls(t.Call("createShape", triageShape(l, k, frame))), nil
		}
		if k -= len(triageSteps); k < len(triageEdges) {
			e := triageEdges[k]
			return bench.Calls(t.Call("createConnector", triageConnector(e, ids[e.From], ids[e.To]))), nil
		}
		return done(t)
	})
}

// triageScript is the code model's script: lay out, then draw, the shapes
// together and the arrows together (each set independent).
func triageScript() string {
	steps, _ := json.Marshal(triageSteps)
	edges, _ := json.Marshal(triageEdges)
	return fmt.Sprintf(`const steps = %s;
const edges = %s;
const size = (kind) => ({ width: 200, height: kind === "diamond" ? 120 : 80 });
const colors = { ellipse: "green", rectangle: "blue", diamond: "orange" };
const layout = await tools.graph.layout({
  nodes: steps.map((s) => ({ id: s.key, ...size(s.kind) })),
  edges: edges.map(({ from, to }) => ({ from, to })),
  direction: "TB", x: 40, y: 100,
});
const frame = await tools.createFrame({ title: %q, x: 0, y: 0, width: layout.width + 80, height: layout.height + 140 });
const shapes = await Promise.all(layout.nodes.map((n, i) => tools.createShape({
  type: steps[i].kind, text: steps[i].text, color: colors[steps[i].kind], parentId: frame.id,
  x: n.x, y: n.y, width: n.width, height: n.height,
})));
const id = Object.fromEntries(steps.map((s, i) => [s.key, shapes[i].id]));
await Promise.all(edges.map((e) => tools.createConnector({ fromId: id[e.from], toId: id[e.to], style: "arrow", label: e.label })));
return { frame: frame.id, shapes: shapes.length, arrows: edges.length, reversed: layout.reversedEdges };`, steps, edges, triageTitle)
}
