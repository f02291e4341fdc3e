package whiteboard

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHostileLongTexts: a text, title, label or text filter over
// MaxTextLength characters is a tool_error from the handler itself (a
// board used from Go, without the engine's schema check), and the board is
// unchanged. Exactly MaxTextLength characters are fine, however many bytes
// they take.
func TestHostileLongTexts(t *testing.T) {
	h := sample(t)
	before := h.board.Objects()
	long := strings.Repeat("x", MaxTextLength+1)
	for _, c := range []struct{ tool, args, want string }{
		{"createStickyNote", `{"text":%q,"x":0,"y":0}`, "text is 10001 characters, more than the 10000 allowed; shorten it or spread it over several objects"},
		{"createShape", `{"type":"rectangle","text":%q,"x":0,"y":0,"width":1,"height":1}`, "text is 10001 characters"},
		{"createFrame", `{"title":%q,"x":0,"y":0,"width":1,"height":1}`, "title is 10001 characters"},
		{"createConnector", `{"fromId":"sticky-2","toId":"sticky-4","label":%q}`, "label is 10001 characters"},
		{"updateText", `{"objectId":"sticky-2","text":%q}`, "text is 10001 characters"},
		{"findObjects", `{"text":%q}`, "text is 10001 characters"},
	} {
		_, err := h.try(c.tool, fmt.Sprintf(c.args, long))
		wantToolError(t, err, c.want)
	}
	if diff := cmp.Diff(before, h.board.Objects()); diff != "" {
		t.Errorf("refused calls changed the board (-before +after):\n%s", diff)
	}
	// Characters, not bytes: 10000 two-byte letters are allowed.
	most := strings.Repeat("é", MaxTextLength)
	id := h.id("createStickyNote", fmt.Sprintf(`{"text":%q,"x":0,"y":0}`, most))
	h.call("updateText", fmt.Sprintf(`{"objectId":%q,"text":%q}`, id, most))
}

// TestHostileLongIDs: an id argument over MaxIDLength is refused without
// being repeated in the message.
func TestHostileLongIDs(t *testing.T) {
	h := sample(t)
	long := strings.Repeat("i", MaxIDLength+1)
	for _, c := range []struct{ tool, args, want string }{
		{"moveObject", `{"objectId":%q,"x":0,"y":0}`, "objectId is 201 characters, more than the 200 an id may have"},
		{"createStickyNote", `{"text":"t","x":0,"y":0,"parentId":%q}`, "parentId is 201 characters"},
		{"createConnector", `{"fromId":%q,"toId":"sticky-2"}`, "fromId is 201 characters"},
		{"getBoardState", `{"parentId":%q}`, "parentId is 201 characters"},
		{"arrangeObjects", `{"objectIds":[%q],"layout":"row"}`, "objectId is 201 characters"},
	} {
		_, err := h.try(c.tool, fmt.Sprintf(c.args, long))
		wantToolError(t, err, c.want)
		if strings.Contains(err.Error(), long) {
			t.Errorf("%s: the message repeats the id: %.300v", c.tool, err)
		}
	}
}

