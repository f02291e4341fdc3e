// codemode's whiteboard web app: the board list at #/, a board at
// #/boards/{id}. A board is drawn from its SVG, then kept live by its event
// stream (GET /v1/boards/{id}/events): every tool call's change is applied
// as the call ends, and a `board` event (undo, redo, a rolled-back run, a
// resume that came too late) replaces the drawing. Runs are posted with
// Accept: text/event-stream; their events fill the timeline and open the
// approval dialog. Preview runs the editor's text on a copy of the board
// ("preview": true): the board as it would be is drawn over it as a ghost,
// the changes are listed, and Apply commits them (if the board has not
// moved since) or Discard drops them. A token from the page's #token=… (or typed in when the
// server asks for one) goes with every request as a bearer token.

import { readEvents } from "./sse.js";
import { BoardView } from "./board.js";
import { Timeline } from "./timeline.js";
import { Approvals } from "./approvals.js";
import { el, ago } from "./util.js";

const $ = (sel) => document.querySelector(sel);
const TOKEN_KEY = "codemode.token";

// ---- the API ------------------------------------------------------------

let token = sessionStorage.getItem(TOKEN_KEY) || "";

// takeToken moves a #token=… (alone or after the route: #/boards/x&token=…)
// out of the address bar into this tab's session storage.
function takeToken() {
  const hash = location.hash.slice(1);
  const parts = hash.split("&");
  const kept = [];
  for (const p of parts) {
    if (p.startsWith("token=")) {
      token = decodeURIComponent(p.slice(6));
      sessionStorage.setItem(TOKEN_KEY, token);
    } else if (p) kept.push(p);
  }
  if (kept.length !== parts.length) history.replaceState(null, "", "#" + (kept.join("&") || "/"));
}

// api makes a request to the server, with the token if there is one. The
// paths are relative, so that the app works under a path prefix too.
async function api(path, { method = "GET", body, headers = {}, signal } = {}) {
  const h = { ...headers };
  if (token) h.Authorization = `Bearer ${token}`;
  if (method === "POST") h["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers: h, body, signal, cache: "no-store" });
  if (res.status === 401) askToken();
  return res;
}

// errorOf reads an error answer: {"error": {"code", "message"}}.
async function errorOf(res) {
  try {
    const body = await res.json();
    if (body && body.error) return body;
  } catch {}
  return { error: { code: "bad_request", message: `HTTP ${res.status} ${res.statusText}` } };
}

async function json(path, opts) {
  const res = await api(path, opts);
  if (!res.ok) {
    const e = await errorOf(res);
    throw Object.assign(new Error(e.error.message), { status: res.status, body: e });
  }
  return res.status === 204 ? null : res.json();
}

// ---- small UI pieces ----------------------------------------------------

let toastTimer = 0;
function toast(message, kind = "info") {
  const t = $("#toast");
  t.textContent = message;
  t.className = `toast show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.className = "toast"), 5000);
}

let tokenAsked = false;
function askToken() {
  const d = $("#token-dialog");
  if (tokenAsked || d.open) return;
  tokenAsked = true;
  $("#token-input").value = "";
  d.showModal();
}

$("#token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  token = $("#token-input").value.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  $("#token-dialog").close();
  tokenAsked = false;
  route(true);
});

// ---- routing ------------------------------------------------------------

let page = null; // the board page shown, if one is

function route(force = false) {
  const m = /^#\/boards\/([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  const id = m ? m[1] : null;
  if (page && (page.id !== id || force)) {
    page.close();
    page = null;
  }
  document.body.dataset.view = id ? "board" : "list";
  $("#list-view").hidden = !!id;
  $("#board-view").hidden = !id;
  $("#board-tools").hidden = !id;
  if (id) {
    if (!page) page = new BoardPage(id);
  } else {
    showList();
  }
}

window.addEventListener("hashchange", () => {
  takeToken();
  route();
});

// ---- the board list -------------------------------------------------------

let thumbs = []; // object URLs of the list's thumbnails
const FIRST_BOARD = "first-board"; // the id of the board a first visit makes

async function showList() {
  document.title = "Boards · codemode";
  $("#crumb").textContent = "Boards";
  $("#conn").hidden = true;
  $("#version").textContent = "";
  const grid = $("#boards");
  let boards;
  try {
    boards = await allBoards();
  } catch (e) {
    grid.replaceChildren(el("li", { class: "list-error" }, `Could not list the boards: ${e.message}`));
    return;
  }
  if (boards.length === 0) {
    // A first visit: make the first board and open it. It has a fixed id,
    // so that two first visits at once (two tabs, two people) make one
    // board: the second is told it exists (409) and opens it.
    try {
      const b = await json("v1/boards", { method: "POST", body: JSON.stringify({ id: FIRST_BOARD, name: "My first board" }) });
      location.hash = `#/boards/${b.id}`;
    } catch (e) {
      if (e.status === 409) location.hash = `#/boards/${FIRST_BOARD}`;
      else grid.replaceChildren(el("li", { class: "list-error" }, `Could not create a board: ${e.message}`));
    }
    return;
  }
  thumbs.forEach((u) => URL.revokeObjectURL(u));
  thumbs = [];
  boards.sort((a, b) => Date.parse(b.updated) - Date.parse(a.updated));
  grid.replaceChildren(...boards.map((b, i) => {
    const img = el("img", { alt: "", loading: "lazy" });
    if (i < 48) thumbnail(b.id, img);
    const name = b.name || b.id;
    return el("li", {},
      el("a", { class: "card", href: `#/boards/${b.id}`, "aria-label": `Open board ${name}` },
        el("div", { class: "thumb" }, img),
        el("div", { class: "card-meta" }, el("strong", {}, name), el("span", { class: "muted" }, `${b.id} · updated ${ago(b.updated)}`))));
  }));
}

