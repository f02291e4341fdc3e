package scenarios

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// gridSide is the grid's rows and columns.
const gridSide = 10

// grid: 100 notes, the scenario where one call per turn costs the most.
func grid() bench.Scenario {
	return bench.Scenario{
		Name: "grid",
		Task: fmt.Sprintf("Make a %d × %d grid of sticky notes labelled \"1\" to \"%d\" in reading order: \"1\" to \"%d\" "+
			"left to right in the top row, and so on. Rows and columns aligned, no note overlapping another.",
			gridSide, gridSide, gridSide*gridSide, gridSide),
		Check:    checkGrid,
		Scripted: scriptGrid,
	}
}

func checkGrid(b *whiteboard.Board) error {
	objs := b.Objects()
	n := gridSide * gridSide
	if len(objs) != n {
		return fmt.Errorf("want %d notes and nothing else, found %d objects", n, len(objs))
	}
	byText := map[string]whiteboard.Object{}
	for _, o := range objs {
		if o.Type != "sticky" {
			return fmt.Errorf("want only sticky notes, found a %s", o.Type)
		}
		if _, twice := byText[o.Text]; twice {
			return fmt.Errorf("two notes read %q", o.Text)
		}
		byText[o.Text] = o
	}
	at := func(row, col int) (whiteboard.Object, error) {
		text := strconv.Itoa(row*gridSide + col + 1)
		o, ok := byText[text]
		if !ok {
			return o, fmt.Errorf("no note reads %q", text)
		}
		return o, nil
	}
	for row := range gridSide {
		for col := range gridSide {
			o, err := at(row, col)
			if err != nil {
				return err
			}
			first, _ := at(row, 0)
			top, _ := at(0, col)
			switch {
			case o.Y != first.Y:
				return fmt.Errorf("note %q is not in line with %q (y %v, want %v)", o.Text, first.Text, o.Y, first.Y)
			case o.X != top.X:
				return fmt.Errorf("note %q is not under %q (x %v, want %v)", o.Text, top.Text, o.X, top.X)
			}
			if col > 0 {
				if left, _ := at(row, col-1); o.X <= left.X {
					return fmt.Errorf("note %q is not right of %q", o.Text, left.Text)
				}
			}
			if row > 0 {
				if above, _ := at(row-1, col); o.Y <= above.Y {
					return fmt.Errorf("note %q is not below %q", o.Text, above.Text)
				}
			}
		}
	}
	return noOverlap(objs)
}

// gridNote is note i (from 0) of the grid.
func gridNote(i int) map[string]any {
	return map[string]any{
		"text": strconv.Itoa(i + 1), "x": (i % gridSide) * 120, "y": (i / gridSide) * 120, "width": 100, "height": 100,
	}
}

// maxBatchOps is the most operations one batch may hold, as the batch
// tool's schema says (operations' maxItems); 0 if it sets no limit.
func maxBatchOps(req bench.Request) (int, error) {
	for _, t := range req.Tools {
		if engine.CanonicalName(t.Function.Name) != engine.MetaBatch {
			continue
		}
		var schema struct {
			Properties struct {
				Operations struct {
					MaxItems int `json:"maxItems"`
				} `json:"operations"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(t.Function.Parameters, &schema); err != nil {
			return 0, fmt.Errorf("the batch tool's schema: %w", err)
		}
		return schema.Properties.Operations.MaxItems, nil
	}
	return 0, fmt.Errorf("no batch tool among the tools")
}

func scriptGrid(s bench.Strategy) bench.Model {
	n := gridSide * gridSide
	switch s {
	case bench.Batch:
		// As few batches as the batch tool's limit allows, one per turn.
		made := 0
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if made == n || failed(t) != nil {
				return done(t) // the answer, or the failure
			}
			limit, err := maxBatchOps(t.Request)
			if err != nil {
				return bench.Message{}, err
			}
			end := n
			if limit > 0 {
				end = min(n, made+limit)
			}
			var ops []bench.Op
			for ; made < end; made++ {
				ops = append(ops, bench.Op{Tool: "createStickyNote", Args: gridNote(made)})
			}
			return bench.Calls(t.BatchCall(ops...)), nil
		})
	case bench.Code:
		return scriptOnce(fmt.Sprintf(`const side = %d, cell = 120;
const notes = [];
for (let i = 0; i < side * side; i++) {
  notes.push(tools.createStickyNote({
    text: String(i + 1), x: (i %% side) * cell, y: Math.floor(i / side) * cell, width: 100, height: 100,
  }));
}
return `+"`${(await Promise.all(notes)).length} notes`"+`;`, gridSide))
	default:
		// One note per turn: what the classic loop does.
		q := &oneByOne{}
		for i := range n {
			q.add(step{tool: "createStickyNote", args: fixed(gridNote(i))})
		}
		return q.model()
	}
}
