// Errors whose name is another Error, a long chain: toString recursed in Go.
// expect: limit_exceeded
// worker expect: success
// worker why: goja's Error toString recursing 50,000 deep in Go fits the worker's stack; lean has no count of builtins nested in builtins
let e = new Error("x");
for (let i = 0; i < 5e4; i++) { const f = new Error("y"); f.name = e; e = f; }
return String(e).length;
