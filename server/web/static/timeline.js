// The timeline: the calls of the board's latest run, one row each, as its
// events come — the "transparent batch" made visible. Each row has the tool,
// the label, the arguments in short, how it ended and a bar placed at its
// start and as long as it took on the run's time scale, so calls made in
// parallel show side by side; errors show their code, message and
// suggestions; the run's log lines come in order; the result ends it.
//
// Events may arrive twice, from the run's own stream and from the board's:
// apply ignores one it has seen (same type, call, time and message).

import { el, fmtMs, summarize, pretty } from "./util.js";

export class Timeline {
  constructor(root) {
    this.root = root;
    this.run = null;
    this.finished = new Set(); // runs shown before: their late events are ignored
    this.previews = new Set(); // ids of this tab's preview runs (their run_start came on their own stream)
    this.showIdle();
  }

  showIdle() {
    this.run = null;
    this.root.replaceChildren(el("div", { class: "tl-idle" },
      el("p", {}, "Runs on this board show here, call by call, as they happen."),
      el("p", { class: "muted" }, "Pick an example or write a script, then press Run (Ctrl+Enter)."),
    ));
  }

  // pending shows that a run was asked for and has not started yet.
  pending(what) {
    this.run = null;
    this.root.replaceChildren(el("div", { class: "run", "data-state": "starting" },
      el("div", { class: "run-head" }, el("span", { class: "badge running" }, "starting"), el("span", { class: "run-title" }, what))));
  }

  // rejected shows a request the server refused before anything ran.
  rejected(status, err) {
    this.run = null;
    const e = (err && err.error) || { code: "bad_request", message: String(err) };
    this.root.replaceChildren(el("div", { class: "run", "data-state": "rejected" },
      el("div", { class: "run-head" }, el("span", { class: "badge failed" }, status ? `HTTP ${status}` : "error"), el("span", { class: "run-title" }, "The request was refused")),
      errorBox(e)));
  }

  // apply takes one run event (its JSON data); events of another run than
  // the one shown start a new timeline.
  apply(ev) {
    if (!ev || !ev.runId) return;
    if (!this.run || this.run.id !== ev.runId) {
      if (this.finished.has(ev.runId)) return;
      this.start(ev);
    }
    const run = this.run;
    const key = [ev.type, ev.callId || "", ev.time || "", ev.level || "", ev.message || ""].join("\u0000");
    if (run.seen.has(key)) return;
    run.seen.add(key);
    switch (ev.type) {
      case "run_start": break;
      case "tool_call_start": this.callStart(ev); break;
      case "tool_call_end": this.callEnd(ev); break;
      case "approval_required":
        for (const a of ev.approvals || []) {
          const row = this.row(a.callId, { tool: a.tool, time: ev.time });
          row.el.dataset.state = "waiting";
          row.status.textContent = "awaiting approval";
          if (row.argsValue === undefined) {
            row.argsValue = a.args;
            row.args.textContent = summarize(a.args, a.truncated);
            this.renderDetails(row);
          }
        }
        break;
      case "log": this.log(ev); break;
      case "run_end": this.end(ev); break;
    }
  }

  start(ev) {
    if (this.run) this.finished.add(this.run.id);
    const head = el("div", { class: "run-head" });
    const badge = el("span", { class: "badge running" }, "running");
    const what = ev.kind === "batch" ? "Batch" : ev.kind === "script" ? "Script" : "Run";
    const title = el("span", { class: "run-title" }, this.previews.has(ev.runId) ? `Preview of a ${what.toLowerCase()}` : what);
    const stats = el("span", { class: "run-stats" });
    head.append(badge, title, el("code", { class: "run-id", title: "run id" }, ev.runId), stats);
    const list = el("ol", { class: "calls", "aria-label": "Calls" });
    const logs = el("ol", { class: "logs", "aria-label": "Logs" });
    const footer = el("div", { class: "run-footer" });
    const root = el("div", { class: "run", "data-state": "running", "data-run-id": ev.runId }, head, list, logs, footer);
    this.root.replaceChildren(root);
    this.run = {
      id: ev.runId, kind: ev.kind, root, badge, stats, list, logs, footer,
      rows: new Map(), seen: new Set(), ended: false,
    };
  }

