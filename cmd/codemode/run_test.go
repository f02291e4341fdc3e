package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codemode-dev/codemode/engine"
	"github.com/google/go-cmp/cmp"
)

// boardObject is one object of a saved --board file.
type boardObject struct {
	ID       string  `json:"id"`
	Type     string  `json:"type"`
	X        float64 `json:"x"`
	Y        float64 `json:"y"`
	Width    float64 `json:"width"`
	Height   float64 `json:"height"`
	Text     string  `json:"text"`
	Title    string  `json:"title"`
	Color    string  `json:"color"`
	ParentID string  `json:"parentId"`
	FromID   string  `json:"fromId"`
	ToID     string  `json:"toId"`
	Style    string  `json:"style"`
	Label    string  `json:"label"`
	Shape    string  `json:"shape"`
}

// savedBoard is a --board file after a run.
type savedBoard []boardObject

func loadBoard(t *testing.T, path string) savedBoard {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the saved board: %v", err)
	}
	var doc struct{ Objects []boardObject }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("saved board is not a board: %v\n%s", err, data)
	}
	return doc.Objects
}

// ofType lists the objects of one type, in creation order.
func (b savedBoard) ofType(typ string) []boardObject {
	var out []boardObject
	for _, o := range b {
		if o.Type == typ {
			out = append(out, o)
		}
	}
	return out
}

// frames maps frame titles to frames; it fails on a duplicate title.
func (b savedBoard) frames(t *testing.T) map[string]boardObject {
	t.Helper()
	m := map[string]boardObject{}
	for _, f := range b.ofType("frame") {
		if _, dup := m[f.Title]; dup {
			t.Errorf("two frames titled %q", f.Title)
		}
		m[f.Title] = f
	}
	return m
}

func (b savedBoard) get(id string) (boardObject, bool) {
	for _, o := range b {
		if o.ID == id {
			return o, true
		}
	}
	return boardObject{}, false
}

// inside reports whether o lies entirely within f's box.
func inside(o, f boardObject) bool {
	return o.X >= f.X && o.Y >= f.Y && o.X+o.Width <= f.X+f.Width && o.Y+o.Height <= f.Y+f.Height
}

// runScript runs "codemode run" and decodes the result JSON; it fails the
// test unless the exit status is want and stderr is empty.
func runScript(t *testing.T, stdin string, want int, args ...string) engine.ExecuteResult {
	t.Helper()
	out, errs, code := cli(t, stdin, append([]string{"run"}, args...)...)
	if code != want || errs != "" {
		t.Fatalf("run %v: exit %d, stderr %q; want exit %d and nothing on stderr\n%s", args, code, errs, want, out)
	}
	var res engine.ExecuteResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("stdout is not a code-mode result: %v\n%s", err, out)
	}
	if want == exitOK && (!res.Success || res.Error != nil) {
		t.Fatalf("exit 0 but success %v, error %+v", res.Success, res.Error)
	}
	return res
}

