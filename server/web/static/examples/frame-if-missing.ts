// Add a note to the "Backlog" frame, creating the frame only if the board
// does not have one yet: running this twice leaves one frame with two notes.
// input (optional): { title?: string, note?: string }
const { title = "Backlog", note = "Triage new bug reports" } = (input ?? {}) as { title?: string; note?: string };

// findObjects matches a substring of the title ("Backlog grooming" would
// match too), so pick the frame whose title is exactly ours.
const { objects: candidates } = await tools.findObjects({ type: "frame", text: title });
let frame = candidates.find((f) => f.title === title);
const createdFrame = !frame;
if (!frame) {
  // Put the new frame to the right of everything already on the board.
  const { objects } = await tools.getBoardState({});
  const right = Math.max(0, ...objects.filter((o) => o.type !== "connector").map((o) => o.x + o.width));
  const f = await tools.createFrame({ title, x: objects.length ? right + 100 : 0, y: 0, width: 240, height: 300, color: "gray" });
  frame = { ...f, type: "frame", title };
}

// Stack the new note under the notes already in the frame.
const { objects: notes } = await tools.getBoardState({ type: "sticky", parentId: frame.id });
const y = Math.max(frame.y + 50, ...notes.map((n) => n.y + n.height + 20));
const created = await tools.createStickyNote({ text: note, x: frame.x + 20, y, width: 200, height: 100, parentId: frame.id });

// Grow the frame when the note sticks out of its bottom edge.
const bottom = created.y + created.height + 20;
if (bottom > frame.y + frame.height) {
  await tools.resizeObject({ objectId: frame.id, width: frame.width, height: bottom - frame.y });
}

return { frameId: frame.id, createdFrame, noteId: created.id, notesInFrame: notes.length + 1 };
