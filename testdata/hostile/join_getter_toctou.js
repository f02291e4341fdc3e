// Elements whose getters answer short first and long after: join reads each once (a snapshot), so the builtin joins what was counted.
// expect: success
const big = "x".repeat(1e6);
const a = [];
for (let i = 0; i < 1000; i++) { let n = 0; Object.defineProperty(a, i, { get() { return n++ === 0 ? "" : big; } }); }
return a.join("").length;
