// Recursion through a getter (Proxy, its other form, is not available in the sandbox).
// expect: limit_exceeded
const o = { get x() { return this.x; } };
return o.x;
