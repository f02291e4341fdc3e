package whiteboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codemode-dev/codemode/internal/strictjson"
	"github.com/google/go-cmp/cmp"
)

// sample builds a board with one of everything through the tools.
func sample(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t)
	h.call("createFrame", `{"title":"Retro","x":0,"y":0,"width":900,"height":600,"color":"gray"}`)
	h.call("createStickyNote", `{"text":"Went well","x":20,"y":60,"parentId":"frame-1"}`)
	h.call("createShape", `{"type":"triangle","x":400,"y":60,"width":80,"height":60,"text":"!","parentId":"frame-1"}`)
	h.call("createStickyNote", `{"text":"Outside","x":1000,"y":0,"color":"#336699"}`)
	h.call("createConnector", `{"fromId":"sticky-2","toId":"sticky-4","style":"both","label":"see"}`)
	return h
}

func TestJSONRoundTrip(t *testing.T) {
	h := sample(t)
	data, err := json.Marshal(h.board)
	if err != nil {
		t.Fatal(err)
	}
	// The board document is getBoardState's result without the count.
	state, _ := h.try("getBoardState", `{}`)
	var withCount map[string]json.RawMessage
	if err := json.Unmarshal(state, &withCount); err != nil {
		t.Fatal(err)
	}
	if string(withCount["objects"]) != strings.TrimSuffix(strings.TrimPrefix(string(data), `{"objects":`), "}") {
		t.Errorf("board JSON %s\ndiffers from getBoardState %s", data, state)
	}

	var b Board // the zero value is usable
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h.board.Objects(), b.Objects()); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// getBoardState's result itself, count included, loads too.
	if err := NewBoard().UnmarshalJSON(state); err != nil {
		t.Errorf("loading getBoardState's result: %v", err)
	}

	// New ids continue after the loaded ones.
	tools := Tools(&b)
	res, err := tools[0].Handler(t.Context(), json.RawMessage(`{"text":"new","x":0,"y":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"id":"sticky-6"`) {
		t.Errorf("after load, created %s, want sticky-6", res)
	}

	var empty bytes.Buffer
	if err := NewBoard().Save(&empty); err != nil {
		t.Fatal(err)
	}
	if empty.String() != "{\n  \"objects\": []\n}\n" {
		t.Errorf("empty board saves as %q", empty.String())
	}
}

func TestSaveLoad(t *testing.T) {
	h := sample(t)
	var buf bytes.Buffer
	if err := h.board.Save(&buf); err != nil {
		t.Fatal(err)
	}
	b := NewBoard()
	if err := b.Load(&buf); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h.board.Objects(), b.Objects()); diff != "" {
		t.Errorf("Save/Load (-want +got):\n%s", diff)
	}
}

