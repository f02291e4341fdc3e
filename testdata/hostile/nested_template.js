// Nested arrays through a template literal and + "".
// expect: limit_exceeded
// worker expect: success
// worker why: goja's Array toString recursing 50,000 deep in Go fits the worker's stack; lean has no count of builtins nested in builtins
let a = [];
for (let i = 0; i < 5e4; i++) a = [a];
return `${a}` + "";
