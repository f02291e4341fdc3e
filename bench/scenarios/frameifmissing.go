package scenarios

import (
	"fmt"
	"strconv"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

const (
	backlogTitle = "Backlog"
	backlogNote  = "Triage new bug reports"
)

// frameIfMissing: add a note to the "Backlog" frame, creating the frame only
// if the board lacks it. Its board has the frame (a model that does not
// look makes a second one), full, so it must grow to hold the note, and a
// decoy, "Backlog grooming", that a search for the title also finds.
func frameIfMissing() bench.Scenario {
	return backlogScenario("frame-if-missing", "frame-if-missing")
}

// frameIfMissingNew is frameIfMissing on a board without the frame (the
// decoy only): the same models must now create it.
func frameIfMissingNew() bench.Scenario {
	return backlogScenario("frame-if-missing-new", "frame-if-missing-new")
}

func backlogScenario(name, board string) bench.Scenario {
	return bench.Scenario{
		Name: name,
		Task: fmt.Sprintf("Add a sticky note %q to the frame titled exactly %q, under the notes already in it. "+
			"If the board has no frame with that title, create it first, beside the other objects without covering "+
			"any; never make a second one.", backlogNote, backlogTitle),
		Start:    fixture(board),
		Check:    func(b *whiteboard.Board) error { return checkBacklog(b, board) },
		Scripted: scriptBacklog,
	}
}

func checkBacklog(b *whiteboard.Board, board string) error {
	start, err := startObjects(board)
	if err != nil {
		return err
	}
	f, err := oneFrame(b, backlogTitle)
	if err != nil {
		return err
	}
	added := 2 // the frame and the note
	texts := []string{backlogNote}
	for _, o := range start {
		if o.Type == "frame" && o.Title == backlogTitle {
			added = 1
			if o.ID != f.ID || o.X != f.X || o.Y != f.Y {
				return fmt.Errorf("the %q frame the board had was replaced or moved", backlogTitle)
			}
		}
		if o.Type == "sticky" && o.ParentID == f.ID {
			texts = append(texts, o.Text)
		}
	}
	objs := b.Objects()
	if len(objs) != len(start)+added {
		return fmt.Errorf("want %d objects (%d added), found %d", len(start)+added, added, len(objs))
	}
	// The frame may have grown to hold the note; nothing else changes.
	if err := unchanged(b, start, func(o whiteboard.Object) bool { return o.ID == f.ID }); err != nil {
		return err
	}
	if err := notesIn(b, f, texts, ""); err != nil {
		return err
	}
	var topLevel, inFrame []whiteboard.Object
	for _, o := range objs {
		switch {
		case o.ParentID == f.ID:
			inFrame = append(inFrame, o)
		case o.ParentID == "":
			topLevel = append(topLevel, o)
		}
	}
	if err := noOverlap(inFrame); err != nil {
		return err
	}
	return noOverlap(topLevel)
}

// backlogPlan is what to do on a board: the frame to create if it lacks
// one, the note (in the frame whose id is given), and the frame's growth if
// the note sticks out of it.
type backlogPlan struct {
	newFrame map[string]any // createFrame's args; nil when the board has the frame
	frameID  string         // the frame the board has
	note     func(parent any) map[string]any
	resize   map[string]any // resizeObject's args, or nil
}

func planBacklog(objs []whiteboard.Object) backlogPlan {
	var frame *whiteboard.Object
	for i, o := range objs {
		if o.Type == "frame" && o.Title == backlogTitle {
			frame = &objs[i]
		}
	}
	if frame == nil {
		// To the right of everything on the board.
		var right float64
		for _, o := range objs {
			right = max(right, o.X+o.Width)
		}
		return backlogPlan{
			newFrame: map[string]any{"title": backlogTitle, "x": right + 100, "y": 0, "width": 240, "height": 300, "color": "gray"},
			note:     func(parent any) map[string]any { return backlogNoteArgs(right+100, 50, parent) },
		}
	}
	// Under the frame's notes, growing the frame if the note sticks out.
	y := frame.Y + 50
	for _, o := range objs {
		if o.ParentID == frame.ID {
			y = max(y, o.Y+o.Height+20)
		}
	}
	p := backlogPlan{frameID: frame.ID, note: func(parent any) map[string]any { return backlogNoteArgs(frame.X, y, parent) }}
	if end := y + 100 + 20; end > frame.Y+frame.Height {
		p.resize = map[string]any{"objectId": frame.ID, "width": frame.Width, "height": end - frame.Y}
	}
	return p
}

func backlogNoteArgs(frameX, y float64, parent any) map[string]any {
	return map[string]any{"text": backlogNote, "x": frameX + 20, "y": y, "width": 200, "height": 100, "parentId": parent}
}

func scriptBacklog(s bench.Strategy) bench.Model {
	switch s {
	case bench.Batch:
		// A batch to read the board, then one with what it needs.
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			switch t.Index {
			case 0:
				return bench.Calls(t.BatchCall(bench.Op{Tool: "getBoardState", Args: map[string]any{}})), nil
			case 1:
				res, err := batchResults(t.Results[0])
				if err != nil {
					return bench.Message{}, err
				}
				objs, err := objectsIn(res[0].Result)
				if err != nil {
					return bench.Message{}, err
				}
				p := planBacklog(objs)
				var ops []bench.Op
				if p.newFrame != nil {
					ops = append(ops, bench.Op{Tool: "createFrame", Args: p.newFrame, Label: "frame"},
						bench.Op{Tool: "createStickyNote", Args: p.note(bench.Ref("frame.id"))})
				} else {
					ops = append(ops, bench.Op{Tool: "createStickyNote", Args: p.note(p.frameID)})
				}
				if p.resize != nil {
					ops = append(ops, bench.Op{Tool: "resizeObject", Args: p.resize})
				}
				return bench.Calls(t.BatchCall(ops...)), nil
			default:
				return done(t)
			}
		})
	case bench.Code:
		return scriptOnce(`const title = ` + strconv.Quote(backlogTitle) + `, text = ` + strconv.Quote(backlogNote) + `;
const { objects } = await tools.getBoardState({});
// Only the frame titled exactly so: "Backlog grooming" is another one.
let frame = objects.find((o) => o.type === "frame" && o.title === title);
const created = !frame;
if (!frame) {
  const right = Math.max(0, ...objects.map((o) => o.x + o.width));
  const f = await tools.createFrame({ title, x: right + 100, y: 0, width: 240, height: 300, color: "gray" });
  frame = { ...f, type: "frame", title };
}
const notes = objects.filter((o) => o.parentId === frame.id);
const y = Math.max(frame.y + 50, ...notes.map((n) => n.y + n.height + 20));
const note = await tools.createStickyNote({ text, x: frame.x + 20, y, width: 200, height: 100, parentId: frame.id });
if (note.y + note.height + 20 > frame.y + frame.height) {
  await tools.resizeObject({ objectId: frame.id, width: frame.width, height: note.y + note.height + 20 - frame.y });
}
return { frameId: frame.id, createdFrame: created, noteId: note.id };`)
	default:
		// Read the board, then the plan's calls one per turn; a note in a
		// new frame goes in the id its creation returned.
		q := &oneByOne{}
		q.add(step{tool: "getBoardState", args: fixed(map[string]any{}), then: func(r bench.ToolResult) error {
			objs, err := objectsIn([]byte(r.Content))
			if err != nil {
				return err
			}
			p := planBacklog(objs)
			if p.newFrame != nil {
				q.add(step{tool: "createFrame", args: fixed(p.newFrame), then: func(r bench.ToolResult) (err error) {
					p.frameID, err = resultID(r)
					return err
				}})
			}
			q.add(step{tool: "createStickyNote", args: func() any { return p.note(p.frameID) }})
			if p.resize != nil {
				q.add(step{tool: "resizeObject", args: fixed(p.resize)})
			}
			return nil
		}})
		return q.model()
	}
}
