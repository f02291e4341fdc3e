package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/engine"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// solved is the board a scenario's code model leaves: its one script run
// through the engine on the scenario's starting board.
func solved(t *testing.T, eng *engine.Engine, sc bench.Scenario) *whiteboard.Board {
	t.Helper()
	b := whiteboard.NewBoard()
	if sc.Start != nil {
		var err error
		if b, err = sc.Start(); err != nil {
			t.Fatal(err)
		}
	}
	reply, err := sc.Scripted(bench.Code).Complete(t.Context(), bench.Request{
		Messages: []bench.Message{{Role: "user", Content: sc.Task}},
	})
	if err != nil || len(reply.Message.ToolCalls) != 1 {
		t.Fatalf("the code model's first turn: %+v, %v", reply.Message, err)
	}
	c := reply.Message.ToolCalls[0]
	res := eng.HandleToolCalls(whiteboard.NewContext(t.Context(), b), []engine.ToolCall{
		{ID: c.ID, Name: c.Function.Name, Arguments: json.RawMessage(c.Function.Arguments)},
	})
	if res[0].Script == nil || !res[0].Script.Success {
		t.Fatalf("the script failed: %s", res[0].Content)
	}
	if err := sc.Check(b); err != nil {
		t.Fatalf("the solved board fails its check: %v", err)
	}
	return b
}

// objectWith is the index of the object whose text or title is text.
func objectWith(t *testing.T, objs []whiteboard.Object, text string) int {
	t.Helper()
	for i, o := range objs {
		if o.Text == text || o.Title == text {
			return i
		}
	}
	t.Fatalf("no object says %q", text)
	return -1
}

// The checkers of typo-recovery, summary-counts, move-frame and graph-layout
// refuse a board that is almost right, and say what is wrong: each case
// spoils a solved board in one way a model could.
func TestCheckersSayWhy(t *testing.T) {
	eng, all := newEngine(t)
	byName := map[string]bench.Scenario{}
	for _, sc := range all {
		byName[sc.Name] = sc
	}
	for _, tc := range []struct {
		name, scenario string
		spoil          func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object
		want           []string // in the reason
	}{
		{"a note made twice", "typo-recovery", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			dup := objs[objectWith(t, objs, "Book the room")]
			dup.ID = "sticky-99"
			return append(objs, dup)
		}, []string{`frame "Follow-ups" holds a note "Book the room" it should not`}},
		{"a note left outside the frame", "typo-recovery", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			return append(objs, whiteboard.Object{ID: "sticky-99", Type: "sticky", X: 0, Y: 400, Width: 200, Height: 200, Text: "Email the client"})
		}, []string{`the board holds sticky sticky-99 "Email the client" besides the frame and its notes`}},
		{"a count off by one", "summary-counts", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i := objectWith(t, objs, "Ideas: 5\nIn progress: 2\nDone: 7")
			objs[i].Text = "Ideas: 4\nIn progress: 2\nDone: 7"
			return objs
		}, []string{`the summary says "Ideas" holds 4 objects, it holds 5`}},
		{"a frame left out", "summary-counts", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i := objectWith(t, objs, "Ideas: 5\nIn progress: 2\nDone: 7")
			objs[i].Text = "Ideas: 5\nDone: 7"
			return objs
		}, []string{`has no line "In progress: 2"`}},
		{"the summary on a frame", "summary-counts", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i := objectWith(t, objs, "Ideas: 5\nIn progress: 2\nDone: 7")
			objs[i].X = 1700
			return objs
		}, []string{`the summary note overlaps frame "Done"`}},
		{"a note of the board changed", "summary-counts", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			objs[objectWith(t, objs, "Dark mode")].Color = "red"
			return objs
		}, []string{`sticky sticky-8 "Dark mode" was changed`}},
		{"a child moved twice", "move-frame", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i := objectWith(t, objs, "Password reset")
			objs[i].X += moveFrameX
			objs[i].Y += moveFrameY
			return objs
		}, []string{`sticky sticky-3 "Password reset" is at (3790, 860), want (1990, 460): moved by (1800, 400) with the frame`}},
		{"the loose note moved along", "move-frame", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i := objectWith(t, objs, "Sprint 12 leftovers: move to 13?")
			objs[i].X += moveFrameX
			objs[i].Y += moveFrameY
			return objs
		}, []string{`want (0, 500): left where it was`}},
		{"a note of the other frame deleted", "move-frame", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i := objectWith(t, objs, "Dark mode")
			return append(objs[:i], objs[i+1:]...)
		}, []string{`the board holds 10 objects, want the 11 it started with`}},
		{"two boxes on each other", "graph-layout", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i, j := objectWith(t, objs, "Fix"), objectWith(t, objs, "Review")
			objs[i].Y = objs[j].Y - 10
			return objs
		}, []string{`"Fix"`, `"Review"`, ` overlap`}},
		{"an arrow pointing up", "graph-layout", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			i, j := objectWith(t, objs, "Fix"), objectWith(t, objs, "Review")
			objs[i].Y, objs[j].Y = objs[j].Y, objs[i].Y
			return objs
		}, []string{`the arrow from "Fix" to "Review" does not point down`}},
		{"an arrow missing", "graph-layout", func(t *testing.T, objs []whiteboard.Object) []whiteboard.Object {
			for i, o := range objs {
				if o.Type == "connector" && o.Label == "no" {
					objs[i].Label = ""
				}
			}
			return objs
		}, []string{`0 arrows from "Reproducible?" to "Ask for details" labelled "no", want 1`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, ok := byName[tc.scenario]
			if !ok {
				t.Skipf("%s is not run (-short)", tc.scenario)
			}
			b := solved(t, eng, sc)
			if err := b.Restore(tc.spoil(t, b.Snapshot())); err != nil {
				t.Fatal(err)
			}
			err := sc.Check(b)
			if err == nil {
				t.Fatalf("Check passed, want an error with %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check: %v\nwant an error with %q", err, w)
				}
			}
		})
	}
}
