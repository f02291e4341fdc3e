// Small helpers shared by the app's modules.

// el makes an element: el("div", {class: "x", "aria-label": "y"}, child, "text").
// Attributes are set as attributes (never as markup); children may be
// elements, strings or empty strings (skipped).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === "" || c === null || c === undefined) continue;
    e.append(c);
  }
  return e;
}

// fmtMs formats a duration in milliseconds for people.
export function fmtMs(ms) {
  if (!(ms >= 0)) return "";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 100) return `${ms.toFixed(1)} ms`;
  if (ms < 10000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

// summarize shows a call's arguments in one short line:
// type: "ellipse", text: "Forgot password", x: 100, …
export function summarize(args, truncated) {
  if (args === undefined || args === null) return "";
  if (truncated) return "(arguments cut: too long)";
  if (typeof args !== "object" || Array.isArray(args)) return short(args, 60);
  const parts = Object.entries(args).map(([k, v]) => `${k}: ${short(v, 28)}`);
  const s = parts.join(", ");
  return s.length > 110 ? s.slice(0, 109) + "…" : s;
}

function short(v, max) {
  let s;
  if (v === null) s = "null";
  else if (Array.isArray(v)) s = `[${v.length}]`;
  else if (typeof v === "object") s = "$ref" in v ? `$ref ${v.$ref}` : "{…}";
  else s = JSON.stringify(v);
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

// pretty is a value as indented JSON, cut at 20,000 characters.
export function pretty(v) {
  const s = JSON.stringify(v, null, 2) ?? "undefined";
  return s.length > 20000 ? s.slice(0, 20000) + "\n…" : s;
}

// ago is how long ago a time was, for people.
export function ago(t) {
  const s = (Date.now() - Date.parse(t)) / 1000;
  if (!(s >= 0) || s < 45) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}
