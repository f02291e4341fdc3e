// Recovering from a misspelt tool name: the call rejects with code
// "unknown_tool" and err.suggestions lists the closest real tools, so retry
// with the first suggestion instead of giving up.
const args = { text: "Follow up with design", x: 0, y: 0, color: "orange" };
const attempted = "createStikyNote"; // typo for createStickyNote

let tool = attempted;
let note;
try {
  note = await tools.createStikyNote(args);
} catch (err) {
  // Anything else (invalid_args, tool_error...) is a real failure.
  if (err.code !== "unknown_tool" || !err.suggestions || err.suggestions.length === 0) throw err;
  console.warn(`${attempted} does not exist (${err.message}); retrying with ${err.suggestions[0]}`);
  tool = err.suggestions[0];
  note = await tools[tool](args);
}

// Check that the note really is on the board.
const { objects } = await tools.findObjects({ type: "sticky", text: args.text });
return { attempted, used: tool, recovered: tool !== attempted, noteId: note.id, onBoard: objects.some((o) => o.id === note.id) };
