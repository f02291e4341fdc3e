// The board: the server's SVG in a pannable, zoomable view, changed in place
// as tool calls end. The server draws every object (tools/whiteboard's SVG);
// the app only puts each object's <g data-id> into its layer, replaces it,
// or removes it.

const SVG_NS = "http://www.w3.org/2000/svg";
const LAYER_OF = { frame: "frames", sticky: "items", shape: "items", connector: "connectors" };
const LAYERS = ["frames", "items", "connectors"];
const GHOST = "ghost-layer"; // the layer of a preview's objects
const GRID = 24; // board units between the background's dots
const MIN_SCALE = 0.02, MAX_SCALE = 8, MAX_FIT_SCALE = 1.25, FIT_PADDING = 48;

// parseSVG parses SVG markup from the server into a clean element of this
// document, or null if it is not SVG. The server escapes everything a model
// wrote, and the page's Content-Security-Policy forbids inline script; this
// removes what could run anyway (scripts, foreign content, on* handlers,
// links), so an SVG from elsewhere cannot act either.
export function parseSVG(markup) {
  const doc = new DOMParser().parseFromString(markup, "image/svg+xml");
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== SVG_NS || root.localName !== "svg" || doc.querySelector("parsererror")) return null;
  clean(root);
  return document.importNode(root, true);
}

function clean(el) {
  for (const child of [...el.children]) {
    if (child.namespaceURI !== SVG_NS || ["script", "foreignObject", "a", "use", "image", "animate", "set"].includes(child.localName)) {
      child.remove();
      continue;
    }
    clean(child);
  }
  for (const attr of [...el.attributes]) {
    const n = attr.name.toLowerCase();
    if (n.startsWith("on") || n === "href" || n.endsWith(":href") || n === "style") el.removeAttribute(attr.name);
  }
}

// parseFragment parses one object's <g data-id=…> as the server sent it.
function parseFragment(markup) {
  const svg = parseSVG(`<svg xmlns="${SVG_NS}">${markup}</svg>`);
  const g = svg && svg.firstElementChild;
  return g && g.localName === "g" && g.hasAttribute("data-id") ? g : null;
}

export class BoardView {
  constructor(container, { onZoom } = {}) {
    this.container = container;
    this.onZoom = onZoom || (() => {});
    this.svg = null;
    this.ghost = null; // a preview's board, parsed, while one is shown
    // covered is the box at the top left that something covers (the
    // preview's bar), in pixels: fit keeps the drawing beside or below it.
    this.covered = { width: 0, height: 0 };
    this.view = { x: 0, y: 0, scale: 1 };
    this.autoFit = true; // follow the drawing until the user pans or zooms
    this.initialBox = null;
    this.installInput();
    new ResizeObserver(() => {
      if (this.autoFit) this.fit();
      else this.applyView();
    }).observe(container);
  }

  // setSVG replaces the whole drawing; false if the markup is not SVG.
  setSVG(markup) {
    const svg = parseSVG(markup);
    if (!svg) return false;
    const vb = (svg.getAttribute("viewBox") || "").trim().split(/[\s,]+/).map(Number);
    this.initialBox = vb.length === 4 && vb.every(Number.isFinite) ? { x: vb[0], y: vb[1], w: vb[2], h: vb[3] } : null;
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMinYMin meet");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "Board drawing");
    svg.classList.add("board-svg");
    for (const name of LAYERS) {
      if (!svg.querySelector(`:scope > g.${name}`)) {
        const g = document.createElementNS(SVG_NS, "g");
        g.setAttribute("class", name);
        svg.appendChild(g);
      }
    }
    if (this.svg) this.svg.replaceWith(svg);
    else this.container.prepend(svg);
    this.svg = svg;
    this.renderGhost();
    this.changed();
    return true;
  }

  // setGhost shows a preview (the SVG of the board as it would be) over the
  // board, or none (null); it stays over the board as the board changes.
  // False if the markup is not SVG.
  setGhost(markup) {
    this.ghost = markup ? parseSVG(markup) : null;
    this.renderGhost();
    this.changed();
    return !markup || !!this.ghost;
  }