  row(callId, { tool, label, time }) {
    const run = this.run;
    let row = run.rows.get(callId);
    if (row) return row;
    const bar = el("i");
    const status = el("span", { class: "call-status" });
    const details = el("div", { class: "call-details", hidden: "" });
    const main = el("button", { class: "call-main", type: "button", "aria-expanded": "false", "aria-label": `Call ${callId}: ${tool || ""}` },
      el("span", { class: "call-idx" }, `#${callId}`),
      el("span", { class: "call-tool" }, tool || "?"),
      label ? el("span", { class: "call-label" }, label) : "",
      el("span", { class: "call-args" }),
      status,
    );
    const li = el("li", { class: "call", "data-call-id": callId, "data-state": "running" },
      main, el("div", { class: "call-bar", "aria-hidden": "true" }, bar), details);
    main.addEventListener("click", () => {
      const open = details.hidden;
      details.hidden = !open;
      main.setAttribute("aria-expanded", String(open));
    });
    // Rows in call order (a script's calls are numbered as it makes them,
    // a batch's operations by index), whatever order they start in.
    const after = [...run.rows.keys()].filter((k) => compareIds(k, callId) > 0).sort(compareIds)[0];
    run.list.insertBefore(li, after === undefined ? null : run.rows.get(after).el);
    row = { el: li, bar, status, details, args: li.querySelector(".call-args"), start: timeMs(time), elapsed: null, error: null };
    run.rows.set(callId, row);
    return row;
  }

  callStart(ev) {
    const row = this.row(ev.callId, ev);
    row.start = timeMs(ev.time);
    row.argsValue = ev.args;
    row.args.textContent = summarize(ev.args, ev.truncated);
    this.renderDetails(row);
    row.status.textContent = "…";
    this.scale();
  }

  callEnd(ev) {
    const row = this.row(ev.callId, ev);
    row.elapsed = ev.elapsed_ms || 0;
    if (row.argsValue === undefined) row.start = timeMs(ev.time) - row.elapsed;
    row.el.dataset.state = ev.success ? "ok" : "error";
    row.status.textContent = fmtMs(row.elapsed);
    row.status.prepend(el("span", { class: "mark", "aria-label": ev.success ? "succeeded" : "failed" }, ev.success ? "✓" : "✕"));
    if (ev.success) row.resultValue = ev.result;
    if (ev.error) {
      row.error = ev.error;
      row.el.append(errorBox(ev.error));
    }
    this.renderDetails(row);
    this.scale();
  }

  log(ev) {
    const level = ev.level || "log";
    this.run.logs.append(el("li", { class: `log level-${level}` },
      el("span", { class: "log-level" }, level), el("span", { class: "log-msg" }, ev.message || "")));
  }

  renderDetails(row) {
    const parts = [];
    if (row.argsValue !== undefined) parts.push(el("div", { class: "kv" }, el("span", {}, "args"), el("pre", {}, pretty(row.argsValue))));
    if (row.resultValue !== undefined) parts.push(el("div", { class: "kv" }, el("span", {}, "result"), el("pre", {}, pretty(row.resultValue))));
    row.details.replaceChildren(...parts);
  }

  // scale places every bar on the run's time scale: 0 at the first call's
  // start, 100% at the latest end seen.
  scale() {
    const rows = [...this.run.rows.values()].filter((r) => r.start !== null);
    if (!rows.length) return;
    const t0 = Math.min(...rows.map((r) => r.start));
    const span = Math.max(0.001, ...rows.map((r) => r.start - t0 + (r.elapsed || 0)));
    for (const r of rows) {
      r.bar.style.left = `${((r.start - t0) / span) * 100}%`;
      r.bar.style.width = r.elapsed === null ? "2px" : `max(2px, ${(r.elapsed / span) * 100}%)`;
    }
  }

