package whiteboard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// changeBoard is the board every case of TestChangeOfEachTool starts from:
// a frame with a child, a sticky and a shape outside it, a connector from
// the child to the sticky and one from the shape to the frame.
const changeBoard = `{"objects": [
  {"id": "frame-1", "type": "frame", "x": 0, "y": 0, "width": 400, "height": 300, "title": "F"},
  {"id": "sticky-2", "type": "sticky", "x": 10, "y": 50, "width": 100, "height": 100, "text": "a", "color": "yellow", "parentId": "frame-1"},
  {"id": "sticky-3", "type": "sticky", "x": 600, "y": 0, "width": 100, "height": 100, "text": "b", "color": "yellow"},
  {"id": "shape-4", "type": "shape", "shape": "rectangle", "x": 600, "y": 400, "width": 100, "height": 50},
  {"id": "conn-5", "type": "connector", "fromId": "sticky-2", "toId": "sticky-3", "style": "arrow"},
  {"id": "conn-6", "type": "connector", "fromId": "shape-4", "toId": "frame-1", "style": "line"}
]}`

// The objects of changeBoard, as loaded (connector geometry derived).
var (
	cbFrame   = Object{ID: "frame-1", Type: TypeFrame, X: 0, Y: 0, Width: 400, Height: 300, Title: "F"}
	cbChild   = Object{ID: "sticky-2", Type: TypeSticky, X: 10, Y: 50, Width: 100, Height: 100, Text: "a", Color: "yellow", ParentID: "frame-1"}
	cbSticky  = Object{ID: "sticky-3", Type: TypeSticky, X: 600, Y: 0, Width: 100, Height: 100, Text: "b", Color: "yellow"}
	cbShape   = Object{ID: "shape-4", Type: TypeShape, Shape: ShapeRectangle, X: 600, Y: 400, Width: 100, Height: 50}
	cbConnAB  = Object{ID: "conn-5", Type: TypeConnector, FromID: "sticky-2", ToID: "sticky-3", Style: StyleArrow, X: 60, Y: 50, Width: 590, Height: 50}
	cbConnSF  = Object{ID: "conn-6", Type: TypeConnector, FromID: "shape-4", ToID: "frame-1", Style: StyleLine, X: 200, Y: 150, Width: 450, Height: 275}
	changeCmp = cmpopts.IgnoreUnexported(Change{})
)

// with returns o changed by f, for expected objects.
func modified(o Object, f func(*Object)) Object {
	f(&o)
	return o
}

