package scenarios

import (
	"fmt"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

// groupByColor: a board of loose notes in three colours, to group into one
// frame per colour. A note's frame is fixed when the note is created, so
// the models put a copy of each note in its frame and delete the original.
func groupByColor() bench.Scenario {
	return bench.Scenario{
		Name: "group-by-color",
		Task: "Group the sticky notes on the board by colour: one frame per colour, titled with the colour and " +
			"how many notes it holds, like \"yellow (3)\", with that colour's notes inside it (belonging to the " +
			"frame, so they move with it) and not overlapping. Keep every note's text and colour, and leave no " +
			"loose notes behind.",
		Start:    fixture("group-by-color"),
		Check:    checkGroupByColor,
		Scripted: scriptGroupByColor,
	}
}

func checkGroupByColor(b *whiteboard.Board) error {
	start, err := startObjects("group-by-color")
	if err != nil {
		return err
	}
	groups := groupPlans(ofType(start, "sticky"))
	objs := b.Objects()
	if frames := ofType(objs, "frame"); len(frames) != len(groups) {
		return fmt.Errorf("want %d frames, one per colour, found %d", len(groups), len(frames))
	}
	if notes, want := ofType(objs, "sticky"), len(ofType(start, "sticky")); len(notes) != want {
		return fmt.Errorf("want the %d notes the board had, found %d", want, len(notes))
	}
	for _, g := range groups {
		f, err := oneFrame(b, g.title())
		if err != nil {
			return err
		}
		texts := make([]string, len(g.notes))
		for i, n := range g.notes {
			texts[i] = n.Text
		}
		if err := notesIn(b, f, texts, g.color); err != nil {
			return err
		}
	}
	return noOverlap(ofType(objs, "sticky"))
}

// colorGroup is one colour's frame: where it goes and its notes.
type colorGroup struct {
	color                 string
	notes                 []whiteboard.Object
	x, width, height      float64
	cellWidth, cellHeight float64
}

func (g colorGroup) title() string { return fmt.Sprintf("%s (%d)", g.color, len(g.notes)) }

// A frame holds rows of groupCols notes under its title, groupPad apart.
const (
	groupCols  = 3
	groupPad   = 20
	groupTitle = 50
)

// groupPlans groups notes by colour, in the order the colours first
// appear, and lays the frames out in a row, left to right from the
// leftmost note (their top is the caller's: under everything on the board).
func groupPlans(notes []whiteboard.Object) []colorGroup {
	var groups []colorGroup
	at := map[string]int{}
	left := 0.0
	for i, n := range notes {
		if i == 0 || n.X < left {
			left = n.X
		}
		k, ok := at[n.Color]
		if !ok {
			k = len(groups)
			at[n.Color] = k
			groups = append(groups, colorGroup{color: n.Color})
		}
		groups[k].notes = append(groups[k].notes, n)
	}
	x := left
	for i := range groups {
		g := &groups[i]
		for _, n := range g.notes {
			g.cellWidth = max(g.cellWidth, n.Width+groupPad)
			g.cellHeight = max(g.cellHeight, n.Height+groupPad)
		}
		rows := (len(g.notes) + groupCols - 1) / groupCols
		g.x = x
		g.width = groupPad + float64(min(groupCols, len(g.notes)))*g.cellWidth
		g.height = groupTitle + groupPad + float64(rows)*g.cellHeight
		x += g.width + 60
	}
	return groups
}

func (g colorGroup) frameArgs(top float64) map[string]any {
	return map[string]any{"title": g.title(), "x": g.x, "y": top, "width": g.width, "height": g.height, "color": g.color}
}

// noteArgs is the copy of note j in the frame at top.
func (g colorGroup) noteArgs(j int, top float64, parent any) map[string]any {
	n := g.notes[j]
	return map[string]any{
		"text": n.Text, "color": n.Color, "width": n.Width, "height": n.Height, "parentId": parent,
		"x": g.x + groupPad + float64(j%groupCols)*g.cellWidth,
		"y": top + groupTitle + float64(j/groupCols)*g.cellHeight,
	}
}

func scriptGroupByColor(s bench.Strategy) bench.Model {
	switch s {
	case bench.Batch:
		// A batch to read the board, then one that makes the frames,
		// copies the notes in and deletes the originals.
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
				top := bottom(objs) + 100
				groups := groupPlans(ofType(objs, "sticky"))
				var ops []bench.Op
				for i, g := range groups {
					ops = append(ops, bench.Op{Tool: "createFrame", Args: g.frameArgs(top), Label: fmt.Sprintf("f%d", i)})
				}
				for i, g := range groups {
					for j, n := range g.notes {
						ops = append(ops,
							bench.Op{Tool: "createStickyNote", Args: g.noteArgs(j, top, bench.Ref(fmt.Sprintf("f%d.id", i)))},
							bench.Op{Tool: "deleteObject", Args: map[string]any{"objectId": n.ID}})
					}
				}
				return bench.Calls(t.BatchCall(ops...)), nil
			default:
				return done(t)
			}
		})
	case bench.Code:
		return scriptOnce(`const { objects } = await tools.getBoardState({});
const notes = objects.filter((o) => o.type === "sticky");
const groups = new Map<string, typeof notes>();
for (const n of notes) groups.set(n.color!, [...(groups.get(n.color!) ?? []), n]);

// Frames in a row under everything, three notes to a frame's row.
const top = Math.max(...objects.map((o) => o.y + o.height)) + 100;
const cols = 3, pad = 20;
let x = Math.min(...notes.map((n) => n.x));
const plans = [...groups].map(([color, members]) => {
  const cellW = Math.max(...members.map((n) => n.width)) + pad;
  const cellH = Math.max(...members.map((n) => n.height)) + pad;
  const width = pad + Math.min(cols, members.length) * cellW;
  const height = 50 + pad + Math.ceil(members.length / cols) * cellH;
  const plan = { color, members, cellW, cellH, x, width, height };
  x += width + 60;
  return plan;
});

// A note's frame is set when it is created: put a copy in the frame, then
// delete the loose original.
await Promise.all(plans.map(async (p) => {
  const frame = await tools.createFrame({ title: ` + "`${p.color} (${p.members.length})`" + `, x: p.x, y: top, width: p.width, height: p.height, color: p.color });
  await Promise.all(p.members.map(async (n, j) => {
    await tools.createStickyNote({
      text: n.text!, color: n.color, width: n.width, height: n.height, parentId: frame.id,
      x: p.x + pad + (j % cols) * p.cellW, y: top + 50 + Math.floor(j / cols) * p.cellH,
    });
    await tools.deleteObject({ objectId: n.id });
  }));
}));
return plans.map((p) => ` + "`${p.color} (${p.members.length})`" + `);`)
	default:
		// Read the board, then one call per turn: each frame, then each
		// note's copy in the frame whose id came back and the original's
		// deletion.
		q := &oneByOne{}
		q.add(step{tool: "getBoardState", args: fixed(map[string]any{}), then: func(r bench.ToolResult) error {
			objs, err := objectsIn([]byte(r.Content))
			if err != nil {
				return err
			}
			top := bottom(objs) + 100
			groups := groupPlans(ofType(objs, "sticky"))
			frames := make([]string, len(groups))
			for i, g := range groups {
				q.add(step{tool: "createFrame", args: fixed(g.frameArgs(top)), then: func(r bench.ToolResult) (err error) {
					frames[i], err = resultID(r)
					return err
				}})
			}
			for i, g := range groups {
				for j, n := range g.notes {
					q.add(step{tool: "createStickyNote", args: func() any { return g.noteArgs(j, top, frames[i]) }},
						step{tool: "deleteObject", args: fixed(map[string]any{"objectId": n.ID})})
				}
			}
			return nil
		}})
		return q.model()
	}
}
