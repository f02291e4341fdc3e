package whiteboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{`[]`, "cannot unmarshal array"},
		{`{"objects":[` + sticky + `]} {}`, "trailing data"},
		{`{"objects":[], "extra":1}`, `unknown field "extra"`},
		{`{"objects":[{"id":"s","type":"note","x":0,"y":0,"width":1,"height":1}]}`, `object "s": unknown type "note"`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":1,"height":1,"colour":"red"}]}`, `unknown field "colour"`},
		{`{"objects":[` + sticky + `,` + sticky + `]}`, `duplicate id "s"`},
		{`{"objects":[{"type":"sticky","x":0,"y":0,"width":1,"height":1}]}`, "object 0 has no id"},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":0,"height":1}]}`, `object "s": width and height must be positive`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0}]}`, `object "s": width and height must be positive`},
		{`{"objects":[{"id":"s","type":"sticky","x":1e999,"y":0,"width":1,"height":1}]}`, "cannot unmarshal number 1e999"},
		{`{"objects":[{"id":"s","type":"sticky","x":1.7e308,"y":0,"width":1e308,"height":1}]}`, `object "s": geometry out of range`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":1,"height":1,"parentId":"f"}]}`, `object "s": parentId: no object with id "f"`},
		{`{"objects":[` + sticky + `,{"id":"t","type":"sticky","x":0,"y":0,"width":1,"height":1,"parentId":"s"}]}`, `object "t": parentId: "s" is a sticky, not a frame`},
		{`{"objects":[` + frame + `,{"id":"g","type":"frame","x":0,"y":0,"width":1,"height":1,"parentId":"f"}]}`, `object "g": a frame has no parentId`},
		{`{"objects":[{"id":"f","type":"frame","x":0,"y":0,"width":1,"height":1,"text":"oops"}]}`, `object "f": a frame has no text`},
		{`{"objects":[{"id":"s","type":"shape","x":0,"y":0,"width":1,"height":1}]}`, `object "s": shape must be one of`},
		{`{"objects":[{"id":"s","type":"shape","shape":"star","x":0,"y":0,"width":1,"height":1}]}`, `shape must be one of rectangle, ellipse, diamond, triangle, got "star"`},
		{`{"objects":[{"id":"s","type":"sticky","x":0,"y":0,"width":1,"height":1,"color":"mauve"}]}`, `object "s": invalid color "mauve"`},
		{`{"objects":[` + sticky + `,{"id":"c","type":"connector","fromId":"s","toId":"zz"}]}`, `object "c": toId: no object with id "zz"`},
		{`{"objects":[` + sticky + `,{"id":"c","type":"connector","fromId":"s"}]}`, `object "c": a connector needs toId`},
		{`{"objects":[` + sticky + `,{"id":"c","type":"connector","fromId":"s","toId":"s"}]}`, `object "c": cannot connect "s" to itself`},
		{`{"objects":[` + sticky + `,` + frame + `,{"id":"c","type":"connector","fromId":"s","toId":"f","style":"dashed"}]}`, `object "c": style must be one of`},
		{`{"objects":[` + sticky + `,` + frame + `,{"id":"c","type":"connector","fromId":"s","toId":"f"},{"id":"d","type":"connector","fromId":"s","toId":"c"}]}`, `object "d": toId: "c" is a connector`},
		{`{"objects":[` + sticky + `,` + frame + `,{"id":"c","type":"connector","fromId":"s","toId":"f","parentId":"f"}]}`, `object "c": a connector has no parentId`},
	} {
		b := sample(t).board
		before := b.Objects()
		err := b.Load(strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%s) = %v, want an error containing %q", c.doc, err, c.want)
		}
		if diff := cmp.Diff(before, b.Objects()); diff != "" {
			t.Errorf("a failed Load changed the board (-before +after):\n%s", diff)
		}
	}
	// Non-finite numbers cannot come from JSON, but can from Go.
	err := NewBoard().Restore([]Object{{ID: "s", Type: TypeSticky, X: math.NaN(), Width: 1, Height: 1}})
	if err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("Restore(NaN) = %v", err)
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
	writeFile(t, bad, `{"objects":[{"id":"x","type":"blob"}]}`, 0o644)
	want := "whiteboard: " + bad + `: object "x": unknown type "blob"`
	if err := NewBoard().LoadFile(bad); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("bad board: %v, want %q...", err, want)
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