// recordingTools returns the tools on a board loaded from doc, and a
// context whose changes are appended to *got.
func recordingTools(t *testing.T, doc string, got *[]Change) (*Board, map[string]engine.Tool, context.Context) {
	t.Helper()
	b := NewBoard()
	if err := b.Load(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	tools := map[string]engine.Tool{}
	for _, tool := range Tools(nil) {
		tools[tool.Name] = tool
	}
	var mu sync.Mutex
	ctx := WithChanges(NewContext(context.Background(), b), func(_ context.Context, c Change) {
		mu.Lock()
		defer mu.Unlock()
		*got = append(*got, c)
	})
	return b, tools, ctx
}

// TestChangeOfEachTool pins the change every tool call records: exactly the
// objects it created or modified, in their new state, connectors rerouted
// and children moved along included; every id deleted; nothing for reads,
// failures and calls that change nothing.
func TestChangeOfEachTool(t *testing.T) {
	for _, tc := range []struct {
		name, tool, args string
		want             []Change // nil: nothing recorded
	}{
		{"create sticky", "createStickyNote", `{"text":"n","x":1,"y":2}`, []Change{{Objects: []Object{
			{ID: "sticky-7", Type: TypeSticky, X: 1, Y: 2, Width: 200, Height: 200, Text: "n", Color: "yellow"}}}}},
		{"create shape in a frame", "createShape", `{"type":"ellipse","x":5,"y":6,"width":30,"height":40,"parentId":"frame-1"}`, []Change{{Objects: []Object{
			{ID: "shape-7", Type: TypeShape, Shape: ShapeEllipse, X: 5, Y: 6, Width: 30, Height: 40, ParentID: "frame-1"}}}}},
		{"create frame", "createFrame", `{"title":"T","x":-1,"y":-2,"width":3,"height":4,"color":"blue"}`, []Change{{Objects: []Object{
			{ID: "frame-7", Type: TypeFrame, Title: "T", X: -1, Y: -2, Width: 3, Height: 4, Color: "blue"}}}}},
		{"create connector", "createConnector", `{"fromId":"sticky-3","toId":"shape-4","label":"l"}`, []Change{{Objects: []Object{
			{ID: "conn-7", Type: TypeConnector, FromID: "sticky-3", ToID: "shape-4", Style: StyleArrow, Label: "l", X: 650, Y: 50, Width: 0, Height: 375}}}}},
		{"move reroutes a connector", "moveObject", `{"objectId":"sticky-3","x":700,"y":0}`, []Change{{Objects: []Object{
			modified(cbSticky, func(o *Object) { o.X = 700 }),
			modified(cbConnAB, func(o *Object) { o.Width = 690 })}}}},
		{"move a frame carries its child and both connectors", "moveObject", `{"objectId":"frame-1","x":100,"y":100}`, []Change{{Objects: []Object{
			modified(cbFrame, func(o *Object) { o.X, o.Y = 100, 100 }),
			modified(cbChild, func(o *Object) { o.X, o.Y = 110, 150 }),
			modified(cbConnAB, func(o *Object) { o.X, o.Y, o.Width, o.Height = 160, 50, 490, 150 }),
			modified(cbConnSF, func(o *Object) { o.X, o.Y, o.Width, o.Height = 300, 250, 350, 175 })}}}},
		{"move to the same place", "moveObject", `{"objectId":"sticky-3","x":600,"y":0}`, nil},
		{"resize reroutes", "resizeObject", `{"objectId":"shape-4","width":200,"height":50}`, []Change{{Objects: []Object{
			modified(cbShape, func(o *Object) { o.Width = 200 }),
			modified(cbConnSF, func(o *Object) { o.Width = 500 })}}}},
		{"resize a frame leaves its child", "resizeObject", `{"objectId":"frame-1","width":200,"height":100}`, []Change{{Objects: []Object{
			modified(cbFrame, func(o *Object) { o.Width, o.Height = 200, 100 }),
			modified(cbConnSF, func(o *Object) { o.X, o.Y, o.Width, o.Height = 100, 50, 550, 375 })}}}},
		{"resize to the same size", "resizeObject", `{"objectId":"frame-1","width":400,"height":300}`, nil},
		{"title", "updateText", `{"objectId":"frame-1","text":"G"}`, []Change{{Objects: []Object{
			modified(cbFrame, func(o *Object) { o.Title = "G" })}}}},
		{"label", "updateText", `{"objectId":"conn-5","text":"lbl"}`, []Change{{Objects: []Object{
			modified(cbConnAB, func(o *Object) { o.Label = "lbl" })}}}},
		{"text cleared", "updateText", `{"objectId":"sticky-2","text":""}`, []Change{{Objects: []Object{
			modified(cbChild, func(o *Object) { o.Text = "" })}}}},
		{"same text", "updateText", `{"objectId":"sticky-2","text":"a"}`, nil},
		{"color", "changeColor", `{"objectId":"sticky-3","color":"pink"}`, []Change{{Objects: []Object{
			modified(cbSticky, func(o *Object) { o.Color = "pink" })}}}},
		{"connector color", "changeColor", `{"objectId":"conn-6","color":"#00AA00"}`, []Change{{Objects: []Object{
			modified(cbConnSF, func(o *Object) { o.Color = "#00AA00" })}}}},
		{"same color", "changeColor", `{"objectId":"sticky-3","color":"yellow"}`, nil},
		{"delete a frame", "deleteObject", `{"objectId":"frame-1"}`, []Change{{Deleted: []string{"frame-1", "sticky-2", "conn-5", "conn-6"}}}},
		{"delete an end", "deleteObject", `{"objectId":"sticky-3"}`, []Change{{Deleted: []string{"sticky-3", "conn-5"}}}},
		{"delete a connector", "deleteObject", `{"objectId":"conn-6"}`, []Change{{Deleted: []string{"conn-6"}}}},
		{"arrange: only what moved", "arrangeObjects", `{"objectIds":["sticky-3","shape-4"],"layout":"row","x":600,"y":0}`, []Change{{Objects: []Object{
			modified(cbShape, func(o *Object) { o.X, o.Y = 720, 0 }),
			modified(cbConnSF, func(o *Object) { o.X, o.Y, o.Width, o.Height = 200, 25, 570, 125 })}}}},
		{"arrange a frame and its listed child", "arrangeObjects", `{"objectIds":["sticky-2","frame-1"],"layout":"column","x":0,"y":0,"gap":0}`, []Change{{Objects: []Object{
			modified(cbFrame, func(o *Object) { o.Y = 100 }),
			modified(cbChild, func(o *Object) { o.X, o.Y = 0, 0 }),
			modified(cbConnAB, func(o *Object) { o.X, o.Width, o.Height = 50, 600, 0 }),
			modified(cbConnSF, func(o *Object) { o.Y, o.Height = 250, 175 })}}}},
		{"arrange in place", "arrangeObjects", `{"objectIds":["frame-1"],"layout":"row"}`, nil},
		{"read", "getBoardState", `{}`, nil},
		{"find", "findObjects", `{"text":"a"}`, nil},
		{"failed create", "createStickyNote", `{"text":"n","x":1,"y":2,"parentId":"sticky-3"}`, nil},
		{"failed move", "moveObject", `{"objectId":"conn-5","x":1,"y":2}`, nil},
		{"failed move out of range", "moveObject", `{"objectId":"sticky-3","x":1.7e308,"y":0}`, nil}, // after the move below
		{"failed delete", "deleteObject", `{"objectId":"nope"}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Change
			b, tools, ctx := recordingTools(t, changeBoard, &got)
			if tc.name == "failed move out of range" {
				// conn-5 can then not reach sticky-3 at 1.7e308: its width
				// would overflow, and the move fails after being staged.
				far := json.RawMessage(`{"objectId":"sticky-2","x":-1.7e308,"y":0}`)
				if _, err := tools["moveObject"].Handler(NewContext(context.Background(), b), far); err != nil {
					t.Fatal(err)
				}
			}
			before := b.Objects()
			_, err := tools[tc.tool].Handler(ctx, json.RawMessage(tc.args))
			if strings.HasPrefix(tc.name, "failed") != (err != nil) {
				t.Fatalf("%s(%s): error %v", tc.tool, tc.args, err)
			}
			if diff := cmp.Diff(tc.want, got, changeCmp); diff != "" {
				t.Errorf("%s(%s) recorded (-want +got):\n%s", tc.tool, tc.args, diff)
			}
			// The change is the difference: applied to the board before
			// the call, it gives the board after it.
			if diff := cmp.Diff(b.Objects(), apply(before, got)); diff != "" {
				t.Errorf("board before + change != board after (-after +applied):\n%s", diff)
			}
		})
	}
}

// apply returns objs with the changes applied: modified objects replaced,
// new ones appended, deleted ones removed.
func apply(objs []Object, changes []Change) []Object {
	out := append([]Object{}, objs...)
	for _, c := range changes {
		for _, o := range c.Objects {
			i := indexOf(out, o.ID)
			if i < 0 {
				out = append(out, o)
			} else {
				out[i] = o
			}
		}
		for _, id := range c.Deleted {
			if i := indexOf(out, id); i >= 0 {
				out = append(out[:i], out[i+1:]...)
			}
		}
	}
	return out
}

func indexOf(objs []Object, id string) int {
	for i, o := range objs {
		if o.ID == id {
			return i
		}
	}
	return -1
}

// TestChangeEnds: a connector's ends are recorded with the change as the
// call left them, for ChangeSVG.
func TestChangeEnds(t *testing.T) {
	var got []Change
	_, tools, ctx := recordingTools(t, changeBoard, &got)
	if _, err := tools["moveObject"].Handler(ctx, json.RawMessage(`{"objectId":"sticky-3","x":700,"y":0}`)); err != nil {
		t.Fatal(err)
	}
	want := map[string]Object{"sticky-2": cbChild, "sticky-3": modified(cbSticky, func(o *Object) { o.X = 700 })}
	if len(got) != 1 {
		t.Fatalf("got %d changes, want 1", len(got))
	}
	if diff := cmp.Diff(want, got[0].ends); diff != "" {
		t.Errorf("ends (-want +got):\n%s", diff)
	}
}

// TestChangesNotRecordedWithout: without WithChanges nothing is recorded,
// and a nil record function is no record function.
func TestChangesNotRecordedWithout(t *testing.T) {
	ctx := context.Background()
	if WithChanges(ctx, nil) != ctx {
		t.Error("WithChanges(ctx, nil) made a new context")
	}
	if changeRecorder(ctx) != nil {
		t.Error("a record function in a plain context")
	}
}

// TestChangesConcurrent moves two objects joined by a connector from many
// goroutines at once. Every call must record exactly once, and every change
// must be consistent in itself: its connector's geometry is the route
// between its recorded ends, and an end that moved in the call is recorded
// as it is in the change. A change computed outside the lock would see
// another call's half-made state (and the race detector would object).
func TestChangesConcurrent(t *testing.T) {
	var got []Change
	b, tools, ctx := recordingTools(t, changeBoard, &got)
	const workers, moves = 8, 100
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := []string{"sticky-2", "sticky-3"}[w%2]
			for i := range moves {
				// Every move goes somewhere new, so every call changes the board.
				args := fmt.Sprintf(`{"objectId":%q,"x":%d,"y":%d}`, id, 1000+w*moves+i, i)
				if _, err := tools["moveObject"].Handler(ctx, json.RawMessage(args)); err != nil {
					t.Error(err)
					return
				}
				if _, err := tools["getBoardState"].Handler(ctx, json.RawMessage(`{}`)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(got) != workers*moves {
		t.Fatalf("recorded %d changes, want %d (one per move)", len(got), workers*moves)
	}
	for _, c := range got {
		if len(c.Objects) != 2 || c.Objects[1].ID != "conn-5" {
			t.Fatalf("change %+v: want the moved sticky and conn-5", c.Objects)
		}
		moved, conn := c.Objects[0], c.Objects[1]
		if c.ends[moved.ID] != moved {
			t.Errorf("end %s recorded as %+v, moved to %+v", moved.ID, c.ends[moved.ID], moved)
		}
		want := conn
		want.route(c.ends[conn.FromID], c.ends[conn.ToID])
		if want != conn {
			t.Errorf("conn-5 %+v is not the route between its recorded ends %+v", conn, c.ends)
		}
	}
	// The last change of each sticky is where it is now.
	last := map[string]Object{}
	for _, c := range got {
		last[c.Objects[0].ID] = c.Objects[0]
	}
	for id, o := range last {
		if now, _ := b.Get(id); now != o {
			// Records of parallel calls may come in any order, so only the
			// set is checked: the board's state must be among them.
			found := false
			for _, c := range got {
				found = found || c.Objects[0] == now
			}
			if !found {
				t.Errorf("%s is at %+v, which no change recorded", id, now)
			}
		}
	}
}

// TestChangeCallFromContext: record runs with the handler's context, so
// through a real engine it learns which call made the change, and the ids
// match the tool_call_end events.
func TestChangeCallFromContext(t *testing.T) {
	type rec struct {
		callID, tool string
		change       Change
	}
	var (
		mu      sync.Mutex
		records []rec
		ends    = map[string]string{} // callID → tool, from tool_call_end
	)
	obs := engine.ObserverFunc(func(_ context.Context, e engine.Event) {
		if e.Type == engine.EventToolCallEnd && e.Success {
			mu.Lock()
			ends[e.CallID] = e.Tool
			mu.Unlock()
		}
	})
	eng, err := engine.NewBuilder().Add(Tools(nil)...).WithObserver(obs).Build()
	if err != nil {
		t.Fatal(err)
	}
	b := NewBoard()
	ctx := WithChanges(NewContext(context.Background(), b), func(ctx context.Context, c Change) {
		info, ok := engine.CallFromContext(ctx)
		if !ok {
			t.Error("record's context is not the call's: CallFromContext found nothing")
		}
		mu.Lock()
		records = append(records, rec{info.CallID, info.Tool, c})
		mu.Unlock()
	})
	req, err := engine.ParseBatchRequest([]byte(`{"executionMode":"sequential","operations":[
		{"tool":"createFrame","args":{"title":"F","x":0,"y":0,"width":100,"height":100},"label":"f"},
		{"tool":"getBoardState","args":{}},
		{"tool":"updateText","args":{"objectId":{"$ref":"f.id"},"text":"G"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Batch(ctx, req)
	if err != nil || res.Summary.Successful != 3 {
		t.Fatalf("batch: %v %+v", err, res)
	}
	if len(records) != 2 {
		t.Fatalf("%d records, want 2 (the read records nothing)", len(records))
	}
	for i, want := range []string{"createFrame", "updateText"} {
		r := records[i]
		if r.tool != want || r.callID == "" || ends[r.callID] != want {
			t.Errorf("record %d: call %q tool %q; tool_call_end of that call: %q; want %s", i, r.callID, r.tool, ends[r.callID], want)
		}
	}
	if got := records[1].change.Objects; len(got) != 1 || got[0].Title != "G" {
		t.Errorf("updateText's change: %+v", got)
	}
}
