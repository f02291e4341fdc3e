package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// summaryCounts: a board with three frames of 5, 2 and 7 objects (and a
// loose note and a connector, which no frame holds); add a note that counts
// each frame's objects. The model has to read the board before it writes.
func summaryCounts() bench.Scenario {
	return bench.Scenario{
		Name: "summary-counts",
		Task: `This board has three frames. Add one sticky note, outside every frame, that summarises them: ` +
			`one line per frame, "TITLE: N", where N is the number of objects (notes and shapes) in that frame. ` +
			`Change nothing else.`,
		Start:    func() (*whiteboard.Board, error) { return layoutFixture("summary-counts") },
		Check:    checkSummaryCounts,
		Scripted: scriptSummaryCounts,
	}
}

// summaryLine is one line of the summary: a title, a colon, a count; list
// marks and quotes around the title are allowed.
var summaryLine = regexp.MustCompile(`^[\s\-*•]*["“]?(.+?)["”]?\s*:\s*(\d+)\b`)

func checkSummaryCounts(b *whiteboard.Board) error {
	start, err := layoutFixture("summary-counts")
	if err != nil {
		return err
	}
	added, err := onlyAdded(start, b)
	if err != nil {
		return err
	}
	if len(added) != 1 || added[0].Type != "sticky" {
		return fmt.Errorf("want one new sticky note, the board gained %d objects", len(added))
	}
	note := added[0]
	if note.ParentID != "" {
		return fmt.Errorf("the summary note is in frame %s, want it outside every frame", note.ParentID)
	}
	counts := map[string]int{} // by title, lower case
	for _, line := range strings.Split(note.Text, "\n") {
		if m := summaryLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			counts[strings.ToLower(strings.TrimSpace(m[1]))] = n
		}
	}
	for _, f := range start.Objects() {
		if f.Type != "frame" {
			continue
		}
		if overlap(note, f) {
			return fmt.Errorf("the summary note overlaps frame %q", f.Title)
		}
		want := len(childrenOf(start, f.ID))
		got, ok := counts[strings.ToLower(f.Title)]
		switch {
		case !ok:
			return fmt.Errorf("the summary %q has no line %q", note.Text, fmt.Sprintf("%s: %d", f.Title, want))
		case got != want:
			return fmt.Errorf("the summary says %q holds %d objects, it holds %d", f.Title, got, want)
		}
	}
	return nil
}

// childrenOf lists the objects of frame id.
func childrenOf(b *whiteboard.Board, id string) []whiteboard.Object {
	var out []whiteboard.Object
	for _, o := range b.Objects() {
		if o.ParentID == id {
			out = append(out, o)
		}
	}
	return out
}

// onlyAdded checks that every object of start is on b as it was, and returns
// the objects b has that start had not.
func onlyAdded(start, b *whiteboard.Board) ([]whiteboard.Object, error) {
	for _, o := range start.Objects() {
		now, ok := b.Get(o.ID)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s was deleted", describe(o))
		case now != o:
			return nil, fmt.Errorf("%s was changed", describe(o))
		}
	}
	var added []whiteboard.Object
	for _, o := range b.Objects() {
		if _, ok := start.Get(o.ID); !ok {
			added = append(added, o)
		}
	}
	return added, nil
}

// summaryNote is the createStickyNote arguments of the summary of objects,
// placed right of everything on the board, level with the frames' tops —
// what the code model's script computes, for the models without one.
func summaryNote(objects []whiteboard.Object) map[string]any {
	var lines []string
	right, top := 0.0, math.Inf(1)
	for _, o := range objects {
		if o.Type == "frame" {
			n := 0
			for _, c := range objects {
				if c.ParentID == o.ID {
					n++
				}
			}
			lines = append(lines, fmt.Sprintf("%s: %d", o.Title, n))
			top = min(top, o.Y)
		}
		if o.Type != "connector" {
			right = max(right, o.X+o.Width)
		}
	}
	if math.IsInf(top, 1) {
		top = 0
	}
	return map[string]any{"text": strings.Join(lines, "\n"), "x": right + 100, "y": top, "width": 300, "height": 200}
}

func scriptSummaryCounts(s bench.Strategy) bench.Model {
	switch s {
	case bench.Code:
		return scriptOnce(`const { objects } = await tools.getBoardState({});
const frames = objects.filter((o) => o.type === "frame");
const lines = frames.map((f) => ` + "`${f.title}: ${objects.filter((o) => o.parentId === f.id).length}`" + `);
const right = Math.max(...objects.filter((o) => o.type !== "connector").map((o) => o.x + o.width));
const top = Math.min(...frames.map((f) => f.y));
const note = await tools.createStickyNote({ text: lines.join("\n"), x: right + 100, y: top, width: 300, height: 200 });
return { note: note.id, lines };`)
	case bench.Batch:
		// A batch cannot count: read the board in one, write in the next.
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			switch t.Index {
			case 0:
				return bench.Calls(t.BatchCall(bench.Op{Tool: "getBoardState", Args: map[string]any{}, Label: "board"})), nil
			case 1:
				objects, err := labelledObjects(t.Results[0], "board")
				if err != nil {
					return bench.Message{}, err
				}
				return bench.Calls(t.BatchCall(bench.Op{Tool: "createStickyNote", Args: summaryNote(objects)})), nil
			}
			return done(t)
		})
	default:
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			switch t.Index {
			case 0:
				return bench.Calls(t.Call("getBoardState", map[string]any{})), nil
			case 1:
				if err := failed(t); err != nil {
					return bench.Message{}, err
				}
				objects, err := objectsIn([]byte(t.Results[0].Content))
				if err != nil {
					return bench.Message{}, err
				}
				return bench.Calls(t.Call("createStickyNote", summaryNote(objects))), nil
			}
			return done(t)
		})
	}
}
