// JSON.stringify recursed natively through nesting deeper than JSON.parse accepts.
// expect: runtime_error
// worker expect: success
// worker why: goja's JSON.stringify recursing 20,000 deep in Go fits the worker's stack; lean has no depth-counting replacer
let a = [];
for (let i = 0; i < 2e4; i++) a = [a];
return JSON.stringify(a).length;
