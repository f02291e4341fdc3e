// Errors whose name is another Error, a long chain: toString recursed in Go.
// expect: limit_exceeded
// worker expect: timeout
// worker timeout: 300ms
// worker why: goja's Error toString recurses 50,000 deep in Go, each level copying the name below it: about 3.75 billion characters (6.5 s on an idle 2-core machine) that no count of builtins nested in builtins stops in lean; the deadline ends it and the worker, still inside, is replaced
let e = new Error("x");
for (let i = 0; i < 5e4; i++) { const f = new Error("y"); f.name = e; e = f; }
return String(e).length;