// runExample runs examples/NAME on board and decodes its result into result.
func runExample(t *testing.T, name, board string, result any, extra ...string) engine.ExecuteResult {
	t.Helper()
	res := runScript(t, "", exitOK, append([]string{"../../examples/" + name, "--board", board}, extra...)...)
	if len(res.Warnings) > 0 {
		t.Errorf("warnings: %q", res.Warnings)
	}
	if err := json.Unmarshal(res.Result, result); err != nil {
		t.Fatalf("result of %s: %v\n%s", name, err, res.Result)
	}
	return res
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEveryExampleIsTested keeps this file in step with examples/.
func TestEveryExampleIsTested(t *testing.T) {
	tested := []string{"affinity.ts", "flowchart.ts", "frame-if-missing.ts", "graph.ts", "group-by-color.ts", "recover-typo.js", "retro.ts", "swot.ts"}
	var found []string
	for _, pattern := range []string{"*.ts", "*.js"} {
		m, _ := filepath.Glob("../../examples/" + pattern)
		for _, p := range m {
			found = append(found, filepath.Base(p))
		}
	}
	sort.Strings(found)
	if diff := cmp.Diff(tested, found); diff != "" {
		t.Errorf("example scripts (-tested +in examples/):\n%s", diff)
	}
}

func TestExampleRetro(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	var got struct {
		FrameID    string
		Sections   map[string]int
		TotalNotes int
	}
	res := runExample(t, "retro.ts", board, &got)
	if !res.Stats.TypeScript {
		t.Error("stats.typescript is false for a .ts example")
	}
	b := loadBoard(t, board)
	frame, ok := b.frames(t)["Sprint 42 retro"]
	if !ok || len(b.ofType("frame")) != 1 {
		t.Fatalf("want one frame \"Sprint 42 retro\", board has %+v", b.ofType("frame"))
	}
	wantSections := map[string]int{"Went well": 3, "To improve": 2, "Actions": 3}
	if got.FrameID != frame.ID || got.TotalNotes != 8 || !cmp.Equal(got.Sections, wantSections) {
		t.Errorf("result %+v; want frame %s, 8 notes, %v", got, frame.ID, wantSections)
	}
	// One colored header per section; each note sits under the header of its
	// own color, and everything belongs to the frame.
	headers := map[string]boardObject{} // by color
	var titles []string
	for _, s := range b.ofType("shape") {
		headers[s.Color] = s
		titles = append(titles, s.Text)
		if s.ParentID != frame.ID || !inside(s, frame) {
			t.Errorf("header %+v is not in the frame", s)
		}
	}
	slices.Sort(titles)
	if want := []string{"Actions", "To improve", "Went well"}; !cmp.Equal(titles, want) || len(headers) != 3 {
		t.Errorf("headers %q with %d colors; want %q in 3 colors", titles, len(headers), want)
	}
	perSection := map[string]int{}
	for _, n := range b.ofType("sticky") {
		h, ok := headers[n.Color]
		if !ok || n.X != h.X || n.Y <= h.Y {
			t.Errorf("note %+v is not under a header of its color", n)
		}
		if n.ParentID != frame.ID || !inside(n, frame) {
			t.Errorf("note %+v is not in the frame", n)
		}
		perSection[h.Text]++
	}
	if !cmp.Equal(perSection, wantSections) {
		t.Errorf("notes per section on the board: %v, want %v", perSection, wantSections)
	}
	if len(b) != 1+3+8 {
		t.Errorf("board has %d objects, want 12", len(b))
	}
}

type swotResult struct {
	Topic     string
	TitleID   string
	Quadrants map[string]struct {
		FrameID string
		Notes   int
	}
}

// checkSwot checks the board for a SWOT grid of topic with notes per quadrant.
func checkSwot(t *testing.T, board string, got swotResult, topic string, notes map[string]int) {
	t.Helper()
	b := loadBoard(t, board)
	title, ok := b.get(got.TitleID)
	if got.Topic != topic || !ok || title.Text != "SWOT: "+topic {
		t.Errorf("topic %q, title %+v; want %q", got.Topic, title, topic)
	}
	frames := b.frames(t)
	if len(frames) != 4 {
		t.Fatalf("%d frames, want 4: %+v", len(frames), frames)
	}
	perFrame := map[string]int{}
	for _, n := range b.ofType("sticky") {
		f, ok := b.get(n.ParentID)
		if !ok || !inside(n, f) {
			t.Errorf("note %+v is not inside its frame", n)
		}
		if n.Color != f.Color {
			t.Errorf("note %q is %s in the %s frame %q", n.Text, n.Color, f.Color, f.Title)
		}
		perFrame[f.Title]++
	}
	for name, want := range notes {
		f, ok := frames[name]
		if !ok {
			t.Errorf("no %s frame", name)
			continue
		}
		if q := got.Quadrants[name]; q.FrameID != f.ID || q.Notes != want || perFrame[name] != want {
			t.Errorf("%s: result %+v, %d notes on the board; want frame %s with %d notes", name, q, perFrame[name], f.ID, want)
		}
	}
	// A 2x2 grid: two distinct columns and two distinct rows, no overlaps.
	xs, ys := map[float64]bool{}, map[float64]bool{}
	for _, f := range frames {
		xs[f.X], ys[f.Y] = true, true
		for _, g := range frames {
			if f.ID != g.ID && f.X < g.X+g.Width && g.X < f.X+f.Width && f.Y < g.Y+g.Height && g.Y < f.Y+f.Height {
				t.Errorf("frames %q and %q overlap", f.Title, g.Title)
			}
		}
	}
	if len(xs) != 2 || len(ys) != 2 {
		t.Errorf("frames are not a 2x2 grid: %+v", frames)
	}
}

func TestExampleSwot(t *testing.T) {
	t.Run("defaults", func(t *testing.T) {
		board := filepath.Join(t.TempDir(), "board.json")
		var got swotResult
		runExample(t, "swot.ts", board, &got)
		checkSwot(t, board, got, "Launch of product X", map[string]int{"Strengths": 2, "Weaknesses": 1, "Opportunities": 3, "Threats": 1})
	})
	t.Run("input", func(t *testing.T) {
		board := filepath.Join(t.TempDir(), "board.json")
		var got swotResult
		runExample(t, "swot.ts", board, &got, "--input",
			`{"topic":"Hiring plan","strengths":["a","b","c","d","e"],"weaknesses":["f"],"threats":["g","h"]}`)
		checkSwot(t, board, got, "Hiring plan", map[string]int{"Strengths": 5, "Weaknesses": 1, "Opportunities": 0, "Threats": 2})
	})
}

func TestExampleFlowchart(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	var got struct {
		Shapes     map[string]string
		Connectors []string
	}
	res := runExample(t, "flowchart.ts", board, &got)
	b := loadBoard(t, board)
	shapes, conns := b.ofType("shape"), b.ofType("connector")
	if len(shapes) != 7 || len(conns) != 7 || len(b) != 14 {
		t.Fatalf("board: %d shapes, %d connectors, %d objects; want 7, 7, 14", len(shapes), len(conns), len(b))
	}
	kinds := map[string]int{}
	byID := map[string]boardObject{}
	var shapeIDs []string
	for _, s := range shapes {
		kinds[s.Shape]++
		byID[s.ID] = s
		shapeIDs = append(shapeIDs, s.ID)
		if s.Text == "" {
			t.Errorf("shape %s has no text", s.ID)
		}
	}
	if want := map[string]int{"ellipse": 2, "rectangle": 4, "diamond": 1}; !cmp.Equal(kinds, want) {
		t.Errorf("shape kinds %v, want %v", kinds, want)
	}
	// The result names exactly the objects on the board.
	resultShapes := slices.Sorted(maps.Values(got.Shapes))
	slices.Sort(shapeIDs)
	var connIDs []string
	for _, c := range conns {
		connIDs = append(connIDs, c.ID)
	}
	if !cmp.Equal(resultShapes, shapeIDs) || !cmp.Equal(slices.Sorted(slices.Values(got.Connectors)), slices.Sorted(slices.Values(connIDs))) {
		t.Errorf("result %+v does not name the board's shapes %v and connectors %v", got, shapeIDs, connIDs)
	}
	// Every connector is an arrow between two shapes; the decision's two
	// branches are "yes" and "no"; the rest are unlabelled.
	in, out := map[string]int{}, map[string]int{}
	var branches []string
	for _, c := range conns {
		from, okFrom := byID[c.FromID]
		_, okTo := byID[c.ToID]
		if !okFrom || !okTo || c.Style != "arrow" {
			t.Errorf("connector %+v: want an arrow between two shapes", c)
			continue
		}
		out[c.FromID]++
		in[c.ToID]++
		if from.Shape == "diamond" {
			branches = append(branches, c.Label)
		} else if c.Label != "" {
			t.Errorf("connector %s from %q is labelled %q", c.ID, from.Text, c.Label)
		}
	}
	slices.Sort(branches)
	if !cmp.Equal(branches, []string{"no", "yes"}) {
		t.Errorf("decision branches %q, want no and yes", branches)
	}
	// One start (an ellipse nothing points to), one end (an ellipse that
	// points nowhere); every other shape has a way in and a way out.
	for _, s := range shapes {
		switch {
		case in[s.ID] == 0 && out[s.ID] == 1 && s.Shape == "ellipse": // start
		case out[s.ID] == 0 && in[s.ID] >= 1 && s.Shape == "ellipse": // end
		case in[s.ID] >= 1 && out[s.ID] >= 1 && s.Shape != "ellipse":
		default:
			t.Errorf("shape %q (%s): %d in, %d out", s.Text, s.Shape, in[s.ID], out[s.ID])
		}
	}
	if len(res.Logs) != 1 || res.Logs[0].Message != "flowchart: 7 shapes, 7 connectors" {
		t.Errorf("logs %+v", res.Logs)
	}
	// The shapes were all created before the first connector.
	var tools []string
	for _, c := range res.Calls {
		tools = append(tools, c.Tool)
	}
	if want := slices.Concat(slices.Repeat([]string{"createShape"}, 7), slices.Repeat([]string{"createConnector"}, 7)); !cmp.Equal(tools, want) {
		t.Errorf("calls %q", tools)
	}
}

func TestExampleFrameIfMissing(t *testing.T) {
	board := writeFile(t, filepath.Join(t.TempDir(), "board.json"),
		`{"objects":[{"id":"frame-1","type":"frame","x":0,"y":0,"width":300,"height":300,"title":"Backlog grooming"}]}`)
	type result struct {
		FrameID      string
		CreatedFrame bool
		NoteID       string
		NotesInFrame int
	}
	var runs []result
	for i := range 3 {
		var got result
		runExample(t, "frame-if-missing.ts", board, &got)
		if got.CreatedFrame != (i == 0) || got.NotesInFrame != i+1 {
			t.Errorf("run %d: %+v", i+1, got)
		}
		runs = append(runs, got)
		if i == 1 {
			// After two runs: exactly one Backlog frame, holding both notes.
			b := loadBoard(t, board)
			frames := b.frames(t)
			backlog := frames["Backlog"]
			if len(frames) != 2 || frames["Backlog grooming"].ID != "frame-1" || backlog.ID != runs[0].FrameID {
				t.Fatalf("frames after two runs: %+v", frames)
			}
			if notes := b.ofType("sticky"); len(notes) != 2 || notes[0].ParentID != backlog.ID || notes[1].ParentID != backlog.ID {
				t.Errorf("notes after two runs: %+v", notes)
			}
		}
	}
	if runs[1].FrameID != runs[0].FrameID || runs[2].FrameID != runs[0].FrameID {
		t.Errorf("the runs used different frames: %+v", runs)
	}
	// The third note did not fit: the frame grew to hold all three.
	b := loadBoard(t, board)
	backlog := b.frames(t)["Backlog"]
	grooming := b.frames(t)["Backlog grooming"]
	if backlog.X < grooming.X+grooming.Width {
		t.Errorf("the new frame %+v overlaps the existing one %+v", backlog, grooming)
	}
	notes := b.ofType("sticky")
	if len(notes) != 3 || len(b) != 5 {
		t.Fatalf("board after three runs: %+v", b)
	}
	for _, n := range notes {
		if n.ParentID != backlog.ID || !inside(n, backlog) {
			t.Errorf("note %+v is not inside the Backlog frame %+v", n, backlog)
		}
	}
}

func TestExampleGroupByColor(t *testing.T) {
	t.Run("seeded", func(t *testing.T) {
		// Six notes in three colors, scattered; one inside a frame, one tied
		// to a shape by a connector.
		board := writeFile(t, filepath.Join(t.TempDir(), "board.json"), `{"objects":[
 {"id":"frame-1","type":"frame","x":0,"y":0,"width":500,"height":300,"title":"Ideas"},
 {"id":"sticky-2","type":"sticky","x":20,"y":60,"width":200,"height":200,"text":"a","color":"yellow","parentId":"frame-1"},
 {"id":"sticky-3","type":"sticky","x":600,"y":60,"width":150,"height":100,"text":"b","color":"pink"},
 {"id":"sticky-4","type":"sticky","x":800,"y":400,"width":200,"height":200,"text":"c","color":"yellow"},
 {"id":"shape-5","type":"shape","x":300,"y":500,"width":100,"height":100,"shape":"ellipse","text":"s"},
 {"id":"sticky-6","type":"sticky","x":-50,"y":200,"width":200,"height":200,"text":"d","color":"blue"},
 {"id":"sticky-7","type":"sticky","x":400,"y":700,"width":200,"height":200,"text":"e","color":"pink"},
 {"id":"sticky-8","type":"sticky","x":1000,"y":0,"width":200,"height":200,"text":"f","color":"yellow"},
 {"id":"conn-9","type":"connector","fromId":"sticky-3","toId":"shape-5","style":"arrow"}]}`)
		before := loadBoard(t, board)
		var got struct {
			Frames []struct {
				ID, Title string
				Notes     []string
			}
			KeptOldParent []string
		}
		runExample(t, "group-by-color.ts", board, &got)
		b := loadBoard(t, board)
		frames := b.frames(t)
		wantMembers := map[string][]string{
			"yellow (3)": {"sticky-2", "sticky-4", "sticky-8"},
			"pink (2)":   {"sticky-3", "sticky-7"},
			"blue (1)":   {"sticky-6"},
		}
		if len(frames) != 4 || len(got.Frames) != 3 {
			t.Fatalf("frames %+v, result %+v; want Ideas plus three color frames", frames, got)
		}
		for _, rf := range got.Frames {
			f, ok := frames[rf.Title]
			if !ok || f.ID != rf.ID || !cmp.Equal(rf.Notes, wantMembers[rf.Title]) {
				t.Errorf("result frame %+v; board frame %+v; want notes %v", rf, f, wantMembers[rf.Title])
			}
			color, _, _ := strings.Cut(rf.Title, " ")
			if f.Color != color {
				t.Errorf("frame %q is %q", f.Title, f.Color)
			}
			for _, id := range wantMembers[rf.Title] {
				if n, _ := b.get(id); !inside(n, f) || n.Color != color {
					t.Errorf("note %+v is not inside frame %+v", n, f)
				}
			}
		}
		// The color frames sit below everything that was on the board.
		lowest := math.Inf(-1)
		for _, o := range before {
			if o.Type != "connector" {
				lowest = max(lowest, o.Y+o.Height)
			}
		}
		for title, f := range frames {
			if title != "Ideas" && f.Y <= lowest {
				t.Errorf("frame %q at y=%v overlaps the old content (bottom %v)", title, f.Y, lowest)
			}
		}
		// Nothing else changed: the shape stayed, the connector survived, the
		// parents are unchanged (they cannot be changed).
		for _, o := range before {
			now, ok := b.get(o.ID)
			switch {
			case !ok:
				t.Errorf("%s was deleted", o.ID)
			case o.Type == "shape" || o.Type == "frame":
				if now != o {
					t.Errorf("%s changed: %+v -> %+v", o.ID, o, now)
				}
			case o.ParentID != now.ParentID:
				t.Errorf("%s: parent %q -> %q", o.ID, o.ParentID, now.ParentID)
			}
		}
		if !cmp.Equal(got.KeptOldParent, []string{"sticky-2"}) {
			t.Errorf("keptOldParent %q", got.KeptOldParent)
		}
	})
	t.Run("empty board", func(t *testing.T) {
		board := filepath.Join(t.TempDir(), "board.json")
		var got struct {
			Frames  []any
			Message string
		}
		res := runExample(t, "group-by-color.ts", board, &got)
		if len(got.Frames) != 0 || got.Message == "" || len(res.Calls) != 1 || len(loadBoard(t, board)) != 0 {
			t.Errorf("on an empty board: %+v, %d calls", got, len(res.Calls))
		}
	})
}

func TestExampleRecoverTypo(t *testing.T) {
	board := filepath.Join(t.TempDir(), "board.json")
	var got struct {
		Attempted, Used, NoteID string
		Recovered, OnBoard      bool
	}
	res := runExample(t, "recover-typo.js", board, &got)
	if got.Attempted != "createStikyNote" || got.Used != "createStickyNote" || !got.Recovered || !got.OnBoard {
		t.Errorf("result %+v", got)
	}
	if res.Stats.TypeScript {
		t.Error("a .js example went through the TypeScript transform")
	}
	if len(res.Calls) != 3 {
		t.Fatalf("%d calls, want 3: %+v", len(res.Calls), res.Calls)
	}
	if c := res.Calls[0]; c.Success || c.Error == nil || c.Error.Code != engine.CodeUnknownTool || !cmp.Equal(c.Error.Suggestions, []string{"createStickyNote"}) {
		t.Errorf("first call: %s(%s) error %+v; want unknown_tool suggesting createStickyNote", c.Tool, compact(t, c.Args), c.Error)
	}
	if c := res.Calls[1]; c.Tool != "createStickyNote" || !c.Success || !cmp.Equal(c.Args, res.Calls[0].Args) {
		t.Errorf("retry: %s(%s) success %v; want createStickyNote with the args of the first call, %s", c.Tool, compact(t, c.Args), c.Success, compact(t, res.Calls[0].Args))
	}
	if len(res.Logs) != 1 || res.Logs[0].Level != "warn" || !strings.Contains(res.Logs[0].Message, "createStickyNote") {
		t.Errorf("logs %+v", res.Logs)
	}
	notes := loadBoard(t, board).ofType("sticky")
	if len(notes) != 1 || notes[0].ID != got.NoteID || notes[0].Color != "orange" {
		t.Errorf("board notes %+v", notes)
	}
}

func TestRunScriptErrors(t *testing.T) {
	t.Run("throw", func(t *testing.T) {
		// The board is saved also when the script fails.
		board := filepath.Join(t.TempDir(), "board.json")
		res := runScript(t, "await tools.createStickyNote({ text: \"kept\", x: 0, y: 0 });\n\nthrow new Error(\"boom\");\n", exitFailed, "--board", board)
		if res.Success || res.Error == nil || res.Error.Code != engine.CodeRuntimeError || res.Error.Line != 3 || !strings.Contains(res.Error.Message, "boom") {
			t.Errorf("success %v, error %+v; want runtime_error at line 3", res.Success, res.Error)
		}
		if string(res.Result) != "null" {
			t.Errorf("result %s, want null", res.Result)
		}
		if notes := loadBoard(t, board).ofType("sticky"); len(notes) != 1 || notes[0].Text != "kept" {
			t.Errorf("saved board: %+v", notes)
		}
	})
	t.Run("uncaught tool error", func(t *testing.T) {
		res := runScript(t, "const x = 1;\nawait tools.moveObject({ objectId: \"sticky-9\", x, y: 0 });\n", exitFailed)
		if res.Error == nil || res.Error.Code != engine.CodeToolError || res.Error.Line != 2 || !strings.Contains(res.Error.Message, "sticky-9") {
			t.Errorf("error %+v; want tool_error at line 2", res.Error)
		}
	})
	t.Run("syntax error", func(t *testing.T) {
		res := runScript(t, "const a = 1;\nconst = 2;\n", exitFailed)
		if res.Error == nil || res.Error.Code != engine.CodeSyntaxError || res.Error.Line != 2 {
			t.Errorf("error %+v; want syntax_error at line 2", res.Error)
		}
	})
}

func TestRunTimeout(t *testing.T) {
	start := time.Now()
	res := runScript(t, "while (true) {}", exitFailed, "--timeout", "100ms")
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if res.Success || res.Error == nil || res.Error.Code != engine.CodeTimeout {
		t.Errorf("success %v, error %+v; want timeout", res.Success, res.Error)
	}
}

func TestRunInput(t *testing.T) {
	dir := t.TempDir()
	const script = "return { sum: input.a + input.b, input }"
	t.Run("inline", func(t *testing.T) {
		res := runScript(t, script, exitOK, "-", "--input", `{"a":40,"b":2}`)
		if diff := cmp.Diff(`{"input":{"a":40,"b":2},"sum":42}`, compact(t, res.Result)); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
	})
	t.Run("@file", func(t *testing.T) {
		in := writeFile(t, filepath.Join(dir, "input.json"), "{\"a\": 1,\n \"b\": 2}\n")
		res := runScript(t, script, exitOK, "--input", "@"+in)
		if diff := cmp.Diff(`{"input":{"a":1,"b":2},"sum":3}`, compact(t, res.Result)); diff != "" {
			t.Errorf("result (-want +got):\n%s", diff)
		}
	})
	t.Run("none is null", func(t *testing.T) {
		res := runScript(t, "return input === null", exitOK)
		if string(res.Result) != "true" {
			t.Errorf("input without --input: %s", res.Result)
		}
	})
}

func TestRunScriptFromStdin(t *testing.T) {
	for _, args := range [][]string{{"-"}, {}} {
		board := filepath.Join(t.TempDir(), "board.json")
		res := runScript(t, "const f = await tools.createFrame({ title: \"From stdin\", x: 0, y: 0, width: 100, height: 100 });\nreturn f.id;\n",
			exitOK, append(args, "--board", board)...)
		frames := loadBoard(t, board).frames(t)
		if f, ok := frames["From stdin"]; !ok || string(res.Result) != `"`+f.ID+`"` {
			t.Errorf("args %q: result %s, frames %+v", args, res.Result, frames)
		}
	}
}

func TestRunUsageErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, filepath.Join(dir, "empty.ts"), "")
	script := writeFile(t, filepath.Join(dir, "ok.js"), "return 1")
	board := filepath.Join(dir, "board.json")
	cases := []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"empty script", "", []string{"-"}, "no code"},
		{"blank script", " \n\t\n", nil, "no code"},
		{"empty file", "", []string{empty}, "no code"},
		{"invalid input JSON", "return input", []string{"--input", "{nope"}, "--input is not valid JSON"},
		{"invalid input file", "return input", []string{"--input", "@" + script}, "--input @" + script + " is not valid JSON: malformed JSON at line 1, column 1"},
		{"missing input file", "return input", []string{"--input", "@" + filepath.Join(dir, "nope.json")}, "no such file"},
		{"missing script", "", []string{filepath.Join(dir, "nope.ts")}, "no such file"},
		{"two scripts", "", []string{script, script}, "one input file"},
		{"timeout above config", "return 1", []string{"--timeout", "1h"}, "exceeds"},
		{"bad flag", "return 1", []string{"--inptu", "{}"}, "unknown flag --inptu (did you mean --input?)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := cli(t, tc.stdin, append([]string{"run", "--board", board}, tc.args...)...)
			if code != exitUsage || out != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "codemode: ") || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q: want one line containing %q", errs, tc.want)
			}
			if _, err := os.Stat(board); err == nil {
				t.Errorf("the board was saved after a usage error")
			}
		})
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// brokenStdout fails every write, as a closed pipe or a full disk does.
type brokenStdout struct{}

func (brokenStdout) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestRunThatCannotWriteItsAnswerFails: a result that does not reach
// stdout is a failure said on stderr, never an exit 0.
func TestRunThatCannotWriteItsAnswerFails(t *testing.T) {
	for _, cmd := range []struct{ name, input string }{{"run", "return 1"}, {"batch", `{"operations": [{"tool": "getBoardState", "args": {}}]}`}} {
		var errb bytes.Buffer
		code := run([]string{cmd.name, "-"}, strings.NewReader(cmd.input), brokenStdout{}, &errb)
		if code != exitFailed || !strings.Contains(errb.String(), "the result could not be written: no space left on device") {
			t.Errorf("%s: exit %d, stderr %q; want %d and why", cmd.name, code, errb.String(), exitFailed)
		}
	}
}
