// Nested arrays through a template literal and + "".
// expect: limit_exceeded
// worker expect: timeout
// worker timeout: 300ms
// worker why: goja's Array toString recurses 50,000 deep in Go, in time quadratic in the depth (4.4 s on an idle 2-core machine) that no count of builtins nested in builtins stops in lean; the deadline ends it and the worker, still inside, is replaced
let a = [];
for (let i = 0; i < 5e4; i++) a = [a];
return `${a}` + "";
