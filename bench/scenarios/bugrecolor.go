package scenarios

import (
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// bugRecolor: recolour the notes that mention "bug" red, and nothing else.
// The board has decoys a careless search also finds: a frame titled "Bugs"
// and a shape about bug triage (neither is a note), a note already red.
func bugRecolor() bench.Scenario {
	return bench.Scenario{
		Name: "bug-recolor",
		Task: "Make every sticky note whose text contains \"bug\" (in any letter case, \"Bug\" and \"debug\" too) red. " +
			"Leave everything else on the board as it is.",
		Start:    fixture("bug-recolor"),
		Check:    checkBugRecolor,
		Scripted: scriptBugRecolor,
	}
}

func mentionsBug(o whiteboard.Object) bool {
	return o.Type == "sticky" && strings.Contains(strings.ToLower(o.Text), "bug")
}

func checkBugRecolor(b *whiteboard.Board) error {
	start, err := startObjects("bug-recolor")
	if err != nil {
		return err
	}
	if n := len(b.Objects()); n != len(start) {
		return fmt.Errorf("want the %d objects the board had, found %d", len(start), n)
	}
	if err := unchanged(b, start, mentionsBug); err != nil {
		return err
	}
	for _, was := range start {
		if !mentionsBug(was) {
			continue
		}
		is, ok := b.Get(was.ID)
		if !ok {
			return fmt.Errorf("note %q (%s) was deleted", was.Text, was.ID)
		}
		if is.Color != "red" {
			return fmt.Errorf("note %q is %s, want red", was.Text, is.Color)
		}
		if is.Color, was.Color = "", ""; is != was {
			return fmt.Errorf("note %q (%s) was changed beyond its colour", was.Text, was.ID)
		}
	}
	return nil
}

// bugSearch finds the notes: findObjects matches text, titles and labels
// alike, so the type filter keeps the "Bugs" frame and the shape out.
var bugSearch = map[string]any{"text": "bug", "type": "sticky"}

// notRed is the found notes a recolouring changes.
func notRed(data []byte) ([]whiteboard.Object, error) {
	objs, err := objectsIn(data)
	if err != nil {
		return nil, err
	}
	var out []whiteboard.Object
	for _, o := range objs {
		if o.Color != "red" {
			out = append(out, o)
		}
	}
	return out, nil
}

func redArgs(o whiteboard.Object) map[string]any {
	return map[string]any{"objectId": o.ID, "color": "red"}
}

func scriptBugRecolor(s bench.Strategy) bench.Model {
	switch s {
	case bench.Batch:
		// A batch to find the notes, then one to recolour them.
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			switch t.Index {
			case 0:
				return bench.Calls(t.BatchCall(bench.Op{Tool: "findObjects", Args: bugSearch})), nil
			case 1:
				res, err := batchResults(t.Results[0])
				if err != nil {
					return bench.Message{}, err
				}
				notes, err := notRed(res[0].Result)
				if err != nil {
					return bench.Message{}, err
				}
				if len(notes) == 0 {
					return bench.Say("Every note that mentions a bug is red already."), nil
				}
				ops := make([]bench.Op, len(notes))
				for i, o := range notes {
					ops[i] = bench.Op{Tool: "changeColor", Args: redArgs(o)}
				}
				return bench.Calls(t.BatchCall(ops...)), nil
			default:
				return done(t)
			}
		})
	case bench.Code:
		return scriptOnce(`// findObjects matches titles too: only sticky notes.
const { objects } = await tools.findObjects({ text: "bug", type: "sticky" });
const notes = objects.filter((o) => o.color !== "red");
await Promise.all(notes.map((o) => tools.changeColor({ objectId: o.id, color: "red" })));
return { recoloured: notes.map((o) => o.text), alreadyRed: objects.length - notes.length };`)
	default:
		// Find the notes, then recolour them one per turn.
		q := &oneByOne{}
		q.add(step{tool: "findObjects", args: fixed(bugSearch), then: func(r bench.ToolResult) error {
			notes, err := notRed([]byte(r.Content))
			for _, o := range notes {
				q.add(step{tool: "changeColor", args: fixed(redArgs(o))})
			}
			return err
		}})
		return q.model()
	}
}