// allBoards walks GET /v1/boards page by page (its next cursor): the list
// is sorted here by the last change, which needs every board.
async function allBoards() {
  const boards = [];
  let after = "";
  do {
    const page = await json(`v1/boards?limit=1000${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    boards.push(...(page.boards || []));
    after = page.next || "";
  } while (after);
  return boards;
}

async function thumbnail(id, img) {
  try {
    const res = await api(`v1/boards/${id}/svg`);
    if (!res.ok) return;
    const url = URL.createObjectURL(await res.blob());
    thumbs.push(url);
    img.src = url;
  } catch {}
}

$("#new-board").addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = $("#new-board-name").value.trim();
  try {
    const b = await json("v1/boards", { method: "POST", body: JSON.stringify(name ? { name } : {}) });
    $("#new-board-name").value = "";
    location.hash = `#/boards/${b.id}`;
  } catch (err) {
    toast(`Could not create the board: ${err.message}`, "error");
  }
});

// ---- editors --------------------------------------------------------------

const editors = { script: $("#script-editor"), batch: $("#batch-editor") };
let mode = localStorage.getItem("codemode.mode") === "batch" ? "batch" : "script";
for (const [m, ta] of Object.entries(editors)) {
  ta.value = localStorage.getItem(`codemode.${m}`) || "";
  ta.addEventListener("input", () => localStorage.setItem(`codemode.${m}`, ta.value));
  ta.addEventListener("keydown", (e) => editorKey(e, ta));
}

function setMode(m) {
  mode = m;
  localStorage.setItem("codemode.mode", m);
  for (const [name, ta] of Object.entries(editors)) {
    const on = name === m;
    ta.hidden = !on;
    $(`#tab-${name}`).setAttribute("aria-selected", String(on));
    $(`#tab-${name}`).tabIndex = on ? 0 : -1;
  }
  $("#input-box").hidden = m !== "script";
}
$("#tab-script").addEventListener("click", () => setMode("script"));
$("#tab-batch").addEventListener("click", () => setMode("batch"));
$(".tabs").addEventListener("keydown", (e) => {
  if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
  setMode(mode === "script" ? "batch" : "script");
  $(`#tab-${mode}`).focus();
});
setMode(mode);