  end(ev) {
    const run = this.run;
    run.ended = true;
    this.finished.add(run.id);
    const result = ev.result || {};
    const ok = !!ev.success;
    // A run a client stopped (POST /v1/runs/{id}/cancel, or its client went
    // away) did not fail of itself: it says so.
    const preview = "preview" in ev; // a preview run's run_end has one, null when it made nothing
    const state = ok ? (preview ? "previewed" : "succeeded") : (ev.error || {}).code === "canceled" ? "canceled" : "failed";
    run.state = state;
    this.mark(state);
    const calls = run.rows.size;
    run.stats.textContent = `${calls} call${calls === 1 ? "" : "s"} · ${fmtMs(ev.elapsed_ms || 0)}`;
    // Operations of a batch that never started (skipped, or a dependency
    // failed) have no events: the result lists them.
    if (Array.isArray(result.results)) {
      for (const r of result.results) {
        const id = String(r.index);
        if (run.rows.has(id) || r.success) continue;
        const row = this.row(id, { tool: r.tool, label: r.label, time: ev.time });
        row.el.dataset.state = "skipped";
        row.start = null; // not on the time scale
        row.bar.style.width = "0";
        row.status.textContent = "not run";
        if (r.error) row.el.append(errorBox(r.error));
      }
      this.scale();
    }
    const footer = [];
    if (result.summary) {
      const s = result.summary;
      footer.push(el("p", { class: "outcome" }, `${s.successful} of ${s.total} operations succeeded` +
        (s.failed ? ` · ${s.failed} failed` : "") + (s.skipped ? ` · ${s.skipped} skipped` : "") + ` · ${s.executionMode || ""}`));
      for (const w of s.warnings || []) footer.push(el("p", { class: "warning" }, w));
    } else if (ev.error || result.error) {
      const e = result.error || ev.error;
      footer.push(errorBox(e, state === "canceled" ? "Script stopped" : "Script failed"));
    }
    for (const w of result.warnings || []) footer.push(el("p", { class: "warning" }, w));
    if (ev.board && preview) footer.push(el("p", { class: "board-outcome" }, previewOutcome(ev)));
    else if (ev.board) footer.push(el("p", { class: `board-outcome ${ev.board.committed ? "" : "rolled-back"}` }, boardOutcome(ok, ev.board)));
    if ("result" in result && result.result !== undefined && (ok || result.result !== null)) {
      footer.push(el("div", { class: "kv result" }, el("span", {}, "result"), el("pre", {}, pretty(result.result))));
    }
    run.footer.replaceChildren(...footer);
  }

  // stepped marks the run shown as taken back by an undo, or back again by
  // a redo (a board event's undoneRun and redoneRun), from any tab.
  stepped(undone, redone) {
    const run = this.run;
    if (!run || !run.ended) return;
    if (undone === run.id) this.mark("undone");
    else if (redone === run.id) this.mark(run.state);
  }

  // settled marks the preview shown (run runId) applied or discarded.
  settled(runId, state) {
    if (this.run && this.run.id === runId && this.run.ended) this.mark(state);
  }

  // mark shows a state on the run's badge and in its data-state.
  mark(state) {
    const run = this.run;
    run.root.dataset.state = state;
    run.badge.className = `badge ${state}`;
    run.badge.textContent = state;
  }
}

function previewOutcome(ev) {
  if (ev.board.error) return `No preview (${ev.board.error.code}): ${ev.board.error.message}`;
  if (!ev.preview) return "Nothing to preview: the run failed, so it would be rolled back. The board is unchanged.";
  return `Previewed on a copy of version ${ev.preview.baseVersion}: nothing changed yet. Apply or Discard it on the board.`;
}

function boardOutcome(ok, b) {
  // The store refused the commit: the run's work is lost, whatever it did.
  if (b.error) return `Not saved (${b.error.code}): ${b.error.message}`;
  if (b.committed && ok) return `Committed to the board as version ${b.version}: one undo step.`;
  if (b.committed) return `Partial work kept ("atomic" off): board version ${b.version}.`;
  return "Rolled back: the board is as it was before the run.";
}

// errorBox shows an error: its code, message, where (a script's line and
// column), and suggestions ("did you mean …?") for an unknown tool.
function errorBox(e, heading) {
  const box = el("div", { class: "err", role: "note" });
  if (heading) box.append(el("strong", {}, heading + ": "));
  box.append(el("code", { class: "err-code" }, e.code || "error"), " ", el("span", { class: "err-msg" }, e.message || ""));
  if (e.line) box.append(el("span", { class: "err-where" }, ` (line ${e.line}${e.column ? `, column ${e.column}` : ""})`));
  const sugg = e.suggestions || [];
  if (sugg.length) {
    const s = el("div", { class: "suggest" }, "did you mean ");
    sugg.forEach((name, i) => {
      if (i) s.append(i === sugg.length - 1 ? " or " : ", ");
      s.append(el("code", {}, name));
    });
    s.append("?");
    box.append(s);
  }
  return box;
}

// compareIds orders call ids: "2" before "10", "3/1" after "3".
function compareIds(a, b) {
  const x = a.split("/"), y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const m = Number(x[i]), n = Number(y[i]);
    const c = Number.isInteger(m) && Number.isInteger(n) ? m - n : x[i] < y[i] ? -1 : x[i] > y[i] ? 1 : 0;
    if (c) return c;
  }
  return x.length - y.length;
}

// timeMs reads an RFC 3339 time with its fraction to the nanosecond as
// milliseconds (Date.parse would keep only whole milliseconds).
export function timeMs(t) {
  const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(.*)$/.exec(t || "");
  if (!m) return Date.now();
  return Date.parse(m[1] + m[3]) + (m[2] ? parseFloat("0" + m[2]) * 1000 : 0);
}
