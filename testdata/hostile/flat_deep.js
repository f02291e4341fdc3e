// flat(Infinity) over deeply nested arrays recursed in Go inside one call.
// expect: limit_exceeded
let a = [1];
for (let i = 0; i < 2e4; i++) a = [a];
return a.flat(Infinity).length;