// In the editors Tab indents (two spaces) and Shift+Tab outdents; Escape
// then Tab leaves the editor, for keyboard users. Ctrl/Cmd+Enter runs,
// Ctrl/Cmd+Shift+Enter previews.
let tabEscapes = false;
function editorKey(e, ta) {
  if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
    e.preventDefault();
    page?.run(e.shiftKey); // Ctrl+Shift+Enter previews
    return;
  }
  if (e.key === "Escape") {
    tabEscapes = true;
    return;
  }
  if (e.key !== "Tab" || tabEscapes || e.ctrlKey || e.altKey || e.metaKey) {
    if (e.key !== "Shift") tabEscapes = false;
    return;
  }
  e.preventDefault();
  const { selectionStart: s, selectionEnd: end, value } = ta;
  const lineStart = value.lastIndexOf("\n", s - 1) + 1;
  if (!e.shiftKey && s === end) {
    insert(ta, "  ");
    return;
  }
  // Indent or outdent every line the selection touches.
  const block = value.slice(lineStart, end);
  const lines = block.split("\n");
  const changed = lines.map((l) => (e.shiftKey ? l.replace(/^ {1,2}/, "") : "  " + l)).join("\n");
  ta.setSelectionRange(lineStart, end);
  insert(ta, changed);
  ta.setSelectionRange(lineStart, lineStart + changed.length);
}

// insert types text at the selection, keeping the editor's own undo.
function insert(ta, text) {
  if (!document.execCommand("insertText", false, text)) {
    ta.setRangeText(text, ta.selectionStart, ta.selectionEnd, "end");
    ta.dispatchEvent(new Event("input"));
  }
}

// ---- examples -------------------------------------------------------------

let toolNames = null; // the server's tools, to mark examples needing others

// loadToolIndex shows the server's tools by namespace under the examples
// (names and counts only: a catalog bound from an OpenAPI description has
// a thousand tools, whose schemas the page never needs), and keeps their
// names for loadExample.
async function loadToolIndex() {
  let idx;
  try {
    idx = await json("v1/tools?format=index");
  } catch {
    toolNames = new Set();
    return;
  }
  toolNames = new Set(idx.tools || []);
  const top = (idx.tools || []).filter((n) => !n.includes(".")).length;
  const parts = [`${top} tools`, ...(idx.namespaces || []).map((ns) => `${ns.name} (${ns.tools.toLocaleString("en")})`)];
  const p = $("#tool-index");
  p.replaceChildren("Tools: ", parts.join(" · "), ". Scripts find any of them with ", el("code", {}, "tools.search_tools({query})"), ".");
  p.hidden = false;
}

async function loadExamples() {
  const box = $("#examples");
  let list;
  try {
    list = (await json("examples/index.json")).examples;
  } catch {
    box.replaceChildren(el("span", { class: "muted" }, "no examples"));
    return;
  }
  box.replaceChildren(...list.map((x) => {
    const b = el("button", { type: "button", class: `chip ${x.kind}`, "data-example": x.name, "aria-label": `Load example ${x.name}`, title: x.title || x.name },
      el("span", { class: "chip-kind", "aria-hidden": "true" }, x.kind === "batch" ? "{ }" : "ƒ"), x.name);
    b.addEventListener("click", () => loadExample(x));
    return b;
  }));
}

