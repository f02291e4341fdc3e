package whiteboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// harness calls the tools through their handlers with raw JSON, as the
// engine does, on one board.
type harness struct {
	t     *testing.T
	board *Board
	tools map[string]engine.Tool
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	b := NewBoard()
	h := &harness{t: t, board: b, tools: map[string]engine.Tool{}}
	for _, tool := range Tools(b) {
		h.tools[tool.Name] = tool
	}
	return h
}

func (h *harness) try(name, args string) (json.RawMessage, error) {
	h.t.Helper()
	tool, ok := h.tools[name]
	if !ok {
		h.t.Fatalf("no tool %q", name)
	}
	return tool.Handler(context.Background(), json.RawMessage(args))
}

// call runs a tool that must succeed and decodes its result into a map.
func (h *harness) call(name, args string) map[string]any {
	h.t.Helper()
	res, err := h.try(name, args)
	if err != nil {
		h.t.Fatalf("%s(%s): %v", name, args, err)
	}
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		h.t.Fatalf("%s: result %s: %v", name, res, err)
	}
	return m
}

// id runs a tool that must succeed and returns the id it reports.
func (h *harness) id(name, args string) string {
	h.t.Helper()
	return h.call(name, args)["id"].(string)
}

func (h *harness) get(id string) Object {
	h.t.Helper()
	o, ok := h.board.Get(id)
	if !ok {
		h.t.Fatalf("no object %q on the board", id)
	}
	return o
}

// wantToolError checks that err is a tool_error whose message contains want.
func wantToolError(t *testing.T, err error, want string) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.CodeToolError {
		t.Fatalf("error = %v, want a tool_error", err)
	}
	if !strings.Contains(e.Message, want) {
		t.Fatalf("message = %q, want it to contain %q", e.Message, want)
	}
}

func TestToolSet(t *testing.T) {
	tools := Tools(NewBoard())
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	want := []string{"createStickyNote", "createShape", "createFrame", "createConnector", "moveObject",
		"resizeObject", "updateText", "changeColor", "deleteObject", "getBoardState", "findObjects", "arrangeObjects"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tool names (-want +got):\n%s", diff)
	}
	for _, tool := range tools {
		a := tool.Annotations
		readOnly := tool.Name == "getBoardState" || tool.Name == "findObjects"
		if a.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint = %v", tool.Name, a.ReadOnlyHint)
		}
		if a.DestructiveHint == nil || *a.DestructiveHint != (tool.Name == "deleteObject") {
			t.Errorf("%s: destructiveHint = %v", tool.Name, a.DestructiveHint)
		}
		if a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint = %v, want false", tool.Name, a.OpenWorldHint)
		}
		if tool.Description == "" || len(tool.OutputSchema) == 0 {
			t.Errorf("%s: no description or output schema", tool.Name)
		}
		for _, doc := range []json.RawMessage{tool.InputSchema, tool.OutputSchema} {
			if _, err := compile(doc); err != nil {
				t.Errorf("%s: schema does not compile: %v\n%s", tool.Name, err, doc)
			}
		}
	}
}

func compile(doc json.RawMessage) (*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem:///s.json", v); err != nil {
		return nil, err
	}
	return c.Compile("mem:///s.json")
}