// TestLoadForeignIDs loads a hand-written board: ids that are not the
// board's own, connector geometry left out (it is computed).
func TestLoadForeignIDs(t *testing.T) {
	doc := `{"objects":[
		{"id":"f1","type":"frame","x":0,"y":0,"width":100,"height":100,"title":"T"},
		{"id":"a","type":"sticky","x":0,"y":0,"width":10,"height":10,"parentId":"f1"},
		{"id":"sticky-1","type":"sticky","x":90,"y":90,"width":10,"height":10},
		{"id":"c","type":"connector","fromId":"a","toId":"sticky-1"}]}`
	b := NewBoard()
	if err := b.Load(strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	c, _ := b.Get("c")
	if diff := cmp.Diff([4]float64{5, 5, 90, 90}, [4]float64{c.X, c.Y, c.Width, c.Height}); diff != "" {
		t.Errorf("connector geometry (-want +got):\n%s", diff)
	}
	res, err := Tools(b)[0].Handler(t.Context(), json.RawMessage(`{"text":"new","x":0,"y":0}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `"id":"sticky-2"`) {
		t.Errorf("created %s, want sticky-2", res)
	}
	// Any loaded "name-N" id moves the counter past N, whatever the name.
	b2 := NewBoard()
	if err := b2.Load(strings.NewReader(`{"objects":[{"id":"x-7","type":"sticky","x":0,"y":0,"width":1,"height":1}]}`)); err != nil {
		t.Fatal(err)
	}
	res, _ = Tools(b2)[0].Handler(t.Context(), json.RawMessage(`{"text":"new","x":0,"y":0}`))
	if !strings.Contains(string(res), `"id":"sticky-8"`) {
		t.Errorf("created %s, want sticky-8", res)
	}
}

func TestLoadInvalid(t *testing.T) {
	const (
		frame  = `{"id":"f","type":"frame","x":0,"y":0,"width":10,"height":10}`
		sticky = `{"id":"s","type":"sticky","x":0,"y":0,"width":10,"height":10}`
	)
	for _, c := range []struct{ doc, want string }{
		{`[]`, "want an object, got an array"},
		{`{"objects":[` + sticky + `]} {}`, "unexpected data after the JSON value, at line 1, column 77"},
		{`{"objects":[]}]`, "unexpected data after the JSON value, at line 1, column 15"},
		{`{"objects":[]}}`, "unexpected data after the JSON value, at line 1, column 15"},
		{`{"objects":[`, "malformed JSON: unexpected end of input"},
		{`{"objects":[], "extra":1}`, `extra: unknown field (the fields here are objects, count)`},
		{`{"objects":[], "objects":[]}`, `objects: given twice`},
		{`{"objects":{}}`, `objects: want an array, got an object`},
		{`{"objects":[{"id":"s","type":"note","x":0,"y":0,"width":1,"height":1}]}`, `objects[0].type: unknown type "note" (want one of sticky, shape, frame, connector)`},
		{`{"objects":[{"id":"s","x":0,"y":0,"width":1,"height":1}]}`, `objects[0].type: missing (want one of sticky, shape, frame, connector)`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":1,"height":1,"colour":"red"}]}`, `objects[0].colour: unknown field (did you mean "color"?)`},
		{`{"objects":[` + sticky + `,` + sticky + `]}`, `objects[1].id: duplicate id "s" (also objects[0])`},
		{`{"objects":[{"type":"sticky","x":0,"y":0,"width":1,"height":1}]}`, "objects[0].id: missing (every object needs an id)"},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":0,"height":1}]}`, `objects[0].width: must be positive, got 0`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0}]}`, `objects[0].width: must be positive, got 0; objects[0].height: must be positive, got 0`},
		{`{"objects":[{"id":"s","type":"sticky","x":1e999,"y":0,"width":1,"height":1}]}`, "objects[0].x: 1e999 is out of range"},
		{`{"objects":[{"id":"s","type":"sticky","x":1.7e308,"y":0,"width":1e308,"height":1}]}`, `objects[0]: geometry out of range: x + width or y + height is too large`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":1,"height":1,"parentId":"f"}]}`, `objects[0].parentId: no object with id "f"`},
		{`{"objects":[` + sticky + `,{"id":"t","type":"sticky","x":0,"y":0,"width":1,"height":1,"parentId":"s"}]}`, `objects[1].parentId: "s" is a sticky, not a frame`},
		{`{"objects":[` + frame + `,{"id":"g","type":"frame","x":0,"y":0,"width":1,"height":1,"parentId":"f"}]}`, `objects[1].parentId: a frame has no parentId`},
		{`{"objects":[{"id":"f","type":"frame","x":0,"y":0,"width":1,"height":1,"text":"oops"}]}`, `objects[0].text: a frame has no text`},
		{`{"objects":[{"id":"s","type":"shape","x":0,"y":0,"width":1,"height":1}]}`, `objects[0].shape: missing (a shape needs one of rectangle, ellipse, diamond, triangle)`},
		{`{"objects":[{"id":"s","type":"shape","shape":"star","x":0,"y":0,"width":1,"height":1}]}`, `objects[0].shape: must be one of rectangle, ellipse, diamond, triangle, got "star"`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":1,"height":1,"color":"mauve"}]}`, `objects[0].color: invalid color "mauve": use one of yellow, pink, green, blue, orange, purple, red, gray, white, or #rrggbb`},
		{`{"objects":[` + sticky + `,{"id":"c","type":"connector","fromId":"s","toId":"zz"}]}`, `objects[1].toId: no object with id "zz"`},
		{`{"objects":[` + sticky + `,{"id":"c","type":"connector","fromId":"s"}]}`, `objects[1].toId: missing (a connector needs toId)`},
		{`{"objects":[` + sticky + `,{"id":"c","type":"connector","fromId":"s","toId":"s"}]}`, `objects[1].toId: cannot connect "s" to itself`},
		{`{"objects":[` + sticky + `,` + frame + `,{"id":"c","type":"connector","fromId":"s","toId":"f","style":"dashed"}]}`, `objects[2].style: must be one of line, arrow, both, got "dashed"`},
		{`{"objects":[` + sticky + `,` + frame + `,{"id":"c","type":"connector","fromId":"s","toId":"f"},{"id":"d","type":"connector","fromId":"s","toId":"c"}]}`, `objects[3].toId: "c" is a connector; connectors join stickies, shapes and frames`},
		{`{"objects":[` + sticky + `,` + frame + `,{"id":"c","type":"connector","fromId":"s","toId":"f","parentId":"f"}]}`, `objects[2].parentId: a connector has no parentId`},
		{`{"objects":[{"id":"a","type":"sticky","x":-1.7e308,"y":0,"width":1,"height":1},{"id":"b","type":"sticky","x":1.7e308,"y":0,"width":1,"height":1},{"id":"c","type":"connector","fromId":"a","toId":"b"}]}`, `objects[2]: geometry out of range: its ends are too far apart`},
	} {
		b := sample(t).board
		before := b.Objects()
		err := b.Load(strings.NewReader(c.doc))
		if err == nil || err.Error() != "whiteboard: "+c.want {
			t.Errorf("Load(%s)\n got %v\nwant whiteboard: %s", c.doc, err, c.want)
		}
		if diff := cmp.Diff(before, b.Objects()); diff != "" {
			t.Errorf("a failed Load changed the board (-before +after):\n%s", diff)
		}
	}
	// Non-finite numbers cannot come from JSON, but can from Go.
	err := NewBoard().Restore([]Object{{ID: "s", Type: TypeSticky, X: math.NaN(), Width: 1, Height: 1}})
	if err == nil || err.Error() != "whiteboard: objects[0].x: must be a finite number, got NaN" {
		t.Errorf("Restore(NaN) = %v", err)
	}
}

// A board file is decoded strictly, like every JSON document codemode
// reads: every problem at once, each with its path, in JSON's terms (it
// reported the first only, in Go's: "cannot unmarshal string into Go struct
// field Object.objects.x of type float64"). A problem is not reported again
// in other words: x that is not a number is not also out of range.
func TestLoadReportsEveryProblem(t *testing.T) {
	doc := `{"objects":[
		{"id":"a","type":"sticky","x":"10","y":0,"width":"wide","height":1,"colour":"red"},
		{"id":"a","type":"frame","x":0,"y":0,"width":1,"height":1,"text":"t","color":"teal"},
		{"id":5,"type":"shape","shape":"star","x":0,"y":0,"width":1,"height":-1},
		{"id":"c","type":"connector","fromId":"a","toId":"zz","style":true}
	],"count":"4"}`
	err := NewBoard().Load(strings.NewReader(doc))
	want := []string{
		`objects[0].x: want a number, got the string "10"`,
		`objects[0].width: want a number, got the string "wide"`,
		`objects[0].colour: unknown field (did you mean "color"?)`,
		`objects[2].id: want a string, got the number 5`,
		`objects[3].style: want a string, got true`,
		`count: want an integer, got the string "4"`,
		`objects[1].id: duplicate id "a" (also objects[0])`,
		`objects[1].text: a frame has no text`,
		`objects[1].color: invalid color "teal": use one of yellow, pink, green, blue, orange, purple, red, gray, white, or #rrggbb`,
		`objects[2].shape: must be one of rectangle, ellipse, diamond, triangle, got "star"`,
		`objects[2].height: must be positive, got -1`,
		`objects[3].toId: no object with id "zz"`,
	}
	if err == nil {
		t.Fatal("accepted")
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimPrefix(err.Error(), "whiteboard: "), "; ")); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// Every problem is an error of its own for errors.As.
	var se *strictjson.Error
	if !errors.As(err, &se) || len(se.Problems) != len(want) {
		t.Errorf("%#v, want a *strictjson.Error", err)
	}
}

// The example of docs/whiteboard.md ("Board JSON format") says what Load says.
func TestLoadDocumentedExample(t *testing.T) {
	doc := `{"objects": [
  {"id": "a", "type": "sticky", "x": "10", "y": 0, "width": 1, "height": 1, "colour": "red"},
  {"id": "a", "type": "frame", "x": 0, "y": 0, "width": 1, "height": 1, "text": "t"}
]}`
	want := `whiteboard: objects[0].x: want a number, got the string "10"; objects[0].colour: unknown field (did you mean "color"?); objects[1].id: duplicate id "a" (also objects[0]); objects[1].text: a frame has no text`
	if err := NewBoard().Load(strings.NewReader(doc)); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// A long value is shown by its first 200 characters; an id over
// MaxIDLength is not shown at all.
func TestLoadQuotesLongValuesInPart(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	doc := `{"objects":[{"id":"` + long + `","type":"` + long + `"},{"id":"s","type":"sticky","width":1,"height":1,"color":"` + long + `"}]}`
	err := NewBoard().Load(strings.NewReader(doc))
	x200 := `"` + strings.Repeat("x", 200) + `…"`
	want := `whiteboard: objects[0].id: 100000 characters, more than the 200 allowed; objects[0].type: unknown type ` + x200 + ` (want one of sticky, shape, frame, connector); objects[1].color: invalid color ` + x200 + `: use one of yellow, pink, green, blue, orange, purple, red, gray, white, or #rrggbb`
	if err == nil || err.Error() != want {
		t.Errorf("got  %.600v\nwant %s", err, want)
	}
}

func TestSnapshotRestore(t *testing.T) {
	h := sample(t)
	snap := h.board.Snapshot()
	h.call("deleteObject", `{"objectId":"frame-1"}`)
	h.call("moveObject", `{"objectId":"sticky-4","x":5,"y":5}`)
	h.call("createStickyNote", `{"text":"during the failed run","x":0,"y":0}`) // sticky-6
	if err := h.board.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snap, h.board.Objects()); diff != "" {
		t.Errorf("after Restore (-want +got):\n%s", diff)
	}
	// Ids handed out after the snapshot are not handed out again.
	if id := h.id("createStickyNote", `{"text":"next","x":0,"y":0}`); id != "sticky-7" {
		t.Errorf("next id = %q, want sticky-7", id)
	}
	// The snapshot is a copy.
	snap[0].Title = "changed"
	if o := h.get("frame-1"); o.Title != "Retro" {
		t.Errorf("changing a snapshot changed the board")
	}
}

func TestClone(t *testing.T) {
	h := sample(t)
	c := h.board.Clone()
	if diff := cmp.Diff(h.board.Objects(), c.Objects()); diff != "" {
		t.Errorf("clone (-want +got):\n%s", diff)
	}
	h.call("moveObject", `{"objectId":"frame-1","x":500,"y":500}`)
	if o, _ := c.Get("sticky-2"); o.X != 20 {
		t.Errorf("moving on the original moved the clone")
	}
	// Both continue the same id sequence, independently.
	res, _ := Tools(c)[0].Handler(t.Context(), json.RawMessage(`{"text":"x","x":0,"y":0}`))
	if !strings.Contains(string(res), `"sticky-6"`) {
		t.Errorf("clone created %s, want sticky-6", res)
	}
	if id := h.id("createStickyNote", `{"text":"y","x":0,"y":0}`); id != "sticky-6" {
		t.Errorf("original created %q, want sticky-6", id)
	}
}

func TestValidColor(t *testing.T) {
	for c, want := range map[string]bool{
		"yellow": true, "pink": true, "green": true, "blue": true, "orange": true, "purple": true,
		"red": true, "gray": true, "white": true, "#000000": true, "#AbCdEf": true,
		"": false, "black": false, "grey": false, "Yellow": false, "#fff": false, "#gggggg": false,
		"#+12345": false, "#0x1234": false, "#1234567": false, "000000": false,
	} {
		if got := ValidColor(c); got != want {
			t.Errorf("ValidColor(%q) = %v", c, got)
		}
	}
}

func TestZeroBoard(t *testing.T) {
	var b Board
	if data, _ := json.Marshal(&b); string(data) != `{"objects":[]}` {
		t.Errorf("zero board JSON = %s", data)
	}
	res, err := Tools(&b)[0].Handler(t.Context(), json.RawMessage(`{"text":"x","x":0,"y":0}`))
	if err != nil || !strings.Contains(string(res), `"sticky-1"`) {
		t.Errorf("create on a zero board: %s, %v", res, err)
	}
}

// An empty document, as in a file just made with touch, is an empty board
// (it failed with "whiteboard: EOF").
func TestLoadEmpty(t *testing.T) {
	for _, doc := range []string{"", " \n\t\n"} {
		b := sample(t).board
		if err := b.Load(strings.NewReader(doc)); err != nil {
			t.Errorf("Load(%q) = %v, want an empty board", doc, err)
		}
		if n := len(b.Objects()); n != 0 {
			t.Errorf("Load(%q) left %d objects", doc, n)
		}
	}
	path := filepath.Join(t.TempDir(), "board.json")
	writeFile(t, path, "", 0o644)
	b := NewBoard()
	if err := b.LoadFile(path); err != nil || len(b.Objects()) != 0 {
		t.Errorf("LoadFile(empty file) = %v, %d objects; want an empty board", err, len(b.Objects()))
	}
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // WriteFile's mode is masked by the umask
		t.Fatal(err)
	}
}

// readBoard loads a board file into a fresh board.
func readBoard(t *testing.T, path string) []Object {
	t.Helper()
	b := NewBoard()
	if err := b.LoadFile(path); err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	return b.Objects()
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	err := NewBoard().LoadFile(filepath.Join(dir, "missing.json"))
	var fe *FileError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &fe) || fe.Path != filepath.Join(dir, "missing.json") {
		t.Errorf("missing file: %v, want a FileError wrapping fs.ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad.json")
	writeFile(t, bad, `{"objects":[{"id":"x","type":"blob"},{"id":"x","type":"sticky","width":1,"height":1}]}`, 0o644)
	want := "whiteboard: " + bad + `: objects[0].type: unknown type "blob" (want one of sticky, shape, frame, connector); ` +
		`objects[1].id: duplicate id "x" (also objects[0])`
	if err := NewBoard().LoadFile(bad); err == nil || err.Error() != want || !errors.As(err, &fe) || fe.Path != bad {
		t.Errorf("bad board: %v, want %q", err, want)
	}
	writeFile(t, bad, `{"objects":[]}]`, 0o644)
	want = "whiteboard: " + bad + ": unexpected data after the JSON value, at line 1, column 15"
	if err := NewBoard().LoadFile(bad); err == nil || err.Error() != want {
		t.Errorf("trailing data: %v, want %q", err, want)
	}
}

// noTemps fails if a save left a temporary file in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestSaveFile(t *testing.T) {
	h := sample(t)
	t.Run("new file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "board.json")
		if err := h.board.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(h.board.Objects(), readBoard(t, path)); diff != "" {
			t.Errorf("saved (-want +got):\n%s", diff)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
			t.Errorf("new file mode %v, want 0644", fi.Mode().Perm())
		}
		noTemps(t, dir)
	})
	t.Run("keeps the mode", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "board.json")
		writeFile(t, path, "", 0o640)
		if err := h.board.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v after the save, want 0640", fi.Mode().Perm())
		}
		noTemps(t, dir)
	})
	// A board that is a symbolic link stays one: its target is written (it
	// was replaced by a file).
	t.Run("symbolic link", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "boards"), 0o755); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, "boards", "real.json")
		writeFile(t, target, `{"objects":[]}`, 0o600)
		link := filepath.Join(dir, "board.json")
		if err := os.Symlink(filepath.Join("boards", "real.json"), link); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
		chain := filepath.Join(dir, "chain.json") // a link to the link
		os.Symlink("board.json", chain)
		if err := CheckFile(chain); err != nil {
			t.Fatalf("CheckFile: %v", err)
		}
		if err := h.board.SaveFile(chain); err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{link, chain} {
			if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s is no longer a symbolic link (%v)", l, err)
			}
		}
		if diff := cmp.Diff(h.board.Objects(), readBoard(t, target)); diff != "" {
			t.Errorf("target (-want +got):\n%s", diff)
		}
		if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
			t.Errorf("target mode %v, want 0600", fi.Mode().Perm())
		}
		noTemps(t, dir)
		noTemps(t, filepath.Join(dir, "boards"))

		// A dangling link makes its target.
		dangling := filepath.Join(dir, "dangling.json")
		os.Symlink(filepath.Join("boards", "new.json"), dangling)
		if err := CheckFile(dangling); err != nil {
			t.Fatalf("CheckFile(dangling link): %v", err)
		}
		if err := h.board.SaveFile(dangling); err != nil {
			t.Fatal(err)
		}
		if len(readBoard(t, filepath.Join(dir, "boards", "new.json"))) != len(h.board.Objects()) {
			t.Error("the dangling link's target was not written")
		}
		loop := filepath.Join(dir, "loop.json")
		os.Symlink("loop.json", loop)
		if err := CheckFile(loop); err == nil || !strings.Contains(err.Error(), "too many levels of symbolic links") {
			t.Errorf("CheckFile(link loop) = %v", err)
		}
	})
}

