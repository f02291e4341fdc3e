// Recursion through a getter and a proxy trap.
// expect: limit_exceeded
const p = new Proxy({}, { get: (t, k, r) => r[k] });
return p.anything;
