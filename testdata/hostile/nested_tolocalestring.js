// Nested arrays: toLocaleString recursed in Go with no JavaScript frame (fatal stack overflow).
// expect: limit_exceeded
// worker expect: success
// worker why: goja's toLocaleString recursing 50,000 deep in Go fits the worker's stack; lean has no count of builtins nested in builtins
let a = [];
for (let i = 0; i < 5e4; i++) a = [a];
return a.toLocaleString();
