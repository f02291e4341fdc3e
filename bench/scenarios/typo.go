package scenarios

import (
	"fmt"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

var followUps = struct {
	title, color string
	notes        []string
}{"Follow-ups", "orange", []string{"Email the client", "Book the room", "Update the plan"}}

// misspelt is the tool name the scripted models get wrong once, for
// createStickyNote; the engine's unknown_tool error suggests the right one.
const misspelt = "createStickyNot"

// typoRecovery: a frame and three notes, where the model misspells a tool
// once and recovers with the suggestion the error carries. The checker wants
// exactly the intended objects: a recovery that redoes what had succeeded
// leaves duplicates.
func typoRecovery() bench.Scenario {
	return bench.Scenario{
		Name: "typo-recovery",
		Task: fmt.Sprintf("Make a frame titled %q with three %s sticky notes inside it: %s.",
			followUps.title, followUps.color, quoteAll(followUps.notes)),
		Check:    checkTypoRecovery,
		Scripted: scriptTypoRecovery,
	}
}

func checkTypoRecovery(b *whiteboard.Board) error {
	f, err := oneFrame(b, followUps.title)
	if err != nil {
		return err
	}
	if err := notesIn(b, f, followUps.notes, followUps.color); err != nil {
		return err
	}
	for _, o := range b.Objects() {
		if o.ID != f.ID && o.ParentID != f.ID {
			return fmt.Errorf("the board holds %s besides the frame and its notes", describe(o))
		}
	}
	return nil
}

func followUpsFrame() map[string]any {
	return map[string]any{"title": followUps.title, "x": 0, "y": 0, "width": 700, "height": 300}
}

func followUpsNote(j int, parent any) map[string]any {
	return map[string]any{
		"text": followUps.notes[j], "color": followUps.color, "parentId": parent,
		"x": 20 + j*220, "y": 60, "width": 200, "height": 200,
	}
}

// recovered is the tool to call instead of one that does not exist: the
// first suggestion of an unknown_tool error. Any other error, or no
// suggestion, is a failure the model cannot mend.
func recovered(tool string, e *engine.Error) (string, error) {
	if e.Code != engine.CodeUnknownTool || len(e.Suggestions) == 0 || e.Suggestions[0] == tool {
		return "", fmt.Errorf("%s failed: %s", tool, e.Message)
	}
	return e.Suggestions[0], nil
}

func scriptTypoRecovery(s bench.Strategy) bench.Model {
	switch s {
	case bench.Code:
		return scriptOnce(`const notes = ["Email the client", "Book the room", "Update the plan"];
const frame = await tools.createFrame({ title: "Follow-ups", x: 0, y: 0, width: 700, height: 300 });
let create = "createStickyNot";
const ids = [];
for (const [j, text] of notes.entries()) {
  const args = { text, color: "orange", parentId: frame.id, x: 20 + j * 220, y: 60, width: 200, height: 200 };
  try {
    ids.push((await tools[create](args)).id);
  } catch (err) {
    // A misspelt tool: retry with the name the error suggests.
    if (err.code !== "unknown_tool" || !err.suggestions?.length) throw err;
    create = err.suggestions[0];
    ids.push((await tools[create](args)).id);
  }
}
return { frame: frame.id, notes: ids, tool: create };`)
	case bench.Batch:
		return scriptTypoBatch()
	default:
		return scriptTypoPerCall()
	}
}

// scriptTypoBatch sends everything in one batch, one operation misspelt;
// then redoes only the operations that failed for an unknown tool, in the
// frame the first batch made.
func scriptTypoBatch() bench.Model {
	first := []bench.Op{{Tool: "createFrame", Args: followUpsFrame(), Label: "frame"}}
	for j := range followUps.notes {
		tool := "createStickyNote"
		if j == 0 {
			tool = misspelt
		}
		first = append(first, bench.Op{Tool: tool, Args: followUpsNote(j, bench.Ref("frame.id"))})
	}
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		if t.Index == 0 {
			return bench.Calls(t.BatchCall(first...)), nil
		}
		if t.Index > 1 {
			return done(t)
		}
		ops, err := batchOps(t.Results[0])
		if err != nil {
			return bench.Message{}, err
		}
		made, err := labelled(ops, "frame")
		if err != nil {
			return bench.Message{}, err
		}
		frame, err := resultID(made)
		if err != nil {
			return bench.Message{}, err
		}
		var redo []bench.Op
		for _, op := range ops {
			if op.Success {
				continue
			}
			tool, err := recovered(op.Tool, op.Error)
			if err != nil {
				return bench.Message{}, err
			}
			redo = append(redo, bench.Op{Tool: tool, Args: followUpsNote(op.Index-1, frame)})
		}
		if len(redo) == 0 {
			return done(t)
		}
		return bench.Calls(t.BatchCall(redo...)), nil
	})
}

// scriptTypoPerCall makes the frame, then the notes one per turn; the first
// note's call is misspelt, and the model retries it with the suggested tool
// and keeps that name for the rest.
func scriptTypoPerCall() bench.Model {
	tool, frame, next := misspelt, "", 0
	return bench.Script(func(t *bench.Turn) (bench.Message, error) {
		switch {
		case t.Index == 0:
			return bench.Calls(t.Call("createFrame", followUpsFrame())), nil
		case t.Index == 1:
			id, err := resultID(t.Results[0])
			if err != nil {
				return bench.Message{}, err
			}
			frame = id
		default:
			if e := t.Results[0].Error(); e != nil {
				var err error
				if tool, err = recovered(tool, e); err != nil {
					return bench.Message{}, err
				}
			} else {
				next++
			}
		}
		if next < len(followUps.notes) {
			return bench.Calls(t.Call(tool, followUpsNote(next, frame))), nil
		}
		return done(t)
	})
}