async function loadExample(x) {
  const res = await api(`examples/${encodeURIComponent(x.name)}`);
  if (!res.ok) {
    toast(`Could not load ${x.name}`, "error");
    return;
  }
  const text = await res.text();
  const m = x.kind === "batch" ? "batch" : "script";
  setMode(m);
  const ta = editors[m];
  ta.focus();
  ta.select();
  insert(ta, text);
  ta.setSelectionRange(0, 0);
  ta.scrollTop = 0;
  localStorage.setItem(`codemode.${m}`, ta.value);
  for (const c of document.querySelectorAll(".chip")) c.classList.toggle("active", c.dataset.example === x.name);
  // Namespaced tools (WASM) that this server does not have.
  if (!toolNames) await loadToolIndex();
  const missing = [...new Set([...text.matchAll(/tools\.([A-Za-z_]\w*\.[A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]))].filter((n) => !toolNames.has(n));
  // The project's own (graph.layout, text.cluster) are built in unless the
  // server runs with --no-builtin-wasm; others come with --wasm-dir.
  if (missing.length) toast(`${x.name} needs ${missing.join(", ")}, which this server does not have: start it without --no-builtin-wasm, or with --wasm-dir for other WASM tools (see docs/wasm.md).`, "warn");
}

// ---- the board page -------------------------------------------------------

class BoardPage {
  constructor(id) {
    this.id = id;
    this.abort = new AbortController();
    this.running = false;
    this.live = new Set(); // ids of the runs under way on the board (run_start seen, run_end not yet)
    this.lastEventId = "";
    this.drawn = false; // a `board` event has drawn the board
    this.refreshing = null;
    this.view = new BoardView($("#canvas"), { onZoom: (s) => ($("#zoom-level").textContent = `${Math.round(s * 100)}%`) });
    this.timeline = new Timeline($("#timeline"));
    this.approvals = new Approvals($("#approval"), (runId, decisions) => this.postApprovals(runId, decisions));
    $("#crumb").textContent = id;
    document.title = `${id} · codemode`;
    $("#conn").hidden = false;
    this.setCounts(0, 0);
    this.loadInfo();
    // First paint from the SVG; the stream's first `board` event replaces it.
    this.firstPaint();
    this.watch();
  }

  close() {
    if (this.preview) this.discardPreview(); // not waited for: it would expire anyway
    this.abort.abort();
    $("#stop").hidden = true;
    delete $("#canvas").dataset.synced;
    $("#canvas").querySelector("svg")?.remove();
    if ($("#approval").open) $("#approval").close();
  }

  get closed() {
    return this.abort.signal.aborted;
  }

  async loadInfo() {
    try {
      const b = await json(`v1/boards/${this.id}`, { signal: this.abort.signal });
      this.setCounts(b.undoSteps, b.redoSteps);
      this.setVersion(b.version);
      $("#crumb").textContent = b.name || b.id;
      document.title = `${b.name || b.id} · codemode`;
    } catch (e) {
      if (e.status === 404) this.gone(`There is no board ${this.id}.`);
    }
  }

  async firstPaint() {
    try {
      const res = await api(`v1/boards/${this.id}/svg`, { signal: this.abort.signal });
      if (res.ok && !this.drawn) {
        const svg = await res.text();
        if (!this.drawn) this.view.setSVG(svg);
      }
    } catch {}
  }

  // refresh redraws the board from its SVG: for a `board` event without
  // one, or a change whose drawing did not come.
  refresh() {
    if (this.refreshing) return this.refreshing;
    this.refreshing = (async () => {
      try {
        const res = await api(`v1/boards/${this.id}/svg`, { signal: this.abort.signal });
        if (res.ok) this.view.setSVG(await res.text());
      } catch {}
      this.refreshing = null;
    })();
    return this.refreshing;
  }

  setConn(state, text) {
    const c = $("#conn");
    c.dataset.state = state;
    c.querySelector(".conn-text").textContent = text;
  }

  setCounts(undo, redo) {
    this.undoSteps = undo;
    this.redoSteps = redo;
    $("#undo").disabled = !(undo > 0);
    $("#redo").disabled = !(redo > 0);
    $("#undo").title = `Undo the last run (${undo} step${undo === 1 ? "" : "s"})`;
    $("#redo").title = `Redo (${redo} step${redo === 1 ? "" : "s"})`;
  }

  setVersion(v) {
    if (typeof v !== "number") return;
    this.version = v;
    $("#version").textContent = `v${v}`;
    this.checkPreview();
  }

  // watch follows the board's event stream, reconnecting after a drop with
  // Last-Event-ID so that the server replays what was missed (or sends the
  // board whole when it cannot).
  async watch() {
    let delay = 500;
    while (!this.closed) {
      let res;
      try {
        const headers = { Accept: "text/event-stream" };
        if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
        res = await api(`v1/boards/${this.id}/events`, { headers, signal: this.abort.signal });
      } catch {
        res = null;
      }
      if (this.closed) return;
      if (res && res.status === 404) {
        this.gone(`Board ${this.id} does not exist (any more).`);
        return;
      }
      if (res && res.ok) {
        this.setConn("live", "Live");
        delay = 500;
        try {
          await readEvents(res, (e) => {
            if (e.id) this.lastEventId = e.id;
            this.onBoardEvent(e);
          });
        } catch {}
        if (this.closed || this.deleted) return;
      } else if (res && res.status === 401) {
        this.setConn("down", "Needs a token");
      }
      this.setConn("reconnecting", "Reconnecting…");
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 8000);
    }
  }

  onBoardEvent(e) {
    let data;
    try {
      data = JSON.parse(e.data);
    } catch {
      return;
    }
    switch (e.type) {
      case "board":
        this.drawn = true;
        $("#canvas").dataset.synced = "true"; // the stream's board is drawn (tests wait for it)
        if (typeof data.svg === "string" && this.view.setSVG(data.svg)) {
          // drawn
        } else this.refresh();
        if (this.preview && data.appliedPreview === this.preview.previewId) this.endPreview("applied"); // applied from elsewhere
        this.setCounts(data.undoSteps, data.redoSteps);
        this.setVersion(data.version);
        this.timeline.stepped(data.undoneRun, data.redoneRun);
        // The board whole says which run is under way on it (one that
        // began before this tab watched): that one, and this tab's own.
        if (!this.running) this.live = new Set(data.runUnderWay ? [data.runUnderWay] : []);
        else if (data.runUnderWay) this.live.add(data.runUnderWay);
        this.showStop();
        return;
      case "board_deleted":
        this.deleted = true;
        this.gone("This board was deleted.");
        return;
      case "tool_call_end":
        if (data.change && !this.view.applyChange(data.change)) this.refresh();
        break;
      case "run_end":
        if (data.board) this.setVersion(data.board.version);
        this.loadInfo(); // the undo and redo steps after the run
        break;
    }
    this.onRunEvent(data);
  }

  onRunEvent(data) {
    if (data.type === "run_start" && data.runId) this.live.add(data.runId);
    if (data.type === "run_end") this.live.delete(data.runId);
    this.showStop();
    this.timeline.apply(data);
    this.approvals.apply(data);
  }

  // showStop shows Stop while a run is under way on the board: this tab's,
  // or another client's (seen on the board's stream).
  showStop() {
    const stop = $("#stop");
    stop.hidden = this.live.size === 0;
    if (stop.hidden) stop.disabled = false;
  }

  // stop cancels the runs under way on the board; each ends `canceled` and
  // its run_end (on the streams) takes it off.
  async stop() {
    const ids = [...this.live];
    if (!ids.length) return;
    $("#stop").disabled = true;
    await Promise.all(ids.map(async (id) => {
      const res = await api(`v1/runs/${encodeURIComponent(id)}/cancel`, { method: "POST", body: "" }).catch(() => null);
      if (res && res.status === 404) this.live.delete(id); // over already
      else if (!res || !res.ok) toast(`Stopping run ${id} failed${res ? ` (${res.status})` : ""}.`, "error");
    }));
    $("#stop").disabled = false;
    this.showStop();
  }

  gone(message) {
    this.setConn("down", "Gone");
    toast(message, "error");
    this.abort.abort();
    setTimeout(() => {
      if (page === this) location.hash = "#/";
    }, 1500);
  }

  // body is the request for the editor's text: a script as {code, input},
  // a batch request as it is written; "atomic": false when unticked, and
  // "preview": true for a preview.
  body(preview) {
    const atomic = $("#atomic").checked;
    if (mode === "script") {
      const req = { code: editors.script.value };
      const input = $("#input-editor").value.trim();
      if (input) {
        try {
          req.input = JSON.parse(input);
        } catch (e) {
          throw new Error(`The input is not JSON: ${e.message}`);
        }
      }
      if (!atomic) req.atomic = false;
      if (preview) req.preview = true;
      return JSON.stringify(req);
    }
    // The batch goes as written, so the server's messages match the text;
    // "atomic": false and "preview": true are put in front.
    const text = editors.batch.value;
    const members = [...(atomic ? [] : ['"atomic": false']), ...(preview ? ['"preview": true'] : [])];
    const i = text.indexOf("{");
    if (!members.length || i < 0) return text;
    const rest = text.slice(i + 1);
    return text.slice(0, i + 1) + members.join(", ") + (rest.trim().startsWith("}") ? "" : ",") + rest;
  }

  async run(preview = false) {
    if (this.running || this.closed) return;
    let body;
    try {
      body = this.body(preview);
    } catch (e) {
      this.timeline.rejected(0, { error: { code: "bad_request", message: e.message } });
      return;
    }
    this.running = true;
    this.setRunButtons(true);
    this.timeline.pending(`${preview ? "Preview of a " : ""}${mode === "script" ? "script" : "batch"}`);

    try {
      const res = await api(`v1/boards/${this.id}/${mode === "script" ? "execute" : "batch"}`, {
        method: "POST", body, headers: { Accept: "text/event-stream" }, signal: this.abort.signal,
      });
      if (!res.ok) {
        this.timeline.rejected(res.status, await errorOf(res));
        return;
      }
      await readEvents(res, (e) => {
        let data;
        try {
          data = JSON.parse(e.data);
        } catch {
          return;
        }
        // A preview's events come on its own stream only: its run_start
        // names it before the timeline shows it.
        if (preview && data.type === "run_start") this.timeline.previews.add(data.runId);
        this.onRunEvent(data);
        if (preview && data.type === "run_end") this.showPreview(data);
      });
    } catch (e) {
      if (!this.closed) toast(`The run's stream broke off (${e.message}); the board's stream goes on.`, "warn");
    } finally {
      this.running = false;
      this.setRunButtons(false);
    }
  }

  setRunButtons(busy) {
    for (const b of [$("#run"), $("#preview")]) {
      b.disabled = busy;
      b.classList.toggle("busy", busy);
    }
  }

  // ---- previews ----

  // showPreview shows what a preview run's run_end made: the ghost over the
  // board, the changes, Apply and Discard. A newer preview takes the place
  // of the one shown (which is discarded).
  showPreview(end) {
    const p = end.preview;
    if (!p) {
      if (end.board && end.board.error) toast(`No preview: ${end.board.error.message}`, "error");
      else toast("Nothing to preview: the run failed, so it would be rolled back.", "warn");
      return;
    }
    if (this.preview) this.discardPreview();
    this.preview = p;
    this.view.setGhost(p.svg);
    const c = p.changes;
    const n = c.added.length + c.updated.length + c.deleted.length;
    const bar = $("#preview-bar");
    bar.querySelector(".preview-summary").textContent = n === 0 ? "No changes" :
      [[c.added, "added"], [c.updated, "changed"], [c.deleted, "deleted"]].filter(([ids]) => ids.length).map(([ids, what]) => `${ids.length} ${what}`).join(" · ");
    const items = [];
    for (const [ids, cls, sign] of [[c.added, "added", "+"], [c.updated, "updated", "~"], [c.deleted, "deleted", "−"]]) {
      for (const id of ids) items.push(el("li", { class: cls }, `${sign} ${id}`));
    }
    bar.querySelector(".preview-changes").replaceChildren(...items);
    bar.dataset.previewId = p.previewId;
    bar.hidden = false;
    this.checkPreview();
    this.view.covered = { width: bar.offsetLeft + bar.offsetWidth, height: bar.offsetTop + bar.offsetHeight };
    if (this.view.autoFit) this.view.fit();
  }

  // checkPreview says whether the preview shown can still be applied: not
  // once the board moved past the version it was made on.
  checkPreview() {
    const p = this.preview;
    if (!p) return;
    const stale = typeof this.version === "number" && this.version !== p.baseVersion;
    const note = $("#preview-bar .preview-note");
    note.classList.toggle("stale", stale);
    note.textContent = stale
      ? `The board changed since this preview (v${p.baseVersion} → v${this.version}): it can no longer be applied. Preview again, or discard it.`
      : `Nothing has changed yet: the board as it would be is drawn over it. Kept until ${new Date(p.expiresAt).toLocaleTimeString()}.`;
    $("#preview-apply").disabled = stale;
  }

  async applyPreview() {
    const p = this.preview;
    if (!p) return;
    $("#preview-apply").disabled = true;
    try {
      const b = await json(`v1/boards/${this.id}/previews/${encodeURIComponent(p.previewId)}/apply`, { method: "POST", body: "" });
      this.endPreview("applied");
      this.view.setSVG(p.svg); // the board now; its `board` event follows
      this.setCounts(b.undoSteps, b.redoSteps);
      this.setVersion(b.version);
    } catch (e) {
      if (e.status === 409) {
        this.version = Math.max(this.version || 0, p.baseVersion + 1);
        this.checkPreview();
        toast(`Not applied: ${e.message}`, "warn");
      } else if (e.status === 404) {
        this.endPreview("discarded");
        toast("This preview is gone (applied elsewhere, discarded or expired).", "warn");
      } else {
        $("#preview-apply").disabled = false;
        toast(`Applying the preview failed: ${e.message}`, "error");
      }
    }
  }

  async discardPreview() {
    const p = this.preview;
    if (!p) return;
    this.endPreview("discarded");
    await api(`v1/boards/${this.id}/previews/${encodeURIComponent(p.previewId)}`, { method: "DELETE" }).catch(() => null);
  }

  // endPreview takes the preview shown off the board.
  endPreview(state) {
    const p = this.preview;
    this.preview = null;
    $("#preview-bar").hidden = true;
    this.view.covered = { width: 0, height: 0 };
    this.view.setGhost(null);
    if (p) this.timeline.settled(p.runId, state);
  }

  async postApprovals(runId, decisions) {
    const res = await api(`v1/runs/${encodeURIComponent(runId)}/approvals`, { method: "POST", body: JSON.stringify({ decisions }) });
    const body = res.ok ? await res.json() : await errorOf(res);
    return { status: res.status, body };
  }

  async step(which) {
    try {
      const b = await json(`v1/boards/${this.id}/${which}`, { method: "POST", body: "" });
      this.setCounts(b.undoSteps, b.redoSteps);
      this.setVersion(b.version);
    } catch (e) {
      toast(e.status === 409 ? `Nothing to ${which}.` : `${which} failed: ${e.message}`, e.status === 409 ? "info" : "error");
      this.loadInfo();
    }
  }
}

$("#run").addEventListener("click", () => page?.run());
$("#preview").addEventListener("click", () => page?.run(true));
$("#preview-apply").addEventListener("click", () => page?.applyPreview());
$("#preview-discard").addEventListener("click", () => page?.discardPreview());
$("#preview-bar").addEventListener("pointerdown", (e) => e.stopPropagation()); // not a pan of the board
$("#preview-bar").addEventListener("wheel", (e) => e.stopPropagation());
$("#stop").addEventListener("click", () => page?.stop());
$("#undo").addEventListener("click", () => page?.step("undo"));
$("#redo").addEventListener("click", () => page?.step("redo"));
$("#fit").addEventListener("click", () => page?.view.fit());
$("#zoom-in").addEventListener("click", () => page?.view.zoomBy(1.25));
$("#zoom-out").addEventListener("click", () => page?.view.zoomBy(0.8));

takeToken();
loadExamples();
loadToolIndex();
route();
