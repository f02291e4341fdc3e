// Nested arrays: toLocaleString recursed in Go with no JavaScript frame (fatal stack overflow).
// expect: limit_exceeded
let a = [];
for (let i = 0; i < 5e4; i++) a = [a];
return a.toLocaleString();
