// An affinity map of the board's sticky notes, grouped by the text.cluster
// WASM tool (build it with scripts/build-wasm-tools.sh, then run with
// --wasm-dir tools/wasm/build): one frame per theme, titled with the theme
// and its count, to the right of what is on the board, with the notes moved
// into it. Notes that share no keyword go to a frame titled "other" and its
// count, e.g. "other (2)".
const { objects } = await tools.findObjects({ type: "sticky" });
if (objects.length === 0) {
  return { groups: [], message: "no sticky notes on the board" };
}
const { groups, ungrouped } = await tools.text.cluster({
  items: objects.map((o) => ({ id: o.id, text: o.text ?? "" })),
  maxGroups: input?.maxGroups ?? 6,
});

const themes = [...groups.map((g) => ({ title: g.label, ids: g.ids }))];
if (ungrouped.length > 0) themes.push({ title: "other", ids: ungrouped });

// Lay the frames out in a row right of everything on the board.
const board = await tools.getBoardState({});
const right = Math.max(0, ...board.objects.map((o) => o.x + o.width));
const note = 200, gap = 20, cols = 2;
let x = right + 100;
const made = [];
for (const theme of themes) {
  const rows = Math.ceil(theme.ids.length / cols);
  const width = cols * (note + gap) + gap;
  const frame = await tools.createFrame({
    title: `${theme.title} (${theme.ids.length})`,
    x, y: 0, width, height: 60 + rows * (note + gap),
  });
  // A note's parent is fixed when it is made, so the notes are moved, not re-parented.
  await tools.arrangeObjects({ objectIds: theme.ids, layout: "grid", columns: cols, gap, x: x + gap, y: 60 });
  made.push({ frame: frame.id, title: theme.title, notes: theme.ids.length });
  x += width + 60;
}
console.log(`${objects.length} notes in ${groups.length} themes, ${ungrouped.length} ungrouped`);
return { groups: made };