  // renderGhost draws the ghost layer: every object of the preview that is
  // not drawn the same on the board (added, changed, or a connector whose
  // end moved), the board's versions of these faded, and the board's
  // objects the preview lacks marked deleted.
  renderGhost() {
    if (!this.svg) return;
    this.svg.querySelector(`:scope > g.${GHOST}`)?.remove();
    for (const g of this.svg.querySelectorAll(".ghost-old, .ghost-deleted")) g.classList.remove("ghost-old", "ghost-deleted");
    this.container.classList.toggle("is-previewing", !!this.ghost);
    if (!this.ghost) return;
    const layer = document.createElementNS(SVG_NS, "g");
    layer.setAttribute("class", GHOST);
    const drawn = new Map(this.objects().map((g) => [g.getAttribute("data-id"), g])); // one pass, not a find per object
    const ids = new Set();
    for (const name of LAYERS) {
      for (const g of this.ghost.querySelectorAll(`:scope > g.${name} > g[data-id]`)) {
        const id = g.getAttribute("data-id");
        ids.add(id);
        const cur = drawn.get(id);
        if (cur && sameDrawing(cur, g)) continue;
        const ghost = g.cloneNode(true);
        ghost.classList.add("ghost", cur ? "ghost-updated" : "ghost-added");
        cur?.classList.add("ghost-old");
        layer.appendChild(ghost);
      }
    }
    for (const [id, g] of drawn) if (!ids.has(id)) g.classList.add("ghost-deleted");
    this.svg.appendChild(layer);
  }

  // objects are the board's drawn objects (not the ghost's).
  objects() {
    return LAYERS.flatMap((name) => [...this.svg.querySelectorAll(`:scope > g.${name} > g[data-id]`)]);
  }

  // applyChange applies a tool_call_end's change: objects created or
  // modified are put in their layer (a new one at its end, a modified one in
  // its place), deleted ids removed. It returns false if some object came
  // without a drawing the app can use: the caller then fetches the board.
  applyChange(change) {
    if (!this.svg || !change) return false;
    let complete = true;
    for (const id of change.deleted || []) this.find(id)?.remove();
    this.svg.querySelector(`:scope > g.${GHOST}`)?.remove(); // drawn again below, over the change
    for (const obj of change.objects || []) {
      const markup = change.svg && change.svg[obj.id];
      const g = markup ? parseFragment(markup) : null;
      const layer = this.svg.querySelector(`:scope > g.${LAYER_OF[obj.type] || "items"}`);
      if (!g || !layer) {
        complete = false;
        continue;
      }
      g.classList.add("fresh");
      g.addEventListener("animationend", () => g.classList.remove("fresh"), { once: true });
      const old = this.find(obj.id);
      if (old) old.replaceWith(g);
      else layer.appendChild(g);
    }
    this.renderGhost();
    this.changed();
    return complete;
  }

  find(id) {
    for (const g of this.objects()) if (g.getAttribute("data-id") === id) return g;
    return null;
  }

  count() {
    return this.svg ? this.svg.querySelectorAll("g[data-id]").length : 0;
  }

  changed() {
    this.container.classList.toggle("is-empty", this.count() === 0);
    if (this.autoFit) this.fit();
  }

  // contentBox is the drawing's extent in board units.
  contentBox() {
    let box = null;
    for (const name of [...LAYERS, GHOST]) {
      const layer = this.svg.querySelector(`:scope > g.${name}`);
      if (!layer || !layer.firstElementChild) continue;
      const b = layer.getBBox();
      if (!(b.width > 0 || b.height > 0)) continue;
      box = box
        ? { x: Math.min(box.x, b.x), y: Math.min(box.y, b.y), x2: Math.max(box.x2, b.x + b.width), y2: Math.max(box.y2, b.y + b.height) }
        : { x: b.x, y: b.y, x2: b.x + b.width, y2: b.y + b.height };
    }
    if (box) return { x: box.x, y: box.y, w: box.x2 - box.x, h: box.y2 - box.y };
    return this.initialBox || { x: 0, y: 0, w: 320, h: 200 };
  }