// fullBoard is a board of n stickies (and the harness on it).
func fullBoard(t *testing.T, n int) *harness {
	t.Helper()
	h := newHarness(t)
	objs := make([]Object, n)
	for i := range objs {
		objs[i] = Object{ID: fmt.Sprintf("s%d", i), Type: TypeSticky, Width: 1, Height: 1}
	}
	if err := h.board.Restore(objs); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestHostileTooManyObjects: past MaxObjects, creating is a tool_error
// (catchable, unlike limit_exceeded) that says what to do; deleting makes
// room again.
func TestHostileTooManyObjects(t *testing.T) {
	h := fullBoard(t, MaxObjects-1)
	h.call("createFrame", `{"title":"last","x":0,"y":0,"width":1,"height":1}`)
	for _, c := range []struct{ tool, args string }{
		{"createStickyNote", `{"text":"t","x":0,"y":0}`},
		{"createShape", `{"type":"ellipse","x":0,"y":0,"width":1,"height":1}`},
		{"createFrame", `{"title":"t","x":0,"y":0,"width":1,"height":1}`},
		{"createConnector", `{"fromId":"s0","toId":"s1"}`},
	} {
		_, err := h.try(c.tool, c.args)
		wantToolError(t, err, "a board holds at most 5000 objects; delete some first")
	}
	if n := len(h.board.Objects()); n != MaxObjects {
		t.Fatalf("%d objects, want %d", n, MaxObjects)
	}
	h.call("deleteObject", `{"objectId":"s0"}`)
	h.call("createConnector", `{"fromId":"s1","toId":"s2"}`)
}

// TestLoadRefusesOverLimits: a board document over the limits does not
// load (Load, UnmarshalJSON, Restore), with every problem by its path, and
// the board is unchanged.
func TestLoadRefusesOverLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	sticky := func(id, text string) string {
		return fmt.Sprintf(`{"id":%q,"type":"sticky","x":0,"y":0,"width":1,"height":1,"text":%q}`, id, text)
	}
	many := make([]string, MaxObjects+1)
	for i := range many {
		many[i] = sticky(fmt.Sprint(i), "")
	}
	for _, c := range []struct{ doc, want string }{
		{`{"objects":[` + strings.Join(many, ",") + `]}`, "objects: 5001 objects, more than the 5000 a board holds"},
		{`{"objects":[` + sticky("a", long(MaxTextLength+1)) + `]}`, "objects[0].text: 10001 characters, more than the 10000 allowed"},
		{`{"objects":[` + sticky(long(MaxIDLength+1), "") + `]}`, "objects[0].id: 201 characters, more than the 200 allowed"},
		{`{"objects":[{"id":"f","type":"frame","x":0,"y":0,"width":1,"height":1,"title":"` + long(MaxTextLength+1) + `"}]}`, "objects[0].title: 10001 characters, more than the 10000 allowed"},
		{`{"objects":[` + sticky("a", "") + `,` + sticky("b", "") + `,{"id":"c","type":"connector","fromId":"a","toId":"b","label":"` + long(MaxTextLength+1) + `"}]}`, "objects[2].label: 10001 characters, more than the 10000 allowed"},
	} {
		b := sample(t).board
		before := b.Objects()
		if err := b.UnmarshalJSON([]byte(c.doc)); err == nil || err.Error() != "whiteboard: "+c.want {
			t.Errorf("UnmarshalJSON(%.100s…)\n got %.300v\nwant whiteboard: %s", c.doc, err, c.want)
		}
		if diff := cmp.Diff(before, b.Objects()); diff != "" {
			t.Errorf("a refused document changed the board (-before +after):\n%s", diff)
		}
	}
	// The most a board may hold loads, and Restore refuses one more.
	h := fullBoard(t, MaxObjects)
	objs := append(h.board.Objects(), Object{ID: "one-more", Type: TypeSticky, Width: 1, Height: 1})
	if err := h.board.Restore(objs); err == nil || !strings.Contains(err.Error(), "5001 objects") {
		t.Errorf("Restore of %d objects = %v", len(objs), err)
	}
}

// TestSchemasStateTheLimits: every text and id the tools take carries the
// limit the handlers check, so that a model sees it (and the engine checks
// it before the handler runs).
func TestSchemasStateTheLimits(t *testing.T) {
	want := map[string]float64{
		"text": MaxTextLength, "title": MaxTextLength, "label": MaxTextLength,
		"objectId": MaxIDLength, "parentId": MaxIDLength, "fromId": MaxIDLength, "toId": MaxIDLength,
	}
	seen := map[string]bool{}
	for _, tool := range Tools(nil) {
		var s struct {
			Properties map[string]struct {
				Type      string   `json:"type"`
				MaxLength *float64 `json:"maxLength"`
				MaxItems  *float64 `json:"maxItems"`
				Items     *struct {
					MaxLength *float64 `json:"maxLength"`
				} `json:"items"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		for name, p := range s.Properties {
			if name == "objectIds" {
				seen[name] = true
				if p.MaxItems == nil || *p.MaxItems != MaxObjects || p.Items == nil || p.Items.MaxLength == nil || *p.Items.MaxLength != MaxIDLength {
					t.Errorf("%s.%s: maxItems %v, items %+v; want %d items of at most %d characters", tool.Name, name, p.MaxItems, p.Items, MaxObjects, MaxIDLength)
				}
				continue
			}
			limit, ok := want[name]
			if !ok {
				continue
			}
			seen[name] = true
			if p.MaxLength == nil || *p.MaxLength != limit {
				t.Errorf("%s.%s: maxLength %v, want %v", tool.Name, name, p.MaxLength, limit)
			}
		}
	}
	if len(seen) != len(want)+1 {
		t.Errorf("only %v seen", seen)
	}
}
