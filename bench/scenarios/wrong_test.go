package scenarios

import (
	"strings"
	"testing"

	"github.com/codemode-dev/codemode/bench"
)

// oneScript is a model that runs code in its one script, then answers.
func oneScript(code string) func(bench.Strategy) bench.Model {
	return func(bench.Strategy) bench.Model {
		return bench.Script(func(t *bench.Turn) (bench.Message, error) {
			if t.Index > 0 {
				return bench.Say("Done."), nil
			}
			return bench.Calls(t.CodeCall(code)), nil
		})
	}
}

// TestWrongModelFails: a model that gets the task wrong — and says it is
// done — is reported as failed, with the checker's reason.
func TestWrongModelFails(t *testing.T) {
	tests := []struct {
		scenario string
		code     string
		reason   string
	}{{
		scenario: "retro",
		code: `const columns = [
  { title: "Went well", color: "green", notes: ["Shipped on time", "Good pairing", "Fast reviews", "Clear goals"] },
  { title: "To improve", color: "pink", notes: ["Flaky tests", "Long standups", "Late specs", "Too many meetings"] },
  { title: "Action items", color: "blue", notes: ["Fix the flaky tests", "Timebox standups", "Specs a week ahead"] },
];
for (const [i, c] of columns.entries()) {
  const frame = await tools.createFrame({ title: c.title, x: i * 700, y: 0, width: 660, height: 620 });
  for (const [j, text] of c.notes.entries()) {
    await tools.createStickyNote({ text, color: c.color, parentId: frame.id, x: i * 700 + 20 + (j % 2) * 320, y: 60 + Math.floor(j / 2) * 280, width: 300, height: 260 });
  }
}`,
		reason: `frame "Action items" lacks notes "No-meeting Wednesdays"`,
	}, {
		scenario: "flowchart",
		code: `const texts = ["Order received", "Check stock", "Take payment", "Pack the items", "Hand to courier", "Order delivered"];
const ids = [];
for (const [i, text] of texts.entries()) {
  ids.push((await tools.createShape({ type: i === 0 || i === 5 ? "ellipse" : "rectangle", text, x: 100, y: 40 + i * 160, width: 220, height: 80 })).id);
}
for (let i = 1; i < ids.length; i++) await tools.createConnector({ fromId: ids[i], toId: ids[i - 1], style: "arrow" });`,
		reason: `want one arrow from "Order received" to "Check stock", found 0`,
	}, {
		scenario: "group-by-color",
		code: `// Moves the notes over the frames: they never belong to them.
const { objects } = await tools.getBoardState({});
const colors = [...new Set(objects.map((o) => o.color))];
for (const [i, color] of colors.entries()) {
  const members = objects.filter((o) => o.color === color);
  const f = await tools.createFrame({ title: color + " (" + members.length + ")", x: i * 700, y: 700, width: 560, height: 350 });
  for (const [j, n] of members.entries()) await tools.moveObject({ objectId: n.id, x: f.x + 20 + (j % 3) * 180, y: f.y + 50 + Math.floor(j / 3) * 140 });
}`,
		reason: `frame "yellow (5)" lacks notes`,
	}, {
		scenario: "frame-if-missing",
		code: `const f = await tools.createFrame({ title: "Backlog", x: 1020, y: 0, width: 240, height: 300 });
await tools.createStickyNote({ text: "Triage new bug reports", x: 1040, y: 50, width: 200, height: 100, parentId: f.id });`,
		reason: `want one frame titled "Backlog", found 2`,
	}, {
		scenario: "frame-if-missing-new",
		code: `// Takes the first frame a search finds: the decoy.
const { objects } = await tools.findObjects({ type: "frame", text: "Backlog" });
await tools.createStickyNote({ text: "Triage new bug reports", x: objects[0].x + 20, y: 170, width: 200, height: 100, parentId: objects[0].id });`,
		reason: `want one frame titled "Backlog", found 0`,
	}, {
		scenario: "bug-recolor",
		code: `// Forgets the type filter: the "Bugs" frame and the shape go red too.
const { objects } = await tools.findObjects({ text: "bug" });
await Promise.all(objects.map((o) => tools.changeColor({ objectId: o.id, color: "red" })));`,
		reason: `frame "Bugs" (frame-1) was changed`,
	}, {
		scenario: "grid",
		code: `for (let i = 0; i < 100; i++) {
  await tools.createStickyNote({ text: String(i + 1), x: (i % 10) * 80, y: Math.floor(i / 10) * 120, width: 100, height: 100 });
}`,
		reason: `sticky "1" and sticky "2" overlap`,
	}}
	eng, _ := newEngine(t)
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			sc := scenario(t, tt.scenario)
			sc.Scripted = oneScript(tt.code)
			rep, err := bench.Run(t.Context(), bench.Config{Engine: eng, Strategies: []bench.Strategy{bench.Code}}, []bench.Scenario{sc})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Results[0]
			if r.Correct || !strings.Contains(r.Failure, tt.reason) {
				t.Errorf("correct %v, failure %q; want a failure with %q", r.Correct, r.Failure, tt.reason)
			}
			if r.RoundTrips != 1 || rep.Strategies[0].Correct != 0 {
				t.Errorf("%d round trips, %d correct; want the script's 1 round trip, none correct", r.RoundTrips, rep.Strategies[0].Correct)
			}
		})
	}
}
