package scenarios

import (
	"fmt"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// moveFrameTitle is the frame move-frame moves, to moveFrameX, moveFrameY.
const (
	moveFrameTitle = "Sprint 12"
	moveFrameX     = 1800
	moveFrameY     = 400
)

// moveFrame: move a frame and what it holds. The board also has a frame of
// a similar title, a loose note that mentions the frame's title and lies
// next to it, and a connector from the frame's contents to the other
// frame's: only the frame and its children may move, each by the same
// amount (moving the frame moves its children; moving them too is wrong).
func moveFrame() bench.Scenario {
	return bench.Scenario{
		Name: "move-frame",
		Task: fmt.Sprintf("Move the frame %q, together with everything in it, so that the frame's top-left corner "+
			"is at x %d, y %d. Leave everything else where it is.", moveFrameTitle, moveFrameX, moveFrameY),
		Start:    func() (*whiteboard.Board, error) { return layoutFixture("move-frame") },
		Check:    checkMoveFrame,
		Scripted: scriptMoveFrame,
	}
}

func checkMoveFrame(b *whiteboard.Board) error {
	start, err := layoutFixture("move-frame")
	if err != nil {
		return err
	}
	frame, err := oneFrame(start, moveFrameTitle)
	if err != nil {
		return err
	}
	dx, dy := moveFrameX-frame.X, moveFrameY-frame.Y
	if n, want := len(b.Objects()), len(start.Objects()); n != want {
		return fmt.Errorf("the board holds %d objects, want the %d it started with", n, want)
	}
	for _, was := range start.Objects() {
		now, ok := b.Get(was.ID)
		if !ok {
			return fmt.Errorf("%s was deleted", describe(was))
		}
		if was.Type == "connector" {
			// Its geometry follows its ends; the rest must stay.
			now.X, now.Y, now.Width, now.Height = was.X, was.Y, was.Width, was.Height
		}
		want, why := was, "left where it was"
		if was.ID == frame.ID || was.ParentID == frame.ID {
			want.X, want.Y, why = was.X+dx, was.Y+dy, fmt.Sprintf("moved by (%g, %g) with the frame", dx, dy)
		}
		switch {
		case now.X != want.X || now.Y != want.Y:
			return fmt.Errorf("%s is at (%g, %g), want (%g, %g): %s", describe(was), now.X, now.Y, want.X, want.Y, why)
		case now != want:
			return fmt.Errorf("%s was changed, want it only %s", describe(was), why)
		}
	}
	return nil
}

func moveFrameArgs(id any) map[string]any {
	return map[string]any{"objectId": id, "x": moveFrameX, "y": moveFrameY}
}

// findMoveFrame is the findObjects call's arguments: frames only, which
// leaves out the loose note whose text mentions the title.
var findMoveFrame = map[string]any{"type": "frame", "text": moveFrameTitle}

// theFrame is the frame titled moveFrameTitle among a findObjects result's
// objects (a text filter also matches longer titles).
func theFrame(objects []whiteboard.Object) (whiteboard.Object, error) {
	for _, o := range objects {
		if o.Type == "frame" && o.Title == moveFrameTitle {
			return o, nil
		}
	}
	return whiteboard.Object{}, fmt.Errorf("no frame titled %q among the %d found", moveFrameTitle, len(objects))
}

func scriptMoveFrame(s bench.Strategy) bench.Model {
	switch s {
	case bench.Code:
		return scriptOnce(fmt.Sprintf(`const title = %q;
const { objects } = await tools.findObjects({ type: "frame", text: title });
const frame = objects.find((o) => o.title === title);
if (!frame) throw new Error(`+"`no frame titled ${title}`"+`);
// Moving a frame moves its children with it.
const moved = await tools.moveObject({ objectId: frame.id, x: %d, y: %d });
return { frame: frame.id, from: [frame.x, frame.y], to: [moved.x, moved.y] };`, moveFrameTitle, moveFrameX, moveFrameY))
	case bench.Batch:
		// Find and move in one batch; the next turn checks that what was
		// found and moved is the frame titled so, not another match.
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if t.Index == 0 {
				return bench.Calls(t.BatchCall(
					bench.Op{Tool: "findObjects", Args: findMoveFrame, Label: "found"},
					bench.Op{Tool: "moveObject", Args: moveFrameArgs(bench.Ref("found.objects.0.id"))},
				)), nil
			}
			if err := failed(t); err != nil {
				return bench.Message{}, err // nothing found leaves the move's $ref unresolved
			}
			objects, err := labelledObjects(t.Results[0], "found")
			if err != nil {
				return bench.Message{}, err
			}
			if f, err := theFrame(objects); err != nil || f.ID != objects[0].ID {
				return bench.Message{}, fmt.Errorf("moved %s, not the frame titled %q", describe(objects[0]), moveFrameTitle)
			}
			return done(t)
		})
	default:
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			switch t.Index {
			case 0:
				return bench.Calls(t.Call("findObjects", findMoveFrame)), nil
			case 1:
				if err := failed(t); err != nil {
					return bench.Message{}, err
				}
				objects, err := objectsIn([]byte(t.Results[0].Content))
				if err != nil {
					return bench.Message{}, err
				}
				f, err := theFrame(objects)
				if err != nil {
					return bench.Message{}, err
				}
				return bench.Calls(t.Call("moveObject", moveFrameArgs(f.ID))), nil
			}
			return done(t)
		})
	}
}
