// flat(Infinity) over deeply nested arrays recursed in Go inside one call.
// expect: limit_exceeded
// worker expect: success
// worker why: goja's flat recursing 20,000 deep in Go fits the worker's stack; lean has no count of builtins nested in builtins
let a = [1];
for (let i = 0; i < 2e4; i++) a = [a];
return a.flat(Infinity).length;
