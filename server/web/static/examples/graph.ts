// A deployment pipeline as a flowchart, laid out by the graph.layout WASM tool
// (build it with scripts/build-wasm-tools.sh, then run with
// --wasm-dir tools/wasm/build). The script only says what is connected to
// what; the layout tool decides where each box goes, and the connectors use
// the ids the create calls returned. The frame goes to the right of whatever
// the board holds already.
type Kind = "ellipse" | "rectangle" | "diamond";
type Step = { key: string; kind: Kind; text: string };

const steps: Step[] = input?.steps ?? [
  { key: "push", kind: "ellipse", text: "Push to main" },
  { key: "build", kind: "rectangle", text: "Build" },
  { key: "unit", kind: "rectangle", text: "Unit tests" },
  { key: "lint", kind: "rectangle", text: "Lint" },
  { key: "green", kind: "diamond", text: "All green?" },
  { key: "staging", kind: "rectangle", text: "Deploy to staging" },
  { key: "smoke", kind: "rectangle", text: "Smoke tests" },
  { key: "prod", kind: "rectangle", text: "Deploy to production" },
  { key: "fix", kind: "rectangle", text: "Fix and push again" },
  { key: "done", kind: "ellipse", text: "Released" },
];
// [from, to, label?]; "fix -> build" closes a loop, which the layout handles.
const edges: [string, string, string?][] = input?.edges ?? [
  ["push", "build"],
  ["build", "unit"],
  ["build", "lint"],
  ["unit", "green"],
  ["lint", "green"],
  ["green", "staging", "yes"],
  ["green", "fix", "no"],
  ["fix", "build"],
  ["staging", "smoke"],
  ["smoke", "prod"],
  ["prod", "done"],
];

const size = (k: Kind) => ({ width: 200, height: k === "diamond" ? 120 : 80 });
const layout = await tools.graph.layout({
  nodes: steps.map((s) => ({ id: s.key, ...size(s.kind) })),
  edges: edges.map(([from, to]) => ({ from, to })),
  direction: "TB",
  x: 40,
  y: 100,
});

// Draw to the right of whatever is on the board already.
const { objects: existing } = await tools.getBoardState({});
const drawn = existing.filter((o) => o.type !== "connector");
const left = drawn.length ? Math.max(...drawn.map((o) => o.x + o.width)) + 100 : 0;
const frame = await tools.createFrame({
  title: input?.title ?? "Release pipeline",
  x: left, y: 0, width: layout.width + 80, height: layout.height + 140,
});
const colors: Record<Kind, string> = { ellipse: "green", rectangle: "blue", diamond: "orange" };

// Positions come back in input order; the shapes are independent, so create them together.
const shapes = await Promise.all(
  layout.nodes.map((n, i) =>
    tools.createShape({
      type: steps[i].kind, text: steps[i].text, color: colors[steps[i].kind],
      x: left + n.x, y: n.y, width: n.width, height: n.height, parentId: frame.id,
    }),
  ),
);
const id: Record<string, string> = Object.fromEntries(steps.map((s, i) => [s.key, shapes[i].id]));
const connectors = await Promise.all(
  edges.map(([from, to, label]) => tools.createConnector({ fromId: id[from], toId: id[to], style: "arrow", label })),
);

console.log(`${shapes.length} shapes in ${Math.max(...layout.nodes.map((n) => n.layer)) + 1} layers, ` +
  `${connectors.length} connectors, ${layout.reversedEdges} pointing back`);
return { frame: frame.id, shapes: id, layers: layout.nodes.map((n) => `${n.id}:${n.layer}`) };