  // fit shows the whole drawing, centered, and follows it from then on.
  fit() {
    this.autoFit = true;
    if (!this.svg) return;
    const { width, height } = this.container.getBoundingClientRect();
    if (!(width > 0 && height > 0)) return;
    const b = this.contentBox();
    // Beside the covered box or below it, whichever shows the drawing larger.
    const place = (left, top) => {
      const scale = clamp(Math.min((width - left - 2 * FIT_PADDING) / Math.max(b.w, 1), (height - top - 2 * FIT_PADDING) / Math.max(b.h, 1)), MIN_SCALE, MAX_FIT_SCALE);
      return { scale, x: b.x + b.w / 2 - (width + left) / 2 / scale, y: b.y + b.h / 2 - (height + top) / 2 / scale };
    };
    const { width: cw, height: ch } = this.covered;
    const beside = place(Math.min(cw, width / 2), 0), below = place(0, Math.min(ch, height / 2));
    this.view = cw && ch ? (beside.scale >= below.scale ? beside : below) : place(0, 0);
    this.applyView();
  }

  applyView() {
    if (!this.svg) return;
    const { width, height } = this.container.getBoundingClientRect();
    const { x, y, scale } = this.view;
    this.svg.setAttribute("viewBox", `${x} ${y} ${Math.max(width, 1) / scale} ${Math.max(height, 1) / scale}`);
    const step = GRID * scale;
    this.container.style.backgroundSize = `${step}px ${step}px`;
    this.container.style.backgroundPosition = `${-x * scale}px ${-y * scale}px`;
    this.onZoom(scale);
  }

  // zoomBy zooms by factor around a point of the container (its center by
  // default).
  zoomBy(factor, px, py) {
    const rect = this.container.getBoundingClientRect();
    if (px === undefined) [px, py] = [rect.width / 2, rect.height / 2];
    const { x, y, scale } = this.view;
    const next = clamp(scale * factor, MIN_SCALE, MAX_SCALE);
    this.autoFit = false;
    this.view = { scale: next, x: x + px / scale - px / next, y: y + py / scale - py / next };
    this.applyView();
  }

  installInput() {
    const c = this.container;
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const rect = c.getBoundingClientRect();
      if (e.ctrlKey || e.metaKey || Math.abs(e.deltaY) >= 50 && e.deltaX === 0 && !e.shiftKey) {
        this.zoomBy(Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.0015)), e.clientX - rect.left, e.clientY - rect.top);
      } else {
        this.autoFit = false;
        this.view.x += e.deltaX / this.view.scale;
        this.view.y += e.deltaY / this.view.scale;
        this.applyView();
      }
    }, { passive: false });
    let drag = null;
    c.addEventListener("pointerdown", (e) => {
      if (e.button !== 0 && e.button !== 1) return;
      drag = { id: e.pointerId, x: e.clientX, y: e.clientY };
      c.setPointerCapture(e.pointerId);
      c.classList.add("is-panning");
    });
    c.addEventListener("pointermove", (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      this.autoFit = false;
      this.view.x -= (e.clientX - drag.x) / this.view.scale;
      this.view.y -= (e.clientY - drag.y) / this.view.scale;
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.applyView();
    });
    const end = (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      drag = null;
      c.classList.remove("is-panning");
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", end);
    c.addEventListener("keydown", (e) => {
      const pan = 60 / this.view.scale;
      const moves = { ArrowLeft: [-pan, 0], ArrowRight: [pan, 0], ArrowUp: [0, -pan], ArrowDown: [0, pan] };
      if (moves[e.key]) {
        this.autoFit = false;
        this.view.x += moves[e.key][0];
        this.view.y += moves[e.key][1];
        this.applyView();
      } else if (e.key === "+" || e.key === "=") this.zoomBy(1.25);
      else if (e.key === "-") this.zoomBy(0.8);
      else if (e.key === "0") this.fit();
      else return;
      e.preventDefault();
    });
  }
}

// sameDrawing: two objects' <g> draw the same (the board's may carry the
// class of its entrance animation).
function sameDrawing(a, b) {
  return a.getAttribute("transform") === b.getAttribute("transform") && a.innerHTML === b.innerHTML;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