// A file or place the board cannot be saved to is refused by CheckFile and
// SaveFile alike, and nothing is changed (a read-only board was replaced,
// since a rename needs only the directory's permission).
func TestSaveFileRefuses(t *testing.T) {
	h := sample(t)
	dir := t.TempDir()
	readOnly := filepath.Join(dir, "ro.json")
	writeFile(t, readOnly, `{"objects":[]}`, 0o444)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	notDir := filepath.Join(dir, "file")
	writeFile(t, notDir, "", 0o644)
	cases := []struct{ path, want string }{
		{readOnly, "whiteboard: " + readOnly + ": the file is read-only"},
		{sub, "whiteboard: " + sub + ": is a directory, not a board file"},
		{filepath.Join(dir, "nope", "b.json"), "whiteboard: " + filepath.Join(dir, "nope", "b.json") + ": directory " + filepath.Join(dir, "nope") + " does not exist"},
		{filepath.Join(notDir, "b.json"), "whiteboard: " + filepath.Join(notDir, "b.json") + ": "},
	}
	for _, c := range cases {
		for name, f := range map[string]func(string) error{"CheckFile": CheckFile, "SaveFile": h.board.SaveFile} {
			err := f(c.path)
			var fe *FileError
			if err == nil || !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &fe) {
				t.Errorf("%s(%s) = %v, want %q...", name, c.path, err, c.want)
			}
		}
	}
	if data, _ := os.ReadFile(readOnly); string(data) != `{"objects":[]}` {
		t.Errorf("the read-only board was changed: %s", data)
	}
	noTemps(t, dir)
	if os.Geteuid() != 0 { // root writes in read-only directories
		roDir := filepath.Join(dir, "rodir")
		os.Mkdir(roDir, 0o555)
		want := "cannot create files in directory " + roDir + ": permission denied"
		if err := CheckFile(filepath.Join(roDir, "b.json")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckFile(read-only directory) = %v, want %q", err, want)
		}
	}
	if err := CheckFile(filepath.Join(dir, "fine.json")); err != nil {
		t.Errorf("CheckFile(new file in a writable directory) = %v", err)
	}
	noTemps(t, dir)
}

