// The approval dialog: a run whose calls need a person's decision pauses
// and sends approval_required with the set of pending calls; the dialog
// lists them (tool and arguments) with Approve and Deny for each, and
// "Approve all" / "Deny all", and posts the decisions to
// POST /v1/runs/{runId}/approvals. It closes when every call is decided,
// here or in another tab (the calls then end), or when the run ends.

import { el, pretty } from "./util.js";

const DENY_REASON = "denied by a person in the web app";

export class Approvals {
  // post(runId, decisions) answers calls and resolves to the server's
  // reply {status, body}.
  constructor(dialog, post) {
    this.dialog = dialog;
    this.post = post;
    this.sets = new Map(); // runId -> Map(callId -> request)
    this.ended = new Set(); // runs ended: late approval events are stale
    this.asked = new Set(); // runId NUL callId of every call shown: a call is asked once
    this.list = dialog.querySelector(".approval-list");
    this.note = dialog.querySelector(".approval-note");
    this.error = dialog.querySelector(".approval-error");
    dialog.querySelector("[data-action=approve-all]").addEventListener("click", () => this.decideAll(true));
    dialog.querySelector("[data-action=deny-all]").addEventListener("click", () => this.decideAll(false));
    // Escape would hide the dialog and leave the run waiting: keep it.
    dialog.addEventListener("cancel", (e) => e.preventDefault());
  }

  // apply takes a run event (from the run's own stream or the board's).
  apply(ev) {
    switch (ev.type) {
      case "approval_required": {
        if (this.ended.has(ev.runId)) return;
        let set = this.sets.get(ev.runId);
        if (!set) this.sets.set(ev.runId, (set = new Map()));
        for (const a of ev.approvals || []) {
          // The same event may come from both streams, the second after
          // the call was decided.
          const key = `${ev.runId}\u0000${a.callId}`;
          if (this.asked.has(key)) continue;
          this.asked.add(key);
          set.set(a.callId, { ...a, decided: null });
        }
        this.render();
        break;
      }
      case "tool_call_end": {
        // A call that ends was decided (by someone).
        const set = this.sets.get(ev.runId);
        if (set && set.delete(ev.callId)) this.settle(ev.runId);
        break;
      }
      case "run_end":
        this.ended.add(ev.runId);
        this.sets.delete(ev.runId);
        this.render();
        break;
    }
  }

  // current is the run whose set is shown: the oldest with calls pending.
  current() {
    for (const [runId, set] of this.sets) if (set.size) return [runId, set];
    return [null, null];
  }

  settle(runId) {
    const set = this.sets.get(runId);
    if (set && [...set.values()].every((a) => a.decided !== null)) this.sets.delete(runId);
    this.render();
  }

  render() {
    const [runId, set] = this.current();
    if (!runId) {
      if (this.dialog.open) this.dialog.close();
      return;
    }
    this.dialog.dataset.runId = runId;
    const n = set.size;
    this.note.textContent = `${n === 1 ? "One call needs" : `${n} calls need`} your approval before run ${runId} goes on. ${n === 1 ? "It has not" : "None of them has"} run yet.`;
    this.list.replaceChildren(...[...set.values()].map((a) => this.item(runId, a)));
    if (!this.dialog.open) {
      this.error.textContent = "";
      this.dialog.showModal();
    }
  }

  item(runId, a) {
    const ann = a.annotations || {};
    const tags = [];
    if (ann.destructiveHint !== false && !ann.readOnlyHint) tags.push(el("span", { class: "tag danger" }, "destructive"));
    if (ann.readOnlyHint) tags.push(el("span", { class: "tag" }, "read-only"));
    const decided = a.decided === null ? "" : a.decided ? "approved" : "denied";
    const approve = el("button", { type: "button", class: "ok", "aria-label": `Approve call ${a.callId}` }, "Approve");
    const deny = el("button", { type: "button", class: "danger", "aria-label": `Deny call ${a.callId}` }, "Deny");
    approve.addEventListener("click", () => this.decide(runId, [a.callId], true));
    deny.addEventListener("click", () => this.decide(runId, [a.callId], false));
    return el("li", { class: "approval", "data-call-id": a.callId, "data-decided": decided },
      el("div", { class: "approval-head" },
        el("code", { class: "call-tool" }, a.tool), el("span", { class: "muted" }, `call #${a.callId}`), ...tags,
        el("span", { class: "approval-buttons" }, ...(decided ? [el("span", { class: `decided ${decided}` }, decided)] : [approve, deny]))),
      el("pre", { class: "approval-args" }, a.truncated ? String(a.args) + "…" : pretty(a.args)));
  }

  decideAll(approved) {
    const [runId, set] = this.current();
    if (!runId) return;
    const ids = [...set.values()].filter((a) => a.decided === null).map((a) => a.callId);
    if (ids.length) this.decide(runId, ids, approved);
  }

  async decide(runId, callIds, approved) {
    const set = this.sets.get(runId);
    if (!set) return;
    for (const id of callIds) if (set.has(id)) set.get(id).decided = approved;
    this.render();
    const decisions = callIds.map((callId) => (approved ? { callId, approved } : { callId, approved, reason: DENY_REASON }));
    let reply;
    try {
      reply = await this.post(runId, decisions);
    } catch (e) {
      reply = { status: 0, body: { error: { message: String(e) } } };
    }
    if (reply.status === 200) {
      // Every call decided: the run goes on. Otherwise the rest wait here.
      if (reply.body && Array.isArray(reply.body.pending) && reply.body.pending.length === 0) {
        this.sets.delete(runId);
        this.render();
      }
      return;
    }
    if (reply.status === 404) {
      // Nothing pending for the run any more: decided elsewhere, or timed out.
      this.sets.delete(runId);
      this.render();
      return;
    }
    // Refused (e.g. some call was decided meanwhile): let the person retry.
    for (const id of callIds) if (set.has(id)) set.get(id).decided = null;
    this.render();
    this.error.textContent = (reply.body && reply.body.error && reply.body.error.message) || `HTTP ${reply.status}`;
  }
}
