// Errors whose name is another Error, a long chain: toString recursed in Go.
// expect: limit_exceeded
let e = new Error("x");
for (let i = 0; i < 5e4; i++) { const f = new Error("y"); f.name = e; e = f; }
return String(e).length;