// A board that cannot be written whose directory cannot take files either
// is reported for the directory: that is what to fix, since a save makes a
// new file there (a user saw "cannot write the file: permission denied").
func TestCheckFilePrefersTheDirectory(t *testing.T) {
	dirErr := errors.New("cannot create files in directory ro: permission denied")
	fileErr := fmt.Errorf("cannot write the file: %w", syscall.EACCES)
	readOnly := errors.New("the file is read-only")
	for _, c := range []struct {
		name      string
		file, dir error
		want      error
		probed    bool
	}{
		{"fine", nil, nil, nil, true},
		{"file fine, directory closed", nil, dirErr, dirErr, true},
		{"not writable, directory closed", fileErr, dirErr, dirErr, true},
		{"not writable, directory open", fileErr, nil, fileErr, true},
		{"read-only: said already", readOnly, dirErr, readOnly, false},
	} {
		probed := false
		got := preferDirectory(c.file, func() error { probed = true; return c.dir })
		if got != c.want || probed != c.probed {
			t.Errorf("%s: %v (directory probed: %v), want %v (%v)", c.name, got, probed, c.want, c.probed)
		}
	}
	missing := filepath.Join(t.TempDir(), "gone")
	if err := checkSaveDir(missing); err == nil || !strings.HasPrefix(err.Error(), "directory "+missing+" does not exist") {
		t.Errorf("checkSaveDir of a missing directory: %v", err)
	}
	if err := checkSaveDir(t.TempDir()); err != nil {
		t.Errorf("checkSaveDir of a fresh directory: %v", err)
	}
}