// TestSchemas checks what models read in the schemas: defaults, the color
// pattern, enums and required fields.
func TestSchemas(t *testing.T) {
	h := newHarness(t)
	prop := func(tool, name string) map[string]any {
		t.Helper()
		var s struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(h.tools[tool].InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties[name]
	}
	for _, c := range []struct {
		tool, prop, key string
		want            any
	}{
		{"createStickyNote", "color", "default", "yellow"},
		{"createStickyNote", "width", "default", 200.0},
		{"createStickyNote", "height", "default", 200.0},
		{"createStickyNote", "color", "pattern", colorPattern},
		{"createShape", "color", "pattern", colorPattern},
		{"createFrame", "color", "pattern", colorPattern},
		{"changeColor", "color", "pattern", colorPattern},
		{"findObjects", "color", "pattern", colorPattern},
		{"createShape", "width", "exclusiveMinimum", 0.0},
		{"createConnector", "style", "default", "arrow"},
		{"createConnector", "style", "enum", []any{"line", "arrow", "both"}},
		{"createShape", "type", "enum", []any{"rectangle", "ellipse", "diamond", "triangle"}},
		{"arrangeObjects", "gap", "default", 20.0},
		{"arrangeObjects", "layout", "enum", []any{"grid", "row", "column"}},
	} {
		if diff := cmp.Diff(c.want, prop(c.tool, c.prop)[c.key]); diff != "" {
			t.Errorf("%s.%s.%s (-want +got):\n%s", c.tool, c.prop, c.key, diff)
		}
	}

	// The pattern accepts exactly what ValidColor accepts.
	s, err := compile(h.tools["changeColor"].InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, color := range []string{"yellow", "gray", "#00ff7F", "mauve", "Yellow", "#12345", "#12345g", "#1234567", ""} {
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(fmt.Sprintf(`{"objectId":"a","color":%q}`, color)))
		if got, want := s.Validate(doc) == nil, ValidColor(color); got != want {
			t.Errorf("color %q: schema accepts = %v, ValidColor = %v", color, got, want)
		}
	}
}

func TestCreate(t *testing.T) {
	h := newHarness(t)
	got := h.call("createFrame", `{"title":"Retro","x":0,"y":0,"width":900,"height":600}`)
	if diff := cmp.Diff(map[string]any{"id": "frame-1", "x": 0.0, "y": 0.0, "width": 900.0, "height": 600.0}, got); diff != "" {
		t.Errorf("createFrame (-want +got):\n%s", diff)
	}
	got = h.call("createStickyNote", `{"text":"Went well","x":20,"y":60,"parentId":"frame-1"}`)
	if diff := cmp.Diff(map[string]any{"id": "sticky-2", "x": 20.0, "y": 60.0, "width": 200.0, "height": 200.0}, got); diff != "" {
		t.Errorf("createStickyNote (-want +got):\n%s", diff)
	}
	h.call("createStickyNote", `{"text":"Small","x":-5.5,"y":1e6,"width":50,"height":40,"color":"#A0b0C0"}`)
	h.call("createShape", `{"type":"diamond","x":300,"y":300,"width":100,"height":50,"text":"Decide?","color":"blue","parentId":"frame-1"}`)
	got = h.call("createConnector", `{"fromId":"sticky-2","toId":"shape-4","label":"then"}`)
	if diff := cmp.Diff(map[string]any{"id": "conn-5"}, got); diff != "" {
		t.Errorf("createConnector (-want +got):\n%s", diff)
	}
	h.call("createConnector", `{"fromId":"sticky-3","toId":"frame-1","style":"both"}`)

	want := []Object{
		{ID: "frame-1", Type: TypeFrame, X: 0, Y: 0, Width: 900, Height: 600, Title: "Retro"},
		{ID: "sticky-2", Type: TypeSticky, X: 20, Y: 60, Width: 200, Height: 200, Text: "Went well", Color: "yellow", ParentID: "frame-1"},
		{ID: "sticky-3", Type: TypeSticky, X: -5.5, Y: 1e6, Width: 50, Height: 40, Text: "Small", Color: "#A0b0C0"},
		{ID: "shape-4", Type: TypeShape, Shape: ShapeDiamond, X: 300, Y: 300, Width: 100, Height: 50, Text: "Decide?", Color: "blue", ParentID: "frame-1"},
		// Connector geometry: the box between the centers (120,160) and (350,325).
		{ID: "conn-5", Type: TypeConnector, FromID: "sticky-2", ToID: "shape-4", Style: StyleArrow, Label: "then", X: 120, Y: 160, Width: 230, Height: 165},
		{ID: "conn-6", Type: TypeConnector, FromID: "sticky-3", ToID: "frame-1", Style: StyleBoth, X: 19.5, Y: 300, Width: 430.5, Height: 1e6 + 20 - 300},
	}
	if diff := cmp.Diff(want, h.board.Objects()); diff != "" {
		t.Errorf("board (-want +got):\n%s", diff)
	}
}

// TestErrors covers every rule a handler checks itself: the engine's schema
// validation is not in the way here, so missing fields arrive as zero values.
func TestErrors(t *testing.T) {
	setup := func(h *harness) {
		h.call("createFrame", `{"title":"F","x":0,"y":0,"width":500,"height":500}`)           // frame-1
		h.call("createStickyNote", `{"text":"a","x":10,"y":10,"parentId":"frame-1"}`)         // sticky-2
		h.call("createStickyNote", `{"text":"b","x":600,"y":10}`)                             // sticky-3
		h.call("createConnector", `{"fromId":"sticky-2","toId":"sticky-3"}`)                  // conn-4
		h.call("createShape", `{"type":"ellipse","x":0,"y":600,"width":10,"height":10}`)      // shape-5
		h.call("createShape", `{"type":"ellipse","x":1e308,"y":0,"width":1e307,"height":10}`) // shape-6
	}
	for _, c := range []struct{ tool, args, want string }{
		{"createStickyNote", `{"text":"a","x":0,"y":0,"width":0}`, "width and height must be positive"},
		{"createStickyNote", `{"text":"a","x":0,"y":0,"height":-1}`, "width and height must be positive"},
		{"createStickyNote", `{"text":"a","x":0,"y":0,"color":"mauve"}`, `invalid color "mauve"`},
		{"createStickyNote", `{"text":"a","x":0,"y":0,"parentId":"frame-9"}`, `parentId: no object with id "frame-9"`},
		{"createStickyNote", `{"text":"a","x":0,"y":0,"parentId":"sticky-3"}`, `parentId: "sticky-3" is a sticky, not a frame`},
		{"createStickyNote", `{"text":"a","x":1e308,"y":0,"width":1e308}`, "out of range"},
		{"createShape", `{"type":"rectangle","x":0,"y":0}`, "width and height must be positive"},
		{"createShape", `{"type":"hexagon","x":0,"y":0,"width":1,"height":1}`, `type must be one of rectangle, ellipse, diamond, triangle, got "hexagon"`},
		{"createShape", `{"type":"rectangle","x":0,"y":0,"width":1,"height":1,"parentId":"conn-4"}`, `"conn-4" is a connector, not a frame`},
		{"createFrame", `{"title":"t","x":0,"y":0,"width":10,"height":0}`, "width and height must be positive"},
		{"createFrame", `{"title":"t","x":0,"y":0,"width":10,"height":10,"color":"#12345"}`, "invalid color"},
		{"createConnector", `{"fromId":"sticky-2","toId":"sticky-2"}`, `cannot connect "sticky-2" to itself`},
		{"createConnector", `{"fromId":"sticky-2","toId":"sticky-9"}`, `toId: no object with id "sticky-9"`},
		{"createConnector", `{"fromId":"nope","toId":"sticky-2"}`, `fromId: no object with id "nope"`},
		{"createConnector", `{"toId":"sticky-2"}`, "fromId is required"},
		{"createConnector", `{"fromId":"conn-4","toId":"sticky-2"}`, `fromId: "conn-4" is a connector`},
		{"createConnector", `{"fromId":"sticky-3","toId":"sticky-2","style":"dotted"}`, `style must be one of line, arrow, both, got "dotted"`},
		{"moveObject", `{"objectId":"sticky-9","x":0,"y":0}`, `no object with id "sticky-9"`},
		{"moveObject", `{"x":0,"y":0}`, "objectId is required"},
		{"moveObject", `{"objectId":"conn-4","x":0,"y":0}`, `"conn-4" is a connector`},
		{"moveObject", `{"objectId":"shape-6","x":1.7e308,"y":0}`, `"shape-6" would end up out of range`},
		{"resizeObject", `{"objectId":"sticky-2","width":0,"height":10}`, "width and height must be positive"},
		{"resizeObject", `{"objectId":"sticky-2","width":10}`, "width and height must be positive"},
		{"resizeObject", `{"objectId":"sticky-9","width":10,"height":10}`, `no object with id "sticky-9"`},
		{"resizeObject", `{"objectId":"conn-4","width":10,"height":10}`, `"conn-4" is a connector`},
		{"updateText", `{"objectId":"sticky-9","text":"x"}`, `no object with id "sticky-9"`},
		{"changeColor", `{"objectId":"sticky-2","color":"mauve"}`, `invalid color "mauve"`},
		{"changeColor", `{"objectId":"sticky-2","color":"#12345g"}`, "invalid color"},
		{"changeColor", `{"objectId":"sticky-2"}`, `invalid color ""`},
		{"changeColor", `{"objectId":"sticky-9","color":"red"}`, `no object with id "sticky-9"`},
		{"deleteObject", `{"objectId":"sticky-9"}`, `no object with id "sticky-9"`},
		{"deleteObject", `{}`, "objectId is required"},
		{"arrangeObjects", `{"objectIds":["sticky-2",""],"layout":"row"}`, "objectIds[1] is empty"},
		{"getBoardState", `{"type":"note"}`, `type must be one of sticky, shape, frame, connector, got "note"`},
		{"getBoardState", `{"parentId":"frame-9"}`, `parentId: no object with id "frame-9"`},
		{"getBoardState", `{"parentId":"sticky-2"}`, `parentId: "sticky-2" is a sticky, not a frame`},
		{"findObjects", `{"color":"mauve"}`, `invalid color "mauve"`},
		{"findObjects", `{"type":"box"}`, "type must be one of"},
		{"findObjects", `{"parentId":"frame-9"}`, `no object with id "frame-9"`},
		{"arrangeObjects", `{"objectIds":[],"layout":"row"}`, "objectIds must list at least one object"},
		{"arrangeObjects", `{"layout":"row"}`, "objectIds must list at least one object"},
		{"arrangeObjects", `{"objectIds":["sticky-2"],"layout":"spiral"}`, `layout must be one of grid, row, column, got "spiral"`},
		{"arrangeObjects", `{"objectIds":["sticky-2","sticky-9"],"layout":"row"}`, `no object with id "sticky-9"`},
		{"arrangeObjects", `{"objectIds":["sticky-2","sticky-2"],"layout":"row"}`, `objectIds lists "sticky-2" twice`},
		{"arrangeObjects", `{"objectIds":["sticky-2","conn-4"],"layout":"row"}`, `"conn-4" is a connector`},
		{"arrangeObjects", `{"objectIds":["sticky-2"],"layout":"grid","columns":0}`, "columns must be at least 1"},
		{"arrangeObjects", `{"objectIds":["sticky-2"],"layout":"grid","gap":-1}`, "gap must be a non-negative number"},
		{"arrangeObjects", `{"objectIds":["sticky-3","shape-6"],"layout":"row","x":1.7e308}`, `"shape-6" would end up out of range`},
		{"resizeObject", `{"objectId":"shape-6","width":1.7e308,"height":10}`, "out of range"},
	} {
		t.Run(c.tool+c.args, func(t *testing.T) {
			h := newHarness(t)
			setup(h)
			before := h.board.Objects()
			_, err := h.try(c.tool, c.args)
			wantToolError(t, err, c.want)
			if diff := cmp.Diff(before, h.board.Objects()); diff != "" {
				t.Errorf("a failed call changed the board (-before +after):\n%s", diff)
			}
		})
	}
}

func TestMoveFrameMovesChildren(t *testing.T) {
	h := newHarness(t)
	frame := h.id("createFrame", `{"title":"F","x":0,"y":0,"width":500,"height":500}`)
	in := h.id("createStickyNote", `{"text":"in","x":10,"y":20,"parentId":"frame-1"}`)
	shape := h.id("createShape", `{"type":"rectangle","x":100,"y":100,"width":50,"height":50,"parentId":"frame-1"}`)
	out := h.id("createStickyNote", `{"text":"out","x":1000,"y":0,"width":100,"height":100}`)
	conn := h.id("createConnector", `{"fromId":"`+in+`","toId":"`+out+`"}`)

	got := h.call("moveObject", `{"objectId":"`+frame+`","x":100,"y":-50}`)
	if diff := cmp.Diff(map[string]any{"id": frame, "x": 100.0, "y": -50.0, "width": 500.0, "height": 500.0}, got); diff != "" {
		t.Errorf("moveObject (-want +got):\n%s", diff)
	}
	if o := h.get(in); o.X != 110 || o.Y != -30 {
		t.Errorf("child sticky at (%v,%v), want (110,-30)", o.X, o.Y)
	}
	if o := h.get(shape); o.X != 200 || o.Y != 50 {
		t.Errorf("child shape at (%v,%v), want (200,50)", o.X, o.Y)
	}
	if o := h.get(out); o.X != 1000 || o.Y != 0 {
		t.Errorf("outside sticky moved to (%v,%v)", o.X, o.Y)
	}
	// Centers (210,70) and (1050,50).
	c := h.get(conn)
	if diff := cmp.Diff([4]float64{210, 50, 840, 20}, [4]float64{c.X, c.Y, c.Width, c.Height}); diff != "" {
		t.Errorf("connector geometry (-want +got):\n%s", diff)
	}

	// Moving a child moves only the child; it stays in its frame.
	h.call("moveObject", `{"objectId":"`+in+`","x":0,"y":0}`)
	if o := h.get(in); o.X != 0 || o.Y != 0 || o.ParentID != frame {
		t.Errorf("child after own move: %+v", o)
	}
	if o := h.get(frame); o.X != 100 || o.Y != -50 {
		t.Errorf("frame moved with its child: %+v", o)
	}
}

func TestResize(t *testing.T) {
	h := newHarness(t)
	a := h.id("createStickyNote", `{"text":"a","x":0,"y":0,"width":100,"height":100}`)
	b := h.id("createStickyNote", `{"text":"b","x":300,"y":0,"width":100,"height":100}`)
	conn := h.id("createConnector", `{"fromId":"`+a+`","toId":"`+b+`","style":"line"}`)
	got := h.call("resizeObject", `{"objectId":"`+a+`","width":50,"height":300}`)
	if diff := cmp.Diff(map[string]any{"id": a, "x": 0.0, "y": 0.0, "width": 50.0, "height": 300.0}, got); diff != "" {
		t.Errorf("resizeObject (-want +got):\n%s", diff)
	}
	// Centers (25,150) and (350,50).
	c := h.get(conn)
	if diff := cmp.Diff([4]float64{25, 50, 325, 100}, [4]float64{c.X, c.Y, c.Width, c.Height}); diff != "" {
		t.Errorf("connector geometry (-want +got):\n%s", diff)
	}
}

func TestDeleteCascades(t *testing.T) {
	h := newHarness(t)
	h.call("createStickyNote", `{"text":"outside","x":900,"y":0}`)                                        // sticky-1
	h.call("createFrame", `{"title":"F","x":0,"y":0,"width":500,"height":500}`)                           // frame-2
	h.call("createStickyNote", `{"text":"a","x":10,"y":10,"parentId":"frame-2"}`)                         // sticky-3
	h.call("createConnector", `{"fromId":"sticky-1","toId":"sticky-3"}`)                                  // conn-4
	h.call("createStickyNote", `{"text":"other","x":900,"y":900}`)                                        // sticky-5
	h.call("createConnector", `{"fromId":"sticky-1","toId":"sticky-5"}`)                                  // conn-6
	h.call("createShape", `{"type":"triangle","x":20,"y":300,"width":9,"height":9,"parentId":"frame-2"}`) // shape-7
	h.call("createConnector", `{"fromId":"frame-2","toId":"sticky-5"}`)                                   // conn-8

	got := h.call("deleteObject", `{"objectId":"frame-2"}`)
	want := map[string]any{"id": "frame-2", "deleted": []any{"frame-2", "sticky-3", "shape-7", "conn-4", "conn-8"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deleteObject (-want +got):\n%s", diff)
	}
	var left []string
	for _, o := range h.board.Objects() {
		left = append(left, o.ID)
	}
	if diff := cmp.Diff([]string{"sticky-1", "sticky-5", "conn-6"}, left); diff != "" {
		t.Errorf("left on the board (-want +got):\n%s", diff)
	}

	got = h.call("deleteObject", `{"objectId":"sticky-1"}`)
	if diff := cmp.Diff(map[string]any{"id": "sticky-1", "deleted": []any{"sticky-1", "conn-6"}}, got); diff != "" {
		t.Errorf("deleteObject (-want +got):\n%s", diff)
	}
	// A connector alone.
	x := h.id("createStickyNote", `{"text":"x","x":0,"y":0}`)         // sticky-9
	h.call("createConnector", `{"fromId":"sticky-5","toId":"`+x+`"}`) // conn-10
	got = h.call("deleteObject", `{"objectId":"conn-10"}`)
	if diff := cmp.Diff(map[string]any{"id": "conn-10", "deleted": []any{"conn-10"}}, got); diff != "" {
		t.Errorf("deleteObject (-want +got):\n%s", diff)
	}
	// Ids are never reused after deletion.
	if id := h.id("createStickyNote", `{"text":"new","x":0,"y":0}`); id != "sticky-11" {
		t.Errorf("next id = %q, want sticky-11", id)
	}
}

func TestUpdateTextAndColor(t *testing.T) {
	h := newHarness(t)
	f := h.id("createFrame", `{"title":"F","x":0,"y":0,"width":500,"height":500}`)
	s := h.id("createStickyNote", `{"text":"a","x":0,"y":0}`)
	sh := h.id("createShape", `{"type":"ellipse","x":0,"y":0,"width":5,"height":5}`)
	c := h.id("createConnector", `{"fromId":"`+s+`","toId":"`+sh+`"}`)
	for id, text := range map[string]string{f: "Title", s: "Sticky", sh: "Shape", c: "Label"} {
		if got := h.call("updateText", `{"objectId":"`+id+`","text":"`+text+`"}`); got["id"] != id {
			t.Errorf("updateText result %v", got)
		}
	}
	for _, id := range []string{f, s, sh, c} {
		if got := h.call("changeColor", `{"objectId":"`+id+`","color":"#00aa11"}`); got["id"] != id {
			t.Errorf("changeColor result %v", got)
		}
	}
	h.call("changeColor", `{"objectId":"`+s+`","color":"purple"}`)
	got := []Object{h.get(f), h.get(s), h.get(sh), h.get(c)}
	want := []Object{
		{ID: f, Type: TypeFrame, Width: 500, Height: 500, Title: "Title", Color: "#00aa11"},
		{ID: s, Type: TypeSticky, Width: 200, Height: 200, Text: "Sticky", Color: "purple"},
		{ID: sh, Type: TypeShape, Shape: ShapeEllipse, Width: 5, Height: 5, Text: "Shape", Color: "#00aa11"},
		{ID: c, Type: TypeConnector, FromID: s, ToID: sh, Style: StyleArrow, Label: "Label", Color: "#00aa11", X: 2.5, Y: 2.5, Width: 97.5, Height: 97.5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	// Empty text clears.
	h.call("updateText", `{"objectId":"`+s+`","text":""}`)
	if o := h.get(s); o.Text != "" {
		t.Errorf("text = %q after clearing", o.Text)
	}
}

func TestQueries(t *testing.T) {
	h := newHarness(t)
	h.call("createFrame", `{"title":"Ideas","x":0,"y":0,"width":900,"height":600,"color":"gray"}`) // frame-1
	h.call("createStickyNote", `{"text":"Ship the IDEA","x":10,"y":10,"parentId":"frame-1"}`)      // sticky-2
	h.call("createStickyNote", `{"text":"later","x":300,"y":10,"color":"#AABBCC","parentId":"frame-1"}`)
	h.call("createShape", `{"type":"rectangle","x":0,"y":700,"width":10,"height":10,"text":"box"}`) // shape-4
	h.call("createConnector", `{"fromId":"sticky-2","toId":"shape-4","label":"good idea"}`)         // conn-5
	ids := func(tool, args string) []string {
		t.Helper()
		res, err := h.try(tool, args)
		if err != nil {
			t.Fatalf("%s(%s): %v", tool, args, err)
		}
		var r objectsResult
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatal(err)
		}
		if r.Count != len(r.Objects) {
			t.Errorf("count %d for %d objects", r.Count, len(r.Objects))
		}
		out := []string{}
		for _, o := range r.Objects {
			out = append(out, o.ID)
		}
		return out
	}
	for _, c := range []struct {
		tool, args string
		want       []string
	}{
		{"getBoardState", `{}`, []string{"frame-1", "sticky-2", "sticky-3", "shape-4", "conn-5"}},
		{"getBoardState", `{"type":"sticky"}`, []string{"sticky-2", "sticky-3"}},
		{"getBoardState", `{"parentId":"frame-1"}`, []string{"sticky-2", "sticky-3"}},
		{"getBoardState", `{"type":"shape","parentId":"frame-1"}`, []string{}},
		{"findObjects", `{}`, []string{"frame-1", "sticky-2", "sticky-3", "shape-4", "conn-5"}},
		{"findObjects", `{"text":"idea"}`, []string{"frame-1", "sticky-2", "conn-5"}},
		{"findObjects", `{"text":"IDEA","type":"sticky"}`, []string{"sticky-2"}},
		{"findObjects", `{"color":"#aabbcc"}`, []string{"sticky-3"}},
		{"findObjects", `{"color":"yellow"}`, []string{"sticky-2"}},
		{"findObjects", `{"parentId":"frame-1","text":"LATER"}`, []string{"sticky-3"}},
		{"findObjects", `{"text":"nothing like this"}`, []string{}},
	} {
		if diff := cmp.Diff(c.want, ids(c.tool, c.args)); diff != "" {
			t.Errorf("%s(%s) (-want +got):\n%s", c.tool, c.args, diff)
		}
	}
	// The result carries whole objects.
	res, _ := h.try("getBoardState", `{"type":"connector"}`)
	want := `{"objects":[{"id":"conn-5","type":"connector","x":5,"y":110,"width":105,"height":595,"fromId":"sticky-2","toId":"shape-4","style":"arrow","label":"good idea"}],"count":1}`
	if string(res) != want {
		t.Errorf("getBoardState = %s\nwant %s", res, want)
	}
	// An empty board lists [] rather than null.
	res, _ = newHarness(t).try("getBoardState", `{}`)
	if string(res) != `{"objects":[],"count":0}` {
		t.Errorf("empty board: %s", res)
	}
}

func TestArrange(t *testing.T) {
	type box struct{ X, Y float64 }
	setup := func(h *harness) {
		h.call("createStickyNote", `{"text":"1","x":100,"y":50,"width":100,"height":100}`) // sticky-1
		h.call("createStickyNote", `{"text":"2","x":0,"y":0,"width":50,"height":150}`)     // sticky-2
		h.call("createShape", `{"type":"rectangle","x":0,"y":0,"width":200,"height":40}`)  // shape-3
		h.call("createStickyNote", `{"text":"4","x":0,"y":0,"width":80,"height":80}`)      // sticky-4
		h.call("createStickyNote", `{"text":"5","x":0,"y":0,"width":10,"height":10}`)      // sticky-5
	}
	all := `"sticky-1","sticky-2","shape-3","sticky-4","sticky-5"`
	for _, c := range []struct {
		args string
		want []box
	}{
		// Row, from the first object's position, default gap 20.
		{`{"objectIds":[` + all + `],"layout":"row"}`,
			[]box{{100, 50}, {220, 50}, {290, 50}, {510, 50}, {610, 50}}},
		{`{"objectIds":[` + all + `],"layout":"column","x":0,"y":0,"gap":0}`,
			[]box{{0, 0}, {0, 100}, {0, 250}, {0, 290}, {0, 370}}},
		// Grid, default ceil(sqrt(5)) = 3 columns: columns 100/50/200 wide
		// (the widest in each), rows 150/80 tall (the tallest in each).
		{`{"objectIds":[` + all + `],"layout":"grid","x":0,"y":0,"gap":10}`,
			[]box{{0, 0}, {110, 0}, {170, 0}, {0, 160}, {110, 160}}},
		// Two columns, 200/80 wide; rows 150/80/10 tall.
		{`{"objectIds":[` + all + `],"layout":"grid","columns":2,"x":0,"y":0}`,
			[]box{{0, 0}, {220, 0}, {0, 170}, {220, 170}, {0, 270}}},
		// More columns than objects: one row.
		{`{"objectIds":["sticky-2","sticky-1"],"layout":"grid","columns":9}`,
			[]box{{0, 0}, {70, 0}}},
		// Columns are ignored for row.
		{`{"objectIds":["sticky-5","sticky-4"],"layout":"row","columns":1,"y":7}`,
			[]box{{0, 7}, {30, 7}}},
	} {
		h := newHarness(t)
		setup(h)
		res, err := h.try("arrangeObjects", c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		var r arrangeResult
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatal(err)
		}
		var got []box
		for _, o := range r.Objects {
			got = append(got, box{o.X, o.Y})
			if b := h.get(o.ID); b != o {
				t.Errorf("result %+v differs from the board's %+v", o, b)
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.args, diff)
		}
	}
}

func TestArrangeFrames(t *testing.T) {
	h := newHarness(t)
	h.call("createFrame", `{"title":"A","x":0,"y":0,"width":300,"height":300}`)        // frame-1
	h.call("createStickyNote", `{"text":"a","x":10,"y":10,"parentId":"frame-1"}`)      // sticky-2
	h.call("createFrame", `{"title":"B","x":1000,"y":1000,"width":300,"height":300}`)  // frame-3
	h.call("createStickyNote", `{"text":"b","x":1010,"y":1010,"parentId":"frame-3"}`)  // sticky-4
	h.call("createStickyNote", `{"text":"b2","x":1050,"y":1050,"parentId":"frame-3"}`) // sticky-5
	h.call("createConnector", `{"fromId":"sticky-2","toId":"sticky-4"}`)               // conn-6
	res := h.call("arrangeObjects", `{"objectIds":["frame-1","frame-3","sticky-5"],"layout":"row","gap":100}`)
	if n := len(res["objects"].([]any)); n != 3 {
		t.Errorf("result lists %d objects, want the 3 arranged", n)
	}
	// frame-3 moves by (-600,-1000) and takes sticky-4 along; sticky-5 is
	// listed and gets its own slot instead.
	got := map[string][2]float64{}
	for _, o := range h.board.Objects() {
		got[o.ID] = [2]float64{o.X, o.Y}
	}
	want := map[string][2]float64{
		"frame-1": {0, 0}, "sticky-2": {10, 10},
		"frame-3": {400, 0}, "sticky-4": {410, 10},
		"sticky-5": {800, 0},
		"conn-6":   {110, 110}, // centers (110,110) and (510,110)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

func TestConcurrentCalls(t *testing.T) {
	h := newHarness(t)
	const goroutines, each = 8, 50
	var wg sync.WaitGroup
	ids := make(chan string, goroutines*each)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				res, err := h.tools["createStickyNote"].Handler(context.Background(),
					json.RawMessage(fmt.Sprintf(`{"text":"g%d n%d","x":%d,"y":%d}`, g, i, i, g)))
				if err != nil {
					t.Error(err)
					return
				}
				var p placement
				if err := json.Unmarshal(res, &p); err != nil {
					t.Error(err)
					return
				}
				ids <- p.ID
				// Reads and moves interleave with the writes.
				if _, err := h.tools["getBoardState"].Handler(context.Background(), json.RawMessage(`{"type":"sticky"}`)); err != nil {
					t.Error(err)
				}
				if _, err := h.tools["moveObject"].Handler(context.Background(),
					json.RawMessage(`{"objectId":"`+p.ID+`","x":1,"y":2}`)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		if seen[id] {
			t.Errorf("id %q handed out twice", id)
		}
		seen[id] = true
	}
	if n := len(h.board.Objects()); n != goroutines*each || len(seen) != n {
		t.Errorf("%d objects, %d distinct ids, want %d", n, len(seen), goroutines*each)
	}
}

func TestContextScoping(t *testing.T) {
	def := NewBoard()
	tools := map[string]engine.Tool{}
	for _, tool := range Tools(def) {
		tools[tool.Name] = tool
	}
	a, b := NewBoard(), NewBoard()
	ctxA, ctxB := NewContext(context.Background(), a), NewContext(context.Background(), b)
	create := func(ctx context.Context, text string) string {
		t.Helper()
		res, err := tools["createStickyNote"].Handler(ctx, json.RawMessage(`{"text":"`+text+`","x":0,"y":0}`))
		if err != nil {
			t.Fatal(err)
		}
		return string(res)
	}
	create(ctxA, "a1")
	create(ctxA, "a2")
	create(ctxB, "b1")
	create(context.Background(), "default")

	texts := func(board *Board) []string {
		var out []string
		for _, o := range board.Objects() {
			out = append(out, o.ID+":"+o.Text)
		}
		return out
	}
	if diff := cmp.Diff([]string{"sticky-1:a1", "sticky-2:a2"}, texts(a)); diff != "" {
		t.Errorf("board a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"sticky-1:b1"}, texts(b)); diff != "" {
		t.Errorf("board b (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"sticky-1:default"}, texts(def)); diff != "" {
		t.Errorf("default board (-want +got):\n%s", diff)
	}
	// An id of another board is unknown here.
	_, err := tools["deleteObject"].Handler(ctxB, json.RawMessage(`{"objectId":"sticky-2"}`))
	wantToolError(t, err, `no object with id "sticky-2"`)

	if got, ok := FromContext(ctxA); !ok || got != a {
		t.Errorf("FromContext = %p, %v", got, ok)
	}
	if _, ok := FromContext(NewContext(context.Background(), nil)); ok {
		t.Errorf("FromContext reports a nil board")
	}

	// No board at all.
	for _, tool := range Tools(nil) {
		_, err := tool.Handler(context.Background(), json.RawMessage(`{}`))
		wantToolError(t, err, "no board")
	}
}

func TestCanceledContext(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := h.tools["createStickyNote"].Handler(ctx, json.RawMessage(`{"text":"late","x":0,"y":0}`))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if n := len(h.board.Objects()); n != 0 {
		t.Errorf("a canceled call changed the board: %d objects", n)
	}
}

func TestBadJSONArgs(t *testing.T) {
	h := newHarness(t)
	_, err := h.try("createStickyNote", `{"text":1}`)
	if !errors.Is(err, engine.ErrInvalidArgs) {
		t.Errorf("error = %v, want invalid_args", err)
	}
}

// A tool of another set named like a whiteboard tool is reported as clashing
// with the whiteboard, naming where the other came from.
func TestNameClashNamesTheWhiteboard(t *testing.T) {
	other := engine.Tool{Name: "createFrame", Origin: "wasm-tools/frame.json", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
	_, err := engine.NewBuilder().Add(Tools(NewBoard())...).Add(other).Build()
	want := `tool "createFrame" from wasm-tools/frame.json is already defined (the whiteboard)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Build: %v\nwant it to say %s", err, want)
	}
}
