// SWOT analysis: a title, then a 2x2 grid of frames with one note per item.
// input (optional): { topic, strengths, weaknesses, opportunities, threats };
// without input, draw an example. It is drawn to the right of whatever the
// board holds already.
type Swot = { topic?: string; strengths?: string[]; weaknesses?: string[]; opportunities?: string[]; threats?: string[] };
const example: Swot = {
  topic: "Launch of product X",
  strengths: ["Strong brand", "Experienced team"],
  weaknesses: ["Small marketing budget"],
  opportunities: ["Competitor exits the market", "New EU partners", "Growing demand"],
  threats: ["Supply chain delays"],
};
const args = (input ?? example) as Swot;
const topic = args.topic ?? example.topic;

const quadrants = [
  { title: "Strengths", color: "green", items: args.strengths ?? [] },
  { title: "Weaknesses", color: "pink", items: args.weaknesses ?? [] },
  { title: "Opportunities", color: "blue", items: args.opportunities ?? [] },
  { title: "Threats", color: "orange", items: args.threats ?? [] },
];

// Draw to the right of whatever is on the board already.
const { objects: existing } = await tools.getBoardState({});
const drawn = existing.filter((o) => o.type !== "connector");
const left = drawn.length ? Math.max(...drawn.map((o) => o.x + o.width)) + 100 : 0;

// Two notes per row; size every frame for the fullest quadrant.
const noteW = 200, noteH = 100, gap = 20;
const rows = Math.max(1, ...quadrants.map((q) => Math.ceil(q.items.length / 2)));
const frameW = 2 * noteW + 3 * gap, frameH = 60 + rows * (noteH + gap);

// The title and the four frames do not depend on each other.
const [title, ...frames] = await Promise.all([
  tools.createShape({ type: "rectangle", text: `SWOT: ${topic}`, x: left, y: 0, width: 2 * frameW + gap, height: 60 }),
  ...quadrants.map((q, i) =>
    tools.createFrame({ title: q.title, x: left + (i % 2) * (frameW + gap), y: 80 + Math.floor(i / 2) * (frameH + gap), width: frameW, height: frameH, color: q.color }),
  ),
]);

// Every note only needs its frame's id: create them all in parallel.
await Promise.all(
  quadrants.flatMap((q, i) =>
    q.items.map((text, j) =>
      tools.createStickyNote({
        text, width: noteW, height: noteH, color: q.color, parentId: frames[i].id,
        x: frames[i].x + gap + (j % 2) * (noteW + gap),
        y: frames[i].y + 50 + Math.floor(j / 2) * (noteH + gap),
      }),
    ),
  ),
);

return { topic, titleId: title.id, quadrants: Object.fromEntries(quadrants.map((q, i) => [q.title, { frameId: frames[i].id, notes: q.items.length }])) };
