// Flowchart of a password reset: create every shape first, then connect them
// with arrows using the ids the create calls returned.
type Kind = "ellipse" | "rectangle" | "diamond";
type Step = { key: string; kind: Kind; text: string; col: number; row: number };

const steps: Step[] = [
  { key: "start", kind: "ellipse", text: "Forgot password", col: 0, row: 0 },
  { key: "email", kind: "rectangle", text: "Enter email", col: 0, row: 1 },
  { key: "known", kind: "diamond", text: "Account exists?", col: 0, row: 2 },
  { key: "send", kind: "rectangle", text: "Send reset link", col: 0, row: 3 },
  { key: "reset", kind: "rectangle", text: "Set new password", col: 0, row: 4 },
  { key: "generic", kind: "rectangle", text: "Show 'check your inbox'", col: 1, row: 3 },
  { key: "end", kind: "ellipse", text: "Done", col: 0, row: 5 },
];
const colors: Record<Kind, string> = { ellipse: "green", rectangle: "blue", diamond: "orange" };

// The shapes are independent of each other: create them in parallel.
const shapes = await Promise.all(
  steps.map((s) =>
    tools.createShape({
      type: s.kind, text: s.text, color: colors[s.kind],
      x: 100 + s.col * 320, y: 40 + s.row * 160,
      width: 200, height: s.kind === "diamond" ? 120 : 80,
    }),
  ),
);
const id: Record<string, string> = Object.fromEntries(steps.map((s, i) => [s.key, shapes[i].id]));

// [from, to, label?]; the decision's branches are labelled.
const edges: [string, string, string?][] = [
  ["start", "email"],
  ["email", "known"],
  ["known", "send", "yes"],
  ["known", "generic", "no"],
  ["send", "reset"],
  ["reset", "end"],
  ["generic", "end"],
];
const connectors = await Promise.all(
  edges.map(([from, to, label]) => tools.createConnector({ fromId: id[from], toId: id[to], style: "arrow", label })),
);

console.log(`flowchart: ${shapes.length} shapes, ${connectors.length} connectors`);
return { shapes: id, connectors: connectors.map((c) => c.id) };