// TestUnmarshalStored: a document MarshalJSON wrote reads back as the same
// board as UnmarshalJSON reads it, and a board that is not valid is refused
// with the strict decoder's error.
func TestUnmarshalStored(t *testing.T) {
	h := sample(t)
	doc, err := h.board.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	strict, stored := NewBoard(), NewBoard()
	if err := strict.UnmarshalJSON(doc); err != nil {
		t.Fatal(err)
	}
	if err := stored.UnmarshalStored(doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strict.Objects(), stored.Objects()); diff != "" || len(stored.Objects()) == 0 {
		t.Errorf("UnmarshalStored vs UnmarshalJSON (-strict +stored):\n%s", diff)
	}
	if !bytes.Equal(strict.SVG(), stored.SVG()) || !bytes.Equal(strict.SVG(), h.board.SVG()) {
		t.Error("the boards draw differently")
	}
	for _, bad := range []string{
		`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":0,"height":1}]}`,
		`{"objects":[{"id":"c","type":"connector","from":"x","to":"y"}]}`,
		`{"objects":[`,
		``,
	} {
		e1, e2 := NewBoard().UnmarshalJSON([]byte(bad)), NewBoard().UnmarshalStored([]byte(bad))
		if fmt.Sprint(e1) != fmt.Sprint(e2) {
			t.Errorf("%s: UnmarshalStored said %v, UnmarshalJSON %v", bad, e2, e1)
		}
	}
}
