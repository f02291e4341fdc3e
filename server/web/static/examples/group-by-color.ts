// Group the board's sticky notes by color: one frame per color, titled with
// its count ("yellow (3)"), below everything else, with its notes moved in.
// A note's parent is fixed when it is created, so the notes are moved into
// the frame's area rather than re-parented.
const { objects } = await tools.getBoardState({});
const notes = objects.filter((o) => o.type === "sticky");
if (notes.length === 0) return { frames: [], message: "no sticky notes to group" };

const groups = new Map<string, typeof notes>();
for (const n of notes) {
  const color = n.color ?? "yellow";
  groups.set(color, [...(groups.get(color) ?? []), n]);
}

// Lay the frames out in a row under the lowest object on the board.
const top = Math.max(...objects.filter((o) => o.type !== "connector").map((o) => o.y + o.height)) + 100;
const cols = 3, gap = 20;
let x = Math.min(...notes.map((n) => n.x));
const plans = [...groups].map(([color, members]) => {
  const cellW = Math.max(...members.map((n) => n.width)) + gap;
  const cellH = Math.max(...members.map((n) => n.height)) + gap;
  const width = gap + Math.min(cols, members.length) * cellW;
  const height = 60 + Math.ceil(members.length / cols) * cellH;
  const plan = { color, members, cellW, cellH, x, width, height };
  x += width + 60;
  return plan;
});

const frames = await Promise.all(
  plans.map((p) => tools.createFrame({ title: `${p.color} (${p.members.length})`, x: p.x, y: top, width: p.width, height: p.height, color: p.color })),
);

// Every move is independent of the others.
await Promise.all(
  plans.flatMap((p, i) =>
    p.members.map((n, j) =>
      tools.moveObject({ objectId: n.id, x: frames[i].x + gap + (j % cols) * p.cellW, y: frames[i].y + 50 + Math.floor(j / cols) * p.cellH }),
    ),
  ),
);

return {
  frames: plans.map((p, i) => ({ id: frames[i].id, title: `${p.color} (${p.members.length})`, notes: p.members.map((n) => n.id) })),
  // These still belong to their old frame and would move with it.
  keptOldParent: notes.filter((n) => n.parentId).map((n) => n.id),
};
