package scenarios

import (
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// flowchartSteps are the flowchart's steps, top to bottom.
var flowchartSteps = []struct{ shape, text string }{
	{"ellipse", "Order received"},
	{"rectangle", "Check stock"},
	{"rectangle", "Take payment"},
	{"rectangle", "Pack the items"},
	{"rectangle", "Hand to courier"},
	{"ellipse", "Order delivered"},
}

// flowchart: six shapes, then five arrows that need the ids the shapes got.
func flowchart() bench.Scenario {
	texts := make([]string, len(flowchartSteps))
	for i, s := range flowchartSteps {
		texts[i] = s.text
	}
	return bench.Scenario{
		Name: "flowchart",
		Task: "Draw the flowchart of an order, top to bottom, one shape per step: " + quoteAll(texts) +
			". The first and last steps are ellipses, the others rectangles. Connect each step to the next with an arrow.",
		Check:    checkFlowchart,
		Scripted: scriptFlowchart,
	}
}

func checkFlowchart(b *whiteboard.Board) error {
	objs := b.Objects()
	shapes := ofType(objs, "shape")
	if len(shapes) != len(flowchartSteps) {
		return fmt.Errorf("want %d shapes, found %d", len(flowchartSteps), len(shapes))
	}
	ids := make([]string, len(flowchartSteps))
	for i, s := range flowchartSteps {
		for _, o := range shapes {
			if o.Text == s.text {
				if ids[i] != "" {
					return fmt.Errorf("two shapes read %q", s.text)
				}
				if o.Shape != s.shape {
					return fmt.Errorf("step %q is a %s, want a %s", s.text, o.Shape, s.shape)
				}
				ids[i] = o.ID
			}
		}
		if ids[i] == "" {
			return fmt.Errorf("no shape reads %q", s.text)
		}
	}
	if err := noOverlap(shapes); err != nil {
		return err
	}
	arrows := ofType(objs, "connector")
	if len(arrows) != len(ids)-1 {
		return fmt.Errorf("want %d connectors, found %d", len(ids)-1, len(arrows))
	}
	for i := range len(ids) - 1 {
		n := 0
		for _, c := range arrows {
			if c.FromID == ids[i] && c.ToID == ids[i+1] && c.Style == "arrow" {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("want one arrow from %q to %q, found %d", flowchartSteps[i].text, flowchartSteps[i+1].text, n)
		}
	}
	return nil
}

// flowchartShape is step i's shape, in a column.
func flowchartShape(i int) map[string]any {
	s := flowchartSteps[i]
	return map[string]any{"type": s.shape, "text": s.text, "x": 100, "y": 40 + i*160, "width": 220, "height": 80}
}

func flowchartArrow(from, to any) map[string]any {
	return map[string]any{"fromId": from, "toId": to, "style": "arrow"}
}

func scriptFlowchart(s bench.Strategy) bench.Model {
	steps := len(flowchartSteps)
	switch s {
	case bench.Batch:
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if t.Index > 0 {
				return done(t)
			}
			var ops []bench.Op
			for i := range steps {
				ops = append(ops, bench.Op{Tool: "createShape", Args: flowchartShape(i), Label: fmt.Sprintf("s%d", i)})
			}
			for i := range steps - 1 {
				ops = append(ops, bench.Op{Tool: "createConnector",
					Args: flowchartArrow(bench.Ref(fmt.Sprintf("s%d.id", i)), bench.Ref(fmt.Sprintf("s%d.id", i+1)))})
			}
			return bench.Calls(t.BatchCall(ops...)), nil
		})
	case bench.Code:
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if t.Index > 0 {
				return done(t)
			}
			var steps strings.Builder
			for _, s := range flowchartSteps {
				fmt.Fprintf(&steps, "  [%q, %q],\n", s.shape, s.text)
			}
			return bench.Calls(t.CodeCall(`const steps: ["ellipse" | "rectangle", string][] = [
` + steps.String() + `];
const shapes = await Promise.all(steps.map(([type, text], i) =>
  tools.createShape({ type, text, x: 100, y: 40 + i * 160, width: 220, height: 80 })));
await Promise.all(shapes.slice(1).map((to, i) =>
  tools.createConnector({ fromId: shapes[i].id, toId: to.id, style: "arrow" })));
return { shapes: shapes.map((s) => s.id) };`)), nil
		})
	default:
		// One call per turn: the shapes, then the arrows between the ids
		// they returned.
		ids := make([]string, steps)
		q := &oneByOne{}
		for i := range steps {
			q.add(step{tool: "createShape", args: fixed(flowchartShape(i)), then: func(r bench.ToolResult) (err error) {
				ids[i], err = resultID(r)
				return err
			}})
		}
		for i := range steps - 1 {
			q.add(step{tool: "createConnector", args: func() any { return flowchartArrow(ids[i], ids[i+1]) }})
		}
		return q.model()
	}
}
