// A long bind chain called once: goja called bound targets in Go, recursively.
// expect: limit_exceeded
let f = () => 1;
for (let i = 0; i < 1e4; i++) f = f.bind(null);
return f();
