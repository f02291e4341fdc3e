package scenarios

import (
	"fmt"
	"strings"

	"github.com/codemode-dev/codemode/bench"
	"github.com/codemode-dev/codemode/tools/whiteboard"
)

var retroColumns = []struct {
	title, color string
	notes        []string
}{
	{"Went well", "green", []string{"Shipped on time", "Good pairing", "Fast reviews", "Clear goals"}},
	{"To improve", "pink", []string{"Flaky tests", "Long standups", "Late specs", "Too many meetings"}},
	{"Action items", "blue", []string{"Fix the flaky tests", "Timebox standups", "Specs a week ahead", "No-meeting Wednesdays"}},
}

// retro: three frames side by side, four notes in each.
func retro() bench.Scenario {
	var task strings.Builder
	task.WriteString("Make a retro board: three frames side by side, ")
	for i, c := range retroColumns {
		if i > 0 {
			task.WriteString(", ")
		}
		fmt.Fprintf(&task, "%q with %s sticky notes %s", c.title, c.color, quoteAll(c.notes))
	}
	task.WriteString(". Put each note inside its frame.")
	return bench.Scenario{
		Name:     "retro",
		Task:     task.String(),
		Check:    checkRetro,
		Scripted: scriptRetro,
	}
}

func checkRetro(b *whiteboard.Board) error {
	for _, c := range retroColumns {
		f, err := oneFrame(b, c.title)
		if err != nil {
			return err
		}
		if err := notesIn(b, f, c.notes, c.color); err != nil {
			return err
		}
	}
	return nil
}

func retroFrame(i int) map[string]any {
	return map[string]any{"title": retroColumns[i].title, "x": i * 700, "y": 0, "width": 660, "height": 620}
}

func retroNote(i, j int, parent any) map[string]any {
	return map[string]any{
		"text": retroColumns[i].notes[j], "color": retroColumns[i].color, "parentId": parent,
		"x": i*700 + 20 + (j%2)*320, "y": 60 + (j/2)*280, "width": 300, "height": 260,
	}
}

func scriptRetro(s bench.Strategy) bench.Model {
	switch s {
	case bench.Batch:
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if t.Index > 0 {
				return done(t)
			}
			var ops []bench.Op
			for i := range retroColumns {
				ops = append(ops, bench.Op{Tool: "createFrame", Args: retroFrame(i), Label: fmt.Sprintf("f%d", i)})
			}
			for i, c := range retroColumns {
				for j := range c.notes {
					ops = append(ops, bench.Op{Tool: "createStickyNote", Args: retroNote(i, j, bench.Ref(fmt.Sprintf("f%d.id", i)))})
				}
			}
			return bench.Calls(t.BatchCall(ops...)), nil
		})
	case bench.Code:
		return scriptOnce(`const columns = [
  { title: "Went well", color: "green", notes: ["Shipped on time", "Good pairing", "Fast reviews", "Clear goals"] },
  { title: "To improve", color: "pink", notes: ["Flaky tests", "Long standups", "Late specs", "Too many meetings"] },
  { title: "Action items", color: "blue", notes: ["Fix the flaky tests", "Timebox standups", "Specs a week ahead", "No-meeting Wednesdays"] },
];
await Promise.all(columns.map(async (c, i) => {
  const frame = await tools.createFrame({ title: c.title, x: i * 700, y: 0, width: 660, height: 620 });
  await Promise.all(c.notes.map((text, j) => tools.createStickyNote({
    text, color: c.color, parentId: frame.id,
    x: i * 700 + 20 + (j % 2) * 320, y: 60 + Math.floor(j / 2) * 280, width: 300, height: 260,
  })));
}));
return "3 frames, 12 notes";`)
	default:
		// One call per turn: the three frames, then each note in the
		// frame whose id came back.
		var frames []string
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if err := failed(t); err != nil {
				return bench.Message{}, err
			}
			if n := len(frames); t.Index > 0 && t.Index <= len(retroColumns) && n < t.Index {
				id, err := resultID(t.Results[0])
				if err != nil {
					return bench.Message{}, err
				}
				frames = append(frames, id)
			}
			if i := t.Index; i < len(retroColumns) {
				return bench.Calls(t.Call("createFrame", retroFrame(i))), nil
			}
			k := t.Index - len(retroColumns)
			if k < 3*4 {
				return bench.Calls(t.Call("createStickyNote", retroNote(k/4, k%4, frames[k/4]))), nil
			}
			return done(t)
		})
	}
}
