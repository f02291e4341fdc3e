// Sprint 42 retrospective: one frame holding three colored sections
// (Went well / To improve / Actions), each a header with sticky notes below.
// Frames cannot nest, so the sections are header shapes inside the one frame.
// It is drawn to the right of whatever the board holds already.
const sections = [
  { title: "Went well", color: "green", notes: ["Shipped onboarding v2", "Pairing fixed the flaky tests", "Reviews within a day"] },
  { title: "To improve", color: "pink", notes: ["Too many meetings", "Staging was down twice"] },
  { title: "Actions", color: "blue", notes: ["Cap meetings at 30 min", "Health check for staging", "Rotate the on-call buddy"] },
] as const;

// Draw to the right of whatever is on the board already.
const { objects: existing } = await tools.getBoardState({});
const drawn = existing.filter((o) => o.type !== "connector");
const left = drawn.length ? Math.max(...drawn.map((o) => o.x + o.width)) + 100 : 0;

const colWidth = 240, noteHeight = 100, gap = 20;
const rows = Math.max(...sections.map((s) => s.notes.length));
const frame = await tools.createFrame({
  title: "Sprint 42 retro",
  x: left,
  y: 0,
  width: sections.length * colWidth + gap,
  height: 140 + rows * (noteHeight + gap),
  color: "gray",
});

// Headers and notes only need the frame's id, so create them all at once.
const created = await Promise.all(
  sections.map(async (s, col) => {
    const x = frame.x + gap + col * colWidth;
    const [header, ...notes] = await Promise.all([
      tools.createShape({ type: "rectangle", text: s.title, x, y: frame.y + 50, width: 200, height: 60, color: s.color, parentId: frame.id }),
      ...s.notes.map((text, row) =>
        tools.createStickyNote({ text, x, y: frame.y + 130 + row * (noteHeight + gap), width: 200, height: noteHeight, color: s.color, parentId: frame.id }),
      ),
    ]);
    return { section: s.title, headerId: header.id, notes: notes.length };
  }),
);

return {
  frameId: frame.id,
  sections: Object.fromEntries(created.map((c) => [c.section, c.notes])),
  totalNotes: created.reduce((n, c) => n + c.notes, 0),
};
