// JSON.stringify recursed natively through nesting deeper than JSON.parse accepts.
// expect: runtime_error
// worker expect: timeout
// worker timeout: 300ms
// worker why: goja's JSON.stringify recurses 20,000 deep in Go, in time quadratic in the depth (its cycle check; 3.9 s on an idle 2-core machine) that no depth-counting replacer stops in lean; the deadline ends it and the worker, still inside, is replaced
let a = [];
for (let i = 0; i < 2e4; i++) a = [a];
return JSON.stringify(a).length;
